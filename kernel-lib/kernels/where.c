// out = cond != 0 ? x : y, with NumPy broadcasting of all three (bits and layout as binary.c; cond is u8). The
// condition of 64 or 128 elements is loaded unpacked: byte k of 32-bit lane l (16-bit lane l) holds
// element l + 64k (l + 128k), so the low byte of each lane is its own element's condition.
#include "common.h"
#include "broadcast.h"

#if defined(DT_BF16)
#define LOAD_CONDITION(c, t) as_ushort128(v_u8_ld_tnsr_b(c, t, SW_UNPACK | SW_UNPCK_8_TO_16))
#define SELECT(cond, x, y) v_bf16_sel_neq_u16_b((cond) & (ushort128)0xff, 0, x, y)
#define SPLAT_CONDITION(s) ((ushort128)(s))
#else
#define LOAD_CONDITION(c, t) as_uint64(v_u8_ld_tnsr_b(c, t, SW_UNPACK | SW_UNPCK_8_TO_32))
#define SELECT(cond, x, y) v_f32_sel_neq_u32_b((cond) & (uint64)0xff, 0, x, y)
#define SPLAT_CONDITION(s) ((uint64)(s))
#endif

// One loop per combination of broadcast dimension-0 inputs (constants BC, BX, BY), so that the loops hold
// no branches.
#define WHERE_LOOP(BC, BX, BY)                                                                         \
    for (int d0 = d0Start; d0 < d0End; d0 += LANES) {                                                 \
        c[0] = d0;                                                                                    \
        if (!(BC)) cc[0] = d0;                                                                        \
        if (!(BX)) cx[0] = d0;                                                                        \
        if (!(BY)) cy[0] = d0;                                                                        \
        STORE(c, out, SELECT((BC) ? SPLAT_CONDITION(sc) : LOAD_CONDITION(cc, cond), (BX) ? sx : LD(cx, x), \
                             (BY) ? sy : LD(cy, y)));                                                 \
    }

void main(tensor cond, tensor x, tensor y, tensor out, int broadcastCond, int broadcastX, int broadcastY,
          int layout)
{
    // Without broadcasting (layout 1 or 2), the core's whole part in one loop of 8 vectors per iteration
    // (common.h; 16 measured slower).
    if (layout != 0) {
        FOR_EACH_POINT_FLAT(c, LANES, 8, layout == 2, STORE(c, out, SELECT(LOAD_CONDITION(c, cond), LD(c, x), LD(c, y)));)
        return;
    }
    int5 c = 0, cc = 0, cx = 0, cy = 0;
    const int5 maskCond = BROADCAST_MASK(broadcastCond), maskX = BROADCAST_MASK(broadcastX), maskY = BROADCAST_MASK(broadcastY);
    const int mode = (broadcastCond & 1) | ((broadcastX & 1) << 1) | ((broadcastY & 1) << 2);
    FOR_EACH_ROW(c, 0,
        c[0] = 0;
        cc = c & maskCond;
        cx = c & maskX;
        cy = c & maskY;
        const VT sx = LD_SCALAR(cx, x), sy = LD_SCALAR(cy, y);
        const unsigned char sc = s_u8_ld_g(gen_addr(cc, cond));
        switch (mode) {
            case 0: WHERE_LOOP(0, 0, 0) break;
            case 1: WHERE_LOOP(1, 0, 0) break;
            case 2: WHERE_LOOP(0, 1, 0) break;
            case 3: WHERE_LOOP(1, 1, 0) break;
            case 4: WHERE_LOOP(0, 0, 1) break;
            case 5: WHERE_LOOP(1, 0, 1) break;
            case 6: WHERE_LOOP(0, 1, 1) break;
            default: WHERE_LOOP(1, 1, 1) break;
        })
}
