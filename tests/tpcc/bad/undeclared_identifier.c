// expect: 4:25: error: use of undeclared identifier 'nope'
void main(tensor x)
{
    int5 c = 0; int k = nope;
    v_i32_st_tnsr(c, x, k);
}
