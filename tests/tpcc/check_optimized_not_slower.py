#!/usr/bin/env python3
"""Checks that no TPC-C sample is slower at -O2 than at -O0 at its own size (a row or a few vectors per
core, where set-up costs count): simulated cycles of the slowest core, each output checked against the
sample's Python reference by run_samples.py. Cycle counts are deterministic; this is not a timing test.

requantize_i8 is the case that needs the fallback loop's own registers (modsched.cpp) and the copied
loop latch (block_merging.cpp): with one vector per core it runs the loop that modulo scheduling keeps
for short trip counts, and was 120 cycles at -O2 against 106 at -O0.

usage: check_optimized_not_slower.py BUILD/bin
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
import bench_compiler  # noqa: E402


def main():
    bin_dir = os.path.abspath(sys.argv[1])
    tool = lambda name: os.path.join(bin_dir, name)  # noqa: E731
    failures = 0
    rows = bench_compiler.small_sizes(tool)
    for name, o0, o2 in rows:
        ok = o2 <= o0
        failures += not ok
        print("%s %s: %d cycles at -O2, %d at -O0" % ("ok  " if ok else "FAIL", name, o2, o0))
    print("%d passed, %d failed" % (len(rows) - failures, failures))
    return 1 if failures or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
