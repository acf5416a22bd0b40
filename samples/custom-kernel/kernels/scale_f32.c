// y = x * factor + bias over a tensor of up to 5 dimensions; dimension 0 in vectors of 64 floats.
void main(tensor x, tensor y, float factor, float bias)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    int5 c;
    for (int d4 = start[4]; d4 < end[4]; d4++)
        for (int d3 = start[3]; d3 < end[3]; d3++)
            for (int d2 = start[2]; d2 < end[2]; d2++)
                for (int d1 = start[1]; d1 < end[1]; d1++)
                    for (int d0 = start[0] * 64; d0 < end[0] * 64; d0 += 64) {
                        c[0] = d0; c[1] = d1; c[2] = d2; c[3] = d3; c[4] = d4;
                        float64 v = v_f32_ld_tnsr_b(c, x);
                        v_f32_st_tnsr(c, y, v * factor + bias);
                    }
}
