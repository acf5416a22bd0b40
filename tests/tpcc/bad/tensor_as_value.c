// expect: 5:15: error: tensor 'x' is used as a value
void main(tensor x, tensor y, int pick)
{
    int5 c = 0;
    int k = x * pick;
    v_i32_st_tnsr(c, y, k);
}
