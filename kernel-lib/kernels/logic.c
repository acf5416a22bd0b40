// out = OP(a, b) on integers with NumPy broadcasting (glue/logic.cpp): bitwise and, or, xor; shl and shr
// (logical for the unsigned types; a shift by the width or more gives 0, as NumPy's); mod with the sign of
// the divisor (fmod = 0, Python's %) or of the dividend (fmod = 1, C's fmod; the only form for floats); a
// zero divisor gives 0. With -DOP_NOT, out = (a == 0) (logical not; b absent). Bit d of broadcastA
// (broadcastB) says that the input has size 1 in dimension d where out does not: it is read at coordinate 0
// there, and a broadcast dimension 0 is one element, splat.
#include "int_types.h"

#if defined(OP_AND)
#define OP(x, y) ((x) & (y))
#elif defined(OP_OR)
#define OP(x, y) ((x) | (y))
#elif defined(OP_XOR)
#define OP(x, y) ((x) ^ (y))
#elif defined(OP_SHL)
#define OP(x, y) SEL_LESS(y, (VT)BITS, (x) << (y), (VT)0)
#elif defined(OP_SHR)
#define OP(x, y) SEL_LESS(y, (VT)BITS, (x) >> (y), (VT)0)
#elif defined(OP_MOD) && defined(DT_F32)
// C's fmod, exactly: q = trunc(x / y); x - q y by one fused multiply-add is the exact remainder once q is
// right, and a q one too large in magnitude (x / y rounded up to the next integer) shows as a remainder of
// the other sign, which adding y back corrects. |x / y| beyond 2^24 is not handled (the ONNX suite's are
// small); y = 0 or an infinite x gives NaN, an infinite y gives x, as fmod does.
static inline float64 fmod_f32(float64 x, float64 y) {
  const float64 q = v_convert_i32_to_f32_b(v_convert_f32_to_i32_b(v_div_f32(x, y), SW_RZ));
  float64 r = v_f32_mac_b(-q, y, x);
  const float64 sx = v_f32_sel_less_f32_b(x, 0.0f, -1.0f, 1.0f);
  r = v_f32_sel_less_f32_b(r * sx, 0.0f, r + v_f32_abs_b(y) * sx, r);
  r = v_f32_sel_eq_f32_b(r, 0.0f, x * 0.0f, r);  // a zero remainder keeps the dividend's sign
  r = v_f32_sel_eq_f32_b(v_f32_abs_b(y), __builtin_inff(), x, r);
  const float64 nan = __builtin_nanf("");
  return v_f32_sel_eq_f32_b(y, 0.0f, nan, v_f32_sel_eq_f32_b(v_f32_abs_b(x), __builtin_inff(), nan, r));
}
#define OP(x, y) fmod_f32(x, y)
#elif defined(OP_MOD)
// Python's % (fmod = 0): C's remainder, moved into the divisor's sign by adding the divisor.
static inline VT mod_int(VT x, VT y, int fmod) {
  const VT safe = SEL_EQ(y, (VT)0, (VT)1, y);
  VT r = x % safe;
  if (!fmod) {
    // r and y of opposite signs (r != 0): add y. For unsigned types they never are.
    const VT zero = 0;
    const VT adjust = SEL_LESS(r, zero, SEL_LESS(y, zero, zero, y), SEL_LESS(zero, r, SEL_LESS(y, zero, y, zero), zero));
    r = r + adjust;
  }
  return SEL_EQ(y, (VT)0, (VT)0, r);
}
#define OP(x, y) mod_int(x, y, fmod)
#elif defined(OP_NOT)
#define OP(x, y) SEL_EQ(x, (VT)0, (VT)1, (VT)0)
#define UNARY
#else
#error "compile with -DOP_AND, _OR, _XOR, _SHL, _SHR, _MOD or _NOT"
#endif

#if !defined(UNARY)
static inline int5 maskOf(int bits) {
  return (int5){(bits & 1) ? 0 : -1, (bits & 2) ? 0 : -1, (bits & 4) ? 0 : -1, (bits & 8) ? 0 : -1,
                (bits & 16) ? 0 : -1};
}
#endif

// The vectors of a row: out at c, a at ca and b at cb (each stepped along dimension 0 unless splat, A and B
// then the row's one element); a loop per combination, so that none holds a branch.
#define ROW_LOOP(A, B)                                                                                    \
    _Pragma("unroll 4") for (int p0 = start[0]; p0 < end[0]; p0++) {                                      \
        STORE(c, out, OP((A) ? sa : LD(ca, a), (B) ? sb : LD(cb, b)));                                    \
        c[0] += LANES;                                                                                    \
        ca[0] += LANES;                                                                                   \
        cb[0] += LANES;                                                                                   \
    }

#define ROW_LOOP_SAME()                                                                                   \
    _Pragma("unroll 4") for (int p0 = start[0]; p0 < end[0]; p0++) {                                      \
        STORE(c, out, OP(LD(c, a), LD(c, b)));                                                            \
        c[0] += LANES;                                                                                    \
    }

#if defined(UNARY)
void main(tensor a, tensor out)
#else
void main(tensor a, tensor b, tensor out, int broadcastA, int broadcastB, int fmod)
#endif
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
#if !defined(UNARY)
    const int5 maskA = maskOf(broadcastA), maskB = maskOf(broadcastB);
    const _Bool a0 = broadcastA & 1, b0 = broadcastB & 1;
#endif
    for (int d4 = start[4]; d4 < end[4]; d4++)
        for (int d3 = start[3]; d3 < end[3]; d3++)
            for (int d2 = start[2]; d2 < end[2]; d2++)
                for (int d1 = start[1]; d1 < end[1]; d1++) {
                    int5 c = {start[0] * LANES, d1, d2, d3, d4};
#if defined(UNARY)
                    _Pragma("unroll 4") for (int p0 = start[0]; p0 < end[0]; p0++) {
                        const VT x = LD(c, a);
                        STORE(c, out, OP(x, x));
                        c[0] += LANES;
                    }
#else
                    // Each input's coordinate for the row: 0 in its broadcast dimensions; a broadcast dimension 0
                    // is one element, splat once for the row.
                    int5 ca = c & maskA, cb = c & maskB;
                    const VT sa = LD_SCALAR(ca, a), sb = LD_SCALAR(cb, b);
                    if (!broadcastA && !broadcastB) {
                        // No broadcasting: one coordinate for all three (a step a vector instead of three).
                        ROW_LOOP_SAME()
                    } else if (!a0 && !b0) {
                        ROW_LOOP(0, 0)
                    } else if (!b0) {
                        ROW_LOOP(1, 0)
                    } else if (!a0) {
                        ROW_LOOP(0, 1)
                    } else {
                        ROW_LOOP(1, 1)
                    }
#endif
                }
}
