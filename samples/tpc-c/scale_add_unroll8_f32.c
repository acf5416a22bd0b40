// out = a * alpha + b, with the inner loop unrolled 8 times by pragma (instead of 16); the compiler
// modulo-schedules it like any hardware loop (the stores of one iteration overlap the loads of the next).
void main(tensor a, tensor b, tensor out, float alpha)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    int5 c = 0;
    for (int row = start[1]; row < end[1]; row++) {
        c[1] = row;
#pragma unroll(8)
        for (int col = start[0] * 64; col < end[0] * 64; col += 64) {
            c[0] = col;
            float64 x = v_f32_ld_tnsr_b(c, a);
            float64 y = v_f32_ld_tnsr_b(c, b);
            v_f32_st_tnsr(c, out, x * alpha + y);
        }
    }
}
