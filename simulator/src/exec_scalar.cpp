// SPU semantics: scalar arithmetic, comparisons into scalar predicates, predicate logic, conversion,
// and the index-register (IRF) operations on selected dimensions.
#include "exec_common.h"
#include "semantics/arith.h"
#include "semantics/compare.h"
#include "semantics/convert.h"
#include "semantics/fixed_point.h"
#include "semantics/logic.h"

namespace tpc::sim::exec {

namespace {

using isa::InsnId;
using sem::CmpOp;

enum class SOp { Add, Sub, Mul, Max, Min, And, Or, Xor, Shl, Shr, Udiv, Urem };

template <DType T, SOp kOp> void sBinary(Core& c, const DecodedSlot& d) {
  St<T> a = scalarSrc<T>(c, d, 0), b = scalarSrc<T>(c, d, 1);
  bool sat = d.field(SwitchField::Sat);
  St<T> r{};
  if constexpr (kOp == SOp::Add) r = sem::add<T>(a, b, sat);
  else if constexpr (kOp == SOp::Sub) r = sem::sub<T>(a, b, sat);
  else if constexpr (kOp == SOp::Mul) r = sem::mul<T>(a, b);
  else if constexpr (kOp == SOp::Max) r = sem::fmax<T>(a, b);
  else if constexpr (kOp == SOp::Min) r = sem::fmin<T>(a, b);
  else if constexpr (kOp == SOp::And) r = sem::bitAnd<T>(a, b);
  else if constexpr (kOp == SOp::Or) r = sem::bitOr<T>(a, b);
  else if constexpr (kOp == SOp::Xor) r = sem::bitXor<T>(a, b);
  else if constexpr (kOp == SOp::Shl) r = sem::shl<T>(a, b);
  else if constexpr (kOp == SOp::Shr) r = sem::shr<T>(a, b);
  else if constexpr (kOp == SOp::Udiv) r = sem::udiv<T>(a, b);
  else if constexpr (kOp == SOp::Urem) r = sem::urem<T>(a, b);
  writeScalar<T>(c, d, r);
}

template <DType T> void sMac(Core& c, const DecodedSlot& d) {
  St<T> acc = sem::fromScalarReg<T>(c.r.s[d.dst]);
  writeScalar<T>(c, d, sem::mac<T>(acc, scalarSrc<T>(c, d, 0), scalarSrc<T>(c, d, 1), d.field(SwitchField::Sat),
                                     d.field(SwitchField::Neg)));
}

enum class UOp { Abs, Neg, Not, Mov };
template <DType T, UOp kOp> void sUnary(Core& c, const DecodedSlot& d) {
  St<T> a = scalarSrc<T>(c, d, 0);
  if constexpr (kOp == UOp::Abs) a = sem::abs<T>(a);
  else if constexpr (kOp == UOp::Neg) a = sem::neg<T>(a);
  else if constexpr (kOp == UOp::Not) a = sem::bitNot<T>(a);
  writeScalar<T>(c, d, a);
}

template <DType T, CmpOp kOp> void sCmp(Core& c, const DecodedSlot& d) {
  c.r.sp[d.dst] = sem::compare<T>(kOp, scalarSrc<T>(c, d, 0), scalarSrc<T>(c, d, 1));
}

template <DType From, DType To> void sConvert(Core& c, const DecodedSlot& d) {
  const isa::RoundingMode rm = c.roundingMode(d);
  uint32_t rnd = rm == isa::RoundingMode::SR ? c.nextRandom() : 0;
  St<To> r = sem::convert<From, To>(scalarSrc<From>(c, d, 0), rm, d.field(SwitchField::Sat), rnd);
  c.r.s[d.dst] = sem::toScalarReg<To>(r);
}

// mul_wide / mac_wide of 8/16-bit types: the exact product in 32 bits (accumulated, wrapping or saturating).
template <DType T> void sMulWide(Core& c, const DecodedSlot& d) {
  c.r.s[d.dst] = sem::mulWide<T>(scalarSrc<T>(c, d, 0), scalarSrc<T>(c, d, 1), false);
}
template <DType T> void sMacWide(Core& c, const DecodedSlot& d) {
  c.r.s[d.dst] = sem::macWide<T>(c.r.s[d.dst], scalarSrc<T>(c, d, 0), scalarSrc<T>(c, d, 1), d.field(SwitchField::Sat),
                                 d.field(SwitchField::Neg));
}

// ash and convert_int: the shift is the signed low byte of the second operand.
template <DType T> void sAsh(Core& c, const DecodedSlot& d) {
  auto s = static_cast<int8_t>(static_cast<uint8_t>(rawScalarSrc(c, d, 1)));
  writeScalar<T>(c, d, sem::ash<T>(scalarSrc<T>(c, d, 0), s, d.field(SwitchField::RoundHalfUp)));
}
template <DType From, DType To> void sConvertInt(Core& c, const DecodedSlot& d) {
  auto s = static_cast<int8_t>(static_cast<uint8_t>(rawScalarSrc(c, d, 1)));
  const isa::RoundingMode rm = c.roundingMode(d);
  if (rm == isa::RoundingMode::SR) throw ExecError(kConvertIntSr);
  c.r.s[d.dst] = sem::toScalarReg<To>(sem::convertInt<From, To>(scalarSrc<From>(c, d, 0), s, rm));
}

void spMov(Core& c, const DecodedSlot& d) {
  c.r.sp[d.dst] = d.srcFile[0] == RegFile::SP ? c.r.sp[d.src[0]] : (rawScalarSrc(c, d, 0) != 0);
}
void adMov(Core& c, const DecodedSlot& d) { c.r.ad[d.dst] = c.r.ad[d.src[0]]; }
template <int kOp> void spLogic(Core& c, const DecodedSlot& d) {
  bool a = c.r.sp[d.src[0]];
  bool b = kOp == 3 ? false : c.r.sp[d.src[1]];
  c.r.sp[d.dst] = kOp == 0 ? (a && b) : kOp == 1 ? (a || b) : kOp == 2 ? (a != b) : !a;
}

// IRF operations: dst[k] = a[k] <op> b[k] for the dimensions in dmask; the others keep their value.
enum class IOp { Add, Sub, Mul, Max, Min, And, Or, Xor, Mov };
template <IOp kOp> void iOp(Core& c, const DecodedSlot& d) {
  uint32_t mask = d.field(SwitchField::DimMask);
  IReg a;
  if (d.srcFile[0] == RegFile::I) a = c.r.i[d.src[0]];
  else a.fill(static_cast<int32_t>(rawScalarSrc(c, d, 0)));
  IReg b{};
  if constexpr (kOp != IOp::Mov) b = c.r.i[d.src[1]];
  IReg& dst = c.r.i[d.dst];
  for (int k = 0; k < 5; ++k) {
    if (!((mask >> k) & 1u)) continue;
    int64_t x = a[k], y = b[k];
    int64_t r = kOp == IOp::Add ? x + y : kOp == IOp::Sub ? x - y : kOp == IOp::Mul ? x * y
              : kOp == IOp::Max ? (x > y ? x : y) : kOp == IOp::Min ? (x < y ? x : y)
              : kOp == IOp::And ? (x & y) : kOp == IOp::Or ? (x | y) : kOp == IOp::Xor ? (x ^ y) : x;
    dst[k] = static_cast<int32_t>(r);
  }
}

void movIrfDim(Core& c, const DecodedSlot& d) {
  c.r.s[d.dst] = static_cast<uint32_t>(c.r.i[d.src[0]][d.field(SwitchField::Dim)]);
}

template <SOp kOp> ExecFn binaryFor(DType t, bool intOnly, bool unsignedOnly) {
  return sem::dispatchDType(t, [intOnly, unsignedOnly]<DType T>() -> ExecFn {
    if constexpr (kOp == SOp::Shl || kOp == SOp::Shr) {
      if constexpr (Elem<T>::kFloat) return nullptr;
      else return &sBinary<T, kOp>;
    } else if constexpr (kOp == SOp::Udiv || kOp == SOp::Urem) {
      if constexpr (Elem<T>::kFloat || std::is_signed_v<St<T>>) return nullptr;
      else return &sBinary<T, kOp>;
    } else {
      return &sBinary<T, kOp>;
    }
  });
}
template <UOp kOp> ExecFn unaryFor(DType t) {
  return sem::dispatchDType(t, []<DType T>() -> ExecFn { return &sUnary<T, kOp>; });
}
template <CmpOp kOp> ExecFn cmpFor(DType t) {
  return sem::dispatchDType(t, []<DType T>() -> ExecFn { return &sCmp<T, kOp>; });
}

}  // namespace

ExecFn scalarExec(const isa::SlotInsn& insn) {
  DType t = insn.dtype;
  switch (insn.id) {
    case InsnId::SpuAdd: return binaryFor<SOp::Add>(t, false, false);
    case InsnId::SpuSub: return binaryFor<SOp::Sub>(t, false, false);
    case InsnId::SpuMul: return binaryFor<SOp::Mul>(t, false, false);
    case InsnId::SpuMax: return binaryFor<SOp::Max>(t, false, false);
    case InsnId::SpuMin: return binaryFor<SOp::Min>(t, false, false);
    case InsnId::SpuAnd: return binaryFor<SOp::And>(t, false, false);
    case InsnId::SpuOr: return binaryFor<SOp::Or>(t, false, false);
    case InsnId::SpuXor: return binaryFor<SOp::Xor>(t, false, false);
    case InsnId::SpuShl: return binaryFor<SOp::Shl>(t, true, false);
    case InsnId::SpuShr: return binaryFor<SOp::Shr>(t, true, false);
    case InsnId::SpuUdiv: return binaryFor<SOp::Udiv>(t, true, true);
    case InsnId::SpuUrem: return binaryFor<SOp::Urem>(t, true, true);
    case InsnId::SpuMac: return sem::dispatchDType(t, []<DType T>() -> ExecFn { return &sMac<T>; });
    case InsnId::SpuAbs: return unaryFor<UOp::Abs>(t);
    case InsnId::SpuNeg: return unaryFor<UOp::Neg>(t);
    case InsnId::SpuNot: return unaryFor<UOp::Not>(t);
    case InsnId::SpuMov: return unaryFor<UOp::Mov>(t);
    case InsnId::SpuCmpEq: return cmpFor<CmpOp::Eq>(t);
    case InsnId::SpuCmpNeq: return cmpFor<CmpOp::Neq>(t);
    case InsnId::SpuCmpLess: return cmpFor<CmpOp::Less>(t);
    case InsnId::SpuCmpLeq: return cmpFor<CmpOp::Leq>(t);
    case InsnId::SpuCmpGrt: return cmpFor<CmpOp::Grt>(t);
    case InsnId::SpuCmpGeq: return cmpFor<CmpOp::Geq>(t);
    case InsnId::SpuConvert: {
      DType to = static_cast<DType>(insn.field(SwitchField::Dt2));
      return sem::dispatchDType(t, [to]<DType F>() -> ExecFn {
        return sem::dispatchDType(to, []<DType T>() -> ExecFn { return &sConvert<F, T>; });
      });
    }
    case InsnId::SpuMulWide:
    case InsnId::SpuMacWide:
      return sem::dispatchDType(t, [id = insn.id]<DType T>() -> ExecFn {
        if constexpr (sizeof(St<T>) < 4) return id == InsnId::SpuMulWide ? &sMulWide<T> : &sMacWide<T>;
        else return nullptr;
      });
    case InsnId::SpuAsh:
      return sem::dispatchDType(t, []<DType T>() -> ExecFn {
        if constexpr (!Elem<T>::kFloat) return &sAsh<T>;
        else return nullptr;
      });
    case InsnId::SpuConvertInt: {
      DType to = static_cast<DType>(insn.field(SwitchField::Dt2));
      return sem::dispatchDType(t, [to]<DType F>() -> ExecFn {
        return sem::dispatchDType(to, []<DType T>() -> ExecFn {
          if constexpr (!Elem<F>::kFloat && !Elem<T>::kFloat && sizeof(St<F>) > sizeof(St<T>)) return &sConvertInt<F, T>;
          else return nullptr;
        });
      });
    }
    case InsnId::SpuMovSp: return &spMov;
    case InsnId::SpuMovAd: return &adMov;
    case InsnId::SpuSpAnd: return &spLogic<0>;
    case InsnId::SpuSpOr: return &spLogic<1>;
    case InsnId::SpuSpXor: return &spLogic<2>;
    case InsnId::SpuSpNot: return &spLogic<3>;
    case InsnId::SpuIAdd: return &iOp<IOp::Add>;
    case InsnId::SpuISub: return &iOp<IOp::Sub>;
    case InsnId::SpuIMul: return &iOp<IOp::Mul>;
    case InsnId::SpuIMax: return &iOp<IOp::Max>;
    case InsnId::SpuIMin: return &iOp<IOp::Min>;
    case InsnId::SpuIAnd: return &iOp<IOp::And>;
    case InsnId::SpuIOr: return &iOp<IOp::Or>;
    case InsnId::SpuIXor: return &iOp<IOp::Xor>;
    case InsnId::SpuIMov: return &iOp<IOp::Mov>;
    case InsnId::SpuMovIrfDim: return &movIrfDim;
    default: return nullptr;
  }
}

}  // namespace tpc::sim::exec
