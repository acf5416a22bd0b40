// dx = dy scale where the forward kept the element (mask != 0), else 0; 256 elements of dimension 0 per
// index-space point (the u8 mask's vector), scale = 1 / (1 - p) rounded to f32, the product rounded once.
// The mask is loaded unpacked: f32, byte k of 32-bit lane l is element l + 64k; bf16, byte k of 16-bit
// lane l is element l + 128k.
#include "common.h"

// Every index-space point, in one loop over the core's whole part, 4 points per iteration (common.h,
// FOR_EACH_POINT_FLAT).
void main(tensor dy, tensor mask, tensor dx, float scale, int layout)
{
  FOR_EACH_POINT_FLAT(c, 256, 4, layout == 2,
    const int d0 = c[0];
#if defined(DT_F32)
    const uint64 m = as_uint64(v_u8_ld_tnsr_b(c, mask, SW_UNPACK | SW_UNPCK_8_TO_32));
    for (int v = 0; v < 4; v++) {
      c[0] = d0 + 64 * v;
      const float64 g = v_f32_ld_tnsr_b(c, dy);
      v_f32_st_tnsr(c, dx, v_f32_sel_neq_u32_b((m >> (8 * v)) & 0xff, 0, g * scale, 0.0f));
    }
#else
    const ushort128 m = as_ushort128(v_u8_ld_tnsr_b(c, mask, SW_UNPACK | SW_UNPCK_8_TO_16));
    for (int v = 0; v < 2; v++) {
      c[0] = d0 + 128 * v;
      // The mask bytes of this vector as bf16 bits (<< 7: a normal number when set), widened in the pieces'
      // order: piece k lane i is element 2i + k.
      const float64_pair_t keep = v_convert_bf16_to_f32_all_b(as_bfloat128(((m >> (8 * v)) & 0xff) << 7));
      float64_pair_t g = v_convert_bf16_to_f32_all_b(v_bf16_ld_tnsr_b(c, dy));
      g.v1 = v_f32_sel_neq_f32_b(keep.v1, 0.0f, g.v1 * scale, 0.0f);
      g.v2 = v_f32_sel_neq_f32_b(keep.v2, 0.0f, g.v2 * scale, 0.0f);
      v_bf16_st_tnsr(c, dx, v_convert_f32_to_bf16_all_b(g));
    }
#endif
  )
}
