#!/usr/bin/env python3
"""Checks that the streaming samples' loops run at their slot bound at -O2: steady-state cycles per vector
(simulated cycle counts over two sizes, as bench/bench_compiler.py measures them) equal to what the load,
store and VPU slots must do per vector, counted by the simulator. Cycle counts are deterministic; this is
not a timing test.

It covers convert_f32_to_bf16, whose unrolled body fills the load, scalar and VPU slots completely and whose
stores share their loads' coordinate induction variables: the iterative modulo scheduler alone, ordering by
height, settles 12% above the bound there; the swing scheduler reaches it.

usage: check_modulo_schedule.py BUILD/bin
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
import bench_compiler  # noqa: E402

AT_BOUND = ["add_f32", "relu_bf16", "axpy_f32", "leaky_relu_f32", "scale_rows_i32", "scale_add_unroll8",
            "loop_invariant_f32", "convert_f32_to_bf16", "convert_bf16_to_f32"]


def main():
    bin_dir = os.path.abspath(sys.argv[1])
    tool = lambda name: os.path.join(bin_dir, name)  # noqa: E731
    failures = 0
    for case in bench_compiler.CASES:
        if case[0] not in AT_BOUND:
            continue
        cycles, bound, _, _ = bench_compiler.measure(tool, case, compiles=1)
        ok = cycles <= bound + 1e-9
        failures += not ok
        print("%s %s: %.2f cycles per vector, slot bound %.2f" % ("ok  " if ok else "FAIL", case[0], cycles, bound))
    print("%d passed, %d failed" % (len(AT_BOUND) - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
