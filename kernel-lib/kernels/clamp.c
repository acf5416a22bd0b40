// out = min(max(x, low), high), elementwise; NaN stays NaN.
#include "common.h"

void main(tensor x, tensor out, float low, float high)
{
    int5 c = 0;
    const VT lo = (S)low, hi = (S)high;
    FOR_EACH_ROW(c,
        for (int d0 = d0Start; d0 < d0End; d0 += LANES) {
            c[0] = d0;
            STORE(c, out, VMIN(VMAX(LD(c, x), lo), hi));
        })
}
