// out = CAST(in), elementwise, 128 elements per index-space point along dimension 0 (the wider type takes
// two vectors). Floats round to nearest even; f32 to i32 truncates toward zero and saturates, NaN gives 0;
// i32 to f32 rounds to nearest even. Compiled with -DCAST_<FROM>_TO_<TO> (no DT_ macro).
#define DT_F32
#include "common.h"

// One point's 128 elements at c (c[0] its first), c changed on the way.
#if defined(CAST_F32_TO_BF16) || defined(CAST_F32_TO_F16)
#if defined(CAST_F32_TO_BF16)
#define NARROW(v) v_bf16_st_tnsr(c, out, convert_float128_to_bfloat128(v, SW_LINEAR | SW_RHNE))
#else
#define NARROW(v) v_f16_st_tnsr(c, out, convert_float128_to_half128(v, SW_LINEAR | SW_RHNE))
#endif
#define CAST_POINT(c)                    \
  {                                      \
    float128 v;                          \
    v.v1 = v_f32_ld_tnsr_b(c, in);       \
    c[0] += 64;                          \
    v.v2 = v_f32_ld_tnsr_b(c, in);       \
    c[0] -= 64;                          \
    NARROW(v);                           \
  }
#elif defined(CAST_BF16_TO_F32) || defined(CAST_F16_TO_F32)
#if defined(CAST_BF16_TO_F32)
#define WIDEN(c) convert_bfloat128_to_float128(v_bf16_ld_tnsr_b(c, in), SW_LINEAR)
#else
#define WIDEN(c) convert_half128_to_float128(v_f16_ld_tnsr_b(c, in), SW_LINEAR)
#endif
#define CAST_POINT(c)                    \
  {                                      \
    const float128 v = WIDEN(c);         \
    v_f32_st_tnsr(c, out, v.v1);         \
    c[0] += 64;                          \
    v_f32_st_tnsr(c, out, v.v2);         \
  }
#elif defined(CAST_F32_TO_I32) || defined(CAST_I32_TO_F32)
#if defined(CAST_F32_TO_I32)
#define ONE(c) v_i32_st_tnsr(c, out, v_convert_f32_to_i32_b(v_f32_ld_tnsr_b(c, in), SW_RZ))
#else
#define ONE(c) v_f32_st_tnsr(c, out, v_convert_i32_to_f32_b(v_i32_ld_tnsr_b(c, in), SW_RHNE))
#endif
#define CAST_POINT(c)                    \
  {                                      \
    ONE(c);                              \
    c[0] += 64;                          \
    ONE(c);                              \
  }
#else
#error "compile with -DCAST_<FROM>_TO_<TO>"
#endif

// Every index-space point: on parts of BAND_ROWS rows or more in bands of that many rows, each stepped
// along its row (common.h, FOR_EACH_POINT_BANDED: no row wraps in the loop, which the scalar slot pays
// for); on fewer rows in one loop over the core's whole part, FLAT_U points per iteration
// (FOR_EACH_POINT_FLAT). 8 points (16 f32 vectors) per iteration and band; the narrowing casts 16, which
// measured faster for them (1.25 of the bound at 32 rows per core in bands of 8, 1.18 in 16: their loads,
// conversions and coordinate adds fill three slots alike, which the modulo schedulers do not pack full).
// Not in one band on parts of one to three rows (WALK_POINTS_'s fewU 0): a point's two vectors need two
// coordinates, and a band of 2 rows of 8 points runs out of index registers (306 to 320 cycles; 310 with
// 4 points, 352-482 with 2).
#if defined(CAST_F32_TO_BF16) || defined(CAST_F32_TO_F16)
#define FLAT_U 16
#define BAND_ROWS 16
#else
#define FLAT_U 8
#define BAND_ROWS 8
#endif
void main(tensor in, tensor out, int layout)
{
    FOR_EACH_POINT_BANDED(c, 128, BAND_ROWS, FLAT_U, 0, layout == 2, CAST_POINT(c))
}
