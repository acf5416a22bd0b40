// out[o] = in[f(o)], elementwise over the output, for transpose, slice, pad and expand (glue/movement.cpp):
// input dimension i is read at f_i(o) = base_i + step_i o[src_i], src_i the output dimension that feeds it
// (3 bits each of srcDims). Outside the input, mode 0 gives `value` (its bits), mode 1 the nearest edge
// element, mode 2 the reflection about the edge (pad's edge and reflect). vector0: input dimension 0 is
// output dimension 0 with step 1, so that each output vector is one input vector at an offset; otherwise
// every element is moved on its own.
#include "bits.h"

// f_i(o) mapped into [0, n) by the mode; *outside set when mode 0 falls outside.
static inline int mapCoordinate(int v, int n, int mode, _Bool* outside)
{
    if (mode == 1) return clampInt(v, 0, n - 1);
    if (mode == 2) {
        v = v < 0 ? -v : v;
        v = v >= n ? 2 * (n - 1) - v : v;
        return clampInt(v, 0, n - 1);
    }
    if (v < 0 || v >= n) *outside = 1;
    return v;
}

void main(tensor in, tensor out, int srcDims, int base0, int base1, int base2, int base3, int base4, int step0,
          int step1, int step2, int step3, int step4, int mode, int value, int vector0)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    const int base[5] = {base0, base1, base2, base3, base4};
    const int step[5] = {step0, step1, step2, step3, step4};
    int src[5], size[5];
#pragma unroll
    for (int i = 0; i < 5; i++) {
        src[i] = (srcDims >> (3 * i)) & 7;
        size[i] = get_dim_size(in, i);
    }
    const int outSize0 = get_dim_size(out, 0);
    const MVT fill = (MVT)(MST_T)value;
    for (int d4 = start[4]; d4 < end[4]; d4++)
        for (int d3 = start[3]; d3 < end[3]; d3++)
            for (int d2 = start[2]; d2 < end[2]; d2++)
                for (int d1 = start[1]; d1 < end[1]; d1++)
                    for (int p0 = start[0]; p0 < end[0]; p0++) {
                        int o[5] = {p0 * MLANES, d1, d2, d3, d4};
                        int5 oc = {o[0], d1, d2, d3, d4};
                        int at[5];  // the input coordinate (an array: an int5's lanes take constant indices)
                        if (vector0) {
                            // Dimensions 1-4 once for the vector; dimension 0 an offset.
                            _Bool outside = 0;
#pragma unroll
                            for (int i = 1; i < 5; i++)
                                at[i] = mapCoordinate(base[i] + step[i] * o[src[i]], size[i], mode, &outside);
                            const int i0 = base[0] + o[0];
                            const int5 ic = {i0, at[1], at[2], at[3], at[4]};
                            MVT v = fill;
                            if (!outside) {
                                v = MLD(ic, in);
                                if (mode == 0)
                                    v = IN_LANES(v, clampInt(-i0, 0, MLANES), clampInt(size[0] - i0, 0, MLANES), fill);
                            }
                            MST(oc, out, v);
                        } else {
                            const int last = outSize0 - o[0] < MLANES ? outSize0 - o[0] : MLANES;
                            for (int l = 0; l < last; l++) {
                                o[0] = p0 * MLANES + l;
                                oc[0] = o[0];
                                _Bool outside = 0;
#pragma unroll
                                for (int i = 0; i < 5; i++)
                                    at[i] = mapCoordinate(base[i] + step[i] * o[src[i]], size[i], mode, &outside);
                                const int5 ic = {at[0], at[1], at[2], at[3], at[4]};
                                MST_T e = (MST_T)value;
                                if (!outside) e = MSLD(ic, in);
                                MSST(oc, out, e);
                            }
                        }
                    }
}
