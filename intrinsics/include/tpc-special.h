// tpc-special.h: the special-function library of TPC-C (exp, log, sin, tanh, reciprocal, ...), written in
// TPC-C over the intrinsics and included implicitly by tpc-clang.
//
// The public names and signatures are those of the vendor's tpc-special.h (interface facts); every algorithm
// here is our own. docs/special-functions.md lists the functions, their accuracy (measured by
// tests/special_functions) and how they treat special inputs.
//
// Numerics of the core that shape the code (docs/isa.md): denormal inputs and results flush to signed zero,
// NaN results are the canonical quiet NaN, and mac/madd round the product and the sum separately (no fused
// multiply-add). There is no divide, reciprocal or square-root instruction: those are Newton iterations
// from an integer-trick seed, with residuals computed exactly by splitting operands into 12-bit halves.
//
// Conventions:
// - Helpers are `static inline` and named __tpc_sf_*; the compiler inlines every call.
// - Sign flips use v_f32_xor_b with -0.0f and conditions use cmp_*/sel_* intrinsics (written before the
//   backend lowered `-x` and vector comparisons).
// - Float <-> integer conversions use __builtin_convertvector (a C cast between vector types of the same size
//   is a bit reinterpretation in Clang, like as_int64()).
// - A user who defines TPC_SPECIAL_FUNCS_INCLUDED (e.g. -DTPC_SPECIAL_FUNCS_INCLUDED) gets none of the
//   functions and may define their own, as with the vendor's header.
#ifndef TPC_SPECIAL_H_INCLUDED
#define TPC_SPECIAL_H_INCLUDED

#ifndef TPC_SPECIAL_FUNCS_INCLUDED
#define TPC_SPECIAL_FUNCS_INCLUDED

#define __TPC_SF static inline

// ------------------------------------------------------------------------------------------ helpers

// A vector of the f32 with these bits.
__TPC_SF float64 __tpc_sf_bits(int b) {
  int64 v = b;
  return as_float64(v);
}
#define __TPC_SF_NAN __tpc_sf_bits(0x7fc00000)
#define __TPC_SF_INF __tpc_sf_bits(0x7f800000)
#define __TPC_SF_NINF __tpc_sf_bits((int)0xff800000)

__TPC_SF float64 __tpc_sf_neg(float64 x) { return v_f32_xor_b(x, -0.0f); }
__TPC_SF float64 __tpc_sf_abs(float64 x) { return v_f32_abs_b(x); }
__TPC_SF float64 __tpc_sf_madd(float64 a, float64 b, float64 c) { return v_f32_madd_b(a, b, c); }  // a*b + c
__TPC_SF float64 __tpc_sf_i2f(int64 i) { return __builtin_convertvector(i, float64); }
__TPC_SF int64 __tpc_sf_f2i(float64 f) { return __builtin_convertvector(f, int64); }  // truncates

// Round to the nearest integer (ties to even) for |x| < 2^22: the sum's rounding does the work.
__TPC_SF float64 __tpc_sf_rint(float64 x) { return (x + 12582912.0f) - 12582912.0f; }

// 2^e for integer e in [-126, 127].
__TPC_SF float64 __tpc_sf_pow2i(int64 e) { return as_float64((e + 127) << 23); }

// The upper 12 significant bits of a (a - hi12(a) is exact and has at most 12 significant bits), so that
// products of such halves are exact.
__TPC_SF float64 __tpc_sf_hi12(float64 a) { return as_float64(as_int64(a) & (int)0xfffff000); }

// y * 2^e for integer e in [-252, 254], rounded once: the scale is split in two factors that are normal
// numbers, the first product is exact (y is near 1), the second rounds and flushes like any multiply.
__TPC_SF float64 __tpc_sf_scale(float64 y, int64 e) {
  int64 e1 = e >> 1;
  return (y * __tpc_sf_pow2i(e1)) * __tpc_sf_pow2i(e - e1);
}

// ---------------------------------------------------------------------------------------------- exp

// e^r for |r| <= 0.35: 1 + (r + r^2 P(r)).
__TPC_SF float64 __tpc_sf_expm_poly(float64 r) {
  float64 p = __tpc_sf_madd(r, 1.989098091e-04f, 1.393364160e-03f);
  p = __tpc_sf_madd(p, r, 8.333310485e-03f);
  p = __tpc_sf_madd(p, r, 4.166646674e-02f);
  p = __tpc_sf_madd(p, r, 1.666666716e-01f);
  p = __tpc_sf_madd(p, r, 0.5f);
  return __tpc_sf_madd(r * r, p, r) + 1.0f;
}

// e^x for x in [-104, 89] (no special cases): x = k ln2 + r (Cody-Waite: k * LN2_HI is exact for
// |k| <= 256), e^x = 2^k e^r, scaled so that it overflows to +inf or flushes to +0 exactly where e^x does.
__TPC_SF float64 __tpc_sf_exp_core(float64 x) {
  float64 k = __tpc_sf_rint(x * 1.44269504f);
  float64 r = __tpc_sf_madd(k, -0.693145752f, x);
  r = __tpc_sf_madd(k, -1.42860677e-06f, r);
  return __tpc_sf_scale(__tpc_sf_expm_poly(r), __tpc_sf_f2i(k));
}

// exp(x): clamping x to [-104, 89] keeps k in range; NaN passes through min/max as the canonical NaN.
// exp(+-0) = 1, exp(+inf) = +inf, exp(-inf) = +0, results below 2^-126 flush to +0.
__TPC_SF float64 v_exp_f32(float64 input) {
  return __tpc_sf_exp_core(v_f32_min_b(v_f32_max_b(input, -104.0f), 89.0f));
}

// 2^x: x = k + r with k = rint(x), |r| <= 1/2 (exact), 2^r = 1 + r P(r).
__TPC_SF float64 v_pow2_f32(float64 input) {
  float64 x = v_f32_min_b(v_f32_max_b(input, -152.0f), 129.0f);
  float64 k = __tpc_sf_rint(x);
  float64 r = x - k;
  float64 p = __tpc_sf_madd(r, 1.545316336e-04f, 1.339086331e-03f);
  p = __tpc_sf_madd(p, r, 9.618083015e-03f);
  p = __tpc_sf_madd(p, r, 5.550356954e-02f);
  p = __tpc_sf_madd(p, r, 2.402265072e-01f);
  p = __tpc_sf_madd(p, r, 6.931471825e-01f);
  return __tpc_sf_scale(__tpc_sf_madd(r, p, 1.0f), __tpc_sf_f2i(k));
}

// ---------------------------------------------------------------------------------------------- log

// x = 2^e m with m in [sqrt(1/2), sqrt(2)) taken from the bits; f = m - 1 (exact). Writes e (as a float)
// and returns f. Meaningful for positive normal x only (callers select the special cases).
__TPC_SF float64 __tpc_sf_log_reduce(float64 x, float64* e) {
  int64 ix = as_int64(x);
  int64 ie = (ix - 0x3f3504f3) >> 23;
  *e = __tpc_sf_i2f(ie);
  return as_float64(ix - (ie << 23)) - 1.0f;
}

