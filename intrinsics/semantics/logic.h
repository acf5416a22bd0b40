// Bitwise and shift lane semantics. Bitwise operations act on the raw bits of any type; shifts take the
// amount modulo the lane width; shr is arithmetic for signed types and logical for unsigned ones.
#pragma once

#include <cstdint>
#include <type_traits>

#include "lanes.h"

namespace tpc::sem {

template <DType T> inline typename Elem<T>::S bitAnd(typename Elem<T>::S a, typename Elem<T>::S b) {
  using E = Elem<T>;
  return E::fromBits(E::bits(a) & E::bits(b));
}
template <DType T> inline typename Elem<T>::S bitOr(typename Elem<T>::S a, typename Elem<T>::S b) {
  using E = Elem<T>;
  return E::fromBits(E::bits(a) | E::bits(b));
}
template <DType T> inline typename Elem<T>::S bitXor(typename Elem<T>::S a, typename Elem<T>::S b) {
  using E = Elem<T>;
  return E::fromBits(E::bits(a) ^ E::bits(b));
}
template <DType T> inline typename Elem<T>::S bitNot(typename Elem<T>::S a) {
  using E = Elem<T>;
  return E::fromBits(~E::bits(a));
}

template <DType T> inline typename Elem<T>::S shl(typename Elem<T>::S a, typename Elem<T>::S amount) {
  using S = typename Elem<T>::S;
  using U = std::make_unsigned_t<S>;
  constexpr unsigned kBits = sizeof(S) * 8;
  return static_cast<S>(static_cast<U>(static_cast<U>(a) << (static_cast<U>(amount) % kBits)));
}
template <DType T> inline typename Elem<T>::S shr(typename Elem<T>::S a, typename Elem<T>::S amount) {
  using S = typename Elem<T>::S;
  using U = std::make_unsigned_t<S>;
  constexpr unsigned kBits = sizeof(S) * 8;
  return static_cast<S>(a >> (static_cast<U>(amount) % kBits));  // arithmetic for signed S
}

}  // namespace tpc::sem
