#!/usr/bin/env python3
"""Checks what LLVM may assume about intrinsics and loops, seen in the IR that enters the backend (-O2):

- a loop stepping by a vector's width up to a bound that is not a multiple of it (a tensor's size) has a
  trip count, so it becomes a hardware loop: intrinsics return and never unwind, and loops terminate;
- a pure intrinsic (register arithmetic, lane ids) with loop-invariant arguments leaves the loop and its
  unrolled copies merge into one call, while loads and stores stay in the loop.

usage: check_loop_optimizations.py TPC_CLANG
"""
import os
import re
import subprocess
import sys
import tempfile

STRIDED = """void main(tensor x, tensor out)
{
    const int cols = get_dim_size(x, 0);
    float64 acc = 0.0f;
    int5 c = 0;
    for (int col = 0; col < cols; col += 64) {
        c[0] = col;
        acc += v_f32_ld_tnsr_b(c, x);
    }
    c[0] = 0;
    v_f32_st_tnsr(c, out, acc);
}
"""

INVARIANT = """void main(tensor x, tensor out)
{
    const int5 end = get_index_space_size();
    int5 c = 0;
    for (int col = 0; col < end[0]; col++) {
        c[0] = col * 64;
        float64 lanes = v_convert_i32_to_f32_b((int64)read_lane_id_4b_b());
        v_f32_st_tnsr(c, out, v_f32_ld_tnsr_b(c, x) + lanes);
    }
}
"""


def ir_of(tool, source, tmp):
    src, ll = os.path.join(tmp, "k.c"), os.path.join(tmp, "k.ll")
    open(src, "w").write(source)
    p = subprocess.run([tool, "-O2", "-S", "-emit-llvm", src, "-o", ll], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("tpc-clang failed: " + p.stderr[:400])
    return open(ll).read()


def main():
    tool = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        ir = ir_of(tool, STRIDED, tmp)
        if "call void @__tpc_hwloop(" not in ir:
            failures.append("col += 64 up to get_dim_size: no hardware loop")
        ir = ir_of(tool, INVARIANT, tmp)
        lane_ids = len(re.findall(r"call <64 x i32> @__tpc_read_lane_id_4b_b\(", ir))
        loads = len(re.findall(r"call <64 x float> @__tpc_v_f32_ld_tnsr_b\(", ir))
        if lane_ids != 1:
            failures.append("loop-invariant read_lane_id_4b_b: %d calls, expected 1 (hoisted)" % lane_ids)
        if loads < 2:
            failures.append("tensor loads: %d calls, expected the unrolled copies to stay" % loads)
    for f in failures:
        print("FAIL " + f)
    print("%d passed, %d failed" % (3 - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