// log1p(f) - f = f^2 Q(f) for f in [-0.2929, 0.4143].
__TPC_SF float64 __tpc_sf_log1p_tail(float64 f) {
  float64 q = __tpc_sf_madd(f, 6.767020375e-02f, -1.155657768e-01f);
  q = __tpc_sf_madd(q, f, 1.181256846e-01f);
  q = __tpc_sf_madd(q, f, -1.242095008e-01f);
  q = __tpc_sf_madd(q, f, 1.423228532e-01f);
  q = __tpc_sf_madd(q, f, -1.666752845e-01f);
  q = __tpc_sf_madd(q, f, 2.000144720e-01f);
  q = __tpc_sf_madd(q, f, -2.500001192e-01f);
  q = __tpc_sf_madd(q, f, 3.333332241e-01f);
  q = __tpc_sf_madd(q, f, -0.5f);
  return (f * f) * q;
}

// The special cases of log and log2 (C99 F.9.3.7): +-0 (and denormals, which the core reads as zero) give
// -inf, x < 0 gives NaN, +inf gives +inf, NaN gives NaN.
__TPC_SF float64 __tpc_sf_log_special(float64 x, float64 r) {
  r = v_f32_sel_less_f32_b(x, 0.0f, __TPC_SF_NAN, r);
  r = v_f32_sel_eq_f32_b(x, 0.0f, __TPC_SF_NINF, r);
  r = v_f32_sel_eq_f32_b(x, __TPC_SF_INF, __TPC_SF_INF, r);
  return v_f32_sel_neq_f32_b(x, x, __TPC_SF_NAN, r);
}

// log(x) = e ln2 + log1p(f), ln2 split so that e * LN2_HI is exact. v_log_fast_f32 is this without the
// special cases (positive normal finite x).
__TPC_SF float64 v_log_fast_f32(float64 input) {
  float64 e;
  float64 f = __tpc_sf_log_reduce(input, &e);
  float64 t = __tpc_sf_madd(e, 1.42860677e-06f, __tpc_sf_log1p_tail(f));
  return __tpc_sf_madd(e, 0.693145752f, f + t);
}
__TPC_SF float64 v_log_f32(float64 input) { return __tpc_sf_log_special(input, v_log_fast_f32(input)); }

// log2(x) = e + log1p(f) LOG2E, with LOG2E = LH (12 bits) + LL and f = fh + fl (12-bit halves) so that
// fh LH is exact; e + fh LH is summed with its exact error (Fast2Sum), so the result is rounded about once.
// v_log2_fast_f32 is this without the special cases (positive normal finite x).
__TPC_SF float64 v_log2_fast_f32(float64 input) {
  float64 e;
  float64 f = __tpc_sf_log_reduce(input, &e);
  float64 t = __tpc_sf_log1p_tail(f);
  float64 fh = __tpc_sf_hi12(f);
  float64 hi = fh * 1.442871094f;
  float64 lo = __tpc_sf_madd(f - fh, 1.442871094f, __tpc_sf_madd(f, -1.760528539e-04f, t * 1.44269504f));
  float64 s = e + hi;
  return s + (((e - s) + hi) + lo);
}
__TPC_SF float64 v_log2_f32(float64 input) { return __tpc_sf_log_special(input, v_log2_fast_f32(input)); }

// ----------------------------------------------------------------------- reciprocal, division, sqrt

// b - a*c exactly (up to a rounding far below the result's ulp) for a, c with 24-bit significands, when
// b - a*c is small compared with b: the four partial products of the 12-bit halves are exact.
__TPC_SF float64 __tpc_sf_residual(float64 b, float64 a, float64 c) {
  float64 ah = __tpc_sf_hi12(a), al = a - ah;
  float64 ch = __tpc_sf_hi12(c), cl = c - ch;
  float64 r = b - ah * ch;
  r = r - ah * cl;
  r = r - al * ch;
  return r - al * cl;
}

// 1/m for m in [1, 2): a quadratic seed (1% error), two Newton steps, one step with an exact residual.
__TPC_SF float64 __tpc_sf_recip_mant(float64 m, float64 nm) {
  float64 y = __tpc_sf_madd(__tpc_sf_madd(m, 0.323232323f, -1.45454545f), m, 2.12121212f);
  y = y * __tpc_sf_madd(nm, y, 2.0f);
  y = y * __tpc_sf_madd(nm, y, 2.0f);
  return __tpc_sf_madd(y, __tpc_sf_residual(1.0f, m, y), y);
}

// Splits x (normal, any sign) into m = |x| / 2^e in [1, 2) and e; nm = -m.
__TPC_SF float64 __tpc_sf_mant(float64 x, float64* nm, int64* e) {
  int64 ix = as_int64(x);
  int64 fr = ix & 0x007fffff;
  *e = ((ix >> 23) & 0xff) - 127;
  *nm = as_float64(fr | (int)0xbf800000);
  return as_float64(fr | 0x3f800000);
}

// The sign bit of x, or'ed into y.
__TPC_SF float64 __tpc_sf_with_sign(float64 y, float64 x) {
  return as_float64(as_int64(y) | (as_int64(x) & (int)0x80000000));
}

// 1/x: 1/m scaled by 2^-e. Infinities give zeros and |x| > 2^126 flushes to zero through the scaling;
// +-0 (and denormals) give +-inf, NaN gives NaN.
__TPC_SF float64 v_reciprocal_f32(float64 input) {
  float64 nm;
  int64 e;
  float64 m = __tpc_sf_mant(input, &nm, &e);
  float64 r = __tpc_sf_with_sign(__tpc_sf_scale(__tpc_sf_recip_mant(m, nm), -e), input);
  r = v_f32_sel_eq_f32_b(input, 0.0f, __tpc_sf_with_sign(__TPC_SF_INF, input), r);
  return v_f32_sel_neq_f32_b(input, input, __TPC_SF_NAN, r);
}

