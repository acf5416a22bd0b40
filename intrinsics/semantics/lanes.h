// Element traits: how a lane of each data type is stored in a register and converted for arithmetic.
// bf16 and f16 lanes hold raw bits and compute in f32 (exact for one add, sub or mul before the final
// rounding, since f32 has more than twice their precision plus two bits).
#pragma once

#include <cstdint>
#include <type_traits>

#include "fp.h"
#include "tpc/support/dtype.h"

namespace tpc::sem {

template <DType T> struct Elem;

template <> struct Elem<DType::F32> {
  using S = float;
  static constexpr bool kFloat = true;
  static constexpr FloatFormat kFormat = kF32;
  static float toF(S x) { return ftz(x); }
  static S fromF(float f) { return f32Result(f); }
  static uint32_t bits(S x) { return asBits(x); }
  static S fromBits(uint32_t b) { return asFloat(b); }
};
template <> struct Elem<DType::BF16> {
  using S = uint16_t;
  static constexpr bool kFloat = true;
  static constexpr FloatFormat kFormat = kBF16;
  static float toF(S x) { return bf16ToF32(x); }
  // `f` is the exact f32 result of a bf16 operation. Near the bottom of the range it can be an f32
  // denormal that still rounds to the smallest bf16 normal (e.g. 0x3f35 * 0x00b5 = 2^-126 * (1 - 7 * 2^-15));
  // round it as the result it is rather than flushing it as an input.
  static S fromF(float f) {
    uint32_t b = asBits(f);
    if ((b & 0x7f800000u) == 0 && (b & 0x007fffffu) != 0)
      return static_cast<S>(roundToFormat((b >> 31) != 0, b & 0x007fffffu, -149, kBF16, RoundingMode::RHNE, 0, false));
    return f32ToBf16(f);
  }
  static uint32_t bits(S x) { return x; }
  static S fromBits(uint32_t b) { return static_cast<S>(b); }
};
template <> struct Elem<DType::F16> {
  using S = uint16_t;
  static constexpr bool kFloat = true;
  static constexpr FloatFormat kFormat = kF16;
  static float toF(S x) { return f16ToF32(x); }
  static S fromF(float f) { return f32ToF16(f); }
  static uint32_t bits(S x) { return x; }
  static S fromBits(uint32_t b) { return static_cast<S>(b); }
};

template <class Int> struct IntElem {
  using S = Int;
  static constexpr bool kFloat = false;
  static uint32_t bits(S x) { return static_cast<uint32_t>(static_cast<std::make_unsigned_t<S>>(x)); }
  static S fromBits(uint32_t b) { return static_cast<S>(b); }
};
template <> struct Elem<DType::I32> : IntElem<int32_t> {};
template <> struct Elem<DType::U32> : IntElem<uint32_t> {};
template <> struct Elem<DType::I16> : IntElem<int16_t> {};
template <> struct Elem<DType::U16> : IntElem<uint16_t> {};
template <> struct Elem<DType::I8> : IntElem<int8_t> {};
template <> struct Elem<DType::U8> : IntElem<uint8_t> {};

// A 32-bit scalar register holding a value of type T: integers are sign- or zero-extended, bf16 and f16
// sit zero-extended in the low half.
template <DType T> inline typename Elem<T>::S fromScalarReg(uint32_t r) { return Elem<T>::fromBits(r); }
template <DType T> inline uint32_t toScalarReg(typename Elem<T>::S v) {
  using S = typename Elem<T>::S;
  if constexpr (std::is_integral_v<S> && std::is_signed_v<S>)
    return static_cast<uint32_t>(static_cast<int32_t>(v));
  else
    return Elem<T>::bits(v);
}

// Calls f.template operator()<T>() with the data type as a template argument.
template <class F> decltype(auto) dispatchDType(DType t, F&& f) {
  switch (t) {
    case DType::F32: return f.template operator()<DType::F32>();
    case DType::BF16: return f.template operator()<DType::BF16>();
    case DType::F16: return f.template operator()<DType::F16>();
    case DType::I32: return f.template operator()<DType::I32>();
    case DType::U32: return f.template operator()<DType::U32>();
    case DType::I16: return f.template operator()<DType::I16>();
    case DType::U16: return f.template operator()<DType::U16>();
    case DType::I8: return f.template operator()<DType::I8>();
    default: return f.template operator()<DType::U8>();
  }
}

}  // namespace tpc::sem
