#!/usr/bin/env python3
"""Checks that the modulo scheduler staggers independent vector chains when, side by side, their registers
do not fit (modsched.cpp, vectorChainRanks and scheduleAt's `chains`). Ordered by height alone, the four
unrolled copies of a long computation advance together, each at the same point of its chain in the same
cycle, and the values they hold peak together above the 40 vector registers at every II near the slot
bound; the loop then runs without overlap. Scheduled one chain after another, the peaks spread over II and
the loop overlaps its iterations. The kernel below is a division followed by special cases chosen from its
inputs, which stay live through the quotient's chain (the library's division was once written so), four
per iteration.

Measured: simulated cycles (deterministic) with the staggering and with it turned off
(TPC_MODSCHED_NO_STAGGER, a debugging switch), and the outputs bit for bit against the native reference.

Further tries leave short shared starts, then also short shared ends, out of the chains: the library's
adamw in bf16 loads a gradient vector and converts it into two f32 halves, which join its two updates
into one chain; gelu bf16 also packs its two halves back into one vector before the store. Checked on the
library's own sources: every modulo-scheduled loop's II (TPC_DEBUG_MODSCHED) within 8% of its slot bound,
where without those tries adamw's is 14% above and gelu's tanh form 15%.

usage: check_modulo_stagger.py BUILD/bin
"""
import os
import re
import subprocess
import sys
import tempfile

from kernel_checks import KernelChecks, run

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples"))
from run_samples import f32, read_npy, write_npy  # noqa: E402  (the samples' .npy helpers)

KERNEL = r"""// x / y, then the special cases chosen at the end from the inputs, which stay live through the
// quotient's long chain.
static inline float64 divide(float64 x, float64 y) {
  float64 r = v_div_f32(x, y);
  const float64 ax = v_f32_abs_b(x), ay = v_f32_abs_b(y);
  const float64 sign = as_float64((as_int64(x) ^ as_int64(y)) & (int)0x80000000);
  const float64 sinf = as_float64(as_int64(sign) | 0x7f800000);
  r = v_f32_sel_eq_f32_b(ay, 0.0f, sinf, r);
  r = v_f32_sel_eq_f32_b(ax, 0.0f, sign, r);
  r = v_f32_sel_eq_f32_b(ay, __builtin_inff(), sign, r);
  r = v_f32_sel_eq_f32_b(ax, __builtin_inff(), sinf, r);
  r = v_f32_sel_neq_f32_b(x, x, x, r);
  return v_f32_sel_neq_f32_b(y, y, y, r);
}

void main(tensor x, tensor y, tensor out, int n)
{
  int5 c = 0;
  #pragma unroll 4
  for (int i = 0; i < n; i += 64) {
    c[0] = i;
    v_f32_st_tnsr(c, out, divide(v_f32_ld_tnsr_b(c, x), v_f32_ld_tnsr_b(c, y)));
  }
}
"""

N = 64 * 64


def cycles(k, obj, out, native=False):
    text = run([k.tool("tpc-sim"), obj, "--cores", "1", "--index-space", "1,1,1,1,1", "-t", k.path("x.npy"),
                k.path("y.npy"), "%s=f32[%d]" % (out, N), "-s", str(N)] + (["--native"] if native else []))
    m = re.search(r"cycles (\d+)", text)
    return int(m.group(1)) if m else None


def main():
    with tempfile.TemporaryDirectory() as tmp:
        k = KernelChecks(sys.argv[1], tmp)
        xs = [f32(-4.0 + 8.0 * ((i * 37) % 1009) / 1009.0) for i in range(N)]
        ys = [f32(0.5 + 3.5 * ((i * 53) % 997) / 997.0) for i in range(N)]
        write_npy(k.path("x.npy"), "<f4", [N], xs)
        write_npy(k.path("y.npy"), "<f4", [N], ys)
        staggered, _ = k.compile(KERNEL)
        os.rename(staggered, k.path("staggered.o"))
        os.environ["TPC_MODSCHED_NO_STAGGER"] = "1"
        try:
            plain, _ = k.compile(KERNEL)
        finally:
            del os.environ["TPC_MODSCHED_NO_STAGGER"]
        with_stagger = cycles(k, k.path("staggered.o"), k.path("staggered.npy"))
        without = cycles(k, plain, k.path("plain.npy"))
        cycles(k, k.path("staggered.o"), k.path("native.npy"), native=True)
        k.check(with_stagger is not None and without is not None and with_stagger * 4 < without * 3,
                "chains one after another: %s cycles, side by side %s (at most three quarters)" % (with_stagger, without))
        want = read_npy(k.path("native.npy"))[1]
        for name in ("staggered", "plain"):
            got = read_npy(k.path(name + ".npy"))[1]
            wrong = [i for i in range(N) if got[i] != want[i] and not (got[i] != got[i] and want[i] != want[i])]
            k.check(not wrong, "%s: the quotients bit for bit as the native reference%s"
                    % (name, "" if not wrong else " (elements %s wrong)" % wrong[:5]))
        close = [i for i in range(N) if abs(want[i] - xs[i] / ys[i]) > 2 ** -21 * abs(xs[i] / ys[i])]
        k.check(not close, "the native quotients within 2^-21 of x / y%s" % ("" if not close else " (elements %s)" % close[:5]))
        kernels = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kernel-lib", "kernels")
        env = dict(os.environ, TPC_DEBUG_MODSCHED="1")
        for name, source, defines in (("adamw bf16", "optimizer.c", ["-DDT_BF16", "-DOP_ADAMW"]),
                                      ("gelu bf16", "unary.c", ["-DDT_BF16", "-DOP_GELU"])):
            p = subprocess.run([k.tool("tpc-clang"), "-O2", "-march=gaudi2", "-I", kernels] + defines +
                               [os.path.join(kernels, source), "-c", "-o", k.path("lib.o")],
                               capture_output=True, text=True, env=env)
            loops = re.findall(r"modulo schedule of block \d+: \d+ instructions, II (\d+) \(slot bound (\d+)\)", p.stderr)
            k.check(p.returncode == 0 and loops and all(int(ii) <= 1.08 * int(bound) for ii, bound in loops),
                    "%s's loops: II and slot bound %s (each II within 8%% of its bound)" % (name, loops))
        return k.finish()


if __name__ == "__main__":
    sys.exit(main())
