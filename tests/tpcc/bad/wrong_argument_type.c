// expect: 5:17: error: no matching function for call to 'v_f32_ld_tnsr_b'
void main(tensor x, tensor out)
{
    float64 f = 0.0f;
    float64 v = v_f32_ld_tnsr_b(f, x);
    int5 c = 0;
    v_f32_st_tnsr(c, out, v);
}
