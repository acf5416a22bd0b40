// expect: 5:38: error: expected
void main(tensor x, tensor out)
{
    int5 c = 0;
    float64 v = v_f32_ld_tnsr_b(c, x)
    v_f32_st_tnsr(c, out, v);
}
