// out = x where column j and row i (TPC dimensions 0 and 1) satisfy j - i >= k (upper) or j - i <= k (lower),
// else 0 (glue/movement.cpp; ONNX Trilu, attention masks); the dimensions above 1 are batches. A row's
// vectors fall in three runs: wholly zeroed, the one or two the diagonal crosses (lanes kept by lane
// index), and wholly kept (upper: in that order; lower: the reverse), so that only the crossing vectors
// pay for a select.
#include "bits.h"

static inline int floorDiv(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Vectors p0 in [from, to) of the row at c: KIND 0 zeroes, 1 copies, 2 keeps lanes [lo, hi) of each.
#define RUN(from, to, KIND)                                                                               \
    {                                                                                                     \
        int5 c_ = c;                                                                                      \
        c_[0] = (from) * MLANES;                                                                          \
        _Pragma("unroll 4") for (int p0 = (from); p0 < (to); p0++) {                                      \
            if ((KIND) == 0) {                                                                            \
                MST(c_, out, (MVT)0);                                                                     \
            } else if ((KIND) == 1) {                                                                     \
                MST(c_, out, MLD(c_, x));                                                                 \
            } else {                                                                                      \
                const int edge = firstKept - c_[0];                                                       \
                const int lo = upper ? clampInt(edge, 0, MLANES) : 0;                                     \
                const int hi = upper ? MLANES : clampInt(edge, 0, MLANES);                                \
                MST(c_, out, IN_LANES(MLD(c_, x), lo, hi, (MVT)0));                                       \
            }                                                                                             \
            c_[0] += MLANES;                                                                              \
        }                                                                                                 \
    }

void main(tensor x, tensor out, int k, int upper)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    for (int d4 = start[4]; d4 < end[4]; d4++)
        for (int d3 = start[3]; d3 < end[3]; d3++)
            for (int d2 = start[2]; d2 < end[2]; d2++)
                for (int d1 = start[1]; d1 < end[1]; d1++) {
                    const int5 c = {0, d1, d2, d3, d4};
                    // upper keeps columns j >= i + k; lower keeps j < i + k + 1.
                    const int firstKept = upper ? d1 + k : d1 + k + 1;
                    // The vectors wholly before the edge and those from the edge's vector on.
                    const int a = clampInt(floorDiv(firstKept, MLANES), start[0], end[0]);
                    const int b = clampInt(-floorDiv(-firstKept, MLANES), start[0], end[0]);
                    RUN(start[0], a, upper ? 0 : 1)
                    RUN(a, b, 2)
                    RUN(b, end[0], upper ? 1 : 0)
                }
}
