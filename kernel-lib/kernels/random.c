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
// Box-Muller on the pairs (w0, w1) and (w2, w3): the f32 bits of mean + std z in place of each word. The
// inputs' ranges make the general functions' special cases dead, so they are left out:
// - u1 is in [2^-24, 1]: a positive normal number, whose logarithm needs no special case; -2 ln u1 is in
//   [0, 33.3], and its square root is taken as x rsqrt(x), which is 0 for x = +0 (not for -0).
// - t = 2 pi u2 is reduced in turns, exactly in integers: u2 = v 2^-24 with v the word's top 24 bits, the
//   quadrant k = round(v / 2^22) and the remainder d = v - k 2^22, so t = k pi/2 + d (2 pi 2^-24) with one
//   rounding and |remainder| <= pi/4. cos t and sin t are the remainder's cos and sin chosen and signed by
//   the quadrant (k = 4 is the full turn: quadrant 0).
static inline philox_words normal_words(philox_words w, float mean, float std) {
#pragma unroll
  for (int pair = 0; pair < 4; pair += 2) {
    const float64 u1 = v_convert_u32_to_f32_b((w.w[pair] >> 8) + 1) * 0x1p-24f;
    const float64 x = v_f32_madd_b(v_log_fast_f32(u1), -2.0f, 0.0f);  // + 0: -2 ln 1 is +0, not -0
    const float64 r = x * v_rsqrt_fast_f32(x);
    const int64 v = as_int64(w.w[pair + 1] >> 8);
    const int64 k = (v + (1 << 21)) >> 22;
    const float64 remainder = __tpc_sf_i2f(v - (k << 22)) * 0x1.921fb6p-22f;  // 2 pi 2^-24
    const float64 quadrant = __tpc_sf_i2f(k);
    w.w[pair] = as_uint64(v_f32_madd_b(r * __tpc_sf_sincos_poly(remainder, quadrant, 1), std, mean));
    w.w[pair + 1] = as_uint64(v_f32_madd_b(r * __tpc_sf_sincos_poly(remainder, quadrant, 0), std, mean));
  }
  return w;
}
#endif

// Word e's value (element e of the group) among the group's blocks: PICK(e) with the group's words wa, wb
// and s (random.c's point), or, when every group starts at a multiple of 4 (ALIGNED), from wa alone.
#define PICK(e) ((ALIGNED_) ? philox_pick_aligned(&wa, e) : philox_pick(&wa, &wb, s, e))

#if defined(OP_NORMAL)
// The words become the normal values of their elements before they are spread.
#define TRANSFORM_WORDS()                        \
  wa = normal_words(wa, a, b);                   \
  if (!ALIGNED_ && s != 0) wb = normal_words(wb, a, b);
#else
#define TRANSFORM_WORDS()
#endif

#if defined(OP_DROPOUT)
// The mask at c: 0/1 per element in element order, four vectors packed one per byte of each 32-bit lane;
// keep[v] the 0/1 of the elements 64v + lane.
#define WRITE_MASK(c, keep)                                                                            \
  for (int v = 0; v < 4; v++) keep[v] = v_u32_sel_geq_f32_b(philox_uniform(PICK(lane + 64 * v)), p, 1, 0); \
  v_u8_st_tnsr(c, mask, as_uchar256(keep[0] | (keep[1] << 8) | (keep[2] << 16) | (keep[3] << 24)),    \
               SW_PACK | SW_PCK_32_TO_8);
#endif

#if defined(OP_DROPOUT) && defined(DT_F32)
#define WRITE_POINT(c, d0)                                                                             \
  {                                                                                                    \
    uint64 keep[4];                                                                                    \
    WRITE_MASK(c, keep)                                                                                \
    for (int v = 0; v < 4; v++) {                                                                      \
      c[0] = d0 + 64 * v;                                                                              \
      const float64 xv = v_f32_ld_tnsr_b(c, x);                                                        \
      v_f32_st_tnsr(c, y, v_f32_sel_eq_u32_b(keep[v], 1, xv * scale, 0.0f));                           \
    }                                                                                                  \
  }
#elif defined(OP_DROPOUT)
// bf16: piece k lane i holds element 2i + k of its vector (v_convert_bf16_to_f32_all_b).
#define WRITE_POINT(c, d0)                                                                             \
  {                                                                                                    \
    uint64 keep[4];                                                                                    \
    WRITE_MASK(c, keep)                                                                                \
    for (int v = 0; v < 2; v++) {                                                                      \
      c[0] = d0 + 128 * v;                                                                             \
      float64_pair_t xv = v_convert_bf16_to_f32_all_b(v_bf16_ld_tnsr_b(c, x));                         \
      const float64 u0 = philox_uniform(PICK(lane * 2 + 128 * v));                                     \
      const float64 u1 = philox_uniform(PICK(lane * 2 + 1 + 128 * v));                                 \
      xv.v1 = v_f32_sel_geq_f32_b(u0, p, xv.v1 * scale, 0.0f);                                         \
      xv.v2 = v_f32_sel_geq_f32_b(u1, p, xv.v2 * scale, 0.0f);                                         \
      v_bf16_st_tnsr(c, y, v_convert_f32_to_bf16_all_b(xv));                                           \
    }                                                                                                  \
  }
#elif defined(OP_UNIFORM)
#define WRITE_POINT(c, d0)                                                                             \
  for (int v = 0; v < 4; v++) {                                                                        \
    c[0] = d0 + 64 * v;                                                                                \
    v_f32_st_tnsr(c, out, v_f32_mac_b(philox_uniform(PICK(lane + 64 * v)), b - a, a));                 \
  }
#else
#define WRITE_POINT(c, d0)                                                                             \
  for (int v = 0; v < 4; v++) {                                                                        \
    c[0] = d0 + 64 * v;                                                                                \
    v_f32_st_tnsr(c, out, as_float64(PICK(lane + 64 * v)));                                            \
  }
#endif

// One index-space point: the 256 elements from flat index i0, Philox blocks q0 = i0 / 4 on (the 64 lanes'
// blocks, and when i0 is not a multiple of 4 the 65th).
#define RANDOM_POINT(c)                                                                                \
  {                                                                                                    \
    const int d0 = c[0];                                                                               \
    const int i0 = d0 + c[1] * rowStride1 + c[2] * rowStride2 + c[3] * rowStride3 + c[4] * rowStride4; \
    const int s = ALIGNED_ ? 0 : i0 & 3;                                                               \
    const unsigned q0 = (unsigned)i0 >> 2;                                                             \
    philox_words wa = philox_block(q0, seed0, seed1, offset0, offset1), wb = wa;                        \
    if (!ALIGNED_ && s != 0) wb = philox_block(q0 + 64, seed0, seed1, offset0, offset1);               \
    (void)wb;                                                                                          \
    TRANSFORM_WORDS()                                                                                  \
    WRITE_POINT(c, d0)                                                                                 \
  }

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
  // Rows whose lengths are multiples of 4 elements start every group at a block: one set of blocks per
  // group and a plain lane permutation, with no branch in the loop (which can then overlap its iterations).
  if (((rowStride1 | rowStride2 | rowStride3 | rowStride4) & 3) == 0) {
#define ALIGNED_ 1
    FOR_EACH_INDEX(c, 256, 0, RANDOM_POINT(c))
#undef ALIGNED_
  } else {
#define ALIGNED_ 0
    FOR_EACH_INDEX(c, 256, 0, RANDOM_POINT(c))
#undef ALIGNED_
  }
}