// x / y = (mx / my) 2^(ex - ey): the quotient of the significands with one correction from an exact
// residual, scaled once (so the result is rounded once, up to the correction's tiny error). Special cases as
// IEEE division: NaN if either is NaN, 0/0 and inf/inf; x/0 = +-inf, 0/y = +-0, x/inf = +-0, inf/y = +-inf
// (denormal operands count as zeros).
__TPC_SF float64 v_div_f32(float64 input_x, float64 input_y) {
  // The special cases first, from the inputs alone, into one value s: 1.0f (which no special case gives)
  // where none applies. Only s and the sign stay live through the quotient's long chain, not the inputs,
  // their magnitudes and the signed infinity (four vector registers less per division in flight).
  float64 sign = as_float64((as_int64(input_x) ^ as_int64(input_y)) & (int)0x80000000);
  float64 ax = __tpc_sf_abs(input_x), ay = __tpc_sf_abs(input_y);
  float64 sinf = as_float64(as_int64(sign) | 0x7f800000);
  float64 s = v_f32_sel_eq_f32_b(ay, 0.0f, sinf, 1.0f);
  s = v_f32_sel_eq_f32_b(ax, 0.0f, sign, s);
  s = v_f32_sel_eq_f32_b(ay, __TPC_SF_INF, sign, s);
  s = v_f32_sel_eq_f32_b(ax, __TPC_SF_INF, sinf, s);
  // 0/0 and inf/inf: equal magnitudes that are 0 or inf (the only values with a + a == a).
  s = v_f32_sel_eq_f32_vb(ax, ay, __TPC_SF_NAN, s, 0, s, v_f32_cmp_eq_b(ax + ax, ax));
  s = v_f32_sel_neq_f32_b(input_x, input_x, __TPC_SF_NAN, s);
  s = v_f32_sel_neq_f32_b(input_y, input_y, __TPC_SF_NAN, s);
  float64 nmx, nmy;
  int64 ex, ey;
  float64 mx = __tpc_sf_mant(input_x, &nmx, &ex);
  float64 my = __tpc_sf_mant(input_y, &nmy, &ey);
  float64 ry = __tpc_sf_recip_mant(my, nmy);
  float64 q = mx * ry;
  q = __tpc_sf_madd(__tpc_sf_residual(mx, q, my), ry, q);
  int64 d = v_i32_max_b(ex - ey, -252);
  float64 r = __tpc_sf_with_sign(__tpc_sf_scale(q, d), sign);
  return v_f32_sel_eq_f32_b(s, 1.0f, r, s);
}

// x = 2^(2h) m with m in [1, 4). Writes h, returns m (x positive and normal).
__TPC_SF float64 __tpc_sf_sqrt_reduce(float64 x, int64* h) {
  int64 ix = as_int64(x);
  int64 hh = (((ix >> 23) & 0xff) - 127) >> 1;
  *h = hh;
  return as_float64(ix - (hh << 24));
}

// 1/sqrt(m) for m in [1, 4) to about 2^-17: the integer seed (3.4% error) and two Newton steps.
__TPC_SF float64 __tpc_sf_rsqrt_mant(float64 m) {
  float64 y = as_float64(0x5f375a86 - (as_int64(m) >> 1));
  float64 hm = m * -0.5f;
  y = y * __tpc_sf_madd(hm * y, y, 1.5f);
  return y * __tpc_sf_madd(hm * y, y, 1.5f);
}

// sqrt(x): s = m / sqrt(m), corrected with the exact residual m - s^2, then scaled by 2^h (exact).
// +-0 give +-0 (denormals too), x < 0 gives NaN, +inf gives +inf, NaN gives NaN.
__TPC_SF float64 v_sqrt_f32(float64 input) {
  int64 h;
  float64 m = __tpc_sf_sqrt_reduce(input, &h);
  float64 y = __tpc_sf_rsqrt_mant(m);
  float64 s = m * y;
  s = __tpc_sf_madd(__tpc_sf_residual(m, s, s), y * 0.5f, s);
  float64 r = s * __tpc_sf_pow2i(h);
  r = v_f32_sel_less_f32_b(input, 0.0f, __TPC_SF_NAN, r);
  r = v_f32_sel_eq_f32_b(input, 0.0f, as_float64(as_int64(input) & (int)0x80000000), r);
  r = v_f32_sel_eq_f32_b(input, __TPC_SF_INF, __TPC_SF_INF, r);
  return v_f32_sel_neq_f32_b(input, input, __TPC_SF_NAN, r);
}

// 1/sqrt(x) for positive normal x, on x itself without a range reduction: the integer seed works for any
// positive normal x (3.4% error), and the Newton steps y (1.5 - x y^2 / 2) form x y and y / 2, which stay
// normal for every normal x (x / 2 itself would not, for the smallest); then a third step from 1 - x y^2.
// The chain is shorter than with a reduction's integer steps and final scaling (a latency that a norm's
// statistics wait for), and has fewer instructions.
__TPC_SF float64 v_rsqrt_fast_f32(float64 input) {
  float64 y = as_float64(0x5f375a86 - (as_int64(input) >> 1));
  y = y * __tpc_sf_madd(input * y, y * -0.5f, 1.5f);
  y = y * __tpc_sf_madd(input * y, y * -0.5f, 1.5f);
  float64 t = __tpc_sf_madd(input * y, __tpc_sf_neg(y), 1.0f);
  return __tpc_sf_madd(y * 0.5f, t, y);
}

// 1/sqrt(x): v_rsqrt_fast_f32 with the special cases. +-0 give +-inf, x < 0 NaN, +inf +0.
__TPC_SF float64 v_rsqrt_f32(float64 input) {
  float64 r = v_rsqrt_fast_f32(input);
  // The special results are chosen from the input alone, beside the computation, so that the result
  // waits for two selects, not four (a latency that a norm's statistics wait for).
  float64 special = v_f32_sel_eq_f32_b(input, __TPC_SF_INF, 0.0f, __TPC_SF_NAN);
  special = v_f32_sel_eq_f32_b(input, 0.0f, __tpc_sf_with_sign(__TPC_SF_INF, input), special);
  r = v_f32_sel_less_f32_b(input, __TPC_SF_INF, r, 0.0f);
  return v_f32_sel_grt_f32_b(input, 0.0f, r, special);
}

// ------------------------------------------------------------------------------------------ sin, cos

// sin(r) = r + r^3 S(r^2) or cos(r) = 1 + r^2 (-1/2 + r^2 C(r^2)) for the remainder r of x = k pi/2 + r,
// chosen and signed by the quadrant k + q0 (in Horner's form each multiply-add has one constant operand,
// which the instruction can take as an immediate).
__TPC_SF float64 __tpc_sf_sincos_poly(float64 r, float64 k, int q0) {
  float64 z = r * r;
  float64 sp = __tpc_sf_madd(z, 2.723845455e-06f, -1.983999682e-04f);
  sp = __tpc_sf_madd(sp, z, 8.333331905e-03f);
  sp = __tpc_sf_madd(sp, z, -1.666666716e-01f);
  float64 sn = __tpc_sf_madd(r * z, sp, r);
  float64 cp = __tpc_sf_madd(z, -2.729138373e-07f, 2.480052535e-05f);
  cp = __tpc_sf_madd(cp, z, -1.388888806e-03f);
  cp = __tpc_sf_madd(cp, z, 4.166666791e-02f);
  float64 cs = __tpc_sf_madd(z, __tpc_sf_madd(z, cp, -0.5f), 1.0f);
  int64 q = __tpc_sf_f2i(k) + q0;
  float64 res = v_f32_sel_eq_i32_b(q & 1, 0, sn, cs);
  return as_float64(as_int64(res) ^ ((q & 2) << 30));
}

