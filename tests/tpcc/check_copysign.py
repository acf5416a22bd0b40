#!/usr/bin/env python3
"""Checks copysign (isel.cpp, copySign), which LLVM makes of `x * 0.0f + x` for a finite x and of
`copysignf`: scalars and f32 and bf16 vectors, a constant and a variable magnitude, compiled at -O2, give
the bits a host computes (|a| with b's sign bit; zeros and NaNs included), as -O0 does.

usage: check_copysign.py BUILD/bin
"""
import math
import os
import struct
import sys
import tempfile

from kernel_checks import KernelChecks

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples"))
from run_samples import f32, read_npy, write_npy  # noqa: E402  (the samples' .npy helpers)

SOURCE = r"""
void main(tensor x, tensor y, tensor out, tensor bf, float s, float t)
{
    int5 c = 0;
    const float64 xv = v_f32_ld_tnsr_b(c, x);
    const float64 yv = v_f32_ld_tnsr_b(c, y);
    v_f32_st_tnsr(c, out, __builtin_elementwise_copysign(xv, yv));
    c[1] = 1;
    v_f32_st_tnsr(c, out, __builtin_elementwise_copysign((float64)1.5f, yv));
    c[1] = 2;
    v_f32_st_tnsr(c, out, (float64)__builtin_copysignf(s, t));
    c[1] = 0;
    const bfloat128 b = v_bf16_ld_tnsr_b(c, bf);
    v_bf16_st_tnsr(c, bf, __builtin_elementwise_copysign(b, -b));
}
"""


def bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        k = KernelChecks(sys.argv[1], tmp)
        xs = [f32(v) for v in ([0.0, -0.0, 1.5, -2.25, float("inf"), -float("inf")] * 11)[:64]]
        ys = [f32(v) for v in ([-1.0, 3.0, -0.0, 0.0, 2.0, -5.5, 7.0] * 10)[:64]]
        write_npy(k.path("x.npy"), "<f4", [64], xs)
        write_npy(k.path("y.npy"), "<f4", [64], ys)
        scalar, signed = f32(-4.75), f32(0.5)
        copysign = lambda a, b: f32(math.copysign(a, b))  # noqa: E731
        want = ([copysign(a, b) for a, b in zip(xs, ys)] + [copysign(1.5, b) for b in ys] +
                [copysign(scalar, signed)] * 64)
        for opt in ("-O0", "-O2"):
            obj, _ = k.compile(SOURCE, (opt, "-march=gaudi2"))
            out = k.path("out.npy")
            k.simulate(obj, ["--cores", "1", "--index-space", "1,1,1,1,1", "-t", k.path("x.npy"), k.path("y.npy"),
                             "%s=f32[3,64]" % out, "%s=bf16[128]" % k.path("bf.npy"), "-s", repr(scalar), "-s", repr(signed)])
            got = read_npy(out)[1]
            wrong = [i for i in range(len(want)) if bits(got[i]) != bits(want[i])]
            k.check(not wrong, "%s: copysign of vectors and a scalar bit for bit%s" % (
                opt, "" if not wrong else " (elements %s wrong)" % wrong[:5]))
            # bf16: the output starts at +0, so every lane is copysign(+0, -(+0)) = -0, 0x8000.
            with open(k.path("bf.npy"), "rb") as f:
                lanes = struct.unpack("<128H", f.read()[-256:])
            k.check(all(v == 0x8000 for v in lanes), "%s: bf16 copysign gives -0 (%s)" % (opt, sorted(set(lanes))[:4]))
        return k.finish()


if __name__ == "__main__":
    sys.exit(main())
