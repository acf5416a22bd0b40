// Random numbers on the Philox stream of philox.h, 256 elements of dimension 0 per index-space point:
//   -DOP_UNIFORM      out = low + (high - low) u, u = (w >> 8) 2^-24 (f32)
//   -DOP_NORMAL       out = mean + std z, Box-Muller on the word pairs (w0, w1) for elements 4q, 4q + 1 and
//                     (w2, w3) for 4q + 2, 4q + 3: z = r cos t, r sin t with r = sqrt(-2 ln u1),
//                     u1 = ((w0 >> 8) + 1) 2^-24, t = 2 pi u2, u2 = (w1 >> 8) 2^-24 (f32)
//   -DOP_DROPOUT      keep an element where its u >= p: y = x scale (scale = 1 / (1 - p) rounded to f32) or
//                     0, mask (u8) 1 or 0 (-DDT_F32 or -DDT_BF16 for x and y)
// Flat indices are 32-bit (tensors of fewer than 2^31 elements); rowStride1-4 are the flat-index steps of
// dimensions 1-4.
#include "common.h"
#include "philox.h"

#if defined(OP_NORMAL)
// Box-Muller on the pairs (w0, w1) and (w2, w3): the f32 bits of mean + std z in place of each word.
static inline philox_words normal_words(philox_words w, float mean, float std) {
#pragma unroll
  for (int pair = 0; pair < 4; pair += 2) {
    const float64 u1 = v_convert_u32_to_f32_b((w.w[pair] >> 8) + 1) * 0x1p-24f;
    const float64 u2 = philox_uniform(w.w[pair + 1]);
    const float64 r = v_sqrt_f32(v_log_f32(u1) * -2.0f);
    const float64 t = u2 * 6.28318530717958647692f;
    w.w[pair] = as_uint64(v_f32_mac_b(r * v_cos_f32(t), std, mean));
    w.w[pair + 1] = as_uint64(v_f32_mac_b(r * v_sin_f32(t), std, mean));
  }
  return w;
}
#endif

#if defined(OP_DROPOUT)
void main(tensor x, tensor y, tensor mask, unsigned seed0, unsigned seed1, unsigned offset0, unsigned offset1,
          int rowStride1, int rowStride2, int rowStride3, int rowStride4, float p, float scale)
#else
void main(tensor out, unsigned seed0, unsigned seed1, unsigned offset0, unsigned offset1,
          int rowStride1, int rowStride2, int rowStride3, int rowStride4, float a, float b)
#endif
{
  const uint64 lane = read_lane_id_4b_b();
  int5 c = 0;
  FOR_EACH_INDEX(c, 256,
    const int d0 = c[0];
    const int i0 = d0 + c[1] * rowStride1 + c[2] * rowStride2 + c[3] * rowStride3 + c[4] * rowStride4;
    const int s = i0 & 3;
    const unsigned q0 = (unsigned)i0 >> 2;
    philox_words wa = philox_block(q0, seed0, seed1, offset0, offset1), wb = wa;
    if (s != 0) wb = philox_block(q0 + 64, seed0, seed1, offset0, offset1);
#if defined(OP_NORMAL)
    // The words become the normal values of their elements before they are spread.
    wa = normal_words(wa, a, b);
    if (s != 0) wb = normal_words(wb, a, b);
#endif
#if defined(OP_DROPOUT)
    // 0/1 per element in element order, four vectors packed one per byte of each 32-bit lane.
    uint64 keep[4];
    for (int v = 0; v < 4; v++) keep[v] = v_u32_sel_geq_f32_b(philox_uniform(philox_pick(&wa, &wb, s, lane + 64 * v)), p, 1, 0);
    v_u8_st_tnsr(c, mask, as_uchar256(keep[0] | (keep[1] << 8) | (keep[2] << 16) | (keep[3] << 24)),
                 SW_PACK | SW_PCK_32_TO_8);
#if defined(DT_F32)
    for (int v = 0; v < 4; v++) {
      c[0] = d0 + 64 * v;
      const float64 xv = v_f32_ld_tnsr_b(c, x);
      v_f32_st_tnsr(c, y, v_f32_sel_eq_u32_b(keep[v], 1, xv * scale, 0.0f));
    }
#else
    // bf16: piece k lane i holds element 2i + k of its vector (v_convert_bf16_to_f32_all_b).
    for (int v = 0; v < 2; v++) {
      c[0] = d0 + 128 * v;
      float64_pair_t xv = v_convert_bf16_to_f32_all_b(v_bf16_ld_tnsr_b(c, x));
      const float64 u0 = philox_uniform(philox_pick(&wa, &wb, s, lane * 2 + 128 * v));
      const float64 u1 = philox_uniform(philox_pick(&wa, &wb, s, lane * 2 + 1 + 128 * v));
      xv.v1 = v_f32_sel_geq_f32_b(u0, p, xv.v1 * scale, 0.0f);
      xv.v2 = v_f32_sel_geq_f32_b(u1, p, xv.v2 * scale, 0.0f);
      v_bf16_st_tnsr(c, y, v_convert_f32_to_bf16_all_b(xv));
    }
#endif
#else
    for (int v = 0; v < 4; v++) {
      c[0] = d0 + 64 * v;
      const uint64 w = philox_pick(&wa, &wb, s, lane + 64 * v);
#if defined(OP_UNIFORM)
      v_f32_st_tnsr(c, out, v_f32_mac_b(philox_uniform(w), b - a, a));
#else
      v_f32_st_tnsr(c, out, as_float64(w));
#endif
    }
#endif
  )
}
