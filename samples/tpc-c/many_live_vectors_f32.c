// out = sum over k of (x * k) * (x * (46 - k)), k = 1..45, with every product kept until the end: 45
// vectors live at once, more than the 40 vector registers, so the compiler spills to local memory.
void main(tensor x, tensor out)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    int5 c = 0;
    for (int row = start[1]; row < end[1]; row++) {
        c[1] = row;
        for (int col = start[0] * 64; col < end[0] * 64; col += 64) {
            c[0] = col;
            float64 v = v_f32_ld_tnsr_b(c, x);
            float64 t[45];
#pragma unroll
            for (int k = 0; k < 45; k++) t[k] = v * (float)(k + 1);
            float64 sum = 0.0f;
#pragma unroll
            for (int k = 0; k < 45; k++) sum = sum + t[k] * t[44 - k];
            v_f32_st_tnsr(c, out, sum);
        }
    }
}
