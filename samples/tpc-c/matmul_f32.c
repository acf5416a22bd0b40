// c = a b for a of shape (M, K) and b of shape (K, N) (NumPy shapes; dimension 0 is the last axis). Each
// index-space point computes one vector of 64 columns of one row of c: for every k, the scalar a[m, k]
// (read through gen_addr and s_f32_ld_g) times the vector b[k, n..n+63], accumulated with v_f32_mac_b.
void main(tensor a, tensor b, tensor c)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    const int depth = get_dim_size(a, 0);
    for (int m = start[1]; m < end[1]; m++) {
        for (int n = start[0] * 64; n < end[0] * 64; n += 64) {
            float64 acc = 0.0f;
            for (int k = 0; k < depth; k++) {
                const int5 ak = {k, m, 0, 0, 0};
                const int5 bk = {n, k, 0, 0, 0};
                const float s = s_f32_ld_g(gen_addr(ak, a));
                acc = v_f32_mac_b(v_f32_ld_tnsr_b(bk, b), s, acc);
            }
            const int5 out = {n, m, 0, 0, 0};
            v_f32_st_tnsr(out, c, acc);
        }
    }
}
