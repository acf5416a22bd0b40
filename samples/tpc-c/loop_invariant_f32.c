// out = (x + w) * k + x * 0.5, where w is one vector loaded before the inner loop and k a scalar: values
// that live across the hardware loop's back edge (their registers must not be reused inside the body,
// which has many vectors in flight once unrolled).
void main(tensor x, tensor w, tensor out, float k)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    int5 c = 0;
    int5 origin = 0;
    float64 wv = v_f32_ld_tnsr_b(origin, w);
    for (int row = start[1]; row < end[1]; row++) {
        c[1] = row;
        for (int col = start[0] * 64; col < end[0] * 64; col += 64) {
            c[0] = col;
            float64 v = v_f32_ld_tnsr_b(c, x);
            float64 a = (v + wv) * k;
            float64 b = v * 0.5f;
            v_f32_st_tnsr(c, out, a + b);
        }
    }
}
