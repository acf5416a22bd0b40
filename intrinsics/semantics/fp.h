// Floating-point building blocks of the lane semantics: the f32, bf16 and f16 formats, flush-to-zero,
// canonical NaNs, and one rounding routine that every conversion goes through.
//
// The core flushes denormal inputs and results to (signed) zero and returns canonical NaNs; see docs/isa.md.
#pragma once

#include <bit>
#include <cstdint>

#include "tpc/isa/isa.h"

namespace tpc::sem {

using isa::RoundingMode;

struct FloatFormat {
  int expBits, mantBits;
  constexpr int bias() const { return (1 << (expBits - 1)) - 1; }
  constexpr uint32_t signBit() const { return 1u << (expBits + mantBits); }
  constexpr uint32_t expMask() const { return ((1u << expBits) - 1u) << mantBits; }
  constexpr uint32_t mantMask() const { return (1u << mantBits) - 1u; }
  constexpr uint32_t inf() const { return expMask(); }
  constexpr uint32_t canonicalNan() const { return expMask() | (1u << (mantBits - 1)); }
  constexpr uint32_t maxFinite() const { return expMask() - (1u << mantBits) + mantMask(); }
};
inline constexpr FloatFormat kF32{8, 23};
inline constexpr FloatFormat kBF16{8, 7};
inline constexpr FloatFormat kF16{5, 10};

inline constexpr uint32_t kF32CanonicalNan = 0x7fc00000u;

inline float asFloat(uint32_t b) { return std::bit_cast<float>(b); }
inline uint32_t asBits(float f) { return std::bit_cast<uint32_t>(f); }

// These two run on every lane of every f32 operation: they are written as branch-free selects so that
// the host compiler vectorizes the lane loops.

// Flush a denormal f32 to signed zero; other values pass unchanged.
inline float ftz(float x) {
  uint32_t b = asBits(x);
  uint32_t keep = (b & 0x7f800000u) ? 0xffffffffu : 0x80000000u;
  return asFloat(b & keep);
}

// The result of an f32 operation as the core writes it: NaN made canonical, denormals flushed.
inline float f32Result(float x) {
  uint32_t b = asBits(x);
  uint32_t keep = (b & 0x7f800000u) ? 0xffffffffu : 0x80000000u;
  bool nan = (b & 0x7fffffffu) > 0x7f800000u;
  return asFloat(nan ? kF32CanonicalNan : (b & keep));
}

// Rounds sign * mag * 2^exp2 (mag != 0) to `f`, returning its bit pattern. `rnd` supplies the random bits
// of stochastic rounding. Results below the smallest normal flush to signed zero; overflow gives infinity
// or the largest finite value as IEEE specifies for the mode, or always the largest finite when saturating.
uint32_t roundToFormat(bool negative, uint64_t mag, int exp2, FloatFormat f, RoundingMode rm, uint32_t rnd,
                       bool saturate);

// A decoded floating-point value (after flush-to-zero of denormal inputs).
struct Unpacked {
  enum Kind : uint8_t { Zero, Finite, Inf, NaN } kind;
  bool negative;
  uint64_t mag;  // value = mag * 2^exp2 for Finite
  int exp2;
};
Unpacked unpack(uint32_t bits, FloatFormat f);

// Conversion of a float bit pattern between formats, with the rounding mode.
uint32_t convertFloat(uint32_t bits, FloatFormat from, FloatFormat to, RoundingMode rm, uint32_t rnd, bool saturate);

// Float to a signed or unsigned integer of `bits` width: rounds by the mode, always saturates, NaN gives 0.
int64_t floatToInt(uint32_t bits, FloatFormat from, int width, bool isSigned, RoundingMode rm, uint32_t rnd);

// Integer to float format.
uint32_t intToFloat(int64_t v, FloatFormat to, RoundingMode rm, uint32_t rnd);

// Fast paths used by the vector loops (round half to nearest even, the default mode).
inline float bf16ToF32(uint16_t h) {
  uint32_t b = static_cast<uint32_t>(h) << 16;
  return (b & 0x7f800000u) == 0 ? asFloat(b & 0x80000000u) : asFloat(b);
}
inline uint16_t f32ToBf16(float x) {
  uint32_t b = asBits(x);
  if ((b & 0x7f800000u) == 0x7f800000u) return (b & 0x007fffffu) ? 0x7fc0u : static_cast<uint16_t>(b >> 16);
  if ((b & 0x7f800000u) == 0) return static_cast<uint16_t>((b >> 16) & 0x8000u);
  uint32_t r = b + 0x7fffu + ((b >> 16) & 1u);
  uint16_t h = static_cast<uint16_t>(r >> 16);
  return (h & 0x7f80u) == 0 ? static_cast<uint16_t>(h & 0x8000u) : h;
}
float f16ToF32(uint16_t h);
uint16_t f32ToF16(float x);

}  // namespace tpc::sem
