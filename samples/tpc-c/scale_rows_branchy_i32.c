// Data-dependent control flow: each row r of an i32 tensor is multiplied by (r % 3) + 1 when r is below
// `limit`, and negated otherwise; the row loop's trip count and the branch depend on the data.
void main(tensor x, tensor out, int limit)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    int5 c = 0;
    for (int row = start[1]; row < end[1]; row++) {
        c[1] = row;
        int factor = row % 3 + 1;
        for (int col = start[0] * 64; col < end[0] * 64; col += 64) {
            c[0] = col;
            int64 v = v_i32_ld_tnsr_b(c, x);
            if (row < limit)
                v = v * factor;
            else
                v = -v;
            v_i32_st_tnsr(c, out, v);
        }
    }
}
