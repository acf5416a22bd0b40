// out = f32(x): a bf16 tensor widened to f32 (exact), 128 elements per index-space point along dimension 0.
// One bf16 vector makes two f32 vectors: convert_bfloat128_to_float128 with SW_LINEAR gives elements
// 0-63 in .v1 and 64-127 in .v2 (v_convert_bf16_to_f32_all_b gives the even and the odd ones).
void main(tensor x, tensor out)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    int5 c = 0;
    for (int row = start[1]; row < end[1]; row++) {
        c[1] = row;
        for (int col = start[0] * 128; col < end[0] * 128; col += 128) {
            c[0] = col;
            float128 v = convert_bfloat128_to_float128(v_bf16_ld_tnsr_b(c, x), SW_LINEAR);
            v_f32_st_tnsr(c, out, v.v1);
            c[0] = col + 64;
            v_f32_st_tnsr(c, out, v.v2);
        }
    }
}
