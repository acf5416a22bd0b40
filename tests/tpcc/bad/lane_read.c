// expect: 7:31: error: reading one lane of a vector
void main(tensor x, tensor out)
{
    int5 c = 0;
    float64 v = v_f32_ld_tnsr_b(c, x);
    float f = v[3];
    v_f32_st_tnsr(c, out, v * f);
}
