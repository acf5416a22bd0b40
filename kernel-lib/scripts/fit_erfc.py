#!/usr/bin/env python3
"""Fits the polynomials of kernel-lib/kernels/gelu_math.h: erf(z)/z in powers of z^2 for z < 0.5, and
g(z) = erfc(z) * exp(z^2) on [0.5, 10) in four pieces, each in powers of (z - the piece's middle).

Interpolation at Chebyshev nodes in double precision (Python's math.erf and math.erfc), coefficients rounded
to f32; prints the C initializers and each piece's error, evaluated with f32 rounding at every step.

usage: fit_erfc.py
"""
import math
import struct


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def solve(a, y):
    n = len(y)
    m = [row[:] + [v] for row, v in zip(a, y)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(m[r][i]))
        m[i], m[p] = m[p], m[i]
        for r in range(n):
            if r != i:
                f = m[r][i] / m[i][i]
                for k in range(i, n + 1):
                    m[r][k] -= f * m[i][k]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(f, lo, hi, n, center):
    xs = [(lo + hi) / 2 + (hi - lo) / 2 * math.cos(math.pi * (k + 0.5) / n) for k in range(n)]
    return [f32(c) for c in solve([[(x - center) ** j for j in range(n)] for x in xs], [f(x) for x in xs])]


def horner(coefficients, t):
    v = 0.0
    for c in reversed(coefficients):
        v = f32(v * t + c)  # one rounding per step, as v_f32_mac_b
    return v


def erfc_scaled(z):
    return math.erfc(z) * math.exp(z * z)


def main():
    small = fit(lambda s: math.erf(math.sqrt(s)) / math.sqrt(s) if s > 0 else 2 / math.sqrt(math.pi), 0, 0.25, 7, 0)
    worst = max(abs(horner(small, f32(z * z)) * z - math.erf(z)) / math.erf(z)
                for z in (0.5 * i / 4000 for i in range(1, 4001)))
    print("// erf(z) / z = P(z^2), z < 0.5: max error %.2f ulp" % (worst / 2 ** -24))
    print("#define GELU_ERF_SMALL {%s}" % ", ".join("%.9ef" % c for c in small))
    for k, (lo, hi, n) in enumerate([(0.5, 1.5, 10), (1.5, 3.0, 10), (3.0, 6.0, 10), (6.0, 10.0, 8)]):
        mid = (lo + hi) / 2
        c = fit(erfc_scaled, lo, hi, n, mid)
        worst = max(abs(horner(c, f32(z - mid)) - erfc_scaled(z)) / erfc_scaled(z)
                    for z in (lo + (hi - lo) * i / 4000 for i in range(4001)))
        print("// erfc(z) exp(z^2) on [%g, %g), in powers of z - %g: max error %.2f ulp" % (lo, hi, mid, worst / 2 ** -24))
        print("#define GELU_ERFC_%d {%s}" % (k, ", ".join("%.9ef" % v for v in c)))


if __name__ == "__main__":
    main()