// sin(x) or cos(x) (quadrant offset q0 = 0 or 1). x = k pi/2 + r, |r| < 0.8: pi/2 is the sum of
// seven 7-bit pieces and a float, so every k * piece is exact for |k| < 2^17 and the chain of subtractions
// is exact until the remainder is reached (Cody-Waite). Accurate for |x| < 2^17; beyond, k * piece rounds
// and the result degrades (|r| is clamped so that it stays in [-1, 1]). Then sin(r) = r + r^3 S(r^2),
// cos(r) = 1 + r^2 (-1/2 + r^2 C(r^2)), chosen and signed by the quadrant k + q0.
__TPC_SF float64 __tpc_sf_sincos(float64 x, int q0) {
  float64 k = __tpc_sf_rint(x * 0.636619772f);
  float64 r = __tpc_sf_madd(k, -1.578125000e+00f, x);
  r = __tpc_sf_madd(k, 7.324218750e-03f, r);
  r = __tpc_sf_madd(k, 4.470348358e-06f, r);
  r = __tpc_sf_madd(k, -1.583248377e-08f, r);
  r = __tpc_sf_madd(k, -6.093614502e-11f, r);
  r = __tpc_sf_madd(k, 1.652011861e-13f, r);
  r = __tpc_sf_madd(k, -6.123234e-17f, r);
  r = v_f32_min_b(v_f32_max_b(r, -0.8f), 0.8f);
  float64 res = __tpc_sf_sincos_poly(r, k, q0);
  // sin(+-0) = +-0 (r + r^3 S gives +0 for r = -0); denormals count as zeros.
  if (q0 == 0) res = v_f32_sel_eq_f32_b(x, 0.0f, as_float64(as_int64(x) & (int)0x80000000), res);
  return v_f32_sel_neq_f32_b(res, res, __TPC_SF_NAN, res);
}

// sin(x): sin(+-0) = +-0, sin(+-inf) = NaN, NaN gives NaN.
__TPC_SF float64 v_sin_f32(float64 input) { return __tpc_sf_sincos(input, 0); }

// cos(x): cos(+-0) = 1, cos(+-inf) = NaN, NaN gives NaN.
__TPC_SF float64 v_cos_f32(float64 input) { return __tpc_sf_sincos(input, 1); }

// ----------------------------------------------------------------------------------- tanh, sigmoid

// 1/y for y in [1, 2], seed and three Newton steps (about 1 ulp, no exact residual).
__TPC_SF float64 __tpc_sf_recip12(float64 y) {
  float64 ny = __tpc_sf_neg(y);
  float64 r = __tpc_sf_madd(__tpc_sf_madd(y, 0.323232323f, -1.45454545f), y, 2.12121212f);
  r = r * __tpc_sf_madd(ny, r, 2.0f);
  r = r * __tpc_sf_madd(ny, r, 2.0f);
  return __tpc_sf_madd(r, __tpc_sf_madd(ny, r, 1.0f), r);
}

// tanh(|x|) given a = |x|: a + a^3 P(a^2) below 0.75; above, 1 - 2e/(1 + e) with e = exp(-2a) (a is clamped
// to 9.1, beyond which tanh rounds to 1).
__TPC_SF float64 __tpc_sf_tanh_abs(float64 a) {
  float64 z = a * a;
  float64 p = __tpc_sf_madd(z, -6.839004927e-04f, 3.070030594e-03f);
  p = __tpc_sf_madd(p, z, -8.673051372e-03f);
  p = __tpc_sf_madd(p, z, 2.183265612e-02f);
  p = __tpc_sf_madd(p, z, -5.396479368e-02f);
  p = __tpc_sf_madd(p, z, 1.333332062e-01f);
  p = __tpc_sf_madd(p, z, -3.333333433e-01f);
  float64 small = __tpc_sf_madd(a * z, p, a);
  float64 e = __tpc_sf_exp_core(v_f32_min_b(a, 9.1f) * -2.0f);
  float64 big = __tpc_sf_madd(e + e, __tpc_sf_neg(__tpc_sf_recip12(e + 1.0f)), 1.0f);
  return v_f32_sel_less_f32_b(a, 0.75f, small, big);
}

// tanh(x): odd; tanh(+-0) = +-0, tanh(+-inf) = +-1, NaN gives NaN.
__TPC_SF float64 v_tanh_f32(float64 input) {
  float64 r = __tpc_sf_with_sign(__tpc_sf_tanh_abs(__tpc_sf_abs(input)), input);
  return v_f32_sel_neq_f32_b(input, input, __TPC_SF_NAN, r);
}

// sigmoid(x) = 1 / (1 + e^-x). With e = exp(-|x|) in (0, 1]: 1/(1 + e) for x >= 0, e/(1 + e) for x < 0,
// where 1 + e is kept as a rounded sum plus its exact error. sigmoid(+inf) = 1, sigmoid(-inf) = +0,
// results below 2^-126 flush to +0, NaN gives NaN. The pair also writes sigmoid(-x), exactly as
// v_sigmoid_f32(-x) would give it, from the same exponential and reciprocal (a derivative such as
// gelu's needs both).
__TPC_SF float64 __tpc_sf_sigmoid_pair(float64 input, float64* negated) {
  float64 e = __tpc_sf_exp_core(v_f32_max_b(__tpc_sf_neg(__tpc_sf_abs(input)), -104.0f));
  float64 s = e + 1.0f;
  float64 lo = e - (s - 1.0f);
  float64 r = __tpc_sf_recip12(s);
  r = __tpc_sf_madd(__tpc_sf_neg(r * lo), r, r);
  float64 er = e * r;
  *negated = v_f32_sel_grt_f32_b(input, 0.0f, er, r);
  return v_f32_sel_less_f32_b(input, 0.0f, er, r);
}

__TPC_SF float64 v_sigmoid_f32(float64 input) {
  float64 negated;
  return __tpc_sf_sigmoid_pair(input, &negated);
}

// ---------------------------------------------------------------------------------------------- pow

