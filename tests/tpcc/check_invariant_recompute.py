#!/usr/bin/env python3
"""Checks that a loop whose hoisted invariants would take more scalar registers than the core has still
overlaps its iterations (invariant_recompute.cpp): forty round keys key + r * 0x9E3779B9, each a scalar
register if held through the loop, are computed again in the loop from `key` instead of sending it back
to a flat loop. The loop must run within 1.25x its VPU slot bound (flat, each iteration's chain of 120
dependent operations would take about three times that), and its result must equal the same arithmetic
done here and the native reference (tpc-sim --native) bit for bit.

usage: check_invariant_recompute.py BUILD/bin
"""
import json
import os
import sys
import tempfile

from kernel_checks import KernelChecks

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples"))
from run_samples import read_npy, write_npy  # noqa: E402  (the samples' .npy helpers)

ROUNDS, STEP = 40, 0x9E3779B9
SOURCE = r"""
void main(tensor x, tensor y, unsigned key)
{
  const int5 start = get_index_space_offset(), end = get_index_space_size() + start;
  int5 c = 0;
#pragma unroll(1)
  for (int d = start[0]; d < end[0]; d++) {
    c[0] = d * 64;
    uint64 v = v_u32_ld_tnsr_b(c, x);
#pragma unroll
    for (unsigned r = 0; r < %d; r++) v = (v ^ (key + r * %du)) + (v >> 3);
    v_u32_st_tnsr(c, y, v);
  }
}
""" % (ROUNDS, STEP)


def host(x, key):
    out = []
    for v in x:
        v &= 0xFFFFFFFF
        for r in range(ROUNDS):
            v = ((v ^ ((key + r * STEP) & 0xFFFFFFFF)) + (v >> 3)) & 0xFFFFFFFF
        out.append(v - (1 << 32) if v >= 1 << 31 else v)  # as the i32 the .npy holds
    return out


def main():
    points, key = 32, 12345
    with tempfile.TemporaryDirectory() as tmp:
        k = KernelChecks(sys.argv[1], tmp)
        obj, _ = k.compile(SOURCE)
        x = [(i * 2654435761) & 0x7FFFFFFF for i in range(64 * points)]
        write_npy(k.path("x.npy"), "<i4", (64 * points,), x)
        results = {}
        for mode in ("sim", "native"):
            y = k.path("y_%s.npy" % mode)
            args = ["--cores", "1", "--index-space", "%d,1,1,1,1" % points, "-t", k.path("x.npy"),
                    "%s=i32[%d]" % (y, 64 * points), "-s", str(key)]
            k.simulate(obj, args + (["--json", k.path("stats.json")] if mode == "sim" else []), native=mode == "native")
            results[mode] = read_npy(y)[1]
        k.check(results["sim"] == host(x, key), "the simulator's result equals the host's arithmetic")
        k.check(results["sim"] == results["native"], "simulator and native reference agree")
        core = json.load(open(k.path("stats.json")))["cores"][0]
        ratio = core["cycles"] / (core["slot_utilization"]["vpu"] * core["cycles"])
        k.check(ratio <= 1.25, "the loop overlaps its iterations: %d cycles, %.2fx its VPU slot bound (at most 1.25)"
                % (core["cycles"], ratio))
        return k.finish()


if __name__ == "__main__":
    sys.exit(main())
