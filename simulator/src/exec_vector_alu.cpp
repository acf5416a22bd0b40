// VPU arithmetic, logic, comparison, select and move semantics.
#include <type_traits>

#include "exec_common.h"
#include "semantics/arith.h"
#include "semantics/compare.h"
#include "semantics/fixed_point.h"
#include "semantics/logic.h"

namespace tpc::sim::exec {

namespace {

using isa::InsnId;
using sem::CmpOp;

template <DType T> constexpr bool kIsInt = !Elem<T>::kFloat;

template <DType T> void vAdd(Core& c, const DecodedSlot& d) {
  bool sat = d.field(SwitchField::Sat);
  vecBinary<T>(c, d, [sat](St<T> a, St<T> b) { return sem::add<T>(a, b, sat); });
}
template <DType T> void vSub(Core& c, const DecodedSlot& d) {
  bool sat = d.field(SwitchField::Sat);
  vecBinary<T>(c, d, [sat](St<T> a, St<T> b) { return sem::sub<T>(a, b, sat); });
}
template <DType T> void vMul(Core& c, const DecodedSlot& d) {
  vecBinary<T>(c, d, [](St<T> a, St<T> b) { return sem::mul<T>(a, b); });
}
template <DType T> void vMax(Core& c, const DecodedSlot& d) {
  vecBinary<T>(c, d, [](St<T> a, St<T> b) { return sem::fmax<T>(a, b); });
}
template <DType T> void vMin(Core& c, const DecodedSlot& d) {
  vecBinary<T>(c, d, [](St<T> a, St<T> b) { return sem::fmin<T>(a, b); });
}
template <DType T> void vAnd(Core& c, const DecodedSlot& d) {
  vecBinary<T>(c, d, [](St<T> a, St<T> b) { return sem::bitAnd<T>(a, b); });
}
template <DType T> void vOr(Core& c, const DecodedSlot& d) {
  vecBinary<T>(c, d, [](St<T> a, St<T> b) { return sem::bitOr<T>(a, b); });
}
template <DType T> void vXor(Core& c, const DecodedSlot& d) {
  vecBinary<T>(c, d, [](St<T> a, St<T> b) { return sem::bitXor<T>(a, b); });
}
template <DType T> void vShl(Core& c, const DecodedSlot& d) {
  vecBinary<T>(c, d, [](St<T> a, St<T> b) { return sem::shl<T>(a, b); });
}
template <DType T> void vShr(Core& c, const DecodedSlot& d) {
  vecBinary<T>(c, d, [](St<T> a, St<T> b) { return sem::shr<T>(a, b); });
}
template <DType T> void vAbs(Core& c, const DecodedSlot& d) {
  vecUnary<T>(c, d, [](St<T> a) { return sem::abs<T>(a); });
}
template <DType T> void vNeg(Core& c, const DecodedSlot& d) {
  vecUnary<T>(c, d, [](St<T> a) { return sem::neg<T>(a); });
}
template <DType T> void vNot(Core& c, const DecodedSlot& d) {
  vecUnary<T>(c, d, [](St<T> a) { return sem::bitNot<T>(a); });
}
template <DType T> void vMov(Core& c, const DecodedSlot& d) {
  vecUnary<T>(c, d, [](St<T> a) { return a; });
}

// dst = dst + a * b (dst - a * b with neg)
template <DType T> void vMac(Core& c, const DecodedSlot& d) {
  const bool sat = d.field(SwitchField::Sat), neg = d.field(SwitchField::Neg);
  alignas(64) St<T> out[kLanes<T>];
  const St<T>* acc = c.r.v[d.dst].template lanes<St<T>>();
  const St<T>* a = vsrc<T>(c, d, 0);
  if (d.srcFile[1] == RegFile::V) {
    const St<T>* b = vsrc<T>(c, d, 1);
    for (int i = 0; i < kLanes<T>; ++i) out[i] = sem::mac<T>(acc[i], a[i], b[i], sat, neg);
  } else {
    const St<T> b = scalarSrc<T>(c, d, 1);
    for (int i = 0; i < kLanes<T>; ++i) out[i] = sem::mac<T>(acc[i], a[i], b, sat, neg);
  }
  commitLanes(c, d, out);
}

// dst = a * b + c
template <DType T> void vMadd(Core& c, const DecodedSlot& d) {
  bool sat = d.field(SwitchField::Sat);
  alignas(64) St<T> out[kLanes<T>];
  const St<T>* a = vsrc<T>(c, d, 0);
  LaneSource<T> b = laneSource<T>(c, d, 1), add = laneSource<T>(c, d, 2);
  for (int i = 0; i < kLanes<T>; ++i) out[i] = sem::mac<T>(add[i], a[i], b[i], sat);
  commitLanes(c, d, out);
}

// mul_wide / mac_wide: 32-bit lanes from products of a narrower (or, for the high half, equal) type. With
// r = 4 / size source elements per 32-bit lane (r = 1 for 32-bit types), lane i reads source element
// r * i + part (part 0 for 32-bit types, where part selects the low or high word). A vector predicate has
// one bit per source element (v_i16_mul_vb takes a bool128): lane i follows bit r * i + part.
template <DType T, bool kMac> void vWide(Core& c, const DecodedSlot& d) {
  constexpr int kRatio = 4 / static_cast<int>(sizeof(St<T>));
  const int part = static_cast<int>(d.field(SwitchField::Part));
  const int first = kRatio == 1 ? 0 : part;
  const bool high = kRatio == 1 && part == 1;
  const bool sat = d.field(SwitchField::Sat), neg = d.field(SwitchField::Neg);
  alignas(64) uint32_t out[64];
  uint32_t* dst = c.r.v[d.dst].template lanes<uint32_t>();
  const St<T>* a = vsrc<T>(c, d, 0);
  LaneSource<T> b = laneSource<T>(c, d, 1);
  for (int i = 0; i < 64; ++i) {
    const int k = kRatio * i + first;
    if constexpr (kMac) out[i] = sem::macWide<T>(dst[i], a[k], b[k], sat, neg);
    else out[i] = sem::mulWide<T>(a[k], b[k], high);
  }
  for (int i = 0; i < 64; ++i)
    if (!d.predVector || laneEnabled(c, d, kRatio * i + first)) dst[i] = out[i];
}
// ash: a * 2^s with s the low byte of lane i of b (or of the scalar), signed.
template <DType T> void vAsh(Core& c, const DecodedSlot& d) {
  bool rhu = d.field(SwitchField::RoundHalfUp);
  vecBinary<T>(c, d, [rhu](St<T> a, St<T> b) {
    return sem::ash<T>(a, static_cast<int8_t>(static_cast<uint8_t>(b)), rhu);
  });
}

template <DType T> void vMulWide(Core& c, const DecodedSlot& d) { vWide<T, false>(c, d); }
template <DType T> void vMacWide(Core& c, const DecodedSlot& d) { vWide<T, true>(c, d); }

// Comparisons write one predicate bit per lane; bits past the lane count are cleared.
template <DType T, CmpOp kOp> void vCmp(Core& c, const DecodedSlot& d) {
  VPReg result{};
  const St<T>* a = vsrc<T>(c, d, 0);
  LaneSource<T> b = laneSource<T>(c, d, 1);
  for (int i = 0; i < kLanes<T>; ++i) result.set(i, sem::compare<T>(kOp, a[i], b[i]));
  VPReg& dst = c.r.vp[d.dst];
  if (!d.predVector) {
    dst = result;
    return;
  }
  for (int i = 0; i < kLanes<T>; ++i)
    if (laneEnabled(c, d, i)) dst.set(i, result.bit(i));
}

// dst = (a <op> b) ? x : y, where a, b have the instruction's type and x, y the second type (same width).
template <DType T, DType R, CmpOp kOp> void vSel(Core& c, const DecodedSlot& d) {
  alignas(64) St<R> out[kLanes<R>];
  const St<T>* a = vsrc<T>(c, d, 0);
  LaneSource<T> b = laneSource<T>(c, d, 1);
  LaneSource<R> x = laneSource<R>(c, d, 2), y = laneSource<R>(c, d, 3);
  for (int i = 0; i < kLanes<R>; ++i) out[i] = sem::compare<T>(kOp, a[i], b[i]) ? x[i] : y[i];
  commitLanes(c, d, out);
}

#define VPU_TYPED(Name, Cond)                                          \
  sem::dispatchDType(insn.dtype, []<DType T>() -> ExecFn {             \
    if constexpr (Cond) return &Name<T>;                               \
    else return nullptr;                                               \
  })

template <CmpOp kOp> ExecFn cmpFor(DType t) {
  return sem::dispatchDType(t, []<DType T>() -> ExecFn { return &vCmp<T, kOp>; });
}

template <CmpOp kOp> ExecFn selFor(DType t, DType r) {
  return sem::dispatchDType(t, [r]<DType T>() -> ExecFn {
    return sem::dispatchDType(r, []<DType R>() -> ExecFn {
      if constexpr (sizeof(St<T>) == sizeof(St<R>)) return &vSel<T, R, kOp>;
      else return nullptr;
    });
  });
}

}  // namespace

ExecFn vectorAluExec(const isa::SlotInsn& insn) {
  DType dt2 = static_cast<DType>(insn.field(SwitchField::Dt2));
  switch (insn.id) {
    case InsnId::VpuAdd: return VPU_TYPED(vAdd, true);
    case InsnId::VpuSub: return VPU_TYPED(vSub, true);
    case InsnId::VpuMul: return VPU_TYPED(vMul, true);
    case InsnId::VpuMac: return VPU_TYPED(vMac, true);
    case InsnId::VpuMulWide: return VPU_TYPED(vMulWide, kIsInt<T> || sizeof(St<T>) < 4);
    case InsnId::VpuAsh: return VPU_TYPED(vAsh, kIsInt<T>);
    case InsnId::VpuMacWide: return VPU_TYPED(vMacWide, sizeof(St<T>) < 4);
    case InsnId::VpuMadd: return VPU_TYPED(vMadd, true);
    case InsnId::VpuMax: return VPU_TYPED(vMax, true);
    case InsnId::VpuMin: return VPU_TYPED(vMin, true);
    case InsnId::VpuAnd: return VPU_TYPED(vAnd, true);
    case InsnId::VpuOr: return VPU_TYPED(vOr, true);
    case InsnId::VpuXor: return VPU_TYPED(vXor, true);
    case InsnId::VpuShl: return VPU_TYPED(vShl, kIsInt<T>);
    case InsnId::VpuShr: return VPU_TYPED(vShr, kIsInt<T>);
    case InsnId::VpuAbs: return VPU_TYPED(vAbs, true);
    case InsnId::VpuNeg: return VPU_TYPED(vNeg, true);
    case InsnId::VpuNot: return VPU_TYPED(vNot, true);
    case InsnId::VpuMov: return VPU_TYPED(vMov, true);
    case InsnId::LdMov: return VPU_TYPED(vMov, true);
    case InsnId::VpuCmpEq: return cmpFor<CmpOp::Eq>(insn.dtype);
    case InsnId::VpuCmpNeq: return cmpFor<CmpOp::Neq>(insn.dtype);
    case InsnId::VpuCmpLess: return cmpFor<CmpOp::Less>(insn.dtype);
    case InsnId::VpuCmpLeq: return cmpFor<CmpOp::Leq>(insn.dtype);
    case InsnId::VpuCmpGrt: return cmpFor<CmpOp::Grt>(insn.dtype);
    case InsnId::VpuCmpGeq: return cmpFor<CmpOp::Geq>(insn.dtype);
    case InsnId::VpuSelEq: return selFor<CmpOp::Eq>(insn.dtype, dt2);
    case InsnId::VpuSelNeq: return selFor<CmpOp::Neq>(insn.dtype, dt2);
    case InsnId::VpuSelLess: return selFor<CmpOp::Less>(insn.dtype, dt2);
    case InsnId::VpuSelLeq: return selFor<CmpOp::Leq>(insn.dtype, dt2);
    case InsnId::VpuSelGrt: return selFor<CmpOp::Grt>(insn.dtype, dt2);
    case InsnId::VpuSelGeq: return selFor<CmpOp::Geq>(insn.dtype, dt2);
    default: return nullptr;
  }
}

}  // namespace tpc::sim::exec
