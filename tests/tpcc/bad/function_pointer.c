// expect: error: function pointers are not supported on TPC
static float64 twice(float64 v) { return v + v; }
void main(tensor x)
{
    float64 (*f)(float64) = twice;
    int5 c = 0;
    v_f32_st_tnsr(c, x, f(v_f32_ld_tnsr_b(c, x)));
}
