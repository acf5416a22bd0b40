// out = min(max(x, low), high), elementwise; NaN stays NaN.
#include "common.h"

void main(tensor x, tensor out, float low, float high, int layout)
{
    const VT lo = (S)low, hi = (S)high;
    FOR_EACH_POINT_FLAT(c, LANES, 16, layout == 2, STORE(c, out, VMIN(VMAX(LD(c, x), lo), hi));)
}
