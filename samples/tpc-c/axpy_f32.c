// y = alpha * x + y, with alpha a scalar parameter.
void main(tensor x, tensor y, float alpha)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    int5 c = 0;
    for (int row = start[1]; row < end[1]; row++) {
        c[1] = row;
        for (int col = start[0] * 64; col < end[0] * 64; col += 64) {
            c[0] = col;
            float64 xv = v_f32_ld_tnsr_b(c, x);
            float64 yv = v_f32_ld_tnsr_b(c, y);
            v_f32_st_tnsr(c, y, v_f32_mac_b(xv, alpha, yv));
        }
    }
}
