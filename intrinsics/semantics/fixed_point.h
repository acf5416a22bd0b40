// Fixed-point lane semantics: the arithmetic shift `ash` (a * 2^s) and the shifting converts `convert_int`
// (an integer scaled by 2^-s, rounded and saturated into a narrower integer type). Shift amounts are signed
// bytes; every intermediate value is exact in 64 bits (|s| is clamped where the result no longer changes).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "lanes.h"
#include "tpc/isa/isa.h"

namespace tpc::sem {

// x / 2^n (n >= 0) rounded to an integer by rm (rhne, rz, ru, rd, rhaz; sr reads as rhne: the instruction
// does not take it).
inline int64_t roundShiftRight(int64_t x, int n, isa::RoundingMode rm) {
  if (n == 0) return x;
  n = std::min(n, 62);
  const int64_t unit = int64_t{1} << n;
  int64_t q = x >> n;  // floor
  const int64_t rem = x - q * unit, half = unit / 2;
  switch (rm) {
    case isa::RoundingMode::RD: return q;
    case isa::RoundingMode::RU: return rem ? q + 1 : q;
    case isa::RoundingMode::RZ: return (x < 0 && rem) ? q + 1 : q;
    case isa::RoundingMode::RHAZ: return rem > half || (rem == half && x >= 0) ? q + 1 : q;
    default: return rem > half || (rem == half && (q & 1)) ? q + 1 : q;  // rhne
  }
}

// x * 2^s saturated to [lo, hi]; s < 0 shifts right with rounding rm.
inline int64_t scaleAndSaturate(int64_t x, int s, isa::RoundingMode rm, int64_t lo, int64_t hi) {
  int64_t r;
  if (s >= 0) {
    if (x == 0) return 0;
    // 1 <= |x| <= 2^32 and the range is within 32 bits: a shift by 32 or more always leaves it, and one
    // by less stays within 64 bits.
    if (s >= 32) return x < 0 ? lo : hi;
    r = x * (int64_t{1} << s);
  } else {
    r = roundShiftRight(x, -s, rm);
  }
  return std::clamp(r, lo, hi);
}

// ash: a * 2^s in type T, saturated; a right shift rounds down, or half up with `rhu` (floor(x/2^n + 1/2)).
template <DType T> inline typename Elem<T>::S ash(typename Elem<T>::S a, int8_t s, bool rhu) {
  using S = typename Elem<T>::S;
  constexpr int64_t kLo = std::numeric_limits<S>::min(), kHi = std::numeric_limits<S>::max();
  const int64_t x = int64_t{a};
  if (s >= 0) return static_cast<S>(scaleAndSaturate(x, s, isa::RoundingMode::RD, kLo, kHi));
  const int n = std::min(-int{s}, 62);
  return static_cast<S>(std::clamp<int64_t>(rhu ? (x + (int64_t{1} << (n - 1))) >> n : x >> n, kLo, kHi));
}

// convert_int: value / 2^s (s >= 0; a negative s scales up) rounded by rm and saturated into To.
template <DType From, DType To>
inline typename Elem<To>::S convertInt(typename Elem<From>::S value, int8_t s, isa::RoundingMode rm) {
  using R = typename Elem<To>::S;
  return static_cast<R>(scaleAndSaturate(int64_t{value}, -int{s}, rm, std::numeric_limits<R>::min(),
                                         std::numeric_limits<R>::max()));
}

}  // namespace tpc::sem
