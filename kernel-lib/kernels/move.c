// out[o] = in[f(o)], elementwise over the output, for transpose, slice, pad and expand (glue/movement.cpp):
// input dimension i is read at f_i(o) = base_i + step_i o[src_i], src_i the output dimension that feeds it
// (3 bits each of srcDims). Outside the input, mode 0 gives `value` (its bits), mode 1 the nearest edge
// element, mode 2 the reflection about the edge (pad's edge and reflect). vector0: input dimension 0 is
// output dimension 0 with step 1, so that each output vector is one input vector at an offset (this
// object); otherwise every element is moved on its own (-DELEMENTS, the object NAME.elements).
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

// Copies the vectors p0 in [from, to) of the row: output at oc, input at ic (dimension 0 moving with it),
// with the lanes outside the input's dimension 0 set to `fill` when `edges` (mode 0 near the row's ends).
#define COPY_VECTORS(from, to, edges)                                                                     \
    {                                                                                                     \
        int5 o_ = oc, i_ = ic;                                                                            \
        o_[0] = (from) * MLANES;                                                                          \
        i_[0] = base[0] + (from) * MLANES;                                                                \
        _Pragma("unroll 4") for (int p0 = (from); p0 < (to); p0++) {                                      \
            MVT v = MLD(i_, in);                                                                          \
            if (edges) v = IN_LANES(v, clampInt(-i_[0], 0, MLANES), clampInt(size[0] - i_[0], 0, MLANES), fill); \
            MST(o_, out, v);                                                                              \
            o_[0] += MLANES;                                                                              \
            i_[0] += MLANES;                                                                              \
        }                                                                                                 \
    }

#if !defined(ELEMENTS)
static inline int floorDiv(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
#endif

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
    (void)vector0;  // the glue's choice of object
#if defined(ELEMENTS)
    const int outSize0 = get_dim_size(out, 0);
#else
    const MVT fill = (MVT)(MST_T)value;
    // The vector path's vectors wholly inside the input's dimension 0: p0 in [inFirst, inEnd).
    const int inFirst = -floorDiv(base[0], MLANES), inEnd = floorDiv(size[0] - base[0], MLANES);
#endif
    for (int d4 = start[4]; d4 < end[4]; d4++)
        for (int d3 = start[3]; d3 < end[3]; d3++)
            for (int d2 = start[2]; d2 < end[2]; d2++)
                for (int d1 = start[1]; d1 < end[1]; d1++) {
                    int o[5] = {start[0] * MLANES, d1, d2, d3, d4};
                    int at[5];  // the input coordinate (an array: an int5's lanes take constant indices)
                    const int5 oc = {o[0], d1, d2, d3, d4};
#if !defined(ELEMENTS)
                    {
                        // Dimensions 1-4 once for the row; dimension 0 moves with the output.
                        _Bool outside = 0;
#pragma unroll
                        for (int i = 1; i < 5; i++)
                            at[i] = mapCoordinate(base[i] + step[i] * o[src[i]], size[i], mode, &outside);
                        const int5 ic = {0, at[1], at[2], at[3], at[4]};
                        if (outside) {
                            int5 o_ = oc;
                            for (int p0 = start[0]; p0 < end[0]; p0++) {
                                MST(o_, out, fill);
                                o_[0] += MLANES;
                            }
                        } else if (mode != 0) {
                            COPY_VECTORS(start[0], end[0], 0)
                        } else {
                            const int a = inFirst < start[0] ? start[0] : inFirst > end[0] ? end[0] : inFirst;
                            const int b = inEnd < a ? a : inEnd > end[0] ? end[0] : inEnd;
                            COPY_VECTORS(start[0], a, 1)
                            COPY_VECTORS(a, b, 0)
                            COPY_VECTORS(b, end[0], 1)
                        }
                    }
#else
                    {
                        (void)oc;
                        for (int p0 = start[0]; p0 < end[0]; p0++) {
                            const int last = outSize0 - p0 * MLANES < MLANES ? outSize0 - p0 * MLANES : MLANES;
                            for (int l = 0; l < last; l++) {
                                o[0] = p0 * MLANES + l;
                                _Bool outside = 0;
#pragma unroll
                                for (int i = 0; i < 5; i++)
                                    at[i] = mapCoordinate(base[i] + step[i] * o[src[i]], size[i], mode, &outside);
                                const int5 ic = {at[0], at[1], at[2], at[3], at[4]};
                                MST_T e = (MST_T)value;
                                if (!outside) e = MSLD(ic, in);
                                MSST(((int5){o[0], d1, d2, d3, d4}), out, e);
                            }
                        }
                    }
#endif
                }
}
