// out = the INPUTS inputs joined along TPC dimension `axis` (glue/movement.cpp): input k covers
// [off_k, off_{k+1}) of that dimension (off_0 = 0, off_INPUTS its size in the output; the offsets past
// INPUTS repeat it). Each output vector is written once: along dimension 0 it takes the lanes of every input
// that covers part of it, so that inputs of any size meet inside a vector without a race between cores.
#include "bits.h"

#if INPUTS == 2
#define INPUT_TENSORS tensor in0, tensor in1
#define EACH_INPUT(X) X(0, in0) X(1, in1)
#elif INPUTS == 3
#define INPUT_TENSORS tensor in0, tensor in1, tensor in2
#define EACH_INPUT(X) X(0, in0) X(1, in1) X(2, in2)
#elif INPUTS == 4
#define INPUT_TENSORS tensor in0, tensor in1, tensor in2, tensor in3
#define EACH_INPUT(X) X(0, in0) X(1, in1) X(2, in2) X(3, in3)
#elif INPUTS == 5
#define INPUT_TENSORS tensor in0, tensor in1, tensor in2, tensor in3, tensor in4
#define EACH_INPUT(X) X(0, in0) X(1, in1) X(2, in2) X(3, in3) X(4, in4)
#elif INPUTS == 6
#define INPUT_TENSORS tensor in0, tensor in1, tensor in2, tensor in3, tensor in4, tensor in5
#define EACH_INPUT(X) X(0, in0) X(1, in1) X(2, in2) X(3, in3) X(4, in4) X(5, in5)
#elif INPUTS == 7
#define INPUT_TENSORS tensor in0, tensor in1, tensor in2, tensor in3, tensor in4, tensor in5, tensor in6
#define EACH_INPUT(X) X(0, in0) X(1, in1) X(2, in2) X(3, in3) X(4, in4) X(5, in5) X(6, in6)
#elif INPUTS == 8
#define INPUT_TENSORS tensor in0, tensor in1, tensor in2, tensor in3, tensor in4, tensor in5, tensor in6, tensor in7
#define EACH_INPUT(X) X(0, in0) X(1, in1) X(2, in2) X(3, in3) X(4, in4) X(5, in5) X(6, in6) X(7, in7)
#else
#error "compile with -DINPUTS=2..8"
#endif

void main(INPUT_TENSORS, tensor out, int axis, int off1, int off2, int off3, int off4, int off5, int off6,
          int off7, int off8)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    const int off[9] = {0, off1, off2, off3, off4, off5, off6, off7, off8};
    for (int d4 = start[4]; d4 < end[4]; d4++)
        for (int d3 = start[3]; d3 < end[3]; d3++)
            for (int d2 = start[2]; d2 < end[2]; d2++)
                for (int d1 = start[1]; d1 < end[1]; d1++) {
                    const int o[5] = {start[0] * MLANES, d1, d2, d3, d4};
                    if (axis == 0) {
                        // Each output vector takes the lanes of every input that covers part of it.
                        int5 oc = {o[0], d1, d2, d3, d4};
                        for (int p0 = start[0]; p0 < end[0]; p0++) {
                            const int o0 = oc[0];
                            MVT v = 0;
#define TAKE_LANES(k, t)                                                                    \
                            {                                                               \
                                const int lo = clampInt(off[k] - o0, 0, MLANES);            \
                                const int hi = clampInt(off[k + 1] - o0, 0, MLANES);        \
                                if (hi > lo) {                                              \
                                    int5 ic = oc;                                           \
                                    ic[0] = o0 - off[k];                                    \
                                    v = IN_LANES(MLD(ic, t), lo, hi, v);                    \
                                }                                                           \
                            }
                            EACH_INPUT(TAKE_LANES)
                            MST(oc, out, v);
                            oc[0] += MLANES;
                        }
                    } else {
                        // The row lies in one input: a copy of its row, the input chosen once.
                        const int at = o[axis];
                        const int5 oc = {o[0], d1, d2, d3, d4};
#define COPY_ROW(k, t)                                                                      \
                        if (at >= off[k] && at < off[k + 1]) {                              \
                            int5 ic = oc - (int5){0, axis == 1, axis == 2, axis == 3, axis == 4} * off[k]; \
                            int5 c = oc;                                                    \
                            _Pragma("unroll 4") for (int p0 = start[0]; p0 < end[0]; p0++) { \
                                MST(c, out, MLD(ic, t));                                    \
                                c[0] += MLANES;                                             \
                                ic[0] += MLANES;                                            \
                            }                                                               \
                        }
                        EACH_INPUT(COPY_ROW)
                    }
                }
}
