// Optimizer steps, elementwise over 128 elements of dimension 0 per index-space point; parameters and state
// f32, gradients f32 (-DDT_F32) or bf16 (-DDT_BF16; loaded unpacked, so that the two halves of the
// widened pair are elements 0-63 and 64-127 in order). The outputs may be the inputs' memory (in place).
//   -DOP_SGD    g = grad + weight_decay w; buf = momentum buf + g; w = w - lr (momentum ? buf : g)
//   -DOP_ADAMW  w = w - lr weight_decay w; m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g^2;
//               w = w - stepSize m / (sqrt(v) invSqrtBias2 + eps), stepSize = lr / (1 - beta1^step) and
//               invSqrtBias2 = 1 / sqrt(1 - beta2^step) (PyTorch's AdamW, the scalars from the glue)
#include "common.h"

#if defined(DT_F32)
#define LOAD_GRADS(c, t, g)                          \
  do {                                               \
    (g)[0] = v_f32_ld_tnsr_b(c, t);                  \
    int5 c1_ = c;                                    \
    c1_[0] += 64;                                    \
    (g)[1] = v_f32_ld_tnsr_b(c1_, t);                \
  } while (0)
#elif defined(DT_BF16)
#define LOAD_GRADS(c, t, g)                                                          \
  do {                                                                               \
    const float64_pair_t w_ = v_convert_bf16_to_f32_all_b(v_bf16_ld_tnsr_b(c, t, SW_UNPACK)); \
    (g)[0] = w_.v1;                                                                  \
    (g)[1] = w_.v2;                                                                  \
  } while (0)
#else
#error "compile with -DDT_F32 or -DDT_BF16"
#endif

// 128 elements of dimension 0 per index-space point.
#define FOR_EACH_GROUP(c, space2d, ...) FOR_EACH_INDEX(c, 128, space2d, __VA_ARGS__)

#if defined(OP_SGD)

// SGD's short body: the core's whole part in one loop, 4 groups (8 vectors of each tensor) per iteration
// (common.h, FOR_EACH_POINT_FLAT). The step is buf or g by whether momentum is 0, which is the same for
// every element: a loop for each case, where a select in one loop would cost two moves per vector.
#define SGD_LOOP(step)                                                         \
  FOR_EACH_POINT_FLAT(c, 128, 8, layout == 2,                                  \
    float64 g[2];                                                              \
    LOAD_GRADS(c, grad, g);                                                    \
    for (int h = 0; h < 2; h++) {                                              \
      int5 ch = c;                                                             \
      ch[0] += 64 * h;                                                         \
      const float64 wv = v_f32_ld_tnsr_b(ch, w);                               \
      const float64 gv = v_f32_mac_b(wv, weightDecay, g[h]);                   \
      const float64 b = v_f32_mac_b(v_f32_ld_tnsr_b(ch, buf), momentum, gv);   \
      v_f32_st_tnsr(ch, bufOut, b);                                            \
      v_f32_st_tnsr(ch, wOut, v_f32_mac_b(step, -lr, wv));                     \
    })

void main(tensor w, tensor grad, tensor buf, tensor wOut, tensor bufOut, float lr, float momentum, float weightDecay,
          int layout)
{
  if (momentum != 0.0f) {
    SGD_LOOP(b)
  } else {
    SGD_LOOP(gv)
  }
}

#elif defined(OP_ADAMW)

void main(tensor w, tensor grad, tensor m, tensor v, tensor wOut, tensor mOut, tensor vOut, float lr, float beta1,
          float beta2, float eps, float weightDecay, float stepSize, float invSqrtBias2, int layout)
{
  int5 c = 0;
  const float decay = 1.0f - lr * weightDecay;
  FOR_EACH_GROUP(c, layout == 2,
    float64 g[2];
    LOAD_GRADS(c, grad, g);
    // Unrolled by hand: LLVM leaves a body this long (a square root and a division) as a loop of two
    // iterations, which would be the innermost loop, the one the compiler overlaps.
    _Pragma("unroll") for (int h = 0; h < 2; h++) {
      int5 ch = c;
      ch[0] += 64 * h;
      const float64 wv = v_f32_ld_tnsr_b(ch, w) * decay;
      const float64 mv = v_f32_mac_b(g[h], 1.0f - beta1, v_f32_ld_tnsr_b(ch, m) * beta1);
      const float64 vv = v_f32_mac_b(g[h] * g[h], 1.0f - beta2, v_f32_ld_tnsr_b(ch, v) * beta2);
      v_f32_st_tnsr(ch, mOut, mv);
      v_f32_st_tnsr(ch, vOut, vv);
      const float64 denom = v_f32_mac_b(v_sqrt_f32(vv), invSqrtBias2, eps);
      v_f32_st_tnsr(ch, wOut, v_f32_mac_b(v_div_f32(mv, denom), -stepSize, wv));
    })
}

#else
#error "compile with -DOP_SGD or -DOP_ADAMW"
#endif
