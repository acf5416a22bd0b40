#include "fp_special.h"

#include <cmath>
#include <optional>

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

namespace {

// What a class mask (fclass) says of a value; denormals are zeros, as the core reads them.
enum class Kind { NegInf, NegFinite, NegZero, PosZero, PosFinite, PosInf, NaN, Unknown };

Kind kindOf(uint32_t cls) {
  if (cls & (3u << 8)) return Kind::NaN;
  if (cls & (1u << 0)) return Kind::NegInf;
  if (cls & (1u << 1)) return Kind::NegFinite;
  if (cls & (3u << 2)) return Kind::NegZero;
  if (cls & (3u << 4)) return Kind::PosZero;
  if (cls & (1u << 6)) return Kind::PosFinite;
  if (cls & (1u << 7)) return Kind::PosInf;
  return Kind::Unknown;  // no class bit: not an fclass result; left to the income
}

bool negative(Kind k) { return k == Kind::NegInf || k == Kind::NegFinite || k == Kind::NegZero; }
bool zero(Kind k) { return k == Kind::NegZero || k == Kind::PosZero; }
bool infinite(Kind k) { return k == Kind::NegInf || k == Kind::PosInf; }
bool finite(Kind k) { return k == Kind::NegFinite || k == Kind::PosFinite; }

constexpr float kInf = INFINITY;

}  // namespace

bool calcFpSpecial(isa::FpSpecialFunc fn, uint32_t classA, uint32_t classB, float* result) {
  using F = isa::FpSpecialFunc;
  const Kind a = kindOf(classA), b = kindOf(classB);
  const bool binary = fn == F::Div || fn == F::Pow;
  if (a == Kind::Unknown || (binary && b == Kind::Unknown)) return false;
  const float sa = negative(a) ? -1.0f : 1.0f;
  std::optional<float> r;
  if (fn == F::Pow && zero(b)) r = 1.0f;  // x^0 = 1, NaN included
  else if (a == Kind::NaN || (binary && b == Kind::NaN)) r = NAN;
  else switch (fn) {
    case F::Recip:
      if (zero(a)) r = sa * kInf;
      else if (infinite(a)) r = sa * 0.0f;
      break;
    case F::Rsqrt:
    case F::Sqrt:
      if (a == Kind::NegInf || a == Kind::NegFinite) r = NAN;
      else if (zero(a)) r = fn == F::Sqrt ? sa * 0.0f : sa * kInf;
      else if (a == Kind::PosInf) r = fn == F::Sqrt ? kInf : 0.0f;
      break;
    case F::Log:
      if (a == Kind::NegInf || a == Kind::NegFinite) r = NAN;
      else if (zero(a)) r = -kInf;
      else if (a == Kind::PosInf) r = kInf;
      break;
    case F::Exp:
      if (a == Kind::PosInf) r = kInf;
      else if (a == Kind::NegInf) r = 0.0f;
      break;
    case F::Tanh:
      if (zero(a)) r = sa * 0.0f;
      else if (infinite(a)) r = sa;
      break;
    case F::Div: {
      const float sign = (negative(a) != negative(b)) ? -1.0f : 1.0f;
      if ((zero(a) && zero(b)) || (infinite(a) && infinite(b))) r = NAN;
      else if (infinite(a) || (finite(a) && zero(b))) r = sign * kInf;
      else if (zero(a) || infinite(b)) r = sign * 0.0f;
      break;
    }
    case F::Pow:
      // Only what the two classes decide (x^0 above): 0^y and inf^y by the sign of y (an odd integer y, which
      // would keep the sign of x, cannot be told from a class); the rest is left to the kernel.
      if (zero(a)) r = negative(b) ? kInf : 0.0f;
      else if (infinite(a)) r = negative(b) ? 0.0f : kInf;
      break;
  }
  if (r) *result = std::isnan(*r) ? NAN : *r;
  return r.has_value();
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
