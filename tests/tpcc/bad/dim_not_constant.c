// expect: 6:25: error: get_dim_size: argument 'dim' must be a compile-time constant
// A dimension that may be anything (or beyond 0-4) stays an error at -O2, as at -O0.
void main(tensor t, tensor o, int d)
{
    int5 c = 0;
    v_i32_st_tnsr(c, o, get_dim_size(t, d & 7));
}
