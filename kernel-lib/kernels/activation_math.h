// The activations with parameters (activation.c) and their derivatives (activation_bwd.c), in f32 on one
// vector: alpha, beta and gamma are the node's (docs/kernel-lib.md lists what each takes).
#pragma once

#include "erf_math.h"

// exp(x) - 1 without the cancellation of exp(x) - 1 next to 0: a Taylor polynomial of degree 9 for
// |x| < 0.5 (truncation below 2^-33 relative), exp(x) - 1 elsewhere.
static inline float64 act_expm1(float64 x) {
  const float c[9] = {1.0f, 0.5f, 1.666666667e-01f, 4.166666667e-02f, 8.333333333e-03f, 1.388888889e-03f,
                      1.984126984e-04f, 2.480158730e-05f, 2.755731922e-06f};
  float64 p = c[8];
#pragma unroll
  for (int k = 7; k >= 0; k--) p = v_f32_mac_b(p, x, c[k]);
  return v_f32_sel_less_f32_b(v_f32_abs_b(x), 0.5f, x * p, v_exp_f32(x) - 1.0f);
}

// log(1 + t) for t in [0, 1] (Goldberg: log(u) t / (u - 1) with u = 1 + t rounded, exact where u is 1).
static inline float64 act_log1p(float64 t) {
  const float64 u = 1.0f + t;
  const float64 d = u - 1.0f;
  const float64 q = v_log_f32(u) * v_div_f32(t, v_f32_sel_eq_f32_b(d, 0.0f, 1.0f, d));
  return v_f32_sel_eq_f32_b(d, 0.0f, t, q);
}

// softplus(x) = log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)).
static inline float64 act_softplus(float64 x) {
  return v_f32_max_b(x, 0.0f) + act_log1p(v_exp_f32(-v_f32_abs_b(x)));
}

static inline float64 act_elu(float64 x, float alpha) { return v_f32_sel_grt_f32_b(x, 0.0f, x, act_expm1(x) * alpha); }

// max(0, min(1, alpha x + beta)), one rounding of alpha x + beta.
static inline float64 act_hardsigmoid(float64 x, float alpha, float beta) {
  return v_f32_min_b(v_f32_max_b(v_f32_mac_b(x, alpha, beta), 0.0f), 1.0f);
}

// x / (1 + |x|); +-1 at +-inf (inf / inf would be NaN).
static inline float64 act_softsign(float64 x) {
  const float64 q = v_div_f32(x, 1.0f + v_f32_abs_b(x));
  return v_f32_sel_eq_f32_b(v_f32_abs_b(x), __builtin_inff(), v_f32_sel_less_f32_b(x, 0.0f, -1.0f, 1.0f), q);
}

// mish(x) = x tanh(softplus(x)).
static inline float64 act_mish(float64 x) { return x * v_tanh_f32(act_softplus(x)); }

// ------------------------------------------------------------------------------------------ derivatives

// elu'(x) = 1 for x > 0, alpha exp(x) elsewhere.
static inline float64 act_elu_grad(float64 dy, float64 x, float alpha) {
  return v_f32_sel_grt_f32_b(x, 0.0f, dy, dy * (v_exp_f32(x) * alpha));
}

// hardsigmoid'(x) = alpha where 0 < alpha x + beta < 1, else 0.
static inline float64 act_hardsigmoid_slope(float64 x, float alpha, float beta) {
  const float64 v = v_f32_mac_b(x, alpha, beta);
  return v_f32_sel_grt_f32_b(v, 0.0f, v_f32_sel_less_f32_b(v, 1.0f, (float64)alpha, 0.0f), 0.0f);
}

// silu'(x) = s (1 + x (1 - s)), s = sigmoid(x); 1 - s as sigmoid(-x), which keeps its digits where s
// rounds next to 1.
static inline float64 act_silu_grad(float64 dy, float64 x) {
  const float64 s = v_sigmoid_f32(x);
  return dy * (s * v_f32_mac_b(x, v_sigmoid_f32(-x), 1.0f));
}

// mish'(x) = t + x (1 - t^2) sigmoid(x), t = tanh(softplus(x)). 1 - t^2 is sech^2(softplus(x)) =
// 4 u^2 / (1 + u^2)^2 with u = exp(-softplus(x)) = sigmoid(-x) for x > 0, where t rounds next to 1, and
// (1 - t)(1 + t) elsewhere, where t is small and u next to 1.
static inline float64 act_mish_grad(float64 dy, float64 x) {
  const float64 t = v_tanh_f32(act_softplus(x));
  const float64 s = v_sigmoid_f32(x);
  const float64 u = v_sigmoid_f32(-x);
  const float64 u2 = u * u;
  const float64 sech2 = v_div_f32(u2 * 4.0f, (1.0f + u2) * (1.0f + u2));
  const float64 oneMinusT2 = v_f32_sel_grt_f32_b(x, 0.0f, sech2, (1.0f - t) * (1.0f + t));
  return dy * v_f32_mac_b(x * oneMinusT2, s, t);
}

// softsign'(x) = 1 / (1 + |x|)^2.
static inline float64 act_softsign_grad(float64 dy, float64 x) {
  const float64 d = 1.0f + v_f32_abs_b(x);
  return v_div_f32(dy, d * d);
}

// erf'(x) = 2 / sqrt(pi) exp(-x^2).
static inline float64 act_erf_grad(float64 dy, float64 x) {
  return dy * (exp_minus_square_f32(v_f32_min_b(v_f32_abs_b(x), 10.0f)) * 1.128379167f);
}
