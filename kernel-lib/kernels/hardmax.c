// y = 1 at the first maximum of each row along TPC dimension `dim`, 0 elsewhere (ONNX Hardmax, opset 13;
// glue/scan.cpp). One pass finds the first maximum, a second writes the row. A point owns whole rows:
// dimensions 1-4 a vector of 64 (bf16: 128) independent rows, dimension 0 one row on the scalar unit. NaN
// inputs are not supported (a NaN is never the maximum).
#include "common.h"

#if defined(DT_F32)
#define NP 1
#define LD_PIECES(c, p) ((p)[0] = v_f32_ld_tnsr_b(c, in))
#define ST_PIECES(c, p) v_f32_st_tnsr(c, out, (p)[0])
#define S_LOAD(c) s_f32_ld_g(gen_addr(c, in))
#define S_STORE(c, v) s_f32_st_g(gen_addr(c, out), v)
#else
#define NP 2
#define LD_PIECES(c, p)                                                               \
  {                                                                                   \
    const float64_pair_t w_ = v_convert_bf16_to_f32_all_b(v_bf16_ld_tnsr_b(c, in));   \
    (p)[0] = w_.v1;                                                                   \
    (p)[1] = w_.v2;                                                                   \
  }
#define ST_PIECES(c, p)                                                               \
  {                                                                                   \
    float64_pair_t w_;                                                                \
    w_.v1 = (p)[0];                                                                   \
    w_.v2 = (p)[1];                                                                   \
    v_bf16_st_tnsr(c, out, v_convert_f32_to_bf16_all_b(w_));                          \
  }
#define S_LOAD(c) s_convert_bf16_to_f32(s_bf16_ld_g(gen_addr(c, in)))
#define S_STORE(c, v) s_bf16_st_g(gen_addr(c, out), s_convert_f32_to_bf16(v))
#endif

void main(tensor in, tensor out, int dim, int n)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    int u[5];
#pragma unroll
    for (int d = 0; d < 5; d++) u[d] = d == dim ? 1 : 0;
    const int5 unit = {u[0], u[1], u[2], u[3], u[4]};
    for (int d4 = start[4]; d4 < end[4]; d4++)
        for (int d3 = start[3]; d3 < end[3]; d3++)
            for (int d2 = start[2]; d2 < end[2]; d2++)
                for (int d1 = start[1]; d1 < end[1]; d1++)
                    for (int p0 = start[0]; p0 < end[0]; p0++) {
                        const int5 row = {dim == 0 ? 0 : p0 * LANES, d1, d2, d3, d4};
                        if (dim == 0) {
                            float best = -__builtin_inff();
                            int bestIdx = n;
                            int5 c = row;
                            for (int i = 0; i < n; i++) {
                                const float x = S_LOAD(c);
                                if (x > best || bestIdx == n) {
                                    best = x;
                                    bestIdx = i;
                                }
                                c[0] += 1;
                            }
                            c = row;
                            for (int i = 0; i < n; i++) {
                                S_STORE(c, i == bestIdx ? 1.0f : 0.0f);
                                c[0] += 1;
                            }
                        } else {
                            float64 x[NP], best[NP], y[NP];
                            int64 bestIdx[NP];
#pragma unroll
                            for (int q = 0; q < NP; q++) {
                                best[q] = -__builtin_inff();
                                bestIdx[q] = n;
                            }
                            int5 c = row;
                            for (int i = 0; i < n; i++) {
                                LD_PIECES(c, x);
                                const int64 iv = i;
#pragma unroll
                                for (int q = 0; q < NP; q++) {
                                    const int64 better = (x[q] > best[q]) | (bestIdx[q] == (int64)n);
                                    best[q] = v_f32_sel_neq_i32_b(better, 0, x[q], best[q]);
                                    bestIdx[q] = v_i32_sel_neq_i32_b(better, 0, iv, bestIdx[q]);
                                }
                                c = c + unit;
                            }
                            c = row;
                            for (int i = 0; i < n; i++) {
                                const int64 iv = i;
#pragma unroll
                                for (int q = 0; q < NP; q++) y[q] = v_f32_sel_eq_i32_b(bestIdx[q], iv, 1.0f, 0.0f);
                                ST_PIECES(c, y);
                                c = c + unit;
                            }
                        }
                    }
}
