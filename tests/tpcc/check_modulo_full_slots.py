#!/usr/bin/env python3
"""Checks that the modulo scheduler packs a loop whose load, VPU and scalar slots are all full: 16
independent rows side by side, each point two f32 loads (at c and c + 64: one coordinate add), a
conversion of the pair to bf16 and a store, and each row's coordinate step (the narrowing casts' band of
rows, kernels/cast.c). 32 loads, 32 VPU and 32 scalar instructions an iteration. Ordered by height, the
iterative scheduler starts every row's chain at once and leaves holes it cannot fill (II 36); the swing
scheduler finds none either. Scheduled one row after another (modsched.cpp, `dataComponentRanks`, tried
when both fail at an II), each row's chain takes the rows of the reservation table the previous one left:
II 33.

Measured: the steady-state simulated cycles per iteration (deterministic; two trip counts, the
difference) against the loads per iteration, and the outputs bit for bit against the native reference and
against the host's rounding to nearest even, at trip counts that run the fallback loop, the shortest
pipelined loop and a long one.

usage: check_modulo_full_slots.py BUILD/bin
"""
import json
import os
import sys
import tempfile

from kernel_checks import KernelChecks, run

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples"))
from run_samples import bf16_bits, f32, read_npy, write_npy  # noqa: E402  (the samples' .npy helpers)

ROWS = 16
KERNEL = r"""void main(tensor in, tensor out, int points)
{
  const int5 nextRow = {0, 1, 0, 0, 0}, step = {128, 0, 0, 0, 0};
  int5 at[%(rows)d];
  at[0] = 0;
#pragma unroll
  for (int k = 1; k < %(rows)d; k++) at[k] = at[k - 1] + nextRow;
  for (int p = 0; p < points; p++) {
#pragma unroll
    for (int k = 0; k < %(rows)d; k++) {
      int5 c = at[k];
      float128 v;
      v.v1 = v_f32_ld_tnsr_b(c, in);
      c[0] += 64;
      v.v2 = v_f32_ld_tnsr_b(c, in);
      c[0] -= 64;
      v_bf16_st_tnsr(c, out, convert_float128_to_bfloat128(v, SW_LINEAR | SW_RHNE));
    }
#pragma unroll
    for (int k = 0; k < %(rows)d; k++) at[k] += step;
  }
}
""" % {"rows": ROWS}


def simulate(k, obj, points, most, name, native=False):
    """Cycles and load instructions of one run over `points` points a row, and the output's file."""
    out, stats = k.path(name + ".npy"), k.path(name + ".json")
    run([k.tool("tpc-sim"), obj, "--cores", "1", "--index-space", "1,1,1,1,1", "-t", k.path("x.npy"),
         "%s=bf16[%d,%d]" % (out, ROWS, 128 * most), "-s", str(points)] + (["--native"] if native else ["--json", stats]))
    if native:
        return None, None, out
    core = json.load(open(stats))["cores"][0]
    return core["cycles"], round(core["slot_utilization"]["load"] * core["bundles"]), out


def main():
    with tempfile.TemporaryDirectory() as tmp:
        k = KernelChecks(sys.argv[1], tmp)
        most = 40
        width = 128 * most
        # Values whose bf16 rounding goes up, down and to even: 16 low bits of every kind.
        xs = [f32((-1) ** i * (1.0 + ((i * 2654435761) % 65536) / 65536.0) * 2.0 ** ((i % 11) - 5))
              for i in range(ROWS * width)]
        write_npy(k.path("x.npy"), "<f4", [ROWS, width], xs)
        obj, _ = k.compile(KERNEL)
        c1, loads1, _ = simulate(k, obj, 12, most, "short")
        c2, loads2, _ = simulate(k, obj, most, most, "long")
        per_iteration, bound = (c2 - c1) / (most - 12), (loads2 - loads1) / (most - 12)
        k.check(per_iteration <= 1.05 * bound,
                "steady state %.1f cycles per iteration, load bound %.1f (within 5%%)" % (per_iteration, bound))
        for points in (1, 2, 3, most):
            _, _, got_file = simulate(k, obj, points, most, "sim%d" % points)
            _, _, want_file = simulate(k, obj, points, most, "native%d" % points, native=True)
            got, want = read_npy(got_file)[1], read_npy(want_file)[1]
            wrong = [i for i in range(ROWS * width) if got[i] != want[i]]
            k.check(not wrong, "%d points a row: bit for bit as the native reference%s"
                    % (points, "" if not wrong else " (elements %s wrong)" % wrong[:5]))
            expected = [bf16_bits(xs[i]) if i % width < 128 * points else 0 for i in range(ROWS * width)]
            wrong = [i for i in range(ROWS * width) if got[i] != expected[i]]
            k.check(not wrong, "%d points a row: each element the host's f32 rounded to nearest even bf16, the "
                    "rest untouched%s" % (points, "" if not wrong else " (elements %s wrong)" % wrong[:5]))
        return k.finish()


if __name__ == "__main__":
    sys.exit(main())
