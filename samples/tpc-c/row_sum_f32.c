// out[i] = sum over j of x[i, j]: a reduction along dimension 0 (the lanes). One index-space point per row:
// each point adds the row's vectors lane by lane, then v_f32_reduce_add folds the 64 lanes (every lane of
// its result holds the sum) and the store keeps lane 0 (the output's dimension 0 has size 1). Loads past
// the end of a row read the tensor's padding value, 0.
void main(tensor x, tensor out)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    const int cols = get_dim_size(x, 0);
    for (int row = start[1]; row < end[1]; row++) {
        int5 c = {0, row, 0, 0, 0};
        float64 acc = 0.0f;
        for (int col = 0; col < cols; col += 64) {
            c[0] = col;
            acc += v_f32_ld_tnsr_b(c, x);
        }
        c[0] = 0;
        v_f32_st_tnsr(c, out, v_f32_reduce_add(acc));
    }
}
