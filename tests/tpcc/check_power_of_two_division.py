#!/usr/bin/env python3
"""Checks integer division and remainder by a power of two: at -O2 they are shifts and masks (no udiv,
urem or abs on the scalar slot, no long division of vectors), and the results are C's (quotients rounded
toward zero, remainders with the dividend's sign), against the same arithmetic done here for scalars
(a run-time parameter) and vectors, over negative numbers, zero and the extremes.

usage: check_power_of_two_division.py BUILD/bin
"""
import os
import re
import sys
import tempfile

from kernel_checks import KernelChecks

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples"))
from run_samples import read_npy, write_npy  # noqa: E402  (the samples' .npy helpers)

# Row r of `out` holds result r: from the scalar parameter a (splat), then from the vector x.
SOURCE = r"""
void main(tensor x, tensor out, int a)
{
    int5 c = 0;
    const int s[6] = {a / 4, a % 8, (int)((unsigned)a / 16u), (int)((unsigned)a % 32u), a / 1073741824,
                      a % 2};
    for (int r = 0; r < 6; r++) {
        c[1] = r;
        v_i32_st_tnsr(c, out, (int64)s[r]);
    }
    c[1] = 0;
    const int64 v = v_i32_ld_tnsr_b(c, x);
    const int64 w[3] = {v / 4, v % 16, v / 2};
    for (int r = 0; r < 3; r++) {
        c[1] = 6 + r;
        v_i32_st_tnsr(c, out, w[r]);
    }
}
"""

INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
SCALARS = [0, 1, 3, 4, 5, 7, -1, -3, -4, -5, -7, -8, 1000003, -1000003, INT_MAX, INT_MIN, INT_MIN + 1]


def c_div(a, d):
    q = abs(a) // abs(d)
    return q if (a < 0) == (d < 0) else -q


def c_rem(a, d):
    return a - c_div(a, d) * d


def wrap(v):
    return (v + (1 << 31)) % (1 << 32) - (1 << 31)


def expected_scalars(a):
    u = a % (1 << 32)
    return [c_div(a, 4), c_rem(a, 8), wrap(u // 16), wrap(u % 32), c_div(a, 1 << 30), c_rem(a, 2)]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        k = KernelChecks(sys.argv[1], tmp)
        obj, text = k.compile(SOURCE)
        dividers = re.findall(r"\b(udiv|urem|abs)\.", text)
        k.check(not dividers, "no divider or abs in the object (found: %s)" % (", ".join(sorted(set(dividers))) or "none"))
        k.check(text.count("\n") < 400, "no long division of vectors (%d lines of disassembly)" % text.count("\n"))

        x = [SCALARS[i % len(SCALARS)] + (i // len(SCALARS)) * 7919 * (-1) ** i for i in range(64)]
        x = [wrap(v) for v in x]
        write_npy(k.path("x.npy"), "<i4", (1, 64), x)
        wrong = []
        for a in SCALARS:
            out = k.path("out.npy")
            k.simulate(obj, ["--cores", "1", "--index-space", "1,1,1,1,1", "-t", k.path("x.npy"), out + "=i32[9,64]",
                             "-s", str(a)])
            got = read_npy(out)[1]
            rows = [got[r * 64:(r + 1) * 64] for r in range(9)]
            want = expected_scalars(a)
            for r in range(6):
                if any(v != want[r] for v in rows[r]):
                    wrong.append("a = %d, result %d: %d, expected %d" % (a, r, rows[r][0], want[r]))
            for r, f in enumerate([lambda v: c_div(v, 4), lambda v: c_rem(v, 16), lambda v: c_div(v, 2)]):
                for i, v in enumerate(x):
                    if rows[6 + r][i] != f(v):
                        wrong.append("x = %d, vector result %d: %d, expected %d" % (v, r, rows[6 + r][i], f(v)))
        k.check(not wrong, "quotients and remainders as C gives them%s" % ("" if not wrong else ": " + "; ".join(wrong[:5])))
        return k.finish()


if __name__ == "__main__":
    sys.exit(main())
