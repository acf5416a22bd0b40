// printf of a string, a scalar parameter, and vector lanes picked at run time; each core prints the first
// element of its part of the index space.
#pragma tpc_printf (enable)

void main(tensor x, int tag, float scale)
{
    const int5 start = get_index_space_offset();
    int5 c = 0;
    c[0] = start[0] * 64;
    float64 v = v_f32_ld_tnsr_b(c, x) * scale;
    printf("kernel %d\n", tag);
    printf("scale %.2f\n", scale);
    for (int lane = 0; lane < 2; lane++)
        printf("lane value %g\n", v[lane]);
}
