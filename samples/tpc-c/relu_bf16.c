// out = max(x, 0) over 2-D bf16 tensors; 128 lanes per vector.
void main(tensor x, tensor out)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    int5 c = 0;
    for (int row = start[1]; row < end[1]; row++) {
        c[1] = row;
        for (int col = start[0] * 128; col < end[0] * 128; col += 128) {
            c[0] = col;
            bfloat128 v = v_bf16_ld_tnsr_b(c, x);
            v_bf16_st_tnsr(c, out, v_bf16_max_b(v, 0.0f));
        }
    }
}
