// dweight[v] = the sum of the rows of dy whose index is v, every other row 0 (the gradient of an embedding
// lookup; glue/embedding_bwd.cpp): dy [..., D] (TPC dimension 0 is D, dimensions 1-4 those of the
// indices), indices i32 [...], dweight [V, D]. A point owns VPP vectors of D in one row v of dweight and
// scans every index in row-major order (TPC dimension 0 fastest), adding the matching rows of dy in that
// order in f32 (bf16: each f32 half, rounded once at the end), so the sums are those of a host loop over
// the indices in order and no two cores write one element. An index outside [0, V) adds to no row.
#include "common.h"

#define VPP 4  // vectors of D per point: one scan of the indices serves VPP accumulators

#if defined(DT_F32)
#define ACC_T float64
#define ACC_ZERO(a) a = 0.0f
#define ACC_ADD(a, c) a = a + LD(c, dy)
#define ACC_STORE(c, a) STORE(c, dweight, a)
#else
#define ACC_T float64_pair_t
#define ACC_ZERO(a) (a.v1 = 0.0f, a.v2 = 0.0f)
#define ACC_ADD(a, c)                                                  \
  {                                                                    \
    const float64_pair_t x_ = v_convert_bf16_to_f32_all_b(LD(c, dy));  \
    a.v1 = a.v1 + x_.v1;                                               \
    a.v2 = a.v2 + x_.v2;                                               \
  }
#define ACC_STORE(c, a) STORE(c, dweight, v_convert_f32_to_bf16_all_b(a))
#endif

void main(tensor dy, tensor indices, tensor dweight, int n0, int n1, int n2, int n3)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    for (int v = start[1]; v < end[1]; v++)
        for (int p0 = start[0]; p0 < end[0]; p0++) {
            const int d0 = p0 * VPP * LANES;
            ACC_T acc[VPP];
#pragma unroll
            for (int b = 0; b < VPP; b++) ACC_ZERO(acc[b]);
            for (int i3 = 0; i3 < n3; i3++)
                for (int i2 = 0; i2 < n2; i2++)
                    for (int i1 = 0; i1 < n1; i1++)
                        for (int i0 = 0; i0 < n0; i0++) {
                            const int5 ic = {i0, i1, i2, i3, 0};
                            if (s_i32_ld_g(gen_addr(ic, indices)) == v) {
                                int5 c = {d0, i0, i1, i2, i3};
#pragma unroll
                                for (int b = 0; b < VPP; b++) {
                                    ACC_ADD(acc[b], c);
                                    c[0] += LANES;
                                }
                            }
                        }
            int5 o = {d0, v, 0, 0, 0};
#pragma unroll
            for (int b = 0; b < VPP; b++) {
                ACC_STORE(o, acc[b]);
                o[0] += LANES;
            }
        }
}