// log2(x) = h + l (about 2^-31 relative) for positive normal x. x = 2^e m, m in [sqrt(1/2), sqrt(2));
// m c - 1 = fh + fl exactly for a 2-3 bit constant c picked from four intervals (|fh| <= 0.117), and
// log(1 + fh + fl) = fh - fh^2/2 + fh^3 P(fh) + fl/(1 + fh), with fh^2/2 split exactly into 12-bit halves
// and the leading sum kept as a rounded value plus its exact error (Fast2Sum).
__TPC_SF float64 __tpc_sf_log2_ext(float64 x, float64* lo) {
  int64 ix = as_int64(x);
  int64 ie = (ix - 0x3f3504f3) >> 23;
  float64 m = as_float64(ix - (ie << 23));
  float64 c = v_f32_sel_less_f32_b(m, 1.23076923f, 0.875f, 0.75f);
  float64 ch = v_f32_sel_less_f32_b(m, 1.23076923f, 1.926450729e-01f, 4.150375128e-01f);
  float64 cl = v_f32_sel_less_f32_b(m, 1.23076923f, 5.005384107e-09f, -1.350039192e-08f);
  c = v_f32_sel_less_f32_b(m, 1.06666667f, 1.0f, c);
  ch = v_f32_sel_less_f32_b(m, 1.06666667f, 0.0f, ch);
  cl = v_f32_sel_less_f32_b(m, 1.06666667f, 0.0f, cl);
  c = v_f32_sel_less_f32_b(m, 0.88888889f, 1.25f, c);
  ch = v_f32_sel_less_f32_b(m, 0.88888889f, -3.219280839e-01f, ch);
  cl = v_f32_sel_less_f32_b(m, 0.88888889f, -1.099072566e-08f, cl);
  // m c is exact for c = 1; otherwise m = mh + (m - mh) with mh m's upper 21 bits, so that mh c is exact.
  float64 mh = as_float64(as_int64(m) & v_i32_sel_eq_f32_b(c, 1.0f, -1, (int)0xfffffff8));
  float64 fh = __tpc_sf_madd(mh, c, -1.0f);
  float64 fl = (m - mh) * c;
  float64 a = __tpc_sf_hi12(fh), b = fh - a;
  float64 a2 = (a * a) * 0.5f;
  float64 s = fh - a2;
  float64 r = (fh - s) - a2;
  float64 p = __tpc_sf_madd(fh, -1.270800233e-01f, 1.451677382e-01f);
  p = __tpc_sf_madd(p, fh, -1.666559428e-01f);
  p = __tpc_sf_madd(p, fh, 1.999880970e-01f);
  p = __tpc_sf_madd(p, fh, -0.25f);
  p = __tpc_sf_madd(p, fh, 3.333333433e-01f);
  float64 fh2 = fh * fh;
  r = r - __tpc_sf_madd(b * b, 0.5f, a * b);
  r = __tpc_sf_madd(fl, __tpc_sf_madd(fh, fh - 1.0f, 1.0f), r);
  r = __tpc_sf_madd(fh2 * fh, p, r);
  // ln(m) = -ln(c) + s + r; log2 = e + log2(1/c) + (s + r) log2(e), LOG2E = LH (12 bits) + LL.
  float64 sa = __tpc_sf_hi12(s);
  float64 t1 = __tpc_sf_i2f(ie) + ch;
  float64 e1 = (__tpc_sf_i2f(ie) - t1) + ch;
  float64 p1 = sa * 1.442871094f;
  float64 t2 = t1 + p1;
  float64 e2 = (t1 - t2) + p1;
  float64 rest = __tpc_sf_madd(s - sa, 1.442871094f, e1 + e2 + cl);
  rest = __tpc_sf_madd(s, -1.760528539e-04f, rest);
  rest = __tpc_sf_madd(r, 1.44269504f, rest);
  float64 h = t2 + rest;
  *lo = (t2 - h) + rest;
  return h;
}

// 2^(zh + zl) for |zh| <= 160 (results overflow to +inf or flush to +0 where they should).
__TPC_SF float64 __tpc_sf_exp2_ext(float64 zh, float64 zl) {
  float64 k = __tpc_sf_rint(zh);
  float64 r = (zh - k) + zl;
  float64 p = __tpc_sf_madd(r, 1.529912697e-05f, 1.546378917e-04f);
  p = __tpc_sf_madd(p, r, 1.333349734e-03f);
  p = __tpc_sf_madd(p, r, 9.618050419e-03f);
  p = __tpc_sf_madd(p, r, 5.550410971e-02f);
  p = __tpc_sf_madd(p, r, 2.402265072e-01f);
  p = __tpc_sf_madd(p, r, 6.931471825e-01f);
  return __tpc_sf_scale(__tpc_sf_madd(r, p, 1.0f), __tpc_sf_f2i(k));
}

// pow(x, y) = 2^(y log2|x|), with log2|x| and the product in two-float precision, negated for x < 0 and an
// odd integer y. Special cases as C99 F.9.4.4 (denormal operands count as zeros): pow(x, +-0) = 1 and
// pow(+1, y) = 1 even for NaN; x < 0 finite with y not an integer gives NaN; pow(+-0, y) is +-inf, +inf,
// +-0 or +0 by the sign and parity of y; pow(-1, +-inf) = 1; pow(x, -inf) and pow(x, +inf) are +inf or +0 by
// |x| < 1 or > 1; pow(+-inf, y) is +-0, +0, +-inf or +inf by the sign and parity of y; other NaNs give NaN.
__TPC_SF float64 v_pow_f32(float64 base, float64 exp) {
  float64 ax = __tpc_sf_abs(base), ay = __tpc_sf_abs(exp);
  float64 ll;
  float64 lh = __tpc_sf_log2_ext(ax, &ll);
  float64 y = v_f32_min_b(v_f32_max_b(exp, -4.0e9f), 4.0e9f);  // keeps y log2|x| finite
  float64 ya = __tpc_sf_hi12(y), yb = y - ya;
  float64 la = __tpc_sf_hi12(lh), lb = lh - la;
  float64 z1 = ya * la;
  float64 z2 = __tpc_sf_madd(ya, lb, yb * la);
  float64 zh = z1 + z2;
  float64 zl = (z1 - zh) + z2;
  zl = __tpc_sf_madd(yb, lb, zl);
  zl = __tpc_sf_madd(y, ll, zl);
  zh = v_f32_min_b(v_f32_max_b(zh, -160.0f), 160.0f);
  zl = v_f32_min_b(v_f32_max_b(zl, -1.0f), 1.0f);
  float64 mg = __tpc_sf_exp2_ext(zh, zl);
  // Magnitudes of the special cases: |x| = 0 or inf, y = +-inf, |x| = 1.
  float64 mz = v_f32_sel_less_f32_b(exp, 0.0f, __TPC_SF_INF, 0.0f);  // 0^y
  float64 mi = v_f32_sel_less_f32_b(exp, 0.0f, 0.0f, __TPC_SF_INF);  // inf^y
  mg = v_f32_sel_eq_f32_b(ax, 0.0f, mz, mg);
  mg = v_f32_sel_eq_f32_b(ax, __TPC_SF_INF, mi, mg);
  float64 my = v_f32_sel_less_f32_b(ax, 1.0f, mz, mi);
  my = v_f32_sel_eq_f32_b(ax, 1.0f, 1.0f, my);
  mg = v_f32_sel_eq_f32_b(ay, __TPC_SF_INF, my, mg);
  // y integer (|y| >= 2^23 always is) and odd (|y| >= 2^24 never is): truncation is exact below 2^24.
  float64 yc = v_f32_min_b(v_f32_max_b(exp, -16777216.0f), 16777216.0f);
  int64 yi = __tpc_sf_f2i(yc);
  float64 frac = yc - __tpc_sf_i2f(yi);
  int64 odd = v_i32_sel_neq_f32_b(frac, 0.0f, 0, yi & 1);
  float64 r = as_float64(as_int64(mg) | ((odd << 31) & as_int64(base)));
  // x in (-inf, 0) with y not an integer.
  bool64 xneg = v_f32_cmp_less_b(base, 0.0f);
  xneg = v_f32_cmp_grt_vb(base, __TPC_SF_NINF, 0, xneg, xneg);
  r = v_f32_sel_neq_f32_vb(frac, 0.0f, __TPC_SF_NAN, r, 0, r, xneg);
  r = v_f32_sel_neq_f32_b(base, base, __TPC_SF_NAN, r);
  r = v_f32_sel_neq_f32_b(exp, exp, __TPC_SF_NAN, r);
  r = v_f32_sel_eq_f32_b(exp, 0.0f, 1.0f, r);
  return v_f32_sel_eq_f32_b(base, 1.0f, 1.0f, r);
}

