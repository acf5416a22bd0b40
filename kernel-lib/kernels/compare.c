// out = (a OP b) as u8 0 or 1, with NumPy broadcasting (glue/logic.cpp): equal, greater, greater_equal,
// less, less_equal on f32, bf16 or i32 (a NaN compares false, as in C). The index space is the output's:
// 256 elements per point, from R = 4 input vectors (2 for bf16); result lanes are narrowed into one u8
// vector (lane R k + q from element k of vector q) and stored packed, which writes element 64 q + k (128 q
// + k for bf16) in order. Broadcast bits as logic.c.
#if defined(DT_F32)
#define VT float64
#define RT int64
#define IN_LANES 64
#define R 4
#define LD(c, t) v_f32_ld_tnsr_b(c, t)
#define LD_SCALAR(c, t) s_f32_ld_g(gen_addr(c, t))
#define SEL(op) v_i32_sel_##op##_f32_b
#define NARROW(v, q, into) v_convert_i32_to_u8_b(v, q, 0, into)
#define PACKING (SW_PACK | SW_PCK_32_TO_8)
#elif defined(DT_I32)
#define VT int64
#define RT int64
#define IN_LANES 64
#define R 4
#define LD(c, t) v_i32_ld_tnsr_b(c, t)
#define LD_SCALAR(c, t) s_i32_ld_g(gen_addr(c, t))
#define SEL(op) v_i32_sel_##op##_i32_b
#define NARROW(v, q, into) v_convert_i32_to_u8_b(v, q, 0, into)
#define PACKING (SW_PACK | SW_PCK_32_TO_8)
#elif defined(DT_BF16)
#define VT bfloat128
#define RT short128
#define IN_LANES 128
#define R 2
#define LD(c, t) v_bf16_ld_tnsr_b(c, t)
#define LD_SCALAR(c, t) s_bf16_ld_g(gen_addr(c, t))
#define SEL(op) v_i16_sel_##op##_bf16_b
#define NARROW(v, q, into) v_convert_i16_to_u8_b(v, q, 0, into)
#define PACKING (SW_PACK | SW_PCK_16_TO_8)
#else
#error "compile with -DDT_F32, -DDT_BF16 or -DDT_I32"
#endif

#if defined(OP_EQUAL)
#define CMP(x, y) SEL(eq)(x, y, (RT)1, (RT)0)
#elif defined(OP_GREATER)
#define CMP(x, y) SEL(grt)(x, y, (RT)1, (RT)0)
#elif defined(OP_GREATER_EQUAL)
#define CMP(x, y) SEL(geq)(x, y, (RT)1, (RT)0)
#elif defined(OP_LESS)
#define CMP(x, y) SEL(less)(x, y, (RT)1, (RT)0)
#elif defined(OP_LESS_EQUAL)
#define CMP(x, y) SEL(leq)(x, y, (RT)1, (RT)0)
#else
#error "compile with -DOP_EQUAL, _GREATER, _GREATER_EQUAL, _LESS or _LESS_EQUAL"
#endif

static inline int5 maskOf(int bits) {
  return (int5){(bits & 1) ? 0 : -1, (bits & 2) ? 0 : -1, (bits & 4) ? 0 : -1, (bits & 8) ? 0 : -1,
                (bits & 16) ? 0 : -1};
}

// The output vectors of a row, each from R input vectors of a and b (A, B: the input is the row's one
// element, splat); a loop per combination, so that none holds a branch.
#define ROW_LOOP(A, B)                                                                                    \
    for (int p0 = start[0]; p0 < end[0]; p0++) {                                                          \
        uchar256 u = 0;                                                                                   \
        _Pragma("unroll") for (int q = 0; q < R; q++) {                                                   \
            const int5 step = {q * IN_LANES, 0, 0, 0, 0};                                                 \
            u = NARROW(CMP((A) ? sa : LD(ca + step, a), (B) ? sb : LD(cb + step, b)), q, u);              \
        }                                                                                                 \
        v_u8_st_tnsr(c, out, u, PACKING);                                                                 \
        c[0] += 256;                                                                                      \
        ca[0] += 256;                                                                                     \
        cb[0] += 256;                                                                                     \
    }

void main(tensor a, tensor b, tensor out, int broadcastA, int broadcastB)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    const int5 maskA = maskOf(broadcastA), maskB = maskOf(broadcastB);
    const _Bool a0 = broadcastA & 1, b0 = broadcastB & 1;
    for (int d4 = start[4]; d4 < end[4]; d4++)
        for (int d3 = start[3]; d3 < end[3]; d3++)
            for (int d2 = start[2]; d2 < end[2]; d2++)
                for (int d1 = start[1]; d1 < end[1]; d1++) {
                    int5 c = {start[0] * 256, d1, d2, d3, d4};
                    int5 ca = c & maskA, cb = c & maskB;
                    const VT sa = LD_SCALAR(ca, a), sb = LD_SCALAR(cb, b);
                    if (!a0 && !b0) {
                        ROW_LOOP(0, 0)
                    } else if (!b0) {
                        ROW_LOOP(1, 0)
                    } else if (!a0) {
                        ROW_LOOP(0, 1)
                    } else {
                        ROW_LOOP(1, 1)
                    }
                }
}
