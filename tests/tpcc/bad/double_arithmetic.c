// expect: 4:21: error: arithmetic in 'double' is not supported on TPC
void main(tensor x, float alpha)
{
    float y = alpha * 2.5;
    int5 c = 0;
    v_f32_st_tnsr(c, x, y);
}