// ---------------------------------------------------------------------------------- fast variants
//
// The _fast_ forms skip the handling of special inputs and, where it costs operations, of range extremes.
// Each states the inputs it is meant for; docs/special-functions.md gives the measured accuracy there.

// exp for x in [-86.9, 88.3] (results normal): the exponent is added to the bits in one integer step.
__TPC_SF float64 v_exp_fast_f32(float64 input) {
  float64 k = __tpc_sf_rint(input * 1.44269504f);
  float64 r = __tpc_sf_madd(k, -0.693145752f, input);
  r = __tpc_sf_madd(k, -1.42860677e-06f, r);
  return as_float64(as_int64(__tpc_sf_expm_poly(r)) + (__tpc_sf_f2i(k) << 23));
}

// 2^x for x in [-125.5, 127.4].
__TPC_SF float64 v_pow2_fast_f32(float64 input) {
  float64 k = __tpc_sf_rint(input);
  float64 r = input - k;
  float64 p = __tpc_sf_madd(r, 1.545316336e-04f, 1.339086331e-03f);
  p = __tpc_sf_madd(p, r, 9.618083015e-03f);
  p = __tpc_sf_madd(p, r, 5.550356954e-02f);
  p = __tpc_sf_madd(p, r, 2.402265072e-01f);
  p = __tpc_sf_madd(p, r, 6.931471825e-01f);
  return as_float64(as_int64(__tpc_sf_madd(r, p, 1.0f)) + (__tpc_sf_f2i(k) << 23));
}

// 1/x for normal x with |x| < 2^126: three Newton steps on the significand, no exact residual.
__TPC_SF float64 v_reciprocal_fast_f32(float64 input) {
  float64 nm;
  int64 e;
  float64 m = __tpc_sf_mant(input, &nm, &e);
  return __tpc_sf_with_sign(__tpc_sf_scale(__tpc_sf_recip12(m), -e), input);
}

// x / y as x * (1/y) (two roundings) for normal y with |y| < 2^126 and a normal quotient.
__TPC_SF float64 v_div_fast_f32(float64 input_x, float64 input_y) {
  return input_x * v_reciprocal_fast_f32(input_y);
}

// Scalar x / y given rc ~ 1/y (e.g. computed once for many x): one correction with the residual x - y q
// (Markstein's step without a fused multiply-add, so the residual itself is rounded). Finite operands.
static inline float s_div_fast_f32(float x, float y, float rc) {
  float q = x * rc;
  float r = x - y * q;
  return q + r * rc;
}

// sqrt for positive normal x: s = m / sqrt(m) with one correction from a rounded residual.
__TPC_SF float64 v_sqrt_fast_f32(float64 input) {
  int64 h;
  float64 m = __tpc_sf_sqrt_reduce(input, &h);
  float64 y = __tpc_sf_rsqrt_mant(m);
  float64 s = m * y;
  s = __tpc_sf_madd(__tpc_sf_madd(__tpc_sf_neg(s), s, m), y * 0.5f, s);
  return s * __tpc_sf_pow2i(h);
}

// sin / cos with a shorter Cody-Waite chain: pi/2 = three 7-bit pieces + a float, so the remainder has an
// absolute error of about |x| 2^-50 (fine away from the zeros of the result). Finite x; |x| < 2^17.
__TPC_SF float64 __tpc_sf_sincos_fast(float64 x, int q0) {
  float64 k = __tpc_sf_rint(x * 0.636619772f);
  float64 r = __tpc_sf_madd(k, -1.578125000e+00f, x);
  r = __tpc_sf_madd(k, 7.324218750e-03f, r);
  r = __tpc_sf_madd(k, 4.470348358e-06f, r);
  r = __tpc_sf_madd(k, -1.589325471e-08f, r);
  return __tpc_sf_sincos_poly(r, k, q0);
}
__TPC_SF float64 v_sin_fast_f32(float64 input) { return __tpc_sf_sincos_fast(input, 0); }
__TPC_SF float64 v_cos_fast_f32(float64 input) { return __tpc_sf_sincos_fast(input, 1); }

// tanh given |x| as well (callers often have it); no NaN handling.
__TPC_SF float64 v_tanh_fast_abs_in_f32(float64 input, float64 abs_x) {
  return __tpc_sf_with_sign(__tpc_sf_tanh_abs(abs_x), input);
}
__TPC_SF float64 v_tanh_fast_f32(float64 input) { return v_tanh_fast_abs_in_f32(input, __tpc_sf_abs(input)); }

// pow for x > 0 (or x < 0 with an integer y) with normal finite operands: 2^(y log2|x|) in plain float, so
// the error grows with |y log2 x| (the rounding of the product is amplified by it).
__TPC_SF float64 v_pow_fast_f32(float64 base, float64 exp) {
  float64 z = exp * v_log2_fast_f32(__tpc_sf_abs(base));
  float64 r = v_pow2_f32(z);
  int64 odd = __tpc_sf_f2i(v_f32_min_b(v_f32_max_b(exp, -16777216.0f), 16777216.0f)) & 1;
  return as_float64(as_int64(r) | ((odd << 31) & as_int64(base)));
}

// ------------------------------------------------------------------------------------ other names

// The Cephes-style exp of the reference has the same contract as exp; ours is the same function.
__TPC_SF float64 v_exp_cephes_f32(float64 input) { return v_exp_f32(input); }
__TPC_SF float64 v_exp_cephes_fast_f32(float64 input) { return v_exp_fast_f32(input); }

// The newer unprefixed names.
__TPC_SF float64 exp_f32(float64 input) { return v_exp_f32(input); }
__TPC_SF float64 log_f32(float64 input) { return v_log_f32(input); }

// ---------------------------------------------------------------------------------------- bf16 forms
//
// A bfloat128 holds two bf16 per 32-bit lane; the low halves (elements 2i) and high halves (elements 2i+1)
// become two f32 vectors, go through the f32 function and are rounded back to bf16 (nearest even; NaN stays
// the canonical NaN, overflow gives inf). The newer reference names exp_bf16, log_bf16 and sigmoid_bf16 are
// always declared; the v_<f>_bf16 forms are our extension, which -DTPC_SPECIAL_NO_BF16_FORMS leaves out for
// kernels that define functions of these names.

__TPC_SF float64 __tpc_sf_bf16_lo(bfloat128 v) { return as_float64(as_int64(v) << 16); }
__TPC_SF float64 __tpc_sf_bf16_hi(bfloat128 v) { return as_float64(as_int64(v) & (int)0xffff0000); }
__TPC_SF bfloat128 __tpc_sf_bf16_pack(float64 lo, float64 hi) {
  uint64 a = as_uint64(lo), b = as_uint64(hi);
  a = (a + 0x7fff + ((a >> 16) & 1)) >> 16;
  b = (b + 0x7fff + ((b >> 16) & 1)) & 0xffff0000;
  return as_bfloat128(a | b);
}

