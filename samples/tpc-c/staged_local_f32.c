// out = x - mean of the four vectors of each group, staged in vector local memory: each index-space
// point handles a group of four consecutive vectors of one row.
__local__ float64 stage[4];

void main(tensor x, tensor out)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    int5 c = 0;
    for (int row = start[1]; row < end[1]; row++) {
        c[1] = row;
        for (int group = start[0]; group < end[0]; group++) {
            float64 sum = 0.0f;
            for (int k = 0; k < 4; k++) {
                c[0] = (group * 4 + k) * 64;
                stage[k] = v_f32_ld_tnsr_b(c, x);
                sum += stage[k];
            }
            float64 mean = sum * 0.25f;
            for (int k = 0; k < 4; k++) {
                c[0] = (group * 4 + k) * 64;
                v_f32_st_tnsr(c, out, stage[k] - mean);
            }
        }
    }
}
