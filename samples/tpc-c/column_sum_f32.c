// out[0, j] = sum over rows i of x[i, j]: a reduction across dimension 1. The index space is the output's
// (vectors of dimension 0); every point walks all rows of the input.
void main(tensor x, tensor out, int rows)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    int5 c = 0;
    for (int col = start[0] * 64; col < end[0] * 64; col += 64) {
        c[0] = col;
        float64 sum = 0.0f;
        for (int row = 0; row < rows; row++) {
            c[1] = row;
            sum += v_f32_ld_tnsr_b(c, x);
        }
        c[1] = 0;
        v_f32_st_tnsr(c, out, sum);
    }
}
