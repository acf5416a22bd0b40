// out = data gathered along TPC dimension `a` by i32 indices (ONNX Gather; embedding_fwd is a = 1 of a
// [V, D] table), glue/movement.cpp: the output's dimensions are data's below a, then the q dimensions of
// the indices, then data's above a. A negative index counts from the end (adds n); one outside [-n, n)
// gives zeros. For a > 0 each output vector is one data vector, a row of them per index (this object); for
// a = 0 elements move one at a time (-DELEMENTS, the object NAME.elements).
#include "bits.h"

// The data coordinate of output coordinate o (as an array: an int5's lanes take constant indices only);
// *outside set when the index is outside [-n, n).
static inline int5 dataCoordinate(const int* o, tensor indices, int a, int q, int n, _Bool* outside)
{
    int ix[5], dc[5];
#pragma unroll
    for (int k = 0; k < 5; k++) ix[k] = k < q ? o[a + k] : 0;
    int idx = s_i32_ld_g(gen_addr((int5){ix[0], ix[1], ix[2], ix[3], ix[4]}, indices));
    idx = idx < 0 ? idx + n : idx;
    *outside = idx < 0 || idx >= n;
#pragma unroll
    for (int k = 0; k < 5; k++)
        dc[k] = k < a ? o[k] : k == a ? (*outside ? 0 : idx) : k + q - 1 < 5 ? o[k + q - 1] : 0;
    return (int5){dc[0], dc[1], dc[2], dc[3], dc[4]};
}

void main(tensor data, tensor indices, tensor out, int a, int q, int n)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
#if defined(ELEMENTS)
    const int outSize0 = get_dim_size(out, 0);
#endif
    for (int d4 = start[4]; d4 < end[4]; d4++)
        for (int d3 = start[3]; d3 < end[3]; d3++)
            for (int d2 = start[2]; d2 < end[2]; d2++)
                for (int d1 = start[1]; d1 < end[1]; d1++) {
                    int o[5] = {start[0] * MLANES, d1, d2, d3, d4};
                    int5 oc = {o[0], d1, d2, d3, d4};
#if !defined(ELEMENTS)
                    {
                        // The index is the row's (dimension 0 is data's): one index, then a row of vectors.
                        _Bool outside;
                        int5 dc = dataCoordinate(o, indices, a, q, n, &outside);
                        if (outside) {
                            for (int p0 = start[0]; p0 < end[0]; p0++) {
                                MST(oc, out, (MVT)0);
                                oc[0] += MLANES;
                            }
                        } else {
                            _Pragma("unroll 4") for (int p0 = start[0]; p0 < end[0]; p0++) {
                                MST(oc, out, MLD(dc, data));
                                oc[0] += MLANES;
                                dc[0] += MLANES;
                            }
                        }
                    }
#else
                    {
                        for (int p0 = start[0]; p0 < end[0]; p0++) {
                            const int o0 = p0 * MLANES;
                            const int last = outSize0 - o0 < MLANES ? outSize0 - o0 : MLANES;
                            for (int l = 0; l < last; l++) {
                                oc[0] = o0 + l;
                                o[0] = o0 + l;
                                _Bool outside;
                                const int5 dc = dataCoordinate(o, indices, a, q, n, &outside);
                                MSST(oc, out, outside ? (MST_T)0 : MSLD(dc, data));
                            }
                        }
                    }
#endif
                }
}
