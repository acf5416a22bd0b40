// expect: 9:50: error: tensor 'x' is used as a value
// At -O2 LLVM hoists `x + n` out of the loop and drops its debug location; the error still points at it
// (it pointed at whatever instruction was selected before it).
void main(tensor x, tensor out, int n)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * 64, 0, 0, 0, 0}; int k = x + n;
        v_i32_st_tnsr(c, out, k);
    }
}
