// Comparison lane semantics. Floats compare as IEEE values (-0 == +0; any comparison with NaN is false
// except "not equal").
#pragma once

#include "lanes.h"

namespace tpc::sem {

enum class CmpOp : uint8_t { Eq, Neq, Less, Leq, Grt, Geq };

template <DType T> inline bool compare(CmpOp op, typename Elem<T>::S a, typename Elem<T>::S b) {
  using E = Elem<T>;
  if constexpr (E::kFloat) {
    float x = E::toF(a), y = E::toF(b);
    switch (op) {
      case CmpOp::Eq: return x == y;
      case CmpOp::Neq: return !(x == y);
      case CmpOp::Less: return x < y;
      case CmpOp::Leq: return x <= y;
      case CmpOp::Grt: return x > y;
      case CmpOp::Geq: return x >= y;
    }
  } else {
    switch (op) {
      case CmpOp::Eq: return a == b;
      case CmpOp::Neq: return a != b;
      case CmpOp::Less: return a < b;
      case CmpOp::Leq: return a <= b;
      case CmpOp::Grt: return a > b;
      case CmpOp::Geq: return a >= b;
    }
  }
  return false;
}

}  // namespace tpc::sem