#define __TPC_SF_BF16_UNARY(name, fn)                                                        \
  __TPC_SF bfloat128 name(bfloat128 input) {                                                 \
    return __tpc_sf_bf16_pack(fn(__tpc_sf_bf16_lo(input)), fn(__tpc_sf_bf16_hi(input)));    \
  }
#define __TPC_SF_BF16_BINARY(name, fn)                                                       \
  __TPC_SF bfloat128 name(bfloat128 input_x, bfloat128 input_y) {                            \
    return __tpc_sf_bf16_pack(fn(__tpc_sf_bf16_lo(input_x), __tpc_sf_bf16_lo(input_y)),      \
                              fn(__tpc_sf_bf16_hi(input_x), __tpc_sf_bf16_hi(input_y)));     \
  }
__TPC_SF_BF16_UNARY(exp_bf16, v_exp_f32)
__TPC_SF_BF16_UNARY(log_bf16, v_log_f32)
__TPC_SF_BF16_UNARY(sigmoid_bf16, v_sigmoid_f32)
#ifndef TPC_SPECIAL_NO_BF16_FORMS
__TPC_SF_BF16_UNARY(v_exp_bf16, v_exp_f32)
__TPC_SF_BF16_UNARY(v_log_bf16, v_log_f32)
__TPC_SF_BF16_UNARY(v_log2_bf16, v_log2_f32)
__TPC_SF_BF16_UNARY(v_pow2_bf16, v_pow2_f32)
__TPC_SF_BF16_UNARY(v_sin_bf16, v_sin_f32)
__TPC_SF_BF16_UNARY(v_cos_bf16, v_cos_f32)
__TPC_SF_BF16_UNARY(v_tanh_bf16, v_tanh_f32)
__TPC_SF_BF16_UNARY(v_sigmoid_bf16, v_sigmoid_f32)
__TPC_SF_BF16_UNARY(v_reciprocal_bf16, v_reciprocal_f32)
__TPC_SF_BF16_UNARY(v_sqrt_bf16, v_sqrt_f32)
__TPC_SF_BF16_UNARY(v_rsqrt_bf16, v_rsqrt_f32)
__TPC_SF_BF16_BINARY(v_div_bf16, v_div_f32)
__TPC_SF_BF16_BINARY(v_pow_bf16, v_pow_f32)
#endif  // TPC_SPECIAL_NO_BF16_FORMS
#undef __TPC_SF_BF16_UNARY
#undef __TPC_SF_BF16_BINARY

// ---------------------------------------------------------------------------------------- lane reductions
//
// v_<t>_reduce_{add,mul,min,max}(x): every lane of the result holds the reduction of all lanes of x. A
// butterfly: at step k (lanes/2, ..., 2, 1) each lane i combines its value with lane i^k's, so both lanes of
// a pair compute the same operation on the same two values and every lane ends with the same bits. Floats
// add and multiply in this tree order (each step rounds); integers wrap; min/max as v_<t>_min_b/max_b (a NaN
// anywhere gives NaN).
// v_<t>_reduce_argmin/argmax(x): a pair, v1 the lane index and v2 the value of the winning lane, in every
// lane. The winner is the smallest (largest) value; a NaN beats every number (NaN propagates, as in most
// frameworks' argmax); ties, -0 against +0 included, go to the lowest lane.
#define __TPC_SF_REDUCTIONS(t, VT, IT, it, MT, mt, ID, PAIR)                                           \
  __TPC_SF VT __tpc_sf_lane_swap_##t(VT x, int k) {                                                 \
    return __lane_shuffle_##t(x, as_uchar256(read_lane_id_##ID##_b() ^ (IT)k));                     \
  }                                                                                                 \
  __TPC_SF IT __tpc_sf_lane_swap_index_##t(IT x, int k) {                                           \
    return __lane_shuffle_##it(x, as_uchar256(read_lane_id_##ID##_b() ^ (IT)k));                    \
  }                                                                                                 \
  __TPC_SF VT v_##t##_reduce_add(VT x) {                                                            \
    for (int k = 128 / sizeof(x[0]); k > 0; k >>= 1) x = x + __tpc_sf_lane_swap_##t(x, k);         \
    return x;                                                                                       \
  }                                                                                                 \
  __TPC_SF VT v_##t##_reduce_mul(VT x) {                                                            \
    for (int k = 128 / sizeof(x[0]); k > 0; k >>= 1) x = x * __tpc_sf_lane_swap_##t(x, k);         \
    return x;                                                                                       \
  }                                                                                                 \
  __TPC_SF VT v_##t##_reduce_min(VT x) {                                                            \
    for (int k = 128 / sizeof(x[0]); k > 0; k >>= 1) x = v_##t##_min_b(x, __tpc_sf_lane_swap_##t(x, k)); \
    return x;                                                                                       \
  }                                                                                                 \
  __TPC_SF VT v_##t##_reduce_max(VT x) {                                                            \
    for (int k = 128 / sizeof(x[0]); k > 0; k >>= 1) x = v_##t##_max_b(x, __tpc_sf_lane_swap_##t(x, k)); \
    return x;                                                                                       \
  }                                                                                                 \
  /* The vendor's names for the reductions that use no lookup table: ours use none either. */       \
  __TPC_SF VT v_##t##_reduce_nolut_add(VT x) { return v_##t##_reduce_add(x); }                      \
  __TPC_SF VT v_##t##_reduce_nolut_mul(VT x) { return v_##t##_reduce_mul(x); }                      \
  __TPC_SF VT v_##t##_reduce_nolut_min(VT x) { return v_##t##_reduce_min(x); }                      \
  __TPC_SF VT v_##t##_reduce_nolut_max(VT x) { return v_##t##_reduce_max(x); }                      \
  /* Lane (t, ti) beats lane (x, xi): better value, or NaN over a number, or equal (both NaN) and lower. */ \
  __TPC_SF PAIR __tpc_sf_reduce_arg_##t(VT x, int largest) {                                        \
    IT xi = read_lane_id_##ID##_b();                                                                \
    for (int k = 128 / sizeof(x[0]); k > 0; k >>= 1) {                                             \
      VT t = __tpc_sf_lane_swap_##t(x, k);                                                          \
      IT ti = __tpc_sf_lane_swap_index_##t(xi, k);                                                  \
      MT xnan = (MT)(x != x), tnan = (MT)(t != t);                                                  \
      MT better = largest ? (MT)(t > x) : (MT)(t < x);                                              \
      MT tie = ((MT)(t == x) | (xnan & tnan)) & (MT)(ti < xi);                                      \
      MT wins = better | (tnan & ~xnan) | tie;                                                      \
      x = v_##t##_sel_neq_##mt##_b(wins, 0, t, x);                                                  \
      xi = v_##it##_sel_neq_##mt##_b(wins, 0, ti, xi);                                              \
    }                                                                                               \
    PAIR r = {xi, x};                                                                               \
    return r;                                                                                       \
  }                                                                                                 \
  __TPC_SF PAIR v_##t##_reduce_argmin(VT x) { return __tpc_sf_reduce_arg_##t(x, 0); }               \
  __TPC_SF PAIR v_##t##_reduce_argmax(VT x) { return __tpc_sf_reduce_arg_##t(x, 1); }

