#include "tpc/isa/intrinsic_lowering.h"

#include <fmt/format.h>

namespace tpc::isa {

namespace {

// Switch constants of the reference (tpc-defs.h) that are translated here.
constexpr uint32_t kSwSat = 1u << 0;            // SW_SAT
constexpr uint32_t kSwRhu = 1u << 1;            // SW_RHU (ash)
constexpr uint32_t kSwNeg = 1u << 1;            // SW_NEG (mac)
constexpr uint32_t kSwMmio = 1u << 0;           // SW_MMIO (ld_l / st_l)
constexpr uint32_t kSwAso = 3u << 8;            // SW_DEC, SW_VPU (aso)
constexpr uint32_t kSwRound = 7u << 16;         // SW_RHNE .. SW_SR_RNE
constexpr uint32_t kSwClipFp = 1u << 20;        // SW_CLIP_FP: float results clip to the largest finite value
constexpr uint32_t kSwLinear = 1u << 24;        // SW_LINEAR (high-level converts)
constexpr uint32_t kSwFpSpecialFunc = 7u;       // SW_RECIP .. SW_POW
constexpr uint32_t kSwFormFp = 0xfu << 8;       // SW_ADD_BIAS, SW_FORCE_SIGN0, SW_FORCE_SIGN1, SW_EXP_IS_NUM
constexpr uint32_t kSwWrLowerGroup = 1u << 12;  // SW_WR_LOWER_GROUP
constexpr uint32_t kSwWrUpperGroup = 1u << 13;  // SW_WR_UPPER_GROUP
constexpr uint32_t kSwWrAllGroups = 0xffu << 16;  // SW_WR_{LOWER,UPPER}_GROUP{0,1,2,3}
constexpr uint32_t kSwMovGroup = 0x3fu;          // SW_GROUP{0,1}_EN, SW_DUAL_GROUP{0..3}_EN
constexpr uint32_t kSwStPack = 1u << 2;          // st_tnsr SW_PACK, with SW_PCK_* in bits 4-5
constexpr uint32_t kSwLdUnpack = 1u << 4;        // ld_tnsr SW_UNPACK, with SW_UNPCK_* in bits 1-2
constexpr uint32_t kRmwTensorType = 1u << 7;    // RMW_TNSR_DT
constexpr uint32_t kRmwSet = 1u << 8;           // RMW_SET

bool isFloat(DType t) { return t == DType::F32 || t == DType::BF16 || t == DType::F16; }

// The RMW_DT_* code of a data type.
uint32_t rmwTypeCode(DType t) {
  switch (t) {
    case DType::I8: return 0;
    case DType::I16: return 1;
    case DType::I32: return 2;
    case DType::U8: return 3;
    case DType::U16: return 4;
    case DType::U32: return 5;
    case DType::BF16: return 6;
    case DType::F32: return 7;
    case DType::F16: return 8;
    case DType::Count: break;  // not a data type
  }
  return 15;
}

[[noreturn]] void fail(const std::string& what) { throw IntrinsicLoweringError(what); }

bool has(const IntrinsicInfo& info, const char* name) { return info.paramIndex(name) >= 0; }

// SW_PCK_* (a store) or SW_UNPCK_* (a load) as our pack field, log2 of the narrow elements per wide lane.
// The narrow width is the intrinsic's type, so the code must name it.
uint32_t tensorPackField(const IntrinsicInfo& info, bool store, uint32_t code) {
  struct Form { const char* name; size_t narrowBytes; uint32_t field; };
  static constexpr Form kStore[] = {{"SW_PCK_32_TO_16", 2, 1}, {"SW_PCK_16_TO_8", 1, 1}, {"SW_PCK_32_TO_8", 1, 2},
                                    {"SW_PCK_8_TO_4", 0, 0}};
  static constexpr Form kLoad[] = {{"SW_UNPCK_16_TO_32", 2, 1}, {"SW_UNPCK_8_TO_16", 1, 1},
                                   {"SW_UNPCK_8_TO_32", 1, 2}, {"SW_UNPCK_4_TO_8", 0, 0}};
  const Form& f = (store ? kStore : kLoad)[code];
  if (f.narrowBytes == 0) fail(fmt::format("{} is not supported: no 4-bit element type", f.name));
  if (dtypeSize(info.dtype) != f.narrowBytes)
    fail(fmt::format("{} needs {}-bit elements; {} has {}-bit elements", f.name, f.narrowBytes * 8, info.name,
                     dtypeSize(info.dtype) * 8));
  return f.field;
}

// The vendor's switch word (or options) onto our switch fields of `insn`.
uint32_t translateSwitches(const IntrinsicInfo& info, const InsnInfo& insn, const ConstantParam& constant) {
  uint32_t vendor = has(info, "switches") ? requireConstantParam(info, constant, "switches")
                                          : requireConstantParam(info, constant, "options");
  uint32_t sw = 0, used = 0;
  auto set = [&](SwitchField f, uint32_t v) { sw = switchField(f).set(sw, v); };
  if (insn.allowsField(SwitchField::Func)) {  // calc_fp_special: the function in the low bits
    set(SwitchField::Func, vendor & kSwFpSpecialFunc);
    used |= kSwFpSpecialFunc;
  } else if (insn.allowsField(SwitchField::Sat) && (vendor & kSwSat)) {
    set(SwitchField::Sat, 1);
    used |= kSwSat;
  }
  if (insn.allowsField(SwitchField::Neg)) {  // mac: SW_NEG (bit 1) subtracts the product
    set(SwitchField::Neg, (vendor & kSwNeg) ? 1u : 0u);
    used |= kSwNeg;
  }
  if (insn.allowsField(SwitchField::RoundHalfUp)) {  // ash: SW_RHU
    set(SwitchField::RoundHalfUp, (vendor & kSwRhu) ? 1u : 0u);
    used |= kSwRhu;
  }
  if (insn.allowsField(SwitchField::FormFp)) {
    set(SwitchField::FormFp, (vendor & kSwFormFp) >> 8);
    used |= kSwFormFp;
  }
  if (insn.allowsField(SwitchField::Rm)) {
    set(SwitchField::Rm, static_cast<uint32_t>(roundingModeFromVendor((vendor & kSwRound) >> 16)));
    used |= kSwRound;
  }
  if (insn.allowsField(SwitchField::AsoDec)) {  // aso: SW_DEC (bit 8); SW_SPU/SW_VPU (bit 9) name the
    set(SwitchField::AsoDec, (vendor >> 8) & 1u);   // pipeline stage of the update, which has no other effect
    used |= kSwAso;
  }
  if (insn.allowsField(SwitchField::Mmio)) {  // s_<t>_ld_l / s_<t>_st_l: SW_MMIO
    if ((vendor & kSwMmio) && dtypeSize(info.dtype) != 4)
      fail(fmt::format("SW_MMIO needs a 32-bit type: MMIO registers are 32 bits wide ({} has {}-bit elements)",
                       info.name, dtypeSize(info.dtype) * 8));
    set(SwitchField::Mmio, (vendor & kSwMmio) ? 1u : 0u);
    used |= kSwMmio;
  }
  if (insn.allowsField(SwitchField::LutVariant)) {  // lut_entry/lut_start: SW_LUT_TANH, _SQRT_RSQRT, _SIN_COS
    uint32_t variant = (vendor >> 13) & 7u;          // (e_func_variant << 13)
    if (variant > static_cast<uint32_t>(LutVariant::SinCos))
      fail(fmt::format("function variant {} (SW_LUT_LOG) is not supported (default, tanh, sqrt_rsqrt and sin_cos "
                       "are)", variant));
    set(SwitchField::LutVariant, variant);
    used |= 7u << 13;
  }
  if (insn.allowsField(SwitchField::LutPtr)) {  // lookup: SW_LUT_PTR (bit 3); SW_BV32 is 0
    set(SwitchField::LutPtr, (vendor >> 3) & 1u);
    used |= 1u << 3;
  }
  if (insn.allowsField(SwitchField::GroupEn)) {  // mov_group: groups (bits 0-1) and dual groups (bits 2-5)
    set(SwitchField::GroupEn, vendor & 3u);
    set(SwitchField::DualGroupEn, (vendor >> 2) & 0xfu);
    used |= kSwMovGroup;
  }
  if (insn.allowsField(SwitchField::PackGroup)) {  // pack / unpack: SW_GROUP_1, SW_STRIDE_4 (bits 8, 9)
    set(SwitchField::PackGroup, (vendor >> 8) & 1u);
    set(SwitchField::PackStride4, (vendor >> 9) & 1u);
    used |= 3u << 8;
  }
  if (insn.allowsField(SwitchField::GroupHalf)) {  // unpack: SW_GROUP_HALF_1 (bit 10), SW_UNPACK_LANE_k (11-12)
    uint32_t lane = (vendor >> 11) & 3u;
    if (lane >= ((vendor >> 9) & 1u ? 4u : 2u))
      fail(fmt::format("SW_UNPACK_LANE_{} needs SW_STRIDE_4 (lanes 2 and 3 exist only for 8 to 32 bits)", lane));
    set(SwitchField::GroupHalf, (vendor >> 10) & 1u);
    set(SwitchField::UnpackLane, lane);
    used |= 7u << 10;
  }
  if (insn.allowsField(SwitchField::TnsrPack)) {
    const bool store = insn.id == InsnId::StTnsr;
    const uint32_t enable = store ? kSwStPack : kSwLdUnpack, codeShift = store ? 4 : 1;
    if (vendor & enable) {
      set(SwitchField::TnsrPack, tensorPackField(info, store, (vendor >> codeShift) & 3u));
      used |= enable | 3u << codeShift;
    }
  }
  if (insn.id == InsnId::VpuConvert || insn.id == InsnId::SpuConvert) {
    if ((vendor & kSwClipFp) && isFloat(info.dtype)) {
      // Float results: our sat clips to the largest finite value. Integer results saturate anyway.
      if (isFloat(info.dt2)) set(SwitchField::Sat, 1);
      used |= kSwClipFp;
    }
    if (has(info, "options")) used |= kSwLinear;  // same lane count: linear and swizzled orders coincide
  }
  if (vendor & ~used) fail(fmt::format("switch bits 0x{:x} are not supported", vendor & ~used));
  return sw;
}

uint32_t rmwField(const IntrinsicInfo& info, uint32_t rmw) {
  if (rmw & ~0x1ffu) fail(fmt::format("rmw bits 0x{:x} are not supported", rmw & ~0x1ffu));
  if (!(rmw & kRmwSet)) return 0;  // RMW_SET clear: a plain store
  uint32_t op = (rmw >> 4) & 7u;
  if (op > 3) fail("RMW_OP_MAX_0_ADD has no equivalent (supported: RMW_OP_ADD, _SUB, _MIN, _MAX)");
  if (!(rmw & kRmwTensorType) && (rmw & 0xfu) != rmwTypeCode(info.dtype))
    fail(fmt::format("the rmw data type (RMW_DT code {}) is not the intrinsic's type {} (use RMW_DT code {} or "
                     "RMW_TNSR_DT)", rmw & 0xfu, dtypeName(info.dtype), rmwTypeCode(info.dtype)));
  static constexpr RmwOp kOps[] = {RmwOp::Add, RmwOp::Sub, RmwOp::Min, RmwOp::Max};
  return static_cast<uint32_t>(kOps[op]);
}

uint32_t lutShift(uint32_t shift) {
  if (shift > 23) fail(fmt::format("lookup-table shift {} is out of range (0..23: the mantissa bits below the interval)", shift));
  return shift;
}

// The coefficient a lookup intrinsic reads: `coef` where it has one (tpc-special.h's helpers of
// v_f32_lookup_2c), c0 for v_f32_lookup_1c, and the one value of an entry for v_f32_lookup.
LutCoef lookupCoefficient(const IntrinsicInfo& info, const ConstantParam& constant) {
  if (has(info, "coef")) {
    uint32_t c = requireConstantParam(info, constant, "coef");
    if (c > static_cast<uint32_t>(LutCoef::C2)) fail(fmt::format("coefficient {} is not 0..3", c));
    return static_cast<LutCoef>(c);
  }
  return info.name == "v_f32_lookup_1c" ? LutCoef::C0 : LutCoef::Value;
}

uint32_t dualGroup(const IntrinsicInfo& info, const ConstantParam& constant, const char* name) {
  uint32_t g = requireConstantParam(info, constant, name);
  if (g > 3) fail(fmt::format("{} is {}: dual groups are 0..3", name, g));
  return g;
}

}  // namespace

uint32_t requireConstantParam(const IntrinsicInfo& info, const ConstantParam& constant, const char* name) {
  if (!has(info, name)) return 0;
  std::optional<uint32_t> v = constant(name);
  if (!v) fail(fmt::format("argument '{}' must be a compile-time constant", name));
  return *v;
}

uint32_t intrinsicSwitchWord(const IntrinsicInfo& info, InsnId id, const ConstantParam& constant) {
  const InsnInfo& insn = insnInfo(id);
  uint32_t sw = translateSwitches(info, insn, constant);
  auto set = [&](SwitchField f, uint32_t v) { sw = switchField(f).set(sw, v); };
  if (insn.allowsField(SwitchField::Dt2)) set(SwitchField::Dt2, static_cast<uint32_t>(info.dt2));
  if (has(info, "dimmask")) {
    uint32_t mask = requireConstantParam(info, constant, "dimmask");
    if (mask > 0x1f) fail(fmt::format("dimmask 0x{:x} selects dimensions beyond the five of int5", mask));
    set(SwitchField::DimMask, mask);
  }
  if (has(info, "dim")) {
    uint32_t dim = requireConstantParam(info, constant, "dim");
    if (dim > 4) fail(fmt::format("dim {} is not a dimension of int5 (0..4)", dim));
    set(SwitchField::Dim, dim);
  }
  // Up-converts: the first lane of each group of r narrow lanes.
  if (info.lowering == Lowering::ConvertWiden) set(SwitchField::Layout, 1);
  // Down-converts with a lane: the position in each group of r narrow lanes (layout=interleaved).
  if (has(info, "lane") && (id == InsnId::VpuConvert || id == InsnId::VpuConvertInt)) {
    uint32_t lane = requireConstantParam(info, constant, "lane");
    size_t ratio = dtypeSize(info.dtype) / dtypeSize(info.dt2);
    if (ratio < 2 || lane >= ratio)
      fail(fmt::format("lane {} is out of range: {} to {} has lanes 0..{}", lane, dtypeName(info.dtype),
                       dtypeName(info.dt2), ratio - 1));
    set(SwitchField::Part, lane);
    if (id == InsnId::VpuConvert) set(SwitchField::Layout, 1);
  }
  if ((id == InsnId::VpuConvertInt || id == InsnId::SpuConvertInt) &&
      switchField(SwitchField::Rm).get(sw) == static_cast<uint32_t>(RoundingMode::SR))
    fail("SW_SR is not supported by the fixed-point converts (SW_RHNE, SW_RZ, SW_RU, SW_RD are)");
  // Half-vector tensor access: a store writes the lanes of one half at their own coordinates; a load reads
  // them into that half and keeps the other (a partial load of the half).
  if (info.lowering == Lowering::StTnsrLow || info.lowering == Lowering::StTnsrHigh) {
    if (switchField(SwitchField::TnsrPack).get(sw)) fail("SW_PACK is not supported by the half-vector stores");
    set(SwitchField::Half, info.lowering == Lowering::StTnsrLow ? 1u : 2u);
  }
  if (info.lowering == Lowering::LdTnsrLow || info.lowering == Lowering::LdTnsrHigh) {
    const uint32_t halfLanes = static_cast<uint32_t>(kVectorBytes / dtypeSize(info.dtype) / 2);
    set(SwitchField::PartOff, info.lowering == Lowering::LdTnsrHigh ? halfLanes : 0u);
    set(SwitchField::PartSize, halfLanes);
  }
  // size is lanes minus 1 (the register forms read size and offset from their sources)
  if (has(info, "size") && insn.allowsField(SwitchField::PartSize))
    set(SwitchField::PartSize, (requireConstantParam(info, constant, "size") & 0xffu) + 1);
  if (has(info, "offset") && insn.allowsField(SwitchField::PartOff))
    set(SwitchField::PartOff, requireConstantParam(info, constant, "offset") & 0xffu);
  if (has(info, "rmw")) set(SwitchField::Rmw, rmwField(info, requireConstantParam(info, constant, "rmw")));
  // Lookup tables: the interval shift; the table (a built-in one's e_function_id, or a user table's with
  // SW_LUT_PTR, whose low two bits are 3 for 32-bit entries) and the coefficient.
  if (has(info, "shift") && insn.allowsField(SwitchField::LutShift))
    set(SwitchField::LutShift, lutShift(requireConstantParam(info, constant, "shift")));
  if (has(info, "fid") && insn.allowsField(SwitchField::LutFid)) {
    uint32_t fid = requireConstantParam(info, constant, "fid");
    const bool user = switchField(SwitchField::LutPtr).get(sw) != 0;
    if (user && ((fid & 3u) != 3u || fid > 0xfffu))
      fail(fmt::format("fid {} is not a user table's function id with SW_LUT_PTR: (table << 2) | 3, table 0..1023", fid));
    if (!user && !isBuiltinLutTable(fid))
      fail(fmt::format("fid {} is not a built-in table (e_fp32_tanh, e_fp32_rsqrt, e_fp32_log2, e_fp32_sqrt, "
                       "e_fp32_rcp, e_fp32_sin_cos, e_fp32_pow2); user tables need SW_LUT_PTR", fid));
    set(SwitchField::LutFid, fid);
    set(SwitchField::LutCoef, static_cast<uint32_t>(lookupCoefficient(info, constant)));
  }
  return sw;
}

InsnId tensorAccessInsn(const IntrinsicInfo& info, const ConstantParam& constant) {
  if (!has(info, "size") || (constant("size") && constant("offset"))) return info.insn;
  if (info.insn == InsnId::LdTnsrPartial) return InsnId::LdTnsrPartialR;
  if (info.insn == InsnId::StTnsrPartial) return InsnId::StTnsrPartialR;
  return info.insn;
}

std::vector<int> intrinsicSourceParams(const IntrinsicInfo& info) {
  static const std::vector<std::vector<const char*>> kNames = {
      {"a", "b", "c", "d"}, {"src1", "src2"}, {"src"}, {"addr"}, {"value", "shift"}};
  std::vector<int> out;
  for (const auto& names : kNames) {
    if (!has(info, names.front())) continue;
    for (const char* n : names)
      if (int k = info.paramIndex(n); k >= 0) out.push_back(k);
    break;
  }
  return out;
}

int intrinsicIncomeParam(const IntrinsicInfo& info) {
  if (int k = info.paramIndex("income"); k >= 0) return k;
  return info.lowering == Lowering::Op ? info.paramIndex("ndx") : -1;  // set_indx
}

int intrinsicTensorParam(const IntrinsicInfo& info) {
  switch (info.lowering) {
    case Lowering::LdTnsr:
    case Lowering::StTnsr:
    case Lowering::StTnsrLow:
    case Lowering::StTnsrHigh:
    case Lowering::LdTnsrLow:
    case Lowering::LdTnsrHigh: return info.paramIndex("tensor");
    case Lowering::TensorDimSize:
    case Lowering::TensorDimStride:
    case Lowering::TensorHwprefStride:
    case Lowering::TensorPadBits: return info.paramIndex("a");
    default: return -1;
  }
}

bool instructionWritesPartially(InsnId op, DType dtype, uint32_t sw) {
  const InsnInfo& insn = insnInfo(op);
  if (!(insn.flags & F_READS_DST)) return false;
  if (insn.allowsField(SwitchField::DimMask) && switchField(SwitchField::DimMask).get(sw) == 0x1f) return false;
  if (op == InsnId::VpuConvert) {
    DType to = static_cast<DType>(switchField(SwitchField::Dt2).get(sw));
    return dtypeSize(dtype) != dtypeSize(to);
  }
  return insn.id != InsnId::VpuMac && insn.id != InsnId::SpuMac;
}

std::vector<DualGroupMove> dualGroupMoves(const IntrinsicInfo& info, const ConstantParam& constant, bool all) {
  const uint32_t mask = requireConstantParam(info, constant, "b");
  const uint32_t allowed = all ? kSwWrAllGroups : (kSwWrLowerGroup | kSwWrUpperGroup);
  const uint32_t sw = requireConstantParam(info, constant, "switches");
  if (sw & ~allowed)
    fail(fmt::format("switches 0x{:x}: bits 0x{:x} are not supported (only {})", sw, sw & ~allowed,
                     all ? "SW_WR_LOWER_GROUPn / SW_WR_UPPER_GROUPn" : "SW_WR_LOWER_GROUP / SW_WR_UPPER_GROUP"));
  std::vector<DualGroupMove> moves;
  if (!all) {
    const uint32_t src = dualGroup(info, constant, "src_dg"), dst = dualGroup(info, constant, "dest_dg");
    if (const uint32_t groups = (sw >> 12) & 3u; groups && mask) moves.push_back({src, dst, groups, mask});
    return moves;
  }
  const char* const names[] = {"sdg0", "sdg1", "sdg2", "sdg3"};
  for (uint32_t k = 0; k < 4; ++k) {
    const uint32_t src = dualGroup(info, constant, names[k]);
    if (const uint32_t groups = (sw >> (16 + 2 * k)) & 3u; groups && mask) moves.push_back({src, k, groups, mask});
  }
  return moves;
}

uint32_t convertAllPartSwitches(const IntrinsicInfo& info, const ConstantParam& constant, uint32_t sw, uint32_t part) {
  bool linear = has(info, "options") && (requireConstantParam(info, constant, "options") & kSwLinear);
  sw = switchField(SwitchField::Layout).set(sw, linear ? 0u : 1u);
  return switchField(SwitchField::Part).set(sw, part);
}

int convertAllSourceParam(const IntrinsicInfo& info) {
  int k = info.paramIndex("src");
  return k >= 0 ? k : info.paramIndex("a");
}

ConversionInsn cConversion(bool vector, DType from, DType to) {
  ConversionInsn c{vector ? InsnId::VpuConvert : InsnId::SpuConvert, from, 0};
  c.sw = switchField(SwitchField::Dt2).set(0, static_cast<uint32_t>(to));
  if (isFloat(from) && !isFloat(to)) c.sw = switchField(SwitchField::Rm).set(c.sw, static_cast<uint32_t>(RoundingMode::RZ));
  return c;
}

}  // namespace tpc::isa
