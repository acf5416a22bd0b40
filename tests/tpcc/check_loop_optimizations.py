#!/usr/bin/env python3
"""Checks what LLVM may assume about intrinsics and loops, seen in the IR that enters the backend (-O2):

- a loop stepping by a vector's width up to a bound that is not a multiple of it (a tensor's size) has a
  trip count, so it becomes a hardware loop: intrinsics return and never unwind, and loops terminate;
- a pure intrinsic (register arithmetic, lane ids) with loop-invariant arguments leaves the loop and its
  unrolled copies merge into one call, while loads and stores stay in the loop;
- a store whose coordinate is built again with the same value as a load's (c[0] = col after c[0] = col + 64)
  uses the load's coordinate induction variable rather than one of its own (one index-register add per
  iteration fewer), also when the source unrolls the loop itself;
- a coordinate that is a multiple of the loop counter plus a constant ((group * 4 + k) * 64) becomes an
  induction variable of its own, stepping by the multiple of the counter's step;
- a short loop body is unrolled 16 times, a long one (two exponentials) twice at most: more copies of it
  would only grow the code;
- an array that only the unrolling of a long loop body (a square root a row) indexes by constants is
  registers, not local memory (no alloca left).

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

REBUILT = """void main(tensor x, tensor out)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    int5 c = 0;
    #pragma unroll(4)
    for (int col = start[0] * 128; col < end[0] * 128; col += 128) {
        float128 v;
        c[0] = col;
        v.v1 = v_f32_ld_tnsr_b(c, x);
        c[0] = col + 64;
        v.v2 = v_f32_ld_tnsr_b(c, x);
        c[0] = col;
        v_bf16_st_tnsr(c, out, convert_float128_to_bfloat128(v, SW_LINEAR | SW_RHNE));
    }
}
"""

SCALED = """void main(tensor x, tensor out)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    int5 c = 0;
    for (int group = start[0]; group < end[0]; group++) {
        for (int k = 0; k < 4; k++) {
            c[0] = (group * 4 + k) * 64;
            v_f32_st_tnsr(c, out, v_f32_ld_tnsr_b(c, x) * 2.0f);
        }
    }
}
"""


SHORT_AND_LONG = """void main(tensor x, tensor out)
{
    const int cols = get_dim_size(x, 0);
    int5 c = 0;
    for (int col = 0; col < cols; col += 64) {
        c[0] = col;
        v_f32_st_tnsr(c, out, v_f32_ld_tnsr_b(c, x) * 2.0f);
    }
    c[1] = 1;
    for (int col = 0; col < cols; col += 64) {
        c[0] = col;
        float64 a = v_f32_ld_tnsr_b(c, x);
        v_f32_st_tnsr(c, out, v_exp_f32(a) + v_exp_f32(-a));
    }
}
"""

ROWS_ARRAY = """void main(tensor x, tensor out, float eps)
{
    int5 c = 0;
    float64 r_[3];
    for (int r = 0; r < 3; r++) {
        c[1] = r;
        r_[r] = v_rsqrt_f32(v_f32_ld_tnsr_b(c, x) + eps);
    }
    const int cols = get_dim_size(x, 0);
    for (int col = 0; col < cols; col += 64) {
        c[0] = col;
        for (int r = 0; r < 3; r++) {
            c[1] = r;
            v_f32_st_tnsr(c, out, v_f32_ld_tnsr_b(c, x) * r_[r]);
        }
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
        ir = ir_of(tool, REBUILT, tmp)
        stores = re.findall(r"@__tpc_v_bf16_st_tnsr\(<5 x i32> noundef (%[\w.]+)", ir)
        loaded = set(re.findall(r"@__tpc_v_f32_ld_tnsr_b\(<5 x i32> noundef (%[\w.]+)", ir))
        apart = [s for s in stores if s not in loaded]
        if len(stores) < 4 or apart:
            failures.append("coordinate rebuilt for the store: %d of %d stores use a coordinate of their own, "
                            "expected the load's" % (len(apart), len(stores)))
        ir = ir_of(tool, SCALED, tmp)
        ivs = len(re.findall(r"%coord[\w.]* = phi <5 x i32>", ir))
        steps = [int(v) for v in re.findall(r"%coord\.step = insertelement <5 x i32> zeroinitializer, i32 (-?\d+), i32 0", ir)]
        if not ivs or not steps or any(v % 256 for v in steps):
            failures.append("(group * 4 + k) * 64: %d coordinate induction variables, steps %s; expected at least one, "
                            "stepping by a multiple of 256" % (ivs, steps))
        ir = ir_of(tool, SHORT_AND_LONG, tmp)
        loads = len(re.findall(r"call <64 x float> @__tpc_v_f32_ld_tnsr_b\(", ir))
        # The short loop in 16 copies and its remainder, the long one in at most two and a remainder.
        if not 16 < loads <= 17 + 3:
            failures.append("a short and a long loop: %d tensor loads, expected the short loop's 16 copies and at "
                            "most two of the long loop (with the remainders)" % loads)
        stores = len(re.findall(r"call void @__tpc_v_f32_st_tnsr\(", ir))
        if stores != loads:
            failures.append("a short and a long loop: %d stores for %d loads" % (stores, loads))
        ir = ir_of(tool, ROWS_ARRAY, tmp)
        if "alloca" in ir:
            failures.append("an array indexed by the unrolled copies of a long loop body stays in local memory")
    for f in failures:
        print("FAIL " + f)
    print("%d passed, %d failed" % (7 - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