__TPC_SF_REDUCTIONS(f32, float64, uint64, u32, int64, i32, 4b, uint64_float64_pair_t)
__TPC_SF_REDUCTIONS(bf16, bfloat128, ushort128, u16, short128, i16, 2b, ushort128_bfloat128_pair_t)
__TPC_SF_REDUCTIONS(i32, int64, uint64, u32, int64, i32, 4b, uint64_int64_pair_t)
__TPC_SF_REDUCTIONS(u32, uint64, uint64, u32, int64, i32, 4b, uint64_uint64_pair_t)
__TPC_SF_REDUCTIONS(i16, short128, ushort128, u16, short128, i16, 2b, ushort128_short128_pair_t)
__TPC_SF_REDUCTIONS(u16, ushort128, ushort128, u16, short128, i16, 2b, ushort128_ushort128_pair_t)
__TPC_SF_REDUCTIONS(i8, char256, uchar256, u8, char256, i8, 1b, uchar256_char256_pair_t)
__TPC_SF_REDUCTIONS(u8, uchar256, uchar256, u8, char256, i8, 1b, uchar256_uchar256_pair_t)
#undef __TPC_SF_REDUCTIONS

#undef __TPC_SF
#undef __TPC_SF_NAN
#undef __TPC_SF_INF
#undef __TPC_SF_NINF

#endif  // TPC_SPECIAL_FUNCS_INCLUDED

// ---- form_fp_num with an integer exponent ----
// v_f32_form_fp_num_ie_b/_vb(a, ...): the exponent is the integer in each 32-bit lane of `a` (a char256 of
// those bits), SW_EXP_IS_NUM implied; otherwise v_f32_form_fp_num_b/_vb. Macros, so that the switch word
// stays a constant expression at the call (functions would need optimisation to fold it at -O0).
#define __TPC_IE_ARITY(_1, _2, _3, _4, _5, _6, _7, n, ...) n
#define __TPC_IE_B3(a, b, c) v_f32_form_fp_num_b(as_float64(a), b, c, SW_EXP_IS_NUM)
#define __TPC_IE_B4(a, b, c, s) v_f32_form_fp_num_b(as_float64(a), b, c, (s) | SW_EXP_IS_NUM)
#define __TPC_IE_B5(a, b, c, s, i) v_f32_form_fp_num_b(as_float64(a), b, c, (s) | SW_EXP_IS_NUM, i)
#define __TPC_IE_B6(a, b, c, s, i, p) v_f32_form_fp_num_b(as_float64(a), b, c, (s) | SW_EXP_IS_NUM, i, p)
#define __TPC_IE_B7(a, b, c, s, i, p, o) v_f32_form_fp_num_b(as_float64(a), b, c, (s) | SW_EXP_IS_NUM, i, p, o)
#define v_f32_form_fp_num_ie_b(...)                                                                       \
  __TPC_IE_ARITY(__VA_ARGS__, __TPC_IE_B7, __TPC_IE_B6, __TPC_IE_B5, __TPC_IE_B4, __TPC_IE_B3, , )(__VA_ARGS__)
#define __TPC_IE_VB6(a, b, c, s, i, p) v_f32_form_fp_num_vb(as_float64(a), b, c, (s) | SW_EXP_IS_NUM, i, p)
#define __TPC_IE_VB7(a, b, c, s, i, p, o) v_f32_form_fp_num_vb(as_float64(a), b, c, (s) | SW_EXP_IS_NUM, i, p, o)
#define v_f32_form_fp_num_ie_vb(...) __TPC_IE_ARITY(__VA_ARGS__, __TPC_IE_VB7, __TPC_IE_VB6, , , , , )(__VA_ARGS__)

// ---- lookup tables with pair results (docs/isa.md, "Lookup tables") ----
// v_f32_get_lut_entry_and_interval_start_b(src, shift, switches): .v1 the interval (entry) of each lane, .v2
// the interval's first value; shift is the mantissa bits below the interval (23 - the bits kept), switches
// the function variant (e_func_variant << 13). v_f32_lookup_2c(entry, fid, switches): .v1 c1 and .v2 c2 of
// the entry (v_f32_lookup_1c gives c0), so f(x) ~ c0 + (c1 + c2 * v) * v with v = x - start. Lanes whose
// predicate is off keep the income.
#define __TPC_SF_OVL static inline __attribute__((overloadable, always_inline))
__TPC_SF_OVL uint64_float64_pair_t v_f32_get_lut_entry_and_interval_start_b(float64 src, const signed char shift, int switches,
                                                                      uint64_float64_pair_t income, bool predicate,
                                                                      bool polarity) {
  uint64_float64_pair_t r;
  r.v1 = v_u32_mov_b(__lut_entry_f32(src, shift, switches), 0, income.v1, predicate, polarity);
  r.v2 = v_f32_mov_b(__lut_start_f32(src, shift, switches), 0, income.v2, predicate, polarity);
  return r;
}
__TPC_SF_OVL uint64_float64_pair_t v_f32_get_lut_entry_and_interval_start_b(float64 src, const signed char shift, int switches,
                                                                      uint64_float64_pair_t income, bool predicate) {
  return v_f32_get_lut_entry_and_interval_start_b(src, shift, switches, income, predicate, 0);
}
__TPC_SF_OVL uint64_float64_pair_t v_f32_get_lut_entry_and_interval_start_b(float64 src, const signed char shift, int switches,
                                                                      uint64_float64_pair_t income) {
  return v_f32_get_lut_entry_and_interval_start_b(src, shift, switches, income, 1, 0);
}
__TPC_SF_OVL uint64_float64_pair_t v_f32_get_lut_entry_and_interval_start_b(float64 src, const signed char shift, int switches) {
  uint64_float64_pair_t none;
  none.v1 = 0;
  none.v2 = 0.0f;
  return v_f32_get_lut_entry_and_interval_start_b(src, shift, switches, none, 1, 0);
}
__TPC_SF_OVL uint64_float64_pair_t v_f32_get_lut_entry_and_interval_start_b(float64 src, const signed char shift) {
  return v_f32_get_lut_entry_and_interval_start_b(src, shift, 0);
}
__TPC_SF_OVL float128 v_f32_lookup_2c(uint64 a, int fid, int switches, float128 income, bool predicate, bool polarity) {
  float128 r;
  r.v1 = v_f32_mov_b(__lookup_coef_f32(a, fid, switches, 2), 0, income.v1, predicate, polarity);
  r.v2 = v_f32_mov_b(__lookup_coef_f32(a, fid, switches, 3), 0, income.v2, predicate, polarity);
  return r;
}
__TPC_SF_OVL float128 v_f32_lookup_2c(uint64 a, int fid, int switches, float128 income, bool predicate) {
  return v_f32_lookup_2c(a, fid, switches, income, predicate, 0);
}
__TPC_SF_OVL float128 v_f32_lookup_2c(uint64 a, int fid, int switches, float128 income) {
  return v_f32_lookup_2c(a, fid, switches, income, 1, 0);
}
#undef __TPC_SF_OVL

#endif  // TPC_SPECIAL_H_INCLUDED
