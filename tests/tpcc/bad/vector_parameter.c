// expect: 2:29: error: kernel parameter 'v' must be a tensor or a scalar
void main(tensor x, float64 v)
{
    int5 c = 0;
    v_f32_st_tnsr(c, x, v);
}
