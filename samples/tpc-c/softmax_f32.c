// Softmax along dimension 0: out[i, j] = exp(x[i, j] - m_i) / sum_j exp(x[i, j] - m_i), m_i = max_j x[i, j].
// One index-space point per row, three passes over it: the maximum (lanes past the end of the row are
// masked to -inf with a vector comparison), the sum of exponentials, and the scaled output.
void main(tensor x, tensor out)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    const int cols = get_dim_size(x, 0);
    const float64 minus_inf = -1.0f / 0.0f;
    const uint64 lane = read_lane_id_4b_b();
    for (int row = start[1]; row < end[1]; row++) {
        int5 c = {0, row, 0, 0, 0};
        float64 m = minus_inf;
        for (int col = 0; col < cols; col += 64) {
            c[0] = col;
            const int64 inside = lane + (unsigned)col < (unsigned)cols;
            m = v_f32_max_b(m, v_f32_sel_neq_i32_b(inside, 0, v_f32_ld_tnsr_b(c, x), minus_inf));
        }
        m = v_f32_reduce_max(m);
        float64 sum = 0.0f;
        for (int col = 0; col < cols; col += 64) {
            c[0] = col;
            const int64 inside = lane + (unsigned)col < (unsigned)cols;
            const float64 v = v_f32_sel_neq_i32_b(inside, 0, v_f32_ld_tnsr_b(c, x), minus_inf);
            sum += v_exp_f32(v - m);
        }
        const float64 scale = v_reciprocal_f32(v_f32_reduce_add(sum));
        for (int col = 0; col < cols; col += 64) {
            c[0] = col;
            v_f32_st_tnsr(c, out, v_exp_f32(v_f32_ld_tnsr_b(c, x) - m) * scale);
        }
    }
}
