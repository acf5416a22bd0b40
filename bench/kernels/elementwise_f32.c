// The elementwise benchmark kernel in TPC-C (bench_sim.cpp has it in assembly for the simulator's own
// figure): y = relu(x) * 2 + x, one vector of one row per index-space point. bench-sim runs the compiled
// object on the simulator and through the native reference (tpc-sim --native) and reports both times.
void main(tensor x, tensor y)
{
    int5 first = get_index_space_offset(), count = get_index_space_size();
    int5 at = 0;
    for (int r = 0; r < count[1]; r++) {
        at[1] = first[1] + r;
        for (int v = 0; v < count[0]; v++) {
            at[0] = (first[0] + v) * 64;
            float64 in = v_f32_ld_tnsr_b(at, x);
            v_f32_st_tnsr(at, y, v_f32_max_b(in, 0.0f) * 2.0f + in);
        }
    }
}
