// Helpers of the special-function library: fclass, calc_fp_special and form_fp_num.
#pragma once

#include <cstdint>

#include "lanes.h"

namespace tpc::sem {

// fclass: one bit per class, in this order (bit 0 first): -inf, -normal, -denormal, -0, +0, +denormal,
// +normal, +inf, signaling NaN, quiet NaN. Classifies the raw bits (denormals are reported as such).
uint32_t fclassBits(uint32_t bits, FloatFormat f);

// calc_fp_special: its sources are the classes (fclass results) of the function's inputs. Whether those
// classes make a special case of `fn` (zero, infinity, NaN, or outside the function's domain), and if so
// the result C99 Annex F gives for them. For other inputs (and sources that hold no class) it returns
// false and the lane keeps its income value.
bool calcFpSpecial(isa::FpSpecialFunc fn, uint32_t classA, uint32_t classB, float* result);

// form_fp_num: builds a float from the exponent of `expSrc`, the sign of `signSrc` and the mantissa of
// `mantSrc` (all raw bits of format f). `form` bits: 0 add the exponent bias, 1 force sign 0, 2 force sign 1,
// 3 take the exponent as the integer value of expSrc's bits rather than its exponent field.
uint32_t formFpNum(uint32_t expSrc, uint32_t signSrc, uint32_t mantSrc, uint32_t form, FloatFormat f);

}  // namespace tpc::sem
