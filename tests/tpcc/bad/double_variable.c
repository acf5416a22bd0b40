// expect: 4:12: error: 'double' is not supported on TPC
void main(tensor x, float alpha)
{
    double d = alpha;
    int5 c = 0;
    v_f32_st_tnsr(c, x, (float)d);
}
