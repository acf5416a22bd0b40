// Normalizations over channels' sets (glue/chnorm.cpp), statistics in f32 with two passes (the mean, then
// the squared deviations from it: no cancellation of E[x^2] - mean^2), biased variance, invstd =
// 1/sqrt(var + eps); per-channel tensors (gamma, beta, statistics) are f32 vectors of C:
//   -DOP_BN_TRAIN  x, gamma, beta, running mean, running var -> y, saved mean, saved invstd, running mean
//                  and var updated: momentum running + (1 - momentum) batch, the variance scaled by
//                  varFactor first (1, or M/(M-1) for the unbiased one); statistics over N, H, W
//   -DOP_BN_INFER  x, gamma, beta, running mean, running var -> y, from the running statistics
//   -DOP_BN_BWD    dy, x, gamma, saved mean, saved invstd -> dx, dgamma, dbeta
//   -DOP_IN        x, gamma, beta -> y, statistics per image and channel (over H, W)
//   -DOP_GN        x, gamma, beta -> y, statistics per image and group of groupSize channels (NCHW only)
// y = (x - mean) (invstd gamma) + beta, the last two operations one multiply-add.
// -DNHWC: a point is VL channels (of every image for batch norm, of one for instance norm), per-lane
// statistics. -DNCHW: a point is one channel (batch, instance norm: of one image) or group, summed along W
// in vectors (lanes past W read as 0 and are masked where they would count), the lanes combined in a tree.
// Each core owns whole channels (groups): no output element is written by two cores.
#include "cnn.h"

#if defined(OP_BN_TRAIN) || defined(OP_BN_INFER) || defined(OP_BN_BWD)
#define BATCH 1
#else
#define BATCH 0
#endif

#define VEC_OF(t, c) v_f32_ld_tnsr_b(((int5){(c), 0, 0, 0, 0}), t)
#define VST_OF(t, c, v) v_f32_st_tnsr(((int5){(c), 0, 0, 0, 0}), t, v)
#define SCALAR_OF(t, c) s_f32_ld_g(gen_addr(((int5){(c), 0, 0, 0, 0}), t))
#define SST_OF(t, c, v) v_f32_st_tnsr_partial(((int5){(c), 0, 0, 0, 0}), t, v, 0, 0)

#if defined(OP_BN_TRAIN)
void main(tensor x, tensor gamma, tensor beta, tensor rmean, tensor rvar, tensor y, tensor smean, tensor sinv,
          tensor rmeanOut, tensor rvarOut, float eps, float count, float momentum, float oneMinusMomentum,
          float varFactor)
#elif defined(OP_BN_INFER)
void main(tensor x, tensor gamma, tensor beta, tensor rmean, tensor rvar, tensor y, float eps)
#elif defined(OP_BN_BWD)
void main(tensor dy, tensor x, tensor gamma, tensor smean, tensor sinv, tensor dx, tensor dgamma, tensor dbeta,
          float count)
