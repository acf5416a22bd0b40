#include "fp_special.h"

#include <cmath>

namespace tpc::sem {

uint32_t fclassBits(uint32_t bits, FloatFormat f) {
  bool neg = bits & f.signBit();
  uint32_t e = (bits & f.expMask()) >> f.mantBits, m = bits & f.mantMask();
  uint32_t maxE = f.expMask() >> f.mantBits;
  if (e == maxE) {
    if (m == 0) return neg ? 1u << 0 : 1u << 7;
    return (m >> (f.mantBits - 1)) & 1u ? 1u << 9 : 1u << 8;
  }
  if (e == 0) {
    if (m == 0) return neg ? 1u << 3 : 1u << 4;
    return neg ? 1u << 2 : 1u << 5;
  }
  return neg ? 1u << 1 : 1u << 6;
}

bool calcFpSpecial(isa::FpSpecialFunc fn, float a, float b, float* result) {
  using F = isa::FpSpecialFunc;
  auto special = [](float x) { return x == 0.0f || std::isinf(x) || std::isnan(x); };
  bool isSpecial = false;
  float r = 0;
  switch (fn) {
    case F::Recip: isSpecial = special(a); r = 1.0f / a; break;
    case F::Rsqrt: isSpecial = special(a) || a < 0; r = 1.0f / std::sqrt(a); break;
    case F::Sqrt: isSpecial = special(a) || a < 0; r = std::sqrt(a); break;
    case F::Log: isSpecial = special(a) || a < 0; r = std::log(a); break;
    case F::Exp: isSpecial = std::isinf(a) || std::isnan(a); r = std::exp(a); break;
    case F::Tanh: isSpecial = special(a); r = std::tanh(a); break;
    case F::Div: isSpecial = special(a) || special(b); r = a / b; break;
    case F::Pow: isSpecial = special(a) || special(b) || a < 0; r = std::pow(a, b); break;
  }
  if (isSpecial) *result = f32Result(r);
  return isSpecial;
}

uint32_t formFpNum(uint32_t expSrc, uint32_t signSrc, uint32_t mantSrc, uint32_t form, FloatFormat f) {
  uint32_t sign = signSrc & f.signBit();
  if (form & 2u) sign = 0;
  if (form & 4u) sign = f.signBit();
  uint32_t maxE = f.expMask() >> f.mantBits;
  int64_t e = (form & 8u) ? static_cast<int32_t>(expSrc) : static_cast<int64_t>((expSrc & f.expMask()) >> f.mantBits);
  if (form & 1u) e += f.bias();
  if (e < 0) e = 0;
  if (e > static_cast<int64_t>(maxE)) e = maxE;
  return sign | (static_cast<uint32_t>(e) << f.mantBits) | (mantSrc & f.mantMask());
}

}  // namespace tpc::sem
