// out = OP(a, b) with NumPy broadcasting: bit d of broadcastA (broadcastB) says that a (b) has size 1 in
// dimension d where out does not, and is read at coordinate 0 there. A broadcast dimension 0 reads one
// element and splats it; the four combinations of dimension 0 have loops of their own. layout is the glue's
// word on the shapes (glue.h, flatLayout): 0 when an input is broadcast, 1 or 2 when none is (2: the index
// space has one point in dimensions 2-4).
#include "common.h"
#include "broadcast.h"

#if defined(OP_ADD)
#define OP(x, y) ((x) + (y))
#elif defined(OP_SUB)
#define OP(x, y) ((x) - (y))
#elif defined(OP_MUL)
#define OP(x, y) ((x) * (y))
#elif defined(OP_DIV)
#define OP(x, y) VIA_F32_2(v_div_f32, x, y)
#elif defined(OP_POW)
#define OP(x, y) VIA_F32_2(v_pow_f32, x, y)
#elif defined(OP_MAX)
#define OP(x, y) VMAX(x, y)
#elif defined(OP_MIN)
#define OP(x, y) VMIN(x, y)
#else
#error "compile with -DOP_<operation>"
#endif

// The row loops' unroll count (docs/kernel-lib.md, "Performance"): the cheap operations want many copies
// to hide the loop's overhead; div's and pow's long bodies fewer, so their values live within the modulo
// schedule.
#if defined(OP_DIV) || defined(OP_POW)
#define LONG_BODY
#endif
#if defined(OP_POW) || (defined(OP_DIV) && defined(DT_BF16))
#define ROW_UNROLL 1
#elif defined(OP_DIV)
#define ROW_UNROLL 2
#else
#define ROW_UNROLL 8
#endif
// Vectors per iteration of the one-loop form, whichever of 8 and 16 measured faster.
#if defined(OP_MUL)
#define FLAT_U 16
#else
#define FLAT_U 8
#endif

void main(tensor a, tensor b, tensor out, int broadcastA, int broadcastB, int layout)
{
#if !defined(LONG_BODY)
    // Without broadcasting (layout 1 or 2), the core's whole part in one loop of FLAT_U vectors per iteration
    // (common.h); the long bodies keep a loop per row, whose set-up is small next to them.
    if (layout != 0) {
        FOR_EACH_POINT_FLAT(c, LANES, FLAT_U, layout == 2, STORE(c, out, OP(LD(c, a), LD(c, b)));)
        return;
    }
#endif
    int5 c = 0, ca = 0, cb = 0;
    const int5 maskA = BROADCAST_MASK(broadcastA), maskB = BROADCAST_MASK(broadcastB);
    const int mode = (broadcastA & 1) | ((broadcastB & 1) << 1);
    FOR_EACH_ROW(c, 0,
        c[0] = 0;
        ca = c & maskA;
        cb = c & maskB;
        if (mode == 0) {
            UNROLL_PRAGMA(ROW_UNROLL)
            for (int d0 = d0Start; d0 < d0End; d0 += LANES) {
                c[0] = d0;
                ca[0] = d0;
                cb[0] = d0;
                STORE(c, out, OP(LD(ca, a), LD(cb, b)));
            }
        } else if (mode == 1) {
            const VT va = LD_SCALAR(ca, a);
            UNROLL_PRAGMA(ROW_UNROLL)
            for (int d0 = d0Start; d0 < d0End; d0 += LANES) {
                c[0] = d0;
                cb[0] = d0;
                STORE(c, out, OP(va, LD(cb, b)));
            }
        } else if (mode == 2) {
            const VT vb = LD_SCALAR(cb, b);
            UNROLL_PRAGMA(ROW_UNROLL)
            for (int d0 = d0Start; d0 < d0End; d0 += LANES) {
                c[0] = d0;
                ca[0] = d0;
                STORE(c, out, OP(LD(ca, a), vb));
            }
        } else {
            const VT v = OP((VT)LD_SCALAR(ca, a), (VT)LD_SCALAR(cb, b));
            UNROLL_PRAGMA(ROW_UNROLL)
            for (int d0 = d0Start; d0 < d0End; d0 += LANES) {
                c[0] = d0;
                STORE(c, out, v);
            }
        })
}
