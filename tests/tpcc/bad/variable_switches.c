// expect: 5:17: error: v_f32_add_b: argument 'switches' must be a compile-time constant
void main(tensor x, int sw)
{
    int5 c = 0;
    float64 v = v_f32_add_b(v_f32_ld_tnsr_b(c, x), 1.0f, sw);
    v_f32_st_tnsr(c, x, v);
}
