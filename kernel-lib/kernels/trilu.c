// out = x where column j and row i (TPC dimensions 0 and 1) satisfy j - i >= k (upper) or j - i <= k (lower),
// else 0 (glue/movement.cpp; ONNX Trilu, attention masks); the dimensions above 1 are batches. Each output
// vector keeps a run of lanes chosen by lane index.
#include "bits.h"

void main(tensor x, tensor out, int k, int upper)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    for (int d4 = start[4]; d4 < end[4]; d4++)
        for (int d3 = start[3]; d3 < end[3]; d3++)
            for (int d2 = start[2]; d2 < end[2]; d2++)
                for (int d1 = start[1]; d1 < end[1]; d1++) {
                    int5 c = {start[0] * MLANES, d1, d2, d3, d4};
                    for (int p0 = start[0]; p0 < end[0]; p0++) {
                        // Lanes l with c0 + l - i >= k (upper: [i + k - c0, MLANES)) or <= k (lower: [0, i + k - c0 + 1)).
                        const int edge = d1 + k - c[0];
                        const int lo = upper ? clampInt(edge, 0, MLANES) : 0;
                        const int hi = upper ? MLANES : clampInt(edge + 1, 0, MLANES);
                        MST(c, out, IN_LANES(MLD(c, x), lo, hi, (MVT)0));
                        c[0] += MLANES;
                    }
                }
}
