// out = bf16(x): an f32 tensor rounded to bf16 (nearest even), 128 elements per index-space point along
// dimension 0. Two f32 vectors make one bf16 vector: convert_float128_to_bfloat128 with SW_LINEAR keeps the
// elements in order (without it the pair is interleaved, as v_convert_f32_to_bf16_all_b does). Loads past
// the end of a row read the padding value and stores past it are dropped, so ragged rows need no tail code.
void main(tensor x, tensor out)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    int5 c = 0;
    for (int row = start[1]; row < end[1]; row++) {
        c[1] = row;
        for (int col = start[0] * 128; col < end[0] * 128; col += 128) {
            float128 v;
            c[0] = col;
            v.v1 = v_f32_ld_tnsr_b(c, x);
            c[0] = col + 64;
            v.v2 = v_f32_ld_tnsr_b(c, x);
            c[0] = col;
            v_bf16_st_tnsr(c, out, convert_float128_to_bfloat128(v, SW_LINEAR | SW_RHNE));
        }
    }
}
