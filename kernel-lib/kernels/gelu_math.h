// GELU and its derivative in f32 (docs/kernel-lib.md, "Accuracy"). Exact form: x * Phi(x), Phi the normal
// CDF, from erf(x / sqrt(2)) for |x| < sqrt(1/2) and from erfc(z) = exp(-z^2) g(z), z = |x| / sqrt(2), elsewhere;
// exp(-x^2 / 2) carries the rounding error of x^2 (a fused multiply-add gives it exactly), so that the
// tails keep their relative accuracy. Tanh form: x * sigmoid(x * (k1 + k2 x^2)), which is
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) without its cancellation for negative x.
// The coefficients come from kernel-lib/scripts/fit_erfc.py.
#pragma once

#include "erf_math.h"

// exp(-x^2 / 2), with the rounding error of x^2 corrected.
static inline float64 gelu_exp_half_square(float64 x) {
  const float64 x2 = x * x;
  const float64 e = v_f32_mac_b(x, x, -x2);  // x^2 - x2, exactly (fused)
  const float64 r = v_exp_f32(x2 * -0.5f);
  return v_f32_mac_b(r, e * -0.5f, r);  // r * (1 - e / 2)
}

// Phi(x) = 0.5 erfc(-x / sqrt(2)); expHalfSquare = exp(-x^2 / 2).
static inline float64 gelu_phi(float64 x, float64 expHalfSquare) {
  const float64 z = v_f32_abs_b(x) * 0.707106781f;
  // |x| < sqrt(1/2): Phi = 0.5 + 0.5 erf(x / sqrt(2)).
  const float64 y = x * 0.707106781f;
  const float64 central = v_f32_mac_b(erf_small_f32(y), 0.5f, 0.5f);
  // Elsewhere erfc(z) = exp(-z^2) g(z).
  const float64 halfErfc = expHalfSquare * erfc_scaled_f32(z) * 0.5f;
  const float64 tail = v_f32_sel_less_f32_b(x, 0.0f, halfErfc, 1.0f - halfErfc);
  return v_f32_sel_less_f32_b(z, 0.5f, central, tail);
}

// x clamped to [-20, 20]: beyond, Phi(x) and sigmoid(v) are 0 or 1 in f32, and x^2 would overflow (inf - inf
// in the error terms gave NaN for |x| > 2^63).
static inline float64 gelu_clamp(float64 x) { return v_f32_min_b(v_f32_max_b(x, -20.0f), 20.0f); }

static inline float64 gelu_erf_f32(float64 x) {
  const float64 xc = gelu_clamp(x);
  return x * gelu_phi(xc, gelu_exp_half_square(xc));
}

// d/dx (x Phi(x)) = Phi(x) + x phi(x), phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
static inline float64 gelu_erf_grad_f32(float64 x) {
  const float64 xc = gelu_clamp(x);
  const float64 e = gelu_exp_half_square(xc);
  return v_f32_mac_b(xc, e * 0.398942280f, gelu_phi(xc, e));
}

// 2 sqrt(2 / pi) and 2 sqrt(2 / pi) 0.044715, each as the nearest f32 and the remainder.
#define GELU_K1 1.595769167e+00f
#define GELU_K1_LO -4.534068054e-08f
#define GELU_K2 7.135481387e-02f
#define GELU_K2_LO 2.398832466e-09f

// v = x (k1 + k2 x^2), the argument of the sigmoid, returned rounded with its error in *dv (v + dv is v to
// about twice f32's precision). sigmoid(v) multiplies v's relative error by about |v| (up to 9 where gelu
// is not yet tiny): rounded alone, v would cost the tanh form 15 ulp near x = -3.
static inline float64 gelu_tanh_argument(float64 x, float64* dv) {
  const float64 x2 = x * x;
  const float64 x2e = v_f32_mac_b(x, x, -x2);       // x^2 - x2, exactly
  const float64 t = x2 * GELU_K2;
  const float64 te = v_f32_mac_b(x2, GELU_K2, -t);  // x2 k2 - t, exactly
  const float64 p = t + GELU_K1;
  const float64 pp = p - t;                         // Knuth's two-sum: p + pe = t + k1 exactly
  const float64 pe = (t - (p - pp)) + (GELU_K1 - pp);
  const float64 plo = v_f32_mac_b(x2e, GELU_K2, v_f32_mac_b(x2, GELU_K2_LO, te + pe + GELU_K1_LO));
  const float64 v = x * p;
  *dv = v_f32_mac_b(x, plo, v_f32_mac_b(x, p, -v));  // x plo + (x p - v)
  return v;
}

// x sigmoid(v + dv) = x (s + s (1 - s) dv).
static inline float64 gelu_tanh_f32(float64 x) {
  float64 dv;
  const float64 v = gelu_tanh_argument(gelu_clamp(x), &dv);
  const float64 s = v_sigmoid_f32(v);
  return x * v_f32_mac_b(s * (1.0f - s), dv, s);  // not x s + x s (1 - s) dv: inf x 0 at x = inf
}

// d/dx (x s(v)) = s(v) + x s(v) s(-v) v'(x), v'(x) = k1 + 3 k2 x^2; s(v) and s(-v) corrected by dv.
static inline float64 gelu_tanh_grad_f32(float64 x0) {
  const float64 x = gelu_clamp(x0);
  float64 dv;
  const float64 v = gelu_tanh_argument(x, &dv);
  // x v'(x) before the sigmoids: one value held through them instead of x and x^2.
  const float64 xv = x * v_f32_mac_b(x * x, 3.0f * GELU_K2, GELU_K1);
  float64 m0;
  const float64 s0 = __tpc_sf_sigmoid_pair(v, &m0);  // and m0 = sigmoid(-v), from one exponential
  const float64 ds = s0 * m0 * dv;
  const float64 s = s0 + ds, m = m0 - ds;
  return v_f32_mac_b(xv * s, m, s);
}
