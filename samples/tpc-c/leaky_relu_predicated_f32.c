// out = x > 0 ? x : slope * x, with a vector predicate: the multiply runs only in lanes where x <= 0,
// the other lanes keep the income (x itself).
void main(tensor x, tensor out, float slope)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    int5 c = 0;
    for (int row = start[1]; row < end[1]; row++) {
        c[1] = row;
        for (int col = start[0] * 64; col < end[0] * 64; col += 64) {
            c[0] = col;
            float64 v = v_f32_ld_tnsr_b(c, x);
            bool64 negative = v_f32_cmp_leq_b(v, 0.0f);
            v = v_f32_mul_vb(v, slope, 0, v, negative);
            v_f32_st_tnsr(c, out, v);
        }
    }
}
