// Arithmetic lane semantics: one small function per operation. Integers wrap unless `sat` is set; floats
// flush denormals and return canonical NaNs (Elem::fromF). MAC and MADD round the product and the sum
// separately (not fused), as documented in docs/isa.md.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "lanes.h"

namespace tpc::sem {

template <class S> inline S wrapOrSat(int64_t v, bool sat) {
  if (sat) v = std::clamp<int64_t>(v, std::numeric_limits<S>::min(), std::numeric_limits<S>::max());
  return static_cast<S>(v);
}

template <DType T> inline typename Elem<T>::S add(typename Elem<T>::S a, typename Elem<T>::S b, bool sat) {
  using E = Elem<T>;
  if constexpr (E::kFloat) return E::fromF(E::toF(a) + E::toF(b));
  else return wrapOrSat<typename E::S>(int64_t{a} + int64_t{b}, sat);
}

template <DType T> inline typename Elem<T>::S sub(typename Elem<T>::S a, typename Elem<T>::S b, bool sat) {
  using E = Elem<T>;
  if constexpr (E::kFloat) return E::fromF(E::toF(a) - E::toF(b));
  else return wrapOrSat<typename E::S>(int64_t{a} - int64_t{b}, sat);
}

template <DType T> inline typename Elem<T>::S mul(typename Elem<T>::S a, typename Elem<T>::S b) {
  using E = Elem<T>;
  if constexpr (E::kFloat) return E::fromF(E::toF(a) * E::toF(b));
  else return static_cast<typename E::S>(static_cast<int64_t>(static_cast<uint64_t>(int64_t{a}) * static_cast<uint64_t>(int64_t{b})));
}

// acc + a * b, or acc - a * b with `neg`. f32 is fused (one rounding, as the hardware's MAC: the vendor's
// tests compare it bit for bit with fmaf). A product of 16-bit floats is exact in f32, so for bf16/f16 the
// f32 sum is the one rounding before the final one to the narrow type.
template <DType T>
inline typename Elem<T>::S mac(typename Elem<T>::S acc, typename Elem<T>::S a, typename Elem<T>::S b, bool sat,
                               bool neg = false) {
  using E = Elem<T>;
  if constexpr (T == DType::F32) {
    const float x = E::toF(a);
    return E::fromF(std::fma(neg ? -x : x, E::toF(b), E::toF(acc)));
  } else if constexpr (E::kFloat) {
    const float product = E::toF(a) * E::toF(b);
    return E::fromF(E::toF(acc) + (neg ? -product : product));
  } else {
    int64_t p = static_cast<int64_t>(static_cast<uint64_t>(int64_t{a}) * static_cast<uint64_t>(int64_t{b}));
    // A u32 product can reach 2^64 - 2^33 + 1, which does not fit int64: clamp it to a value that still
    // saturates (the accumulator is below 2^32) instead of letting it turn negative.
    if (sat && std::is_unsigned_v<typename E::S> && static_cast<uint64_t>(p) > (uint64_t{1} << 40))
      p = int64_t{1} << 40;
    if (!sat) p = static_cast<typename E::S>(p);  // wrap the product first, like the hardware's narrow multiplier
    return wrapOrSat<typename E::S>(neg ? int64_t{acc} - p : int64_t{acc} + p, sat);
  }
}

// mul_wide / mac_wide: the product of a and b, wider than the type. Integers: for 8/16-bit types it fits in
// 32 bits; for 32-bit types `high` selects the high instead of the low 32 bits of the 64-bit product; signed
// types give signed 32-bit lanes, unsigned types unsigned ones. bf16/f16: an f32, which holds the product
// of two 16-bit floats exactly.
template <DType T> inline uint32_t mulWide(typename Elem<T>::S a, typename Elem<T>::S b, bool high) {
  if constexpr (Elem<T>::kFloat) {
    static_assert(sizeof(typename Elem<T>::S) < 4);
    return asBits(f32Result(Elem<T>::toF(a) * Elem<T>::toF(b)));
  } else if constexpr (std::is_signed_v<typename Elem<T>::S>) {
    int64_t p = int64_t{a} * int64_t{b};
    return static_cast<uint32_t>(static_cast<uint64_t>(p) >> (high ? 32 : 0));
  } else {
    uint64_t p = uint64_t{a} * uint64_t{b};
    return static_cast<uint32_t>(p >> (high ? 32 : 0));
  }
}

// acc + a * b (acc - a * b with `neg`) in 32-bit lanes (8/16-bit types). Integers: wraps, or saturates to
// the 32-bit range of the type's signedness with `sat`. bf16/f16: an f32 accumulator; the product of two
// 16-bit floats is exact in f32, so the sum is the only rounding (sat has no effect, as for float mac).
template <DType T>
inline uint32_t macWide(uint32_t acc, typename Elem<T>::S a, typename Elem<T>::S b, bool sat, bool neg = false) {
  using E = Elem<T>;
  static_assert(sizeof(typename E::S) < 4);
  if constexpr (E::kFloat) {
    using F = Elem<DType::F32>;
    const float product = f32Result(E::toF(a) * E::toF(b));
    return asBits(F::fromF(F::toF(asFloat(acc)) + (neg ? -product : product)));
  } else {
    const int64_t p = int64_t{a} * int64_t{b};
    if constexpr (std::is_signed_v<typename E::S>)
      return static_cast<uint32_t>(wrapOrSat<int32_t>(int64_t{static_cast<int32_t>(acc)} + (neg ? -p : p), sat));
    else
      return wrapOrSat<uint32_t>(int64_t{acc} + (neg ? -p : p), sat);
  }
}

template <DType T> inline typename Elem<T>::S fmax(typename Elem<T>::S a, typename Elem<T>::S b) {
  using E = Elem<T>;
  if constexpr (E::kFloat) {
    // Branch-free for vectorization. Equal operands differ at most in the sign of zero: AND of the bits
    // gives max(-0, +0) = +0.
    float x = E::toF(a), y = E::toF(b);
    uint32_t xb = asBits(x), yb = asBits(y);
    uint32_t r = x == y ? (xb & yb) : (x > y ? xb : yb);
    bool nan = x != x || y != y;
    return E::fromF(asFloat(nan ? kF32CanonicalNan : r));
  } else {
    return a > b ? a : b;
  }
}

template <DType T> inline typename Elem<T>::S fmin(typename Elem<T>::S a, typename Elem<T>::S b) {
  using E = Elem<T>;
  if constexpr (E::kFloat) {
    // As fmax; OR of the bits gives min(-0, +0) = -0.
    float x = E::toF(a), y = E::toF(b);
    uint32_t xb = asBits(x), yb = asBits(y);
    uint32_t r = x == y ? (xb | yb) : (x < y ? xb : yb);
    bool nan = x != x || y != y;
    return E::fromF(asFloat(nan ? kF32CanonicalNan : r));
  } else {
    return a < b ? a : b;
  }
}

template <DType T> inline typename Elem<T>::S abs(typename Elem<T>::S a) {
  using E = Elem<T>;
  if constexpr (E::kFloat) return E::fromF(asFloat(asBits(E::toF(a)) & 0x7fffffffu));
  else if constexpr (std::is_signed_v<typename E::S>) return static_cast<typename E::S>(a < 0 ? -int64_t{a} : a);
  else return a;
}

template <DType T> inline typename Elem<T>::S neg(typename Elem<T>::S a) {
  using E = Elem<T>;
  if constexpr (E::kFloat) return E::fromF(asFloat(asBits(E::toF(a)) ^ 0x80000000u));
  else return static_cast<typename E::S>(-int64_t{a});
}

// Unsigned division and remainder (the scalar unit's divider); division by zero gives all ones / the dividend.
template <DType T> inline typename Elem<T>::S udiv(typename Elem<T>::S a, typename Elem<T>::S b) {
  return b == 0 ? static_cast<typename Elem<T>::S>(~typename Elem<T>::S{0}) : static_cast<typename Elem<T>::S>(a / b);
}
template <DType T> inline typename Elem<T>::S urem(typename Elem<T>::S a, typename Elem<T>::S b) {
  return b == 0 ? a : static_cast<typename Elem<T>::S>(a % b);
}

}  // namespace tpc::sem
