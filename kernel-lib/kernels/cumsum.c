// out = the running sum of `in` along TPC dimension `dim` (ONNX CumSum, glue/scan.cpp): out[i] = in[0] + ...
// + in[i] (exclusive: up to in[i - 1], 0 first), or from the row's end (reverse). A point owns whole rows:
// dimensions 1-4 a vector of 64 (bf16: 128) independent rows, summed vector by vector in order; dimension 0
// one row, summed element by element on the scalar unit (in order; correct, far slower per element). bf16
// sums in f32 and rounds each output once; i32 wraps. The order of the sums is fixed, so any core count
// gives the same bits.
#include "common.h"

#if defined(DT_F32)
#define ACC_INIT(a) float64 a = 0.0f
#define ACC_ADD(a, c) a = a + LD(c, in)
#define ACC_STORE(c, a) STORE(c, out, a)
#define S_ACC float
#define S_LOAD(c) s_f32_ld_g(gen_addr(c, in))
#define S_STORE(c, v) s_f32_st_g(gen_addr(c, out), v)
#elif defined(DT_BF16)
#define ACC_INIT(a) float64_pair_t a; a.v1 = 0.0f; a.v2 = 0.0f
#define ACC_ADD(a, c)                                                  \
  {                                                                    \
    const float64_pair_t x_ = v_convert_bf16_to_f32_all_b(LD(c, in)); \
    a.v1 = a.v1 + x_.v1;                                               \
    a.v2 = a.v2 + x_.v2;                                               \
  }
#define ACC_STORE(c, a) STORE(c, out, v_convert_f32_to_bf16_all_b(a))
#define S_ACC float
#define S_LOAD(c) s_convert_bf16_to_f32(s_bf16_ld_g(gen_addr(c, in)))
#define S_STORE(c, v) s_bf16_st_g(gen_addr(c, out), s_convert_f32_to_bf16(v))
#else
#define ACC_INIT(a) int64 a = 0
#define ACC_ADD(a, c) a = a + LD(c, in)
#define ACC_STORE(c, a) STORE(c, out, a)
#define S_ACC int
#define S_LOAD(c) s_i32_ld_g(gen_addr(c, in))
#define S_STORE(c, v) s_i32_st_g(gen_addr(c, out), v)
#endif

void main(tensor in, tensor out, int dim, int n, int exclusive, int reverse)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    int u[5];
#pragma unroll
    for (int d = 0; d < 5; d++) u[d] = d == dim ? (reverse ? -1 : 1) : 0;
    const int5 step = {u[0], u[1], u[2], u[3], u[4]};  // one element along the row, in the sum's direction
    const int5 toFirst = step * (reverse ? 1 - n : 0);  // from element 0 of the row to the sum's first
    for (int d4 = start[4]; d4 < end[4]; d4++)
        for (int d3 = start[3]; d3 < end[3]; d3++)
            for (int d2 = start[2]; d2 < end[2]; d2++)
                for (int d1 = start[1]; d1 < end[1]; d1++)
                    for (int p0 = start[0]; p0 < end[0]; p0++) {
                        // The row's element 0 (the index space has one point along dim, at 0).
                        int5 c = {dim == 0 ? 0 : p0 * LANES, d1, d2, d3, d4};
                        c = c + toFirst;
                        if (dim == 0) {
                            S_ACC acc = 0;
                            for (int i = 0; i < n; i++) {
                                if (exclusive) S_STORE(c, acc);
                                acc = acc + S_LOAD(c);
                                if (!exclusive) S_STORE(c, acc);
                                c = c + step;
                            }
                        } else {
                            ACC_INIT(acc);
                            for (int i = 0; i < n; i++) {
                                if (exclusive) ACC_STORE(c, acc);
                                ACC_ADD(acc, c);
                                if (!exclusive) ACC_STORE(c, acc);
                                c = c + step;
                            }
                        }
                    }
}
