// expect: 5:16: error: tensor 'x' is used as a value
void main(tensor x, tensor y, int pick)
{
    int5 c = 0;
    tensor t = pick ? x : y;
    float64 v = v_f32_ld_tnsr_b(c, t);
    v_f32_st_tnsr(c, x, v);
}
