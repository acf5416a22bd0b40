// expect: error: the kernel takes 17 tensors; the core has 16 tensor descriptors
void main(tensor t0, tensor t1, tensor t2, tensor t3, tensor t4, tensor t5, tensor t6, tensor t7, tensor t8, tensor t9, tensor t10, tensor t11, tensor t12, tensor t13, tensor t14, tensor t15, tensor t16)
{
    int5 c = 0;
    v_f32_st_tnsr(c, t16, v_f32_ld_tnsr_b(c, t0));
}
