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
import subprocess
import sys
import tempfile

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


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit("FAIL %s:\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
    return p.stdout


def main():
    bin_dir = os.path.abspath(sys.argv[1])
    tool = lambda name: os.path.join(bin_dir, name)  # noqa: E731
    failures = 0
    points, key = 32, 12345
    with tempfile.TemporaryDirectory() as tmp:
        src, obj = os.path.join(tmp, "k.c"), os.path.join(tmp, "k.o")
        open(src, "w").write(SOURCE)
        run([tool("tpc-clang"), "-O2", "-march=gaudi2", src, "-c", "-o", obj])
        x = [(i * 2654435761) & 0x7FFFFFFF for i in range(64 * points)]
        write_npy(os.path.join(tmp, "x.npy"), "<i4", (64 * points,), x)
        results = {}
        for mode in ("sim", "native"):
            y = os.path.join(tmp, "y_%s.npy" % mode)
            cmd = [tool("tpc-sim"), obj, "--cores", "1", "--index-space", "%d,1,1,1,1" % points,
                   "-t", os.path.join(tmp, "x.npy"), "%s=i32[%d]" % (y, 64 * points), "-s", str(key)]
            if mode == "sim":
                cmd += ["--json", os.path.join(tmp, "stats.json")]
            run(cmd + (["--native"] if mode == "native" else []))
            results[mode] = read_npy(y)[1]
        ok = results["sim"] == host(x, key)
        failures += not ok
        print("%s the simulator's result equals the host's arithmetic" % ("ok  " if ok else "FAIL"))
        ok = results["sim"] == results["native"]
        failures += not ok
        print("%s simulator and native reference agree" % ("ok  " if ok else "FAIL"))
        core = json.load(open(os.path.join(tmp, "stats.json")))["cores"][0]
        bound = core["slot_utilization"]["vpu"] * core["cycles"]
        ratio = core["cycles"] / bound
        ok = ratio <= 1.25
        failures += not ok
        print("%s the loop overlaps its iterations: %d cycles, %.2fx its VPU slot bound (at most 1.25)"
              % ("ok  " if ok else "FAIL", core["cycles"], ratio))
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
