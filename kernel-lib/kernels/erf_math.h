// erf and erfc in f32 (docs/kernel-lib.md, "Accuracy"), shared by gelu (gelu_math.h) and erf_fwd
// (activation.c): erf(y) = y P(y^2) for |y| < 0.5, and erfc(z) = exp(-z^2) g(z) elsewhere, g in four
// pieces of z. The coefficients come from kernel-lib/scripts/fit_erfc.py.
#pragma once

#define GELU_ERF_SMALL {1.128379226e+00f, -3.761263788e-01f, 1.128379107e-01f, -2.686611004e-02f, 5.223275628e-03f, -8.506765007e-04f, 1.082277813e-04f}
#define GELU_ERFC_0 {4.275835752e-01f, -2.732120156e-01f, 1.543715000e-01f, -7.922694832e-02f, 3.757403791e-02f, -1.666245610e-02f, 6.950746756e-03f, -2.762538148e-03f, 1.137681073e-03f, -4.113944306e-04f}
#define GELU_ERFC_1 {2.310872525e-01f, -8.848650008e-02f, 3.199260309e-02f, -1.100205444e-02f, 3.619330935e-03f, -1.143816626e-03f, 3.468791547e-04f, -1.022861979e-04f, 3.265270789e-05f, -9.017391676e-06f}
#define GELU_ERFC_2 {1.224848032e-01f, -2.601592802e-02f, 5.413095001e-03f, -1.104570692e-03f, 2.213738626e-04f, -4.357004582e-05f, 8.297774002e-06f, -1.581966671e-06f, 3.654701572e-07f, -6.717802137e-08f}
#define GELU_ERFC_3 {6.998515874e-02f, -8.616507053e-03f, 1.053157263e-03f, -1.277947595e-04f, 1.533074646e-05f, -1.834789714e-06f, 2.451995158e-07f, -2.890923056e-08f}

// Horner's rule with fused multiply-adds over the coefficients c[0..n) in powers of t.
#define GELU_HORNER(c, n, t)                                       \
  ({                                                               \
    float64 h_ = (c)[(n) - 1];                                     \
    _Pragma("unroll") for (int k_ = (n) - 2; k_ >= 0; k_--) h_ = v_f32_mac_b(h_, t, (c)[k_]); \
    h_;                                                            \
  })

// erf(y) for |y| < 0.5.
static inline float64 erf_small_f32(float64 y) {
  const float small[7] = GELU_ERF_SMALL;
  return y * GELU_HORNER(small, 7, y * y);
}

// g(z) = erfc(z) exp(z^2) for z >= 0.5 (z above 10 taken as 10): each lane takes its piece's coefficients.
static inline float64 erfc_scaled_f32(float64 z) {
  const float p0[10] = GELU_ERFC_0, p1[10] = GELU_ERFC_1, p2[10] = GELU_ERFC_2, p3[10] = GELU_ERFC_3;
  const float64 mid = v_f32_sel_less_f32_b(z, 1.5f, 1.0f, v_f32_sel_less_f32_b(z, 3.0f, 2.25f, v_f32_sel_less_f32_b(z, 6.0f, 4.5f, 8.0f)));
  const float64 t = v_f32_min_b(z, 10.0f) - mid;
  float64 g = 0.0f;
#pragma unroll
  for (int k = 9; k >= 0; k--) {
    const float64 c = v_f32_sel_less_f32_b(z, 1.5f, p0[k], v_f32_sel_less_f32_b(z, 3.0f, p1[k], v_f32_sel_less_f32_b(z, 6.0f, p2[k], k < 8 ? p3[k] : 0.0f)));
    g = v_f32_mac_b(g, t, c);
  }
  return g;
}

// exp(-z^2) for z >= 0, with the rounding error of z^2 corrected (a fused multiply-add gives it exactly).
static inline float64 exp_minus_square_f32(float64 z) {
  const float64 z2 = z * z;
  const float64 e = v_f32_mac_b(z, z, -z2);  // z^2 - z2, exactly
  const float64 r = v_exp_f32(-z2);
  return v_f32_mac_b(r, -e, r);  // r (1 - e)
}

// erf(x): the odd function from erf_small below 0.5, 1 - erfc above; |x| clamped to 10 (erf is 1 in f32).
static inline float64 erf_f32(float64 x) {
  const float64 z = v_f32_min_b(v_f32_abs_b(x), 10.0f);
  const float64 tail = 1.0f - exp_minus_square_f32(z) * erfc_scaled_f32(z);
  const float64 signedTail = v_f32_sel_less_f32_b(x, 0.0f, -tail, tail);
  return v_f32_sel_less_f32_b(z, 0.5f, erf_small_f32(x), signedTail);
}
