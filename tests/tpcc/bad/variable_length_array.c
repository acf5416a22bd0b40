// expect: 4:14: error: variable length arrays are not supported
void main(tensor x, int n)
{
    float buf[n];
    buf[0] = 1.0f;
    int5 c = 0;
    v_f32_st_tnsr(c, x, buf[0]);
}
