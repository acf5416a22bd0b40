// expect: 5:25: error: dynamic allocation ('malloc') is not supported on TPC
void *malloc(unsigned long n);
void main(tensor x)
{
    float *p = (float *)malloc(64);
    int5 c = 0;
    v_f32_st_tnsr(c, x, p[0]);
}