#elif defined(OP_IN)
void main(tensor x, tensor gamma, tensor beta, tensor y, float eps, float count)
#elif defined(OP_GN)
void main(tensor x, tensor gamma, tensor beta, tensor y, float eps, float count, int groupSize)
#else
#error "compile with -DOP_BN_TRAIN, -DOP_BN_INFER, -DOP_BN_BWD, -DOP_IN or -DOP_GN"
#endif
{
  const int5 start = get_index_space_offset();
  const int5 end = start + get_index_space_size();
  const int W = get_dim_size(x, DIM_W), H = get_dim_size(x, DIM_H), N = get_dim_size(x, 3);
#if defined(NHWC)
#if defined(OP_GN)
#error "group norm is NCHW only"
#endif
  for (int q = start[3]; q < end[3]; q++)
    for (int p = start[0]; p < end[0]; p++) {
      const int c0 = p * VL;
      const int n0 = BATCH ? 0 : q, n1 = BATCH ? N : q + 1;
      float64 mean[NH], inv[NH];
#if defined(OP_BN_INFER) || defined(OP_BN_BWD)
#pragma unroll
      for (int k = 0; k < NH; k++) {
#if defined(OP_BN_INFER)
        mean[k] = VEC_OF(rmean, c0 + 64 * k);
        inv[k] = v_rsqrt_f32(VEC_OF(rvar, c0 + 64 * k) + eps);
#else
        mean[k] = VEC_OF(smean, c0 + 64 * k);
        inv[k] = VEC_OF(sinv, c0 + 64 * k);
#endif
      }
#else
      float64 acc[NH];
#pragma unroll
      for (int k = 0; k < NH; k++) acc[k] = 0.0f;
      for (int n = n0; n < n1; n++)
        for (int h = 0; h < H; h++)
          for (int w = 0; w < W; w++) {
            float64 v[NH];
            LOADP(COORD(c0, w, h, n), x, v);
#pragma unroll
            for (int k = 0; k < NH; k++) acc[k] = acc[k] + v[k];
          }
#pragma unroll
      for (int k = 0; k < NH; k++) {
        mean[k] = v_div_f32(acc[k], (float64)count);
        acc[k] = 0.0f;
      }
      for (int n = n0; n < n1; n++)
        for (int h = 0; h < H; h++)
          for (int w = 0; w < W; w++) {
            float64 v[NH];
            LOADP(COORD(c0, w, h, n), x, v);
#pragma unroll
            for (int k = 0; k < NH; k++) acc[k] = v_f32_mac_b(v[k] - mean[k], v[k] - mean[k], acc[k]);
          }
#pragma unroll
      for (int k = 0; k < NH; k++) {
        const float64 var = v_div_f32(acc[k], (float64)count);
        inv[k] = v_rsqrt_f32(var + eps);
#if defined(OP_BN_TRAIN)
        const int c = c0 + 64 * k;
        VST_OF(smean, c, mean[k]);
        VST_OF(sinv, c, inv[k]);
        VST_OF(rmeanOut, c, v_f32_mac_b(VEC_OF(rmean, c), momentum, mean[k] * oneMinusMomentum));
        VST_OF(rvarOut, c, v_f32_mac_b(VEC_OF(rvar, c), momentum, (var * varFactor) * oneMinusMomentum));
#endif
      }
#endif
#if defined(OP_BN_BWD)
      float64 sdy[NH], sdyx[NH];
#pragma unroll
      for (int k = 0; k < NH; k++) sdy[k] = sdyx[k] = 0.0f;
      for (int n = n0; n < n1; n++)
        for (int h = 0; h < H; h++)
          for (int w = 0; w < W; w++) {
            float64 v[NH], g[NH];
            LOADP(COORD(c0, w, h, n), x, v);
            LOADP(COORD(c0, w, h, n), dy, g);
#pragma unroll
            for (int k = 0; k < NH; k++) {
              sdy[k] = sdy[k] + g[k];
              sdyx[k] = v_f32_mac_b(g[k], v[k] - mean[k], sdyx[k]);
            }
          }
      float64 a[NH], b[NH], cc[NH];
#pragma unroll
      for (int k = 0; k < NH; k++) {
        const int c = c0 + 64 * k;
        const float64 dg = sdyx[k] * inv[k];
        VST_OF(dgamma, c, dg);
        VST_OF(dbeta, c, sdy[k]);
        a[k] = VEC_OF(gamma, c) * inv[k];
        b[k] = v_div_f32(sdy[k], (float64)count);
        cc[k] = v_div_f32(dg * inv[k], (float64)count);
      }
      for (int n = n0; n < n1; n++)
        for (int h = 0; h < H; h++)
          for (int w = 0; w < W; w++) {
            float64 v[NH], g[NH];
            LOADP(COORD(c0, w, h, n), x, v);
            LOADP(COORD(c0, w, h, n), dy, g);
#pragma unroll
            for (int k = 0; k < NH; k++) g[k] = a[k] * ((g[k] - b[k]) - (v[k] - mean[k]) * cc[k]);
            STOREP(COORD(c0, w, h, n), dx, g);
          }
#else
      float64 scale[NH], shift[NH];
#pragma unroll
      for (int k = 0; k < NH; k++) {
        scale[k] = VEC_OF(gamma, c0 + 64 * k) * inv[k];
        shift[k] = VEC_OF(beta, c0 + 64 * k);
      }
      for (int n = n0; n < n1; n++)
        for (int h = 0; h < H; h++)
          for (int w = 0; w < W; w++) {
            float64 v[NH];
            LOADP(COORD(c0, w, h, n), x, v);
#pragma unroll
            for (int k = 0; k < NH; k++) v[k] = v_f32_mac_b(v[k] - mean[k], scale[k], shift[k]);
            STOREP(COORD(c0, w, h, n), y, v);
          }
#endif
    }
#else  // NCHW
  const int64 lane = as_int64(read_lane_id_4b_b());
#if defined(OP_GN)
  const int cg = groupSize;
#else
  const int cg = 1;
#endif
  for (int q = start[3]; q < end[3]; q++)
    for (int g = start[2]; g < end[2]; g++) {
      const int n0 = BATCH ? 0 : q, n1 = BATCH ? N : q + 1, ch0 = g * cg, ch1 = g * cg + cg;
      (void)lane, (void)ch0, (void)ch1;  // not every operation needs them
      float64 mean, inv;
#if defined(OP_BN_INFER)
      mean = SCALAR_OF(rmean, g);
      inv = v_rsqrt_f32((float64)(SCALAR_OF(rvar, g) + eps));
#elif defined(OP_BN_BWD)
      mean = SCALAR_OF(smean, g);
      inv = SCALAR_OF(sinv, g);
#else
      float64 acc = 0.0f;
      for (int n = n0; n < n1; n++)
        for (int c = ch0; c < ch1; c++)
          for (int h = 0; h < H; h++)
            for (int w = 0; w < W; w += VL) {
              float64 v[NH];
              LOADP(COORD(c, w, h, n), x, v);
#pragma unroll
              for (int k = 0; k < NH; k++) acc = acc + v[k];
            }
      mean = v_div_f32(v_f32_reduce_add(acc), (float64)count);
      acc = 0.0f;
      for (int n = n0; n < n1; n++)
        for (int c = ch0; c < ch1; c++)
          for (int h = 0; h < H; h++)
            for (int w = 0; w < W; w += VL) {
              float64 v[NH];
              LOADP(COORD(c, w, h, n), x, v);
#pragma unroll
              for (int k = 0; k < NH; k++) {
                const float64 d = v_f32_sel_less_i32_b(lane, (int64)(W - w - 64 * k), v[k] - mean, 0.0f);
                acc = v_f32_mac_b(d, d, acc);
              }
            }
      const float64 var = v_div_f32(v_f32_reduce_add(acc), (float64)count);
      inv = v_rsqrt_f32(var + eps);
#if defined(OP_BN_TRAIN)
      SST_OF(smean, g, mean);
      SST_OF(sinv, g, inv);
      SST_OF(rmeanOut, g, v_f32_mac_b((float64)SCALAR_OF(rmean, g), momentum, mean * oneMinusMomentum));
      SST_OF(rvarOut, g, v_f32_mac_b((float64)SCALAR_OF(rvar, g), momentum, (var * varFactor) * oneMinusMomentum));
#endif
#endif
#if defined(OP_BN_BWD)
      float64 sdy = 0.0f, sdyx = 0.0f;
      for (int n = n0; n < n1; n++)
        for (int h = 0; h < H; h++)
          for (int w = 0; w < W; w += VL) {
            float64 v[NH], gr[NH];
            LOADP(COORD(g, w, h, n), x, v);
            LOADP(COORD(g, w, h, n), dy, gr);
#pragma unroll
            for (int k = 0; k < NH; k++) {
              sdy = sdy + gr[k];
              sdyx = v_f32_mac_b(gr[k], v[k] - mean, sdyx);  // dy lanes past W are 0
            }
          }
      sdy = v_f32_reduce_add(sdy);
      const float64 dg = v_f32_reduce_add(sdyx) * inv;
      SST_OF(dgamma, g, dg);
      SST_OF(dbeta, g, sdy);
      const float64 a = SCALAR_OF(gamma, g) * inv, b = v_div_f32(sdy, (float64)count),
                    cc = v_div_f32(dg * inv, (float64)count);
      for (int n = n0; n < n1; n++)
        for (int h = 0; h < H; h++)
          for (int w = 0; w < W; w += VL) {
            float64 v[NH], gr[NH];
            LOADP(COORD(g, w, h, n), x, v);
            LOADP(COORD(g, w, h, n), dy, gr);
#pragma unroll
            for (int k = 0; k < NH; k++) gr[k] = a * ((gr[k] - b) - (v[k] - mean) * cc);
            STOREP(COORD(g, w, h, n), dx, gr);
          }
#else
      for (int c = ch0; c < ch1; c++) {
        const float64 scale = SCALAR_OF(gamma, c) * inv, shift = SCALAR_OF(beta, c);
        for (int n = n0; n < n1; n++)
          for (int h = 0; h < H; h++)
            for (int w = 0; w < W; w += VL) {
              float64 v[NH];
              LOADP(COORD(c, w, h, n), x, v);
#pragma unroll
              for (int k = 0; k < NH; k++) v[k] = v_f32_mac_b(v[k] - mean, scale, shift);
              STOREP(COORD(c, w, h, n), y, v);
            }
      }
#endif
    }
#endif
}
