// out = CAST(in), elementwise, 128 elements per index-space point along dimension 0 (the wider type takes
// two vectors). Floats round to nearest even; f32 to i32 truncates toward zero and saturates, NaN gives 0;
// i32 to f32 rounds to nearest even. Compiled with -DCAST_<FROM>_TO_<TO> (no DT_ macro).
#define DT_F32
#include "common.h"

void main(tensor in, tensor out)
{
    int5 c = 0;
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    const int d0Start = start[0] * 128, d0End = end[0] * 128;
    for (int d4 = start[4]; d4 < end[4]; d4++) {
        c[4] = d4;
        for (int d3 = start[3]; d3 < end[3]; d3++) {
            c[3] = d3;
            for (int d2 = start[2]; d2 < end[2]; d2++) {
                c[2] = d2;
                for (int d1 = start[1]; d1 < end[1]; d1++) {
                    c[1] = d1;
                    for (int d0 = d0Start; d0 < d0End; d0 += 128) {
#if defined(CAST_F32_TO_BF16) || defined(CAST_F32_TO_F16)
                        float128 v;
                        c[0] = d0;
                        v.v1 = v_f32_ld_tnsr_b(c, in);
                        c[0] = d0 + 64;
                        v.v2 = v_f32_ld_tnsr_b(c, in);
                        c[0] = d0;
#if defined(CAST_F32_TO_BF16)
                        v_bf16_st_tnsr(c, out, convert_float128_to_bfloat128(v, SW_LINEAR | SW_RHNE));
#else
                        v_f16_st_tnsr(c, out, convert_float128_to_half128(v, SW_LINEAR | SW_RHNE));
#endif
#elif defined(CAST_BF16_TO_F32) || defined(CAST_F16_TO_F32)
                        c[0] = d0;
#if defined(CAST_BF16_TO_F32)
                        float128 v = convert_bfloat128_to_float128(v_bf16_ld_tnsr_b(c, in), SW_LINEAR);
#else
                        float128 v = convert_half128_to_float128(v_f16_ld_tnsr_b(c, in), SW_LINEAR);
#endif
                        v_f32_st_tnsr(c, out, v.v1);
                        c[0] = d0 + 64;
                        v_f32_st_tnsr(c, out, v.v2);
#elif defined(CAST_F32_TO_I32)
                        c[0] = d0;
                        v_i32_st_tnsr(c, out, v_convert_f32_to_i32_b(v_f32_ld_tnsr_b(c, in), SW_RZ));
                        c[0] = d0 + 64;
                        v_i32_st_tnsr(c, out, v_convert_f32_to_i32_b(v_f32_ld_tnsr_b(c, in), SW_RZ));
#elif defined(CAST_I32_TO_F32)
                        c[0] = d0;
                        v_f32_st_tnsr(c, out, v_convert_i32_to_f32_b(v_i32_ld_tnsr_b(c, in), SW_RHNE));
                        c[0] = d0 + 64;
                        v_f32_st_tnsr(c, out, v_convert_i32_to_f32_b(v_i32_ld_tnsr_b(c, in), SW_RHNE));
#else
#error "compile with -DCAST_<FROM>_TO_<TO>"
#endif
                    }
                }
            }
        }
    }
}
