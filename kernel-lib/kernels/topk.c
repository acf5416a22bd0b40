// values, indices = the k largest (largest = 1) or smallest elements of each row along TPC dimension `dim`,
// sorted, and their positions (i32) (ONNX TopK, glue/scan.cpp). Elements are ordered by value, then by
// position (the lower first among equal values, as ONNX); pick j is the best element after pick j - 1 in
// that order, found by one pass over the row: k passes in all, no memory besides the outputs. The smallest
// are the largest of -x (negation is exact). A point owns whole rows: dimensions 1-4 a vector of 64 (bf16:
// 128) independent rows, dimension 0 one row on the scalar unit (correct, far slower per element). NaN
// inputs are not supported (a NaN is never picked).
#include "common.h"

#if defined(DT_F32)
#define NP 1
#define LD_KEYS(c, p) ((p)[0] = sign * v_f32_ld_tnsr_b(c, in))
#define ST_VALUES(c, p) v_f32_st_tnsr(c, values, sign * (p)[0])
#define S_LOAD(c) s_f32_ld_g(gen_addr(c, in))
#define S_STORE(c, v) s_f32_st_g(gen_addr(c, values), v)
#else
#define NP 2
// The pieces of a bf16 vector: piece 0 the even elements, piece 1 the odd ones.
#define LD_KEYS(c, p)                                                                 \
  {                                                                                   \
    const float64_pair_t w_ = v_convert_bf16_to_f32_all_b(v_bf16_ld_tnsr_b(c, in));   \
    (p)[0] = sign * w_.v1;                                                            \
    (p)[1] = sign * w_.v2;                                                            \
  }
#define ST_VALUES(c, p)                                                               \
  {                                                                                   \
    float64_pair_t w_;                                                                \
    w_.v1 = sign * (p)[0];                                                            \
    w_.v2 = sign * (p)[1];                                                            \
    v_bf16_st_tnsr(c, values, v_convert_f32_to_bf16_all_b(w_));                       \
  }
#define S_LOAD(c) s_convert_bf16_to_f32(s_bf16_ld_g(gen_addr(c, in)))
#define S_STORE(c, v) s_bf16_st_g(gen_addr(c, values), s_convert_f32_to_bf16(v))
#endif

// The positions of the NP pieces at c in element order: f32 one i32 vector; bf16 the 128 elements' in two
// i32 vectors, the even and odd pieces interleaved by lane shuffles.
static inline void storeIndices(int5 c, tensor indices, const int64* idx)
{
#if NP == 1
    v_i32_st_tnsr(c, indices, idx[0]);
#else
    const uint64 lane = read_lane_id_4b_b();
    const uint64 half = lane >> 1;
    const int64 odd = as_int64(lane & 1);
    const int64 lo = v_i32_sel_eq_i32_b(odd, 0, __lane_shuffle_i32(idx[0], as_uchar256(half)),
                                        __lane_shuffle_i32(idx[1], as_uchar256(half)));
    const int64 hi = v_i32_sel_eq_i32_b(odd, 0, __lane_shuffle_i32(idx[0], as_uchar256(half + 32)),
                                        __lane_shuffle_i32(idx[1], as_uchar256(half + 32)));
    v_i32_st_tnsr(c, indices, lo);
    c[0] += 64;
    v_i32_st_tnsr(c, indices, hi);
#endif
}

void main(tensor in, tensor values, tensor indices, int dim, int n, int k, int largest)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    int u[5];
#pragma unroll
    for (int d = 0; d < 5; d++) u[d] = d == dim ? 1 : 0;
    const int5 unit = {u[0], u[1], u[2], u[3], u[4]};
    const float sign = largest ? 1.0f : -1.0f;
    for (int d4 = start[4]; d4 < end[4]; d4++)
        for (int d3 = start[3]; d3 < end[3]; d3++)
            for (int d2 = start[2]; d2 < end[2]; d2++)
                for (int d1 = start[1]; d1 < end[1]; d1++)
                    for (int p0 = start[0]; p0 < end[0]; p0++) {
                        const int5 row = {dim == 0 ? 0 : p0 * LANES, d1, d2, d3, d4};
                        if (dim == 0) {
                            float prevKey = __builtin_inff();
                            int prevIdx = -1;
                            int5 o = row;
                            for (int j = 0; j < k; j++) {
                                float bestKey = -__builtin_inff();
                                int bestIdx = n;
                                int5 c = row;
                                for (int i = 0; i < n; i++) {
                                    const float key = sign * S_LOAD(c);
                                    const _Bool cand = key < prevKey || (key == prevKey && i > prevIdx);
                                    if (cand && (key > bestKey || bestIdx == n)) {
                                        bestKey = key;
                                        bestIdx = i;
                                    }
                                    c[0] += 1;
                                }
                                S_STORE(o, sign * bestKey);
                                s_i32_st_g(gen_addr(o, indices), bestIdx);
                                o[0] += 1;
                                prevKey = bestKey;
                                prevIdx = bestIdx;
                            }
                        } else {
                            float64 prevKey[NP], key[NP], bestKey[NP];
                            int64 prevIdx[NP], bestIdx[NP];
#pragma unroll
                            for (int q = 0; q < NP; q++) {
                                prevKey[q] = __builtin_inff();
                                prevIdx[q] = -1;
                            }
                            int5 o = row;
                            for (int j = 0; j < k; j++) {
#pragma unroll
                                for (int q = 0; q < NP; q++) {
                                    bestKey[q] = -__builtin_inff();
                                    bestIdx[q] = n;
                                }
                                int5 c = row;
                                for (int i = 0; i < n; i++) {
                                    LD_KEYS(c, key);
                                    const int64 iv = i;
#pragma unroll
                                    for (int q = 0; q < NP; q++) {
                                        const int64 cand = (key[q] < prevKey[q]) | ((key[q] == prevKey[q]) & (iv > prevIdx[q]));
                                        const int64 better = cand & ((key[q] > bestKey[q]) | (bestIdx[q] == (int64)n));
                                        bestKey[q] = v_f32_sel_neq_i32_b(better, 0, key[q], bestKey[q]);
                                        bestIdx[q] = v_i32_sel_neq_i32_b(better, 0, iv, bestIdx[q]);
                                    }
                                    c = c + unit;
                                }
                                ST_VALUES(o, bestKey);
                                storeIndices(o, indices, bestIdx);
                                o = o + unit;
#pragma unroll
                                for (int q = 0; q < NP; q++) {
                                    prevKey[q] = bestKey[q];
                                    prevIdx[q] = bestIdx[q];
                                }
                            }
                        }
                    }
}
