// VPU data movement, predicate logic, conversion and special-function helper semantics.
#include <cstring>

#include "exec_common.h"
#include "semantics/convert.h"
#include "semantics/fixed_point.h"
#include "semantics/fp_special.h"
#include "semantics/lut.h"

namespace tpc::sim::exec {

namespace {

using isa::InsnId;

// mov_vp: from a predicate, from a scalar (every lane = s != 0) or an immediate (every lane = imm != 0).
void vpMov(Core& c, const DecodedSlot& d) {
  VPReg v;
  if (d.srcFile[0] == RegFile::VP) {
    v = c.r.vp[d.src[0]];
  } else {
    uint64_t all = rawScalarSrc(c, d, 0) ? ~uint64_t{0} : 0;
    v = VPReg{{all, all, all, all}};
  }
  VPReg& dst = c.r.vp[d.dst];
  if (!d.predVector) {
    dst = v;
    return;
  }
  for (int i = 0; i < 256; ++i)
    if (laneEnabled(c, d, i)) dst.set(i, v.bit(i));
}

template <int kOp> void vpLogic(Core& c, const DecodedSlot& d) {
  const VPReg& a = c.r.vp[d.src[0]];
  VPReg v;
  for (int w = 0; w < 4; ++w) {
    uint64_t b = kOp == 3 ? 0 : c.r.vp[d.src[1]].w[w];
    v.w[w] = kOp == 0 ? (a.w[w] & b) : kOp == 1 ? (a.w[w] | b) : kOp == 2 ? (a.w[w] ^ b) : ~a.w[w];
  }
  VPReg& dst = c.r.vp[d.dst];
  if (!d.predVector) {
    dst = v;
    return;
  }
  for (int i = 0; i < 256; ++i)
    if (laneEnabled(c, d, i)) dst.set(i, v.bit(i));
}

// Byte-granular moves keep the register's other bytes; a vector predicate selects 32-bit lanes.
void commitBytes(Core& c, const DecodedSlot& d, const uint8_t* bytes) { commitLanes<uint32_t>(c, d, reinterpret_cast<const uint32_t*>(bytes)); }

// A vector has four 64-byte dual groups of two 32-byte groups each. mov_dual_group copies dual group sdg of
// the source into dual group ddg: group g (0 lower, 1 upper) only where bit g of wr is set, and byte j of a
// group only where bit j of the byte mask (src1) is set; everything else keeps the destination's value.
void vMovDualGroup(Core& c, const DecodedSlot& d) {
  alignas(64) uint8_t out[256];
  std::memcpy(out, c.r.v[d.dst].bytes, 256);
  const uint8_t* from = c.r.v[d.src[0]].bytes + 64 * d.field(SwitchField::SrcGroup);
  uint8_t* to = out + 64 * d.field(SwitchField::DstGroup);
  const uint32_t mask = rawScalarSrc(c, d, 1), groups = d.field(SwitchField::WriteGroups);
  for (int g = 0; g < 2; ++g)
    if ((groups >> g) & 1u)
      for (int j = 0; j < 32; ++j)
        if ((mask >> j) & 1u) to[32 * g + j] = from[32 * g + j];
  commitBytes(c, d, out);
}

// mov_group: a vector has four 64-byte dual groups of two 32-byte groups each. In every dual group enabled by
// dgen, each group g enabled by gen receives the bytes of the *other* group (1 - g) of the same dual group,
// byte j only where bit j of the byte mask (src1) is set; everything else keeps the destination's value.
// With every group and dual group enabled, the two groups of each dual group swap.
template <DType T> void vMovGroup(Core& c, const DecodedSlot& d) {
  alignas(64) uint8_t out[256];
  std::memcpy(out, c.r.v[d.dst].bytes, 256);
  const uint8_t* a = c.r.v[d.src[0]].bytes;
  const uint32_t mask = rawScalarSrc(c, d, 1);
  const uint32_t groups = d.field(SwitchField::GroupEn), dualGroups = d.field(SwitchField::DualGroupEn);
  for (int dg = 0; dg < 4; ++dg) {
    if (!((dualGroups >> dg) & 1u)) continue;
    for (int g = 0; g < 2; ++g) {
      if (!((groups >> g) & 1u)) continue;
      for (int j = 0; j < 32; ++j)
        if ((mask >> j) & 1u) out[64 * dg + 32 * g + j] = a[64 * dg + 32 * (1 - g) + j];
    }
  }
  alignas(64) St<T> lanes[kLanes<T>];
  std::memcpy(lanes, out, 256);
  commitLanes(c, d, lanes);
}

// shuffle: per destination element i, the byte of b at the element's first byte (b.byte[i * size]) selects
// the source: bit 7 enables the write (clear: the element keeps the destination's value), bit 5 the group of
// i's dual group, bits 0-4 the element within that group (taken modulo the group's 32 / size elements).
// Elements never leave their dual group.
template <DType T> void vShuffle(Core& c, const DecodedSlot& d) {
  constexpr int kSize = sizeof(St<T>), kPerGroup = 32 / kSize, kPerDual = 2 * kPerGroup;
  alignas(64) St<T> out[kLanes<T>];
  std::memcpy(out, c.r.v[d.dst].bytes, 256);
  const St<T>* a = vsrc<T>(c, d, 0);
  const uint8_t* b = c.r.v[d.src[1]].bytes;
  for (int i = 0; i < kLanes<T>; ++i) {
    const uint8_t sel = b[i * kSize];
    if (!(sel & 0x80u)) continue;
    out[i] = a[(i / kPerDual) * kPerDual + ((sel >> 5) & 1) * kPerGroup + (sel & (kPerGroup - 1))];
  }
  commitLanes(c, d, out);
}

// permute (our own, for tpc-special.h's lane reductions): dst lane i = a lane (index mod lanes), the index
// taken from the low byte of lane i of b. Crosses dual groups, writes every lane.
template <DType T> void vPermute(Core& c, const DecodedSlot& d) {
  alignas(64) St<T> out[kLanes<T>];
  const St<T>* a = vsrc<T>(c, d, 0);
  const uint8_t* b = c.r.v[d.src[1]].bytes;
  for (int i = 0; i < kLanes<T>; ++i) out[i] = a[b[i * sizeof(St<T>)] % kLanes<T>];
  commitLanes(c, d, out);
}

// pack (element type T of w bytes, stride s = 2 or 4): in each dual group d, the elements at positions 0, s,
// 2s, ... of source group g (32 / w / s of them) are written consecutively from element
// (d mod s) * (64 / s / w) + g * (32 / s / w) of the same dual group, so that the results of the dual
// groups occupy different parts of their dual groups (mov_dual_group merges them). Other elements keep the
// destination's value.
template <DType T> void vPack(Core& c, const DecodedSlot& d) {
  constexpr int kW = sizeof(St<T>), kPerDual = 64 / kW, kPerGroup = 32 / kW;
  alignas(64) St<T> out[kLanes<T>];
  std::memcpy(out, c.r.v[d.dst].bytes, 256);
  const St<T>* a = vsrc<T>(c, d, 0);
  const int g = static_cast<int>(d.field(SwitchField::PackGroup));
  const int s = d.field(SwitchField::PackStride4) ? 4 : 2;
  const int count = kPerGroup / s;
  for (int dg = 0; dg < 4; ++dg) {
    const int base = dg * kPerDual, at = base + (dg % s) * (kPerDual / s) + g * count;
    for (int k = 0; k < count; ++k) out[at + k] = a[base + g * kPerGroup + k * s];
  }
  commitLanes(c, d, out);
}

// unpack (stride s = 2 or 4): in each dual group d, the source elements are group g (s = 2) or half h of
// group g (s = 4) of the same dual group, 64 / s / w of them; element k is written to element k * s + lane
// of the dual group. Other elements keep the destination's value.
template <DType T> void vUnpack(Core& c, const DecodedSlot& d) {
  constexpr int kW = sizeof(St<T>), kPerDual = 64 / kW, kPerGroup = 32 / kW;
  alignas(64) St<T> out[kLanes<T>];
  std::memcpy(out, c.r.v[d.dst].bytes, 256);
  const St<T>* a = vsrc<T>(c, d, 0);
  const int g = static_cast<int>(d.field(SwitchField::PackGroup));
  const int s = d.field(SwitchField::PackStride4) ? 4 : 2;
  const int half = s == 4 ? static_cast<int>(d.field(SwitchField::GroupHalf)) : 0;
  const int lane = static_cast<int>(d.field(SwitchField::UnpackLane)) % s;
  const int count = kPerDual / s;
  for (int dg = 0; dg < 4; ++dg) {
    const int base = dg * kPerDual, from = base + g * kPerGroup + half * (kPerGroup / 2);
    for (int k = 0; k < count; ++k) out[base + k * s + lane] = a[from + k];
  }
  commitLanes(c, d, out);
}

// convert: between widths, `part` selects which part of the register with more lanes is read or written:
// lanes [part*n, part*n + n) (layout=block) or lanes part, part + r, part + 2r, ... (layout=interleaved, r the
// width ratio). The lanes of the destination outside the part keep their value. A vector predicate bit
// belongs to a destination lane, except that an interleaved convert takes the bit of the source lane it
// reads: the predicate of v_convert_bf16_to_f32_all_vb is a bool128 of the bf16 lanes, and that of
// v_convert_i32_to_i8_vb(src, lane, ...) a bool64 of the i32 lanes.
template <DType From, DType To> void vConvert(Core& c, const DecodedSlot& d) {
  constexpr int kFrom = kLanes<From>, kTo = kLanes<To>;
  constexpr int kN = kFrom < kTo ? kFrom : kTo;
  constexpr int kRatio = (kFrom > kTo ? kFrom : kTo) / kN;
  const isa::RoundingMode rm = c.roundingMode(d);
  bool sat = d.field(SwitchField::Sat);
  int part = static_cast<int>(d.field(SwitchField::Part));
  const bool interleaved = d.field(SwitchField::Layout) != 0;
  alignas(64) St<To> out[kTo];
  std::memcpy(out, c.r.v[d.dst].bytes, 256);
  const St<From>* a = vsrc<From>(c, d, 0);
  if (!interleaved) {
    int srcBase = kFrom > kTo ? part * kN : 0;
    int dstBase = kTo > kFrom ? part * kN : 0;
    if (rm == isa::RoundingMode::SR) {
      for (int i = 0; i < kN; ++i) out[dstBase + i] = sem::convert<From, To>(a[srcBase + i], rm, sat, c.nextRandom());
    } else {
      for (int i = 0; i < kN; ++i) out[dstBase + i] = sem::convert<From, To>(a[srcBase + i], rm, sat, 0);
    }
    commitLanes(c, d, out);
    return;
  }
  // Lane k of the part is lane k * kRatio + part of the register with more lanes.
  constexpr int kSrcStep = kFrom > kTo ? kRatio : 1, kDstStep = kTo > kFrom ? kRatio : 1;
  const int srcBase = kFrom > kTo ? part : 0, dstBase = kTo > kFrom ? part : 0;
  const bool srcPredicate = d.predVector;
  for (int k = 0; k < kN; ++k) {
    int s = srcBase + k * kSrcStep, t = dstBase + k * kDstStep;
    if (srcPredicate && !laneEnabled(c, d, s)) continue;
    out[t] = sem::convert<From, To>(a[s], rm, sat, rm == isa::RoundingMode::SR ? c.nextRandom() : 0);
  }
  if (srcPredicate) {
    std::memcpy(c.r.v[d.dst].bytes, out, 256);
    return;
  }
  commitLanes(c, d, out);
}

// convert_int: source lane k (value a[k], shift the signed low byte of lane k of b) scaled by 2^-shift,
// rounded and saturated, into lane r*k + part; the other lanes keep their value. A vector predicate bit
// belongs to the source lane (the reference's bool64 for 32-bit sources).
template <DType From, DType To> void vConvertInt(Core& c, const DecodedSlot& d) {
  constexpr int kRatio = static_cast<int>(sizeof(St<From>) / sizeof(St<To>));
  const isa::RoundingMode rm = c.roundingMode(d);
  if (rm == isa::RoundingMode::SR) throw ExecError(kConvertIntSr);
  const int part = static_cast<int>(d.field(SwitchField::Part));
  St<To>* dst = c.r.v[d.dst].template lanes<St<To>>();
  const St<From>* a = vsrc<From>(c, d, 0);
  LaneSource<From> shift = laneSource<From>(c, d, 1);
  alignas(64) St<To> out[kLanes<To>];
  std::memcpy(out, dst, 256);
  for (int k = 0; k < kLanes<From>; ++k) {
    if (d.predVector && !laneEnabled(c, d, k)) continue;
    out[kRatio * k + part] = sem::convertInt<From, To>(a[k], static_cast<int8_t>(static_cast<uint8_t>(shift[k])), rm);
  }
  std::memcpy(dst, out, 256);
}

// lane_id: lane i holds i.
template <DType T> void vLaneId(Core& c, const DecodedSlot& d) {
  alignas(64) St<T> out[kLanes<T>];
  for (int i = 0; i < kLanes<T>; ++i) out[i] = static_cast<St<T>>(i);
  commitLanes(c, d, out);
}

// fclass: the class bits of each lane, as an integer of the lane's width.
template <DType T> void vFclass(Core& c, const DecodedSlot& d) {
  using U = std::conditional_t<sizeof(St<T>) == 4, uint32_t, uint16_t>;
  alignas(64) U out[kLanes<T>];
  const St<T>* a = vsrc<T>(c, d, 0);
  for (int i = 0; i < kLanes<T>; ++i) out[i] = static_cast<U>(sem::fclassBits(Elem<T>::bits(a[i]), Elem<T>::kFormat));
  commitLanes(c, d, out);
}

// calc_fp_special: special-case results; other lanes keep the income (the destination's old value).
template <DType T> void vCalcFpSpecial(Core& c, const DecodedSlot& d) {
  alignas(64) St<T> out[kLanes<T>];
  std::memcpy(out, c.r.v[d.dst].bytes, 256);
  auto fn = static_cast<isa::FpSpecialFunc>(d.field(SwitchField::Func));
  const St<T>* a = vsrc<T>(c, d, 0);
  LaneSource<T> b = laneSource<T>(c, d, 1);
  for (int i = 0; i < kLanes<T>; ++i) {
    float r;
    if (sem::calcFpSpecial(fn, Elem<T>::bits(a[i]), Elem<T>::bits(b[i]), &r)) out[i] = Elem<T>::fromF(r);
  }
  commitLanes(c, d, out);
}

template <DType T> void vFormFpNum(Core& c, const DecodedSlot& d) {
  alignas(64) St<T> out[kLanes<T>];
  const St<T>* e = vsrc<T>(c, d, 0);
  LaneSource<T> s = laneSource<T>(c, d, 1), m = laneSource<T>(c, d, 2);
  uint32_t form = d.field(SwitchField::FormFp);
  for (int i = 0; i < kLanes<T>; ++i)
    out[i] = Elem<T>::fromBits(sem::formFpNum(Elem<T>::bits(e[i]), Elem<T>::bits(s[i]), Elem<T>::bits(m[i]), form,
                                              Elem<T>::kFormat));
  commitLanes(c, d, out);
}

// Lookup tables (semantics/lut.h): interval numbers and starts, and coefficients of the built-in tables or,
// with ptr, of the user tables at the LUT pointer (set_lut) in global memory.
template <uint32_t (*kFn)(uint32_t, unsigned, isa::LutVariant)> void vLutInterval(Core& c, const DecodedSlot& d) {
  alignas(64) uint32_t out[64];
  const uint32_t* a = c.r.v[d.src[0]].lanes<uint32_t>();
  unsigned shift = d.field(SwitchField::LutShift);
  auto variant = static_cast<isa::LutVariant>(d.field(SwitchField::LutVariant));
  for (int i = 0; i < 64; ++i) out[i] = kFn(a[i], shift, variant);
  commitLanes(c, d, out);
}

void vLookup(Core& c, const DecodedSlot& d) {
  alignas(64) uint32_t out[64];
  const uint32_t* entry = c.r.v[d.src[0]].lanes<uint32_t>();
  const uint32_t fid = d.field(SwitchField::LutFid);
  const auto coef = static_cast<isa::LutCoef>(d.field(SwitchField::LutCoef));
  if (d.field(SwitchField::LutPtr)) {
    for (int i = 0; i < 64; ++i)
      std::memcpy(&out[i], c.globalForRead(c.mmio.lutPointer + sem::userLutOffset(fid, entry[i], coef), 4), 4);
    c.mutableStats().loadBytes += isa::kVectorBytes;
  } else {
    for (int i = 0; i < 64; ++i) out[i] = sem::lutCoefficient(fid, entry[i], coef);
  }
  commitLanes(c, d, out);
}

}  // namespace

ExecFn vectorDataExec(const isa::SlotInsn& insn) {
  DType dt2 = static_cast<DType>(insn.field(SwitchField::Dt2));
  switch (insn.id) {
    case InsnId::VpuLutEntry: return &vLutInterval<sem::lutEntry>;
    case InsnId::VpuLutStart: return &vLutInterval<sem::lutStart>;
    case InsnId::LdLookup: return &vLookup;
    case InsnId::VpuMovVp: return &vpMov;
    case InsnId::VpuVpAnd: return &vpLogic<0>;
    case InsnId::VpuVpOr: return &vpLogic<1>;
    case InsnId::VpuVpXor: return &vpLogic<2>;
    case InsnId::VpuVpNot: return &vpLogic<3>;
    case InsnId::VpuMovDualGroup: return &vMovDualGroup;
    case InsnId::VpuMovGroup:
      return sem::dispatchDType(insn.dtype, []<DType T>() -> ExecFn { return &vMovGroup<T>; });
    case InsnId::VpuShuffle:
      return sem::dispatchDType(insn.dtype, []<DType T>() -> ExecFn { return &vShuffle<T>; });
    case InsnId::VpuPermute:
      return sem::dispatchDType(insn.dtype, []<DType T>() -> ExecFn { return &vPermute<T>; });
    case InsnId::VpuPack:
      return sem::dispatchDType(insn.dtype, []<DType T>() -> ExecFn {
        if constexpr (sizeof(St<T>) <= 2) return &vPack<T>;
        else return nullptr;
      });
    case InsnId::VpuUnpack:
      return sem::dispatchDType(insn.dtype, []<DType T>() -> ExecFn {
        if constexpr (sizeof(St<T>) <= 2) return &vUnpack<T>;
        else return nullptr;
      });
    case InsnId::VpuConvertInt:
      return sem::dispatchDType(insn.dtype, [dt2]<DType F>() -> ExecFn {
        return sem::dispatchDType(dt2, []<DType T>() -> ExecFn {
          if constexpr (!Elem<F>::kFloat && !Elem<T>::kFloat && sizeof(St<F>) > sizeof(St<T>)) return &vConvertInt<F, T>;
          else return nullptr;
        });
      });
    case InsnId::VpuConvert:
      return sem::dispatchDType(insn.dtype, [dt2]<DType F>() -> ExecFn {
        return sem::dispatchDType(dt2, []<DType T>() -> ExecFn { return &vConvert<F, T>; });
      });
    case InsnId::VpuLaneId:
      return sem::dispatchDType(insn.dtype, []<DType T>() -> ExecFn {
        if constexpr (!Elem<T>::kFloat) return &vLaneId<T>;
        else return nullptr;
      });
    case InsnId::VpuFclass:
      return sem::dispatchDType(insn.dtype, []<DType T>() -> ExecFn {
        if constexpr (Elem<T>::kFloat) return &vFclass<T>;
        else return nullptr;
      });
    case InsnId::VpuCalcFpSpecial:
      return sem::dispatchDType(insn.dtype, []<DType T>() -> ExecFn {
        if constexpr (Elem<T>::kFloat) return &vCalcFpSpecial<T>;
        else return nullptr;
      });
    case InsnId::VpuFormFpNum:
      return sem::dispatchDType(insn.dtype, []<DType T>() -> ExecFn {
        if constexpr (Elem<T>::kFloat) return &vFormFpNum<T>;
        else return nullptr;
      });
    default: return nullptr;
  }
}

}  // namespace tpc::sim::exec
