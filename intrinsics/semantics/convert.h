// Conversion between any two data types with a rounding mode. Float to integer always saturates (NaN gives
// 0); integer to narrower integer wraps unless `sat`; float to float overflows to infinity or, with `sat`,
// to the largest finite value. `rnd` supplies the random bits of stochastic rounding (rm = sr).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "lanes.h"

namespace tpc::sem {

template <DType From, DType To>
inline typename Elem<To>::S convert(typename Elem<From>::S x, RoundingMode rm, bool sat, uint32_t rnd) {
  using EF = Elem<From>;
  using ET = Elem<To>;
  using ST = typename ET::S;
  if constexpr (EF::kFloat && ET::kFloat) {
    return ET::fromBits(convertFloat(EF::bits(x), EF::kFormat, ET::kFormat, rm, rnd, sat));
  } else if constexpr (EF::kFloat) {
    int64_t v = floatToInt(EF::bits(x), EF::kFormat, sizeof(ST) * 8, std::numeric_limits<ST>::is_signed, rm, rnd);
    return static_cast<ST>(v);
  } else if constexpr (ET::kFloat) {
    return ET::fromBits(intToFloat(int64_t{x}, ET::kFormat, rm, rnd));
  } else {
    int64_t v = int64_t{x};
    if (sat) v = std::clamp<int64_t>(v, std::numeric_limits<ST>::min(), std::numeric_limits<ST>::max());
    return static_cast<ST>(v);
  }
}

}  // namespace tpc::sem
