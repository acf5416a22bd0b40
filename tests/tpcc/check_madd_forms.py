#!/usr/bin/env python3
"""Checks the operations that compile to madd (a * b + c, which reads c where mac updates it in place and
takes a scalar or a constant for c where sub needs a vector first):
- a vector mac whose accumulator is still needed, or is a scalar (isel_intrinsics.cpp): mac would need a
  copy of the first and a broadcast of the second, one VPU instruction each. A running sum, whose
  accumulator dies at the mac, stays a mac (in place, one register; at -O2, where it lives in a register).
- c - x on float vectors with c a constant or a scalar (isel.cpp): madd(x, -1, c), where sub's first
  source must be a vector register.
Counted in the disassembly; the results bit for bit against the host (a fused multiply-add rounded once, as
the core's f32 mac and madd both are; c - x rounded once), at -O0 and -O2.

usage: check_mac_as_madd.py BUILD/bin
"""
import os
import re
import sys
import tempfile

from check_unroll_and_jam import fused
from kernel_checks import KernelChecks

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples"))
from run_samples import f32, read_npy, write_npy  # noqa: E402  (the samples' .npy helpers)

LIVE = r"""
void main(tensor x, tensor acc, tensor kept, tensor withScalar, tensor scaled, float bias)
{
    int5 c = 0;
    const float64 xv = v_f32_ld_tnsr_b(c, x);
    const float64 av = v_f32_ld_tnsr_b(c, acc);
    v_f32_st_tnsr(c, kept, v_f32_mac_b(xv, 1.5f, av));
    v_f32_st_tnsr(c, withScalar, v_f32_mac_b(xv, 0.25f, (float64)bias));
    v_f32_st_tnsr(c, scaled, av * 3.0f);
}
"""

RUNNING = r"""
void main(tensor x, tensor out, int n)
{
    int5 c = 0;
    float64 s = 0.5f;
    for (int i = 0; i < n * 64; i += 64) {
        c[0] = i;
        const float64 v = v_f32_ld_tnsr_b(c, x);
        s = v_f32_mac_b(v, v, s);
    }
    c[0] = 0;
    v_f32_st_tnsr(c, out, s);
}
"""

SUBTRACT = r"""
void main(tensor x, tensor fromConstant, tensor fromScalar, tensor bf, float s)
{
    int5 c = 0;
    const float64 xv = v_f32_ld_tnsr_b(c, x);
    v_f32_st_tnsr(c, fromConstant, 1.5f - xv);
    v_f32_st_tnsr(c, fromScalar, s - xv);
    v_bf16_st_tnsr(c, bf, (bfloat128)2.0 - v_bf16_ld_tnsr_b(c, bf));
}
"""

BIAS = f32(-0.3)


def vpu_ops(text):
    """The VPU slot's instructions (the third of a bundle's four) of the disassembly."""
    ops = []
    for line in text.splitlines():
        parts = line.split(";")
        if len(parts) >= 4:
            op = parts[2].strip()
            if op and op != "nop":
                ops.append(op)
    return ops


def main():
    with tempfile.TemporaryDirectory() as tmp:
        k = KernelChecks(sys.argv[1], tmp)
        xs = [f32(0.1 + 0.37 * ((i * 11) % 23)) for i in range(8 * 64)]
        accs = [f32(-2.0 + 0.29 * ((i * 5) % 17)) for i in range(64)]
        write_npy(k.path("x.npy"), "<f4", [8 * 64], xs)
        write_npy(k.path("acc.npy"), "<f4", [64], accs)
        for opt in ("-O0", "-O2"):
            obj, text = k.compile(LIVE, (opt, "-march=gaudi2"))
            ops = vpu_ops(text)
            moves = [op for op in ops if re.match(r"mov\.\S+ v\d+", op)]
            k.check(not moves and sum(op.startswith("madd") for op in ops) == 2,
                    "%s: a live and a scalar accumulator as two madd, no vector moves (VPU: %s)" % (opt, "; ".join(ops)))
            outs = {name: k.path(name + ".npy") for name in ("kept", "withScalar", "scaled")}
            outputs = ["%s=f32[64]" % outs[n] for n in ("kept", "withScalar", "scaled")]
            k.simulate(obj, ["--cores", "1", "--index-space", "1,1,1,1,1", "-t", k.path("x.npy"), k.path("acc.npy")]
                       + outputs + ["-s", repr(BIAS)])
            want = {"kept": [fused(a, x, 1.5) for x, a in zip(xs, accs)],
                    "withScalar": [fused(BIAS, x, 0.25) for x in xs[:64]],
                    "scaled": [f32(a * 3.0) for a in accs]}
            for name, path in outs.items():
                got = read_npy(path)[1]
                wrong = [i for i in range(64) if got[i] != want[name][i]]
                k.check(not wrong, "%s: %s bit for bit%s" % (opt, name, "" if not wrong else " (lanes %s wrong)" % wrong[:5]))

            obj, text = k.compile(SUBTRACT, (opt, "-march=gaudi2"))
            ops = vpu_ops(text)
            moves = [op for op in ops if re.match(r"mov\.\S+ v\d+", op)]
            k.check(not moves and sum(op.startswith("madd") for op in ops) == 3 and not any(op.startswith("sub") for op in ops),
                    "%s: constant and scalar minus a vector as madd, no vector moves (VPU: %s)" % (opt, "; ".join(ops)))
            outs = [k.path(name + ".npy") for name in ("fromConstant", "fromScalar", "bf")]
            k.simulate(obj, ["--cores", "1", "--index-space", "1,1,1,1,1", "-t", k.path("x.npy"), "%s=f32[64]" % outs[0],
                             "%s=f32[64]" % outs[1], "%s=bf16[128]" % outs[2], "-s", repr(BIAS)])
            for path, want in ((outs[0], [f32(1.5 - x) for x in xs[:64]]), (outs[1], [f32(BIAS - x) for x in xs[:64]])):
                got = read_npy(path)[1]
                wrong = [i for i in range(64) if got[i] != want[i]]
                k.check(not wrong, "%s: %s bit for bit%s" % (opt, os.path.basename(path), "" if not wrong else " (lanes %s wrong)" % wrong[:5]))

            obj, text = k.compile(RUNNING, (opt, "-march=gaudi2"))
            ops = vpu_ops(text)
            if opt == "-O2":  # (at -O0 the sum lives in memory between statements)
                k.check(any(op.startswith("mac") for op in ops) and not any(op.startswith("madd") for op in ops),
                        "%s: a running sum stays a mac (VPU: %s)" % (opt, "; ".join(sorted(set(o.split()[0] for o in ops)))))
            k.simulate(obj, ["--cores", "1", "--index-space", "1,1,1,1,1", "-t", k.path("x.npy"),
                             "%s=f32[64]" % k.path("sum.npy"), "-s", "8"])
            got = read_npy(k.path("sum.npy"))[1]
            want = []
            for lane in range(64):
                s = f32(0.5)
                for i in range(8):
                    v = xs[64 * i + lane]
                    s = fused(s, v, v)
                want.append(s)
            wrong = [i for i in range(64) if got[i] != want[i]]
            k.check(not wrong, "%s: the running sum bit for bit%s" % (opt, "" if not wrong else " (lanes %s wrong)" % wrong[:5]))
        return k.finish()


if __name__ == "__main__":
    sys.exit(main())
