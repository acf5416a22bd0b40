// expect: 4:17: error: call to undeclared function 'v_f32_frobnicate_b'
void main(tensor x, tensor out)
{
    int5 c = 0; v_f32_frobnicate_b(c, x);
}
