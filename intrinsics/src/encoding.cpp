#include "tpc/isa/encoding.h"

#include <cstring>

#include <fmt/format.h>

#include "tpc/isa/intrinsic_lowering.h"  // wideProductParts

namespace tpc::isa {

namespace {

// Word 0: [0,8) opcode  [8,12) dtype  [12,21) dst  [21,30) src0  [30,39) src1  [39,48) src2  [48,57) src3
//         [57,61) predicate register  [61] vector predicate  [62] negated predicate  [63] reserved (0)
// Word 1: [0,32) immediate  [32,64) switches
constexpr unsigned kOpcodeShift = 0, kDTypeShift = 8, kDstShift = 12, kSrcShift = 21, kOperandBits = 9;
constexpr unsigned kPredShift = 57, kPredVecBit = 61, kPredNegBit = 62, kReservedBit = 63;

uint64_t packOperand(Operand o) {
  return (static_cast<uint64_t>(o.file) << 6) | (o.index & 0x3fu);
}
Operand unpackOperand(uint64_t bits) {
  return Operand{static_cast<RegFile>((bits >> 6) & 7u), static_cast<uint8_t>(bits & 0x3fu)};
}

void storeLE64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t loadLE64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

std::string operandName(int i) { return i == 0 ? "dst" : fmt::format("src{}", i - 1); }

}  // namespace

SlotInsn nopFor(Slot s) {
  SlotInsn n;
  n.id = slotInsns(s)[0].id;
  return n;
}

bool SlotInsn::isNop() const { return info().opcode == 0; }

std::string validateSlot(const SlotInsn& insn) {
  const InsnInfo& info = insn.info();
  if (info.hasDType()) {
    if (!info.allowsType(insn.dtype))
      return fmt::format("{}: data type {} not allowed", info.mnemonic, dtypeName(insn.dtype));
  } else if (insn.dtype != DType::F32) {
    return fmt::format("{}: takes no data type", info.mnemonic);
  }
  int imms = 0;
  const Operand* ops[5] = {&insn.dst, &insn.src[0], &insn.src[1], &insn.src[2], &insn.src[3]};
  for (int i = 0; i < 5; ++i) {
    const Operand& o = *ops[i];
    uint32_t allowed = info.kinds[i];
    if (o.file == RegFile::None) {
      if (allowed) return fmt::format("{}: missing operand {}", info.mnemonic, operandName(i));
      if (o.index) return fmt::format("{}: unused operand {} has a non-zero index", info.mnemonic, operandName(i));
      continue;
    }
    if (!(allowed & kindBit(o.file)))
      return fmt::format("{}: operand {} cannot be {}", info.mnemonic, operandName(i),
                         o.file == RegFile::Imm ? std::string("an immediate")
                                                : fmt::format("a {} register", regFilePrefix(o.file)));
    if (o.file == RegFile::Imm) {
      ++imms;
      if (o.index) return fmt::format("{}: immediate operand {} has a non-zero index", info.mnemonic, operandName(i));
    } else if (o.index >= regFileSize(o.file)) {
      return fmt::format("{}: register {}{} does not exist", info.mnemonic, regFilePrefix(o.file), o.index);
    }
  }
  if (imms > 1) return fmt::format("{}: at most one operand may be an immediate", info.mnemonic);
  if (imms == 0 && insn.imm != 0) return fmt::format("{}: immediate field set but unused", info.mnemonic);
  if (insn.sw & ~info.allowedSwitchBits())
    return fmt::format("{}: switch bits 0x{:x} not allowed", info.mnemonic, insn.sw & ~info.allowedSwitchBits());
  if (insn.predIndex >= (insn.predVector ? kNumVPRegs : kNumSPRegs))
    return fmt::format("{}: predicate register out of range", info.mnemonic);
  if (info.opcode == 0 && !insn.alwaysExecutes()) return "nop: cannot be predicated";
  if (insn.predVector) {
    // A vector predicate selects lanes, so it needs a vector result or a vector store.
    bool vectorResult = insn.dst.file == RegFile::V || insn.dst.file == RegFile::VP;
    bool vectorStore = info.slot == Slot::Store && insn.src[1].file == RegFile::V;
    if (!vectorResult && !vectorStore)
      return fmt::format("{}: a vector predicate needs a vector destination or a vector store", info.mnemonic);
  }
  if (info.allowsField(SwitchField::Dt2)) {
    uint32_t dt2 = insn.field(SwitchField::Dt2);
    if (dt2 >= static_cast<uint32_t>(kNumDTypes) || !info.allowsType(static_cast<DType>(dt2)))
      return fmt::format("{}: second data type {} not allowed", info.mnemonic, dt2);
  }
  if (info.allowsField(SwitchField::Rm) && insn.field(SwitchField::Rm) >= kNumRoundingModes)
    return fmt::format("{}: unknown rounding mode {}", info.mnemonic, insn.field(SwitchField::Rm));
  if (info.allowsField(SwitchField::Rmw) && insn.field(SwitchField::Rmw) > static_cast<uint32_t>(RmwOp::Max))
    return fmt::format("{}: unknown read-modify-write operation {}", info.mnemonic, insn.field(SwitchField::Rmw));
  if (info.allowsField(SwitchField::LoopCmp) && insn.field(SwitchField::LoopCmp) > static_cast<uint32_t>(LoopCmp::Ne))
    return fmt::format("{}: unknown loop condition {}", info.mnemonic, insn.field(SwitchField::LoopCmp));
  if (info.allowsField(SwitchField::Dim) && insn.field(SwitchField::Dim) > 4)
    return fmt::format("{}: dimension {} out of range", info.mnemonic, insn.field(SwitchField::Dim));
  if (info.allowsField(SwitchField::Half) && insn.field(SwitchField::Half) > 2)
    return fmt::format("{}: half {} out of range", info.mnemonic, insn.field(SwitchField::Half));
  if (info.allowsField(SwitchField::TnsrPack) && (dtypeSize(insn.dtype) << insn.field(SwitchField::TnsrPack)) > 4)
    return fmt::format("{}: pack={} of {} elements needs lanes wider than 32 bits", info.mnemonic,
                       insn.field(SwitchField::TnsrPack), dtypeName(insn.dtype));
  if ((insn.id == InsnId::VpuSelEq || insn.id == InsnId::VpuSelNeq || insn.id == InsnId::VpuSelLess ||
       insn.id == InsnId::VpuSelLeq || insn.id == InsnId::VpuSelGrt || insn.id == InsnId::VpuSelGeq) &&
      dtypeSize(static_cast<DType>(insn.field(SwitchField::Dt2))) != dtypeSize(insn.dtype))
    return fmt::format("{}: compared and selected types must have the same width", info.mnemonic);
  if (insn.id == InsnId::VpuConvert) {
    size_t a = dtypeSize(insn.dtype), b = dtypeSize(static_cast<DType>(insn.field(SwitchField::Dt2)));
    size_t ratio = a > b ? a / b : b / a;
    if (insn.field(SwitchField::Part) >= ratio)
      return fmt::format("{}: part {} out of range for a 1:{} width change", info.mnemonic,
                         insn.field(SwitchField::Part), ratio);
    if (insn.field(SwitchField::Layout) && ratio == 1)
      return fmt::format("{}: layout=interleaved needs types of different widths", info.mnemonic);
  }
  if (insn.id == InsnId::VpuConvertInt || insn.id == InsnId::SpuConvertInt) {
    size_t from = dtypeSize(insn.dtype), to = dtypeSize(static_cast<DType>(insn.field(SwitchField::Dt2)));
    if (to >= from) return fmt::format("{}: the target type must be narrower than the source", info.mnemonic);
    if (insn.field(SwitchField::Rm) == static_cast<uint32_t>(RoundingMode::SR))
      return fmt::format("{}: rm=sr is not supported", info.mnemonic);
    if (insn.id == InsnId::VpuConvertInt && insn.field(SwitchField::Part) >= from / to)
      return fmt::format("{}: part {} out of range for a 1:{} width change", info.mnemonic,
                         insn.field(SwitchField::Part), from / to);
  }
  if (insn.id == InsnId::VpuMulWide || insn.id == InsnId::VpuMacWide) {
    size_t parts = wideProductParts(insn.dtype);
    if (insn.field(SwitchField::Part) >= parts)
      return fmt::format("{}: part {} out of range ({} parts for {})", info.mnemonic, insn.field(SwitchField::Part),
                         parts, dtypeName(insn.dtype));
  }
  if (info.allowsField(SwitchField::LutShift) && insn.field(SwitchField::LutShift) > 23)
    return fmt::format("{}: shift {} out of range (0..23)", info.mnemonic, insn.field(SwitchField::LutShift));
  if (info.allowsField(SwitchField::LutFid)) {
    uint32_t fid = insn.field(SwitchField::LutFid);
    if (insn.field(SwitchField::LutPtr) && (fid & 3u) != 3u)
      return fmt::format("{}: fid {} of a user table must end in binary 11 (32-bit entries)", info.mnemonic, fid);
    if (!insn.field(SwitchField::LutPtr) && !isBuiltinLutTable(fid))
      return fmt::format("{}: fid {} is not a built-in table", info.mnemonic, fid);
  }
  if (info.allowsField(SwitchField::Func) && insn.field(SwitchField::Func) > static_cast<uint32_t>(FpSpecialFunc::Pow))
    return fmt::format("{}: unknown function {}", info.mnemonic, insn.field(SwitchField::Func));
  if ((info.flags & F_IMM_ADDR) && insn.imm % kBundleBytes)
    return fmt::format("{}: target 0x{:x} is not a bundle address", info.mnemonic, insn.imm);
  if (info.allowsField(SwitchField::LoopEnd) && insn.field(SwitchField::LoopEnd) % kBundleBytes)
    return fmt::format("{}: loop end 0x{:x} is not a bundle address", info.mnemonic, insn.field(SwitchField::LoopEnd));
  return {};
}

void encodeSlot(const SlotInsn& insn, uint8_t out[kSlotBytes]) {
  const InsnInfo& info = insn.info();
  uint64_t w0 = static_cast<uint64_t>(info.opcode) << kOpcodeShift;
  w0 |= static_cast<uint64_t>(static_cast<unsigned>(insn.dtype) & 0xfu) << kDTypeShift;
  w0 |= packOperand(insn.dst) << kDstShift;
  for (int i = 0; i < 4; ++i) w0 |= packOperand(insn.src[i]) << (kSrcShift + kOperandBits * i);
  w0 |= static_cast<uint64_t>(insn.predIndex & 0xfu) << kPredShift;
  w0 |= static_cast<uint64_t>(insn.predVector) << kPredVecBit;
  w0 |= static_cast<uint64_t>(insn.predNegate) << kPredNegBit;
  uint64_t w1 = static_cast<uint64_t>(insn.imm) | (static_cast<uint64_t>(insn.sw) << 32);
  storeLE64(out, w0);
  storeLE64(out + 8, w1);
}

void encodeBundle(const Bundle& b, uint8_t out[kBundleBytes]) {
  for (int s = 0; s < kNumSlots; ++s) encodeSlot(b.slots[s], out + s * kSlotBytes);
}

bool decodeSlot(Slot slot, const uint8_t in[kSlotBytes], SlotInsn* out, std::string* error) {
  uint64_t w0 = loadLE64(in), w1 = loadLE64(in + 8);
  unsigned opcode = (w0 >> kOpcodeShift) & 0xffu;
  auto table = slotInsns(slot);
  if (opcode >= table.size()) {
    *error = fmt::format("{} slot: unknown opcode {}", slotName(slot), opcode);
    return false;
  }
  if ((w0 >> kReservedBit) & 1u) {
    *error = fmt::format("{} slot: reserved bit set", slotName(slot));
    return false;
  }
  unsigned dtype = (w0 >> kDTypeShift) & 0xfu;
  if (dtype >= static_cast<unsigned>(kNumDTypes)) {
    *error = fmt::format("{} slot: unknown data type {}", slotName(slot), dtype);
    return false;
  }
  SlotInsn insn;
  insn.id = table[opcode].id;
  insn.dtype = static_cast<DType>(dtype);
  insn.dst = unpackOperand(w0 >> kDstShift);
  for (int i = 0; i < 4; ++i) insn.src[i] = unpackOperand(w0 >> (kSrcShift + kOperandBits * i));
  insn.predIndex = static_cast<uint8_t>((w0 >> kPredShift) & 0xfu);
  insn.predVector = (w0 >> kPredVecBit) & 1u;
  insn.predNegate = (w0 >> kPredNegBit) & 1u;
  insn.imm = static_cast<uint32_t>(w1);
  insn.sw = static_cast<uint32_t>(w1 >> 32);
  std::string why = validateSlot(insn);
  if (!why.empty()) {
    *error = fmt::format("{} slot: {}", slotName(slot), why);
    return false;
  }
  *out = insn;
  return true;
}

bool decodeBundle(const uint8_t in[kBundleBytes], Bundle* out, std::string* error) {
  for (int s = 0; s < kNumSlots; ++s)
    if (!decodeSlot(static_cast<Slot>(s), in + s * kSlotBytes, &out->slots[s], error)) return false;
  return true;
}

}  // namespace tpc::isa
