#include "fp.h"

#include <algorithm>
#include <limits>

namespace tpc::sem {

namespace {

// Whether the magnitude grows by one unit when `rem` (out of 2^shift) is dropped.
bool roundsUp(bool negative, uint64_t keep, uint64_t rem, int shift, RoundingMode rm, uint32_t rnd) {
  if (rem == 0) return false;
  // For shift >= 64 the kept part is 0 and the dropped part is below one half (callers ensure it).
  const bool wide = shift >= 64;
  const uint64_t half = wide ? 0 : (uint64_t{1} << (shift - 1));
  switch (rm) {
    case RoundingMode::RHNE: return !wide && (rem > half || (rem == half && (keep & 1u)));
    case RoundingMode::RHAZ: return !wide && rem >= half;
    case RoundingMode::RZ: return false;
    case RoundingMode::RU: return !negative;
    case RoundingMode::RD: return negative;
    case RoundingMode::SR: {
      if (wide) return false;
      // Add a uniform random fraction of one unit, then truncate.
      uint64_t mask = shift >= 32 ? 0xffffffffu : ((uint64_t{1} << shift) - 1u);
      uint64_t r = (shift >= 32 ? (uint64_t{rnd} << (shift - 32)) : (rnd & mask));
      uint64_t unit = uint64_t{1} << shift;
      return rem + r >= unit;
    }
    case RoundingMode::CSR: break;  // resolved to the register's mode before rounding
  }
  return false;
}

}  // namespace

uint32_t roundToFormat(bool negative, uint64_t mag, int exp2, FloatFormat f, RoundingMode rm, uint32_t rnd,
                       bool saturate) {
  const uint32_t sign = negative ? f.signBit() : 0u;
  const int msb = 63 - std::countl_zero(mag);
  int e = msb + exp2;  // unbiased exponent of the leading bit
  const int shift = msb - f.mantBits;
  uint64_t keep;
  if (shift > 0) {
    keep = mag >> shift;
    uint64_t rem = mag & ((uint64_t{1} << shift) - 1u);
    if (roundsUp(negative, keep, rem, shift, rm, rnd)) {
      ++keep;
      if (keep >> (f.mantBits + 1)) {
        keep >>= 1;
        ++e;
      }
    }
  } else {
    keep = mag << (-shift);
  }
  if (e > f.bias()) {
    bool toInf = !saturate && (rm == RoundingMode::RHNE || rm == RoundingMode::RHAZ || rm == RoundingMode::SR ||
                               (rm == RoundingMode::RU && !negative) || (rm == RoundingMode::RD && negative));
    return sign | (toInf ? f.inf() : f.maxFinite());
  }
  if (e < 1 - f.bias()) return sign;  // flush to zero
  return sign | (static_cast<uint32_t>(e + f.bias()) << f.mantBits) | (static_cast<uint32_t>(keep) & f.mantMask());
}

Unpacked unpack(uint32_t bits, FloatFormat f) {
  Unpacked u{};
  u.negative = (bits & f.signBit()) != 0;
  uint32_t e = (bits & f.expMask()) >> f.mantBits;
  uint32_t m = bits & f.mantMask();
  if (e == (f.expMask() >> f.mantBits)) {
    u.kind = m ? Unpacked::NaN : Unpacked::Inf;
  } else if (e == 0) {
    u.kind = Unpacked::Zero;  // denormals flush to zero on input
  } else {
    u.kind = Unpacked::Finite;
    u.mag = (uint64_t{1} << f.mantBits) | m;
    u.exp2 = static_cast<int>(e) - f.bias() - f.mantBits;
  }
  return u;
}

uint32_t convertFloat(uint32_t bits, FloatFormat from, FloatFormat to, RoundingMode rm, uint32_t rnd, bool saturate) {
  Unpacked u = unpack(bits, from);
  uint32_t sign = u.negative ? to.signBit() : 0u;
  switch (u.kind) {
    case Unpacked::NaN: return to.canonicalNan();
    case Unpacked::Inf: return sign | (saturate ? to.maxFinite() : to.inf());
    case Unpacked::Zero: return sign;
    case Unpacked::Finite: break;
  }
  return roundToFormat(u.negative, u.mag, u.exp2, to, rm, rnd, saturate);
}

int64_t floatToInt(uint32_t bits, FloatFormat from, int width, bool isSigned, RoundingMode rm, uint32_t rnd) {
  const int64_t hi = isSigned ? (int64_t{1} << (width - 1)) - 1 : (int64_t{1} << width) - 1;
  const int64_t lo = isSigned ? -(int64_t{1} << (width - 1)) : 0;
  Unpacked u = unpack(bits, from);
  switch (u.kind) {
    case Unpacked::NaN: return 0;
    case Unpacked::Inf: return u.negative ? lo : hi;
    case Unpacked::Zero: return 0;
    case Unpacked::Finite: break;
  }
  const int msb = 63 - std::countl_zero(u.mag);
  if (msb + u.exp2 >= 40) return u.negative ? lo : hi;  // far beyond any 32-bit range
  uint64_t keep;
  if (u.exp2 >= 0) {
    keep = u.mag << u.exp2;
  } else {
    int shift = -u.exp2;
    uint64_t rem;
    if (shift >= 64) {
      keep = 0;
      rem = u.mag;  // less than one half: msb < 63 < shift - 1
    } else {
      keep = u.mag >> shift;
      rem = u.mag & ((uint64_t{1} << shift) - 1u);
    }
    if (roundsUp(u.negative, keep, rem, shift, rm, rnd)) ++keep;
  }
  int64_t v = u.negative ? -static_cast<int64_t>(keep) : static_cast<int64_t>(keep);
  return std::clamp(v, lo, hi);
}

uint32_t intToFloat(int64_t v, FloatFormat to, RoundingMode rm, uint32_t rnd) {
  if (v == 0) return 0;
  bool neg = v < 0;
  // Negate in unsigned arithmetic: -v overflows for INT64_MIN.
  uint64_t mag = neg ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  return roundToFormat(neg, mag, 0, to, rm, rnd, false);
}

float f16ToF32(uint16_t h) { return asFloat(convertFloat(h, kF16, kF32, RoundingMode::RHNE, 0, false)); }
uint16_t f32ToF16(float x) {
  return static_cast<uint16_t>(convertFloat(asBits(x), kF32, kF16, RoundingMode::RHNE, 0, false));
}

}  // namespace tpc::sem
