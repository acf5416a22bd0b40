#!/usr/bin/env python3
"""Checks that the modulo scheduler overlaps a loop whose values live long: a vector's products by 43
constants, summed in a strict chain of adds in which each shared product is read twice, at steps k and
42 - k. Ordered by height, the iterative scheduler makes every product early and keeps up to 80 vectors
alive; three changes together overlap the loop near its slot bound:

- when the registers do not fit, a swing schedule is tried whose bottom-up order follows each
  instruction's latest start (swing_schedule.cpp, `shortLives`): an operand made for one late user is
  placed next to it;
- recurrences with room to spare (the load's and the store's coordinates) are ordered with the rest, not
  placed first: placed first, they pin both ends of the chain of adds with no slack;
- the fallback loop (for too few iterations to fill the pipeline) takes the schedule's order when program
  order, all products first, needs more registers than the core has (modsched.cpp, `fallbackBody`).

Measured: the steady-state simulated cycles per vector (deterministic; two trip counts, the difference)
against the VPU instructions per vector, and the outputs bit for bit against the native reference at
trip counts that run the fallback loop, the shortest pipelined loop and a long one.

usage: check_modulo_long_lives.py BUILD/bin
"""
import json
import os
import sys
import tempfile

from kernel_checks import KernelChecks, run

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples"))
from run_samples import f32, read_npy, write_npy  # noqa: E402  (the samples' .npy helpers)

TERMS = 43
KERNEL = r"""void main(tensor x, tensor out, int n)
{
  int5 c = 0;
  for (int i = 0; i < n; i += 64) {
    c[0] = i;
    float64 v = v_f32_ld_tnsr_b(c, x);
    float64 t[%(terms)d];
#pragma unroll
    for (int k = 0; k < %(terms)d; k++) t[k] = v * (float)(k + 2);
    float64 sum = 0.0f;
#pragma unroll
    for (int k = 0; k < %(terms)d; k++) sum = sum + t[k] * t[%(terms)d - 1 - k];
    v_f32_st_tnsr(c, out, sum);
  }
}
""" % {"terms": TERMS}


def simulate(k, obj, vectors, name, native=False):
    """Cycles and VPU instructions of one run over `vectors` vectors, and the output's file."""
    n = 64 * vectors
    out, stats = k.path(name + ".npy"), k.path(name + ".json")
    run([k.tool("tpc-sim"), obj, "--cores", "1", "--index-space", "1,1,1,1,1", "-t", k.path("x.npy"),
         "%s=f32[%d]" % (out, n), "-s", str(n)] + (["--native"] if native else ["--json", stats]))
    if native:
        return None, None, out
    core = json.load(open(stats))["cores"][0]
    return core["cycles"], round(core["slot_utilization"]["vpu"] * core["bundles"]), out


def main():
    with tempfile.TemporaryDirectory() as tmp:
        k = KernelChecks(sys.argv[1], tmp)
        most = 48
        xs = [f32(-1.5 + 3.0 * ((i * 37) % 1009) / 1009.0) for i in range(64 * most)]
        write_npy(k.path("x.npy"), "<f4", [64 * most], xs)
        obj, _ = k.compile(KERNEL)
        c1, vpu1, _ = simulate(k, obj, 16, "short")
        c2, vpu2, _ = simulate(k, obj, most, "long")
        per_vector, bound = (c2 - c1) / (most - 16), (vpu2 - vpu1) / (most - 16)
        k.check(per_vector <= 1.10 * bound,
                "steady state %.1f cycles per vector, VPU bound %.1f (within 10%%)" % (per_vector, bound))
        for vectors in (1, 2, 3, most):
            _, _, got_file = simulate(k, obj, vectors, "sim%d" % vectors)
            _, _, want_file = simulate(k, obj, vectors, "native%d" % vectors, native=True)
            got, want = read_npy(got_file)[1], read_npy(want_file)[1]
            wrong = [i for i in range(64 * vectors) if got[i] != want[i]]
            k.check(not wrong, "%d vectors: the sums bit for bit as the native reference%s"
                    % (vectors, "" if not wrong else " (elements %s wrong)" % wrong[:5]))
        # The reference itself: each sum in the source's order, in f32, from the products of f32 values.
        _, _, want_file = simulate(k, obj, 2, "native2", native=True)
        want = read_npy(want_file)[1]
        wrong = []
        for i in range(128):
            t = [f32(xs[i] * f32(k2 + 2)) for k2 in range(TERMS)]
            s = f32(0.0)
            for k2 in range(TERMS):
                s = f32(s + f32(t[k2] * t[TERMS - 1 - k2]))
            if s != want[i]:
                wrong.append(i)
        k.check(not wrong, "the native sums as the host's f32 sums in source order%s"
                % ("" if not wrong else " (elements %s)" % wrong[:5]))
        return k.finish()


if __name__ == "__main__":
    sys.exit(main())
