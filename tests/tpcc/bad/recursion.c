// expect: error: recursion is not supported on TPC
static int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
void main(tensor x, int n)
{
    int5 c = 0;
    v_i32_st_tnsr(c, x, fact(n));
}
