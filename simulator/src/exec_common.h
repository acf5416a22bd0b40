// Shared helpers of the instruction semantics functions (exec_*.cpp): operand access, vector predication,
// and the lane loops, written so the host compiler vectorizes them.
#pragma once

#include <cstring>

#include "semantics/lanes.h"
#include "tpc/sim/core.h"
#include "tpc/sim/program.h"

namespace tpc::sim::exec {

using isa::RegFile;
using isa::SwitchField;
using sem::Elem;

template <DType T> using St = typename Elem<T>::S;
template <DType T> inline constexpr int kLanes = isa::kVectorBytes / static_cast<int>(sizeof(St<T>));

// Scalar operand k (an S register or the immediate) as a value of type T.
template <DType T> inline St<T> scalarSrc(const Core& c, const DecodedSlot& d, int k) {
  uint32_t raw = d.srcFile[k] == RegFile::Imm ? d.imm : c.r.s[d.src[k]];
  return sem::fromScalarReg<T>(raw);
}
inline uint32_t rawScalarSrc(const Core& c, const DecodedSlot& d, int k) {
  return d.srcFile[k] == RegFile::Imm ? d.imm : c.r.s[d.src[k]];
}

template <DType T> inline const St<T>* vsrc(const Core& c, const DecodedSlot& d, int k) {
  return c.r.v[d.src[k]].template lanes<St<T>>();
}

// A vector operand that may be a register or a broadcast scalar.
template <DType T> struct LaneSource {
  const St<T>* vec;
  St<T> scalar;
  St<T> operator[](int i) const { return vec ? vec[i] : scalar; }
};
template <DType T> inline LaneSource<T> laneSource(const Core& c, const DecodedSlot& d, int k) {
  if (d.srcFile[k] == RegFile::V) return {vsrc<T>(c, d, k), St<T>{}};
  return {nullptr, scalarSrc<T>(c, d, k)};
}

inline bool laneEnabled(const Core& c, const DecodedSlot& d, int lane) {
  return c.r.vp[d.predIndex].bit(lane) != d.predNegate;
}

// Writes a vector result; with a vector predicate, disabled lanes keep their old value (the income).
template <class S> inline void commitLanes(Core& c, const DecodedSlot& d, const S* out) {
  S* dst = c.r.v[d.dst].template lanes<S>();
  if (!d.predVector) {
    std::memcpy(dst, out, isa::kVectorBytes);
    return;
  }
  constexpr int kN = isa::kVectorBytes / static_cast<int>(sizeof(S));
  for (int i = 0; i < kN; ++i)
    if (laneEnabled(c, d, i)) dst[i] = out[i];
}

template <DType T, class F> inline void vecUnary(Core& c, const DecodedSlot& d, F f) {
  alignas(64) St<T> out[kLanes<T>];
  if (d.srcFile[0] == RegFile::V) {
    const St<T>* a = vsrc<T>(c, d, 0);
    for (int i = 0; i < kLanes<T>; ++i) out[i] = f(a[i]);
  } else {
    St<T> r = f(scalarSrc<T>(c, d, 0));
    for (int i = 0; i < kLanes<T>; ++i) out[i] = r;
  }
  commitLanes(c, d, out);
}

template <DType T, class F> inline void vecBinary(Core& c, const DecodedSlot& d, F f) {
  alignas(64) St<T> out[kLanes<T>];
  const St<T>* a = vsrc<T>(c, d, 0);
  if (d.srcFile[1] == RegFile::V) {
    const St<T>* b = vsrc<T>(c, d, 1);
    for (int i = 0; i < kLanes<T>; ++i) out[i] = f(a[i], b[i]);
  } else {
    const St<T> b = scalarSrc<T>(c, d, 1);
    for (int i = 0; i < kLanes<T>; ++i) out[i] = f(a[i], b);
  }
  commitLanes(c, d, out);
}

// Scalar unit: operands in S registers (or the immediate), result written back extended to 32 bits.
template <DType T> inline void writeScalar(Core& c, const DecodedSlot& d, St<T> v) {
  c.r.s[d.dst] = sem::toScalarReg<T>(v);
}

// The fixed-point converts (convert_int) have no stochastic rounding; with rm=csr the CSR may still hold it.
inline constexpr const char* kConvertIntSr =
    "convert_int with rm=csr: CONV_ROUND_CSR holds sr, which the fixed-point converts do not support";

// Families of semantics functions, each looked up by its own file.
ExecFn vectorAluExec(const isa::SlotInsn& insn);
ExecFn vectorDataExec(const isa::SlotInsn& insn);
ExecFn scalarExec(const isa::SlotInsn& insn);
ExecFn controlExec(const isa::SlotInsn& insn);
ExecFn memoryExec(const isa::SlotInsn& insn);
ExecFn printfExec(const isa::SlotInsn& insn);

}  // namespace tpc::sim::exec

namespace tpc::sim::exec {
// Whether a hardware loop runs another iteration with this iterator value (exec_control.cpp).
bool loopIterationContinues(const LoopFrame& f, int32_t iterator);
}  // namespace tpc::sim::exec
