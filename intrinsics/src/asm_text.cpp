#include "tpc/isa/asm_text.h"

#include <charconv>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "../semantics/fp.h"
#include "tpc/support/text.h"

namespace tpc::isa {

namespace {

// How the immediate of an instruction is written.
enum class ImmKind { Unsigned, Address, Typed };

ImmKind immKind(const SlotInsn& insn) {
  const InsnInfo& info = insn.info();
  if (info.flags & F_IMM_ADDR) return ImmKind::Address;
  if ((info.flags & F_IMM_U32) || !info.hasDType()) return ImmKind::Unsigned;
  return ImmKind::Typed;
}

bool isSelect(InsnId id) {
  return id == InsnId::VpuSelEq || id == InsnId::VpuSelNeq || id == InsnId::VpuSelLess || id == InsnId::VpuSelLeq ||
         id == InsnId::VpuSelGrt || id == InsnId::VpuSelGeq;
}

// The data type of a typed immediate in operand `operand` (0 dst, 1.. src0..): the values a select chooses
// between (src2, src3) have its second type, as the simulator reads them; everything else the first.
DType immDType(const SlotInsn& insn, int operand) {
  if (isSelect(insn.id) && operand >= 3) return static_cast<DType>(insn.field(SwitchField::Dt2));
  return insn.dtype;
}

// The operand position of the slot's immediate (a valid slot has at most one).
int immOperand(const SlotInsn& insn) {
  for (int i = 0; i < 4; ++i)
    if (insn.src[i].file == RegFile::Imm) return i + 1;
  return 0;
}

// The canonical 32-bit immediate of a value of type t whose low bits are `low` (see lanes.h: integers are
// sign- or zero-extended, 16-bit floats zero-extended).
uint32_t canonicalImm(DType t, uint32_t raw) {
  switch (t) {
    case DType::I16: return static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(raw)));
    case DType::I8: return static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(raw)));
    case DType::U16: case DType::BF16: case DType::F16: return raw & 0xffffu;
    case DType::U8: return raw & 0xffu;
    default: return raw;
  }
}

std::string shortestFloat(float f) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, f);
  std::string s(buf, res.ptr);
  // Keep a float look so that a reader does not take "2" for an integer.
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

std::string formatImm(const SlotInsn& insn) {
  uint32_t v = insn.imm;
  switch (immKind(insn)) {
    case ImmKind::Address: return fmt::format("0x{:x}", v);
    case ImmKind::Unsigned: return fmt::format("{}", v);
    case ImmKind::Typed: break;
  }
  DType t = immDType(insn, immOperand(insn));
  if (canonicalImm(t, v) != v) return fmt::format("0x{:x}", v);
  switch (t) {
    case DType::F32: case DType::BF16: case DType::F16: {
      sem::FloatFormat f = t == DType::F32 ? sem::kF32 : t == DType::BF16 ? sem::kBF16 : sem::kF16;
      uint32_t e = (v & f.expMask()) >> f.mantBits;
      bool normalOrZero = (e != 0 && e != (f.expMask() >> f.mantBits)) || (v & ~f.signBit()) == 0;
      if (!normalOrZero) return fmt::format("0x{:x}", v);
      float value = sem::asFloat(sem::convertFloat(v, f, sem::kF32, RoundingMode::RHNE, 0, false));
      return shortestFloat(value);
    }
    case DType::I32: case DType::I16: case DType::I8: return fmt::format("{}", static_cast<int32_t>(v));
    default: return fmt::format("{}", v);
  }
}

// Named values of the enumerated switch fields.
std::vector<std::string_view> fieldValueNames(SwitchField f) {
  switch (f) {
    case SwitchField::Rm: return {"rhne", "rz", "ru", "rd", "rhaz", "sr", "csr"};
    case SwitchField::Rmw: return {"none", "add", "sub", "min", "max"};
    case SwitchField::LoopCmp: return {"lt", "le", "gt", "ge", "ne"};
    case SwitchField::Func: return {"recip", "rsqrt", "sqrt", "log", "exp", "tanh", "div", "pow"};
    case SwitchField::Half: return {"all", "low", "high"};
    case SwitchField::TdescField: return {"size", "stride", "hwpref", "pad"};
    case SwitchField::Layout: return {"block", "interleaved"};
    case SwitchField::LutVariant: return {"default", "tanh", "sqrt_rsqrt", "sin_cos"};
    case SwitchField::LutCoef: return {"value", "c0", "c1", "c2"};
    default: return {};
  }
}

std::string formatField(SwitchField f, uint32_t v) {
  const SwitchFieldInfo& fi = switchField(f);
  if (f == SwitchField::Sat || f == SwitchField::LutPtr) return std::string(fi.name);  // flags
  auto names = fieldValueNames(f);
  if (v < names.size()) return fmt::format("{}={}", fi.name, names[v]);
  if (f == SwitchField::LoopEnd) return fmt::format("{}=0x{:x}", fi.name, v);
  if (f == SwitchField::DimMask) return fmt::format("{}=0b{:05b}", fi.name, v);
  return fmt::format("{}={}", fi.name, v);
}

bool parseFloatImm(std::string_view text, DType t, uint32_t* out) {
  float f;
  auto res = std::from_chars(text.data(), text.data() + text.size(), f);
  if (res.ec != std::errc() || res.ptr != text.data() + text.size()) return false;
  uint32_t bits = sem::asBits(f);
  if (t == DType::F32) *out = bits;
  else *out = sem::convertFloat(bits, sem::kF32, t == DType::BF16 ? sem::kBF16 : sem::kF16, RoundingMode::RHNE, 0, false);
  return true;
}

bool parseImm(const SlotInsn& insn, int operand, std::string_view text, uint32_t* out, std::string* error,
              const LabelResolver& labels) {
  ImmKind kind = immKind(insn);
  const DType dtype = immDType(insn, operand);
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    auto v = parseInteger(text);
    if (!v || *v < 0 || *v > 0xffffffffll) {
      *error = fmt::format("bad hexadecimal immediate '{}'", text);
      return false;
    }
    *out = static_cast<uint32_t>(*v);
    return true;
  }
  if (kind == ImmKind::Address && labels && !text.empty() && !(text[0] >= '0' && text[0] <= '9')) {
    auto addr = labels(text);
    if (!addr) {
      *error = fmt::format("unknown label '{}'", text);
      return false;
    }
    *out = *addr;
    return true;
  }
  if (kind == ImmKind::Typed && dtypeIsFloat(dtype)) {
    if (!parseFloatImm(text, dtype, out)) {
      *error = fmt::format("expected a {} immediate, got '{}'", dtypeName(dtype), text);
      return false;
    }
    return true;
  }
  auto v = parseInteger(text);
  int64_t lo = 0, hi = 0xffffffffll;
  if (kind == ImmKind::Typed) {
    switch (dtype) {
      case DType::I32: lo = INT32_MIN; hi = INT32_MAX; break;
      case DType::I16: lo = INT16_MIN; hi = INT16_MAX; break;
      case DType::I8: lo = INT8_MIN; hi = INT8_MAX; break;
      case DType::U16: hi = UINT16_MAX; break;
      case DType::U8: hi = UINT8_MAX; break;
      default: break;
    }
  }
  if (!v || *v < lo || *v > hi) {
    *error = fmt::format("expected an integer immediate in [{}, {}], got '{}'", lo, hi, text);
    return false;
  }
  *out = kind == ImmKind::Typed ? canonicalImm(dtype, static_cast<uint32_t>(*v)) : static_cast<uint32_t>(*v);
  return true;
}

// Whether the text has the shape of a register name (a file prefix and a number), valid or not.
bool looksLikeRegister(std::string_view text) {
  for (RegFile f : {RegFile::SP, RegFile::VP, RegFile::AD, RegFile::V, RegFile::S, RegFile::I}) {
    std::string_view p = regFilePrefix(f);
    if (text.size() > p.size() && text.substr(0, p.size()) == p &&
        text.find_first_not_of("0123456789", p.size()) == std::string_view::npos)
      return true;
  }
  return false;
}

bool parseRegister(std::string_view text, Operand* out) {
  static constexpr RegFile kFiles[] = {RegFile::SP, RegFile::VP, RegFile::AD, RegFile::V, RegFile::S, RegFile::I};
  for (RegFile f : kFiles) {
    std::string_view p = regFilePrefix(f);
    if (text.size() > p.size() && text.substr(0, p.size()) == p) {
      std::string_view num = text.substr(p.size());
      if (num.size() > 1 && num[0] == '0') return false;
      unsigned idx = 0;
      auto res = std::from_chars(num.data(), num.data() + num.size(), idx);
      if (res.ec != std::errc() || res.ptr != num.data() + num.size()) continue;
      if (idx >= static_cast<unsigned>(regFileSize(f))) return false;
      *out = Operand{f, static_cast<uint8_t>(idx)};
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<int64_t> parseInteger(std::string_view text) {
  bool neg = false;
  if (!text.empty() && text[0] == '-') {
    neg = true;
    text.remove_prefix(1);
  }
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  } else if (text.size() > 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) {
    base = 2;
    text.remove_prefix(2);
  }
  if (text.empty()) return std::nullopt;
  uint64_t v = 0;
  auto res = std::from_chars(text.data(), text.data() + text.size(), v, base);
  if (res.ec != std::errc() || res.ptr != text.data() + text.size() || v > (uint64_t{1} << 62)) return std::nullopt;
  return neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

std::string formatOperand(const SlotInsn& insn, const Operand& op) {
  if (op.file == RegFile::Imm) return formatImm(insn);
  return fmt::format("{}{}", regFilePrefix(op.file), op.index);
}

std::string formatSlot(const SlotInsn& insn) {
  const InsnInfo& info = insn.info();
  std::string s;
  if (!insn.alwaysExecutes())
    s += fmt::format("@{}{}{} ", insn.predNegate ? "!" : "", insn.predVector ? "vp" : "sp", insn.predIndex);
  s += info.mnemonic;
  if (info.hasDType()) {
    s += '.';
    s += dtypeName(insn.dtype);
  }
  if (info.flags & F_DT2) {
    s += '.';
    s += dtypeName(static_cast<DType>(insn.field(SwitchField::Dt2)));
  }
  const Operand* ops[5] = {&insn.dst, &insn.src[0], &insn.src[1], &insn.src[2], &insn.src[3]};
  bool first = true;
  for (int i = 0; i < 5; ++i) {
    if (!info.kinds[i]) continue;
    s += first ? " " : ", ";
    first = false;
    s += formatOperand(insn, *ops[i]);
  }
  for (int f = 0; f < kNumSwitchFields; ++f) {
    auto field = static_cast<SwitchField>(f);
    if (!info.allowsField(field) || field == SwitchField::Dt2) continue;
    uint32_t v = insn.field(field);
    if (v) s += " " + formatField(field, v);
  }
  return s;
}

std::string formatBundle(const Bundle& b) {
  return fmt::format("{} ; {} ; {} ; {}", formatSlot(b.slots[0]), formatSlot(b.slots[1]), formatSlot(b.slots[2]),
                     formatSlot(b.slots[3]));
}

bool parseSlot(Slot slot, std::string_view text, SlotInsn* out, std::string* error, const LabelResolver& labels) {
  text = trimSpaces(text);
  SlotInsn insn;
  if (!text.empty() && text[0] == '@') {
    size_t end = text.find_first_of(" \t");
    std::string_view pred = text.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1);
    if (!pred.empty() && pred[0] == '!') {
      insn.predNegate = true;
      pred.remove_prefix(1);
    }
    Operand p;
    if (!parseRegister(pred, &p) || (p.file != RegFile::SP && p.file != RegFile::VP)) {
      *error = fmt::format("expected a predicate register (spN or vpN) after '@', got '{}'", pred);
      return false;
    }
    insn.predVector = p.file == RegFile::VP;
    insn.predIndex = p.index;
    text = end == std::string_view::npos ? std::string_view() : trimSpaces(text.substr(end));
  }
  size_t mnEnd = text.find_first_of(" \t");
  std::string_view mnemonicFull = text.substr(0, mnEnd);
  std::string_view rest = mnEnd == std::string_view::npos ? std::string_view() : trimSpaces(text.substr(mnEnd));
  auto parts = splitOn(mnemonicFull, '.');
  const InsnInfo* info = findInsn(slot, parts[0]);
  if (!info) {
    *error = fmt::format("unknown {} slot instruction '{}'", slotName(slot), parts[0]);
    return false;
  }
  insn.id = info->id;
  size_t wantParts = 1 + (info->hasDType() ? 1 : 0) + ((info->flags & F_DT2) ? 1 : 0);
  if (parts.size() != wantParts) {
    *error = info->hasDType() ? fmt::format("'{}' needs {} data type suffix{} (e.g. {}.f32{})", info->mnemonic,
                                            wantParts - 1, wantParts > 2 ? "es" : "", info->mnemonic,
                                            wantParts > 2 ? ".bf16" : "")
                              : fmt::format("'{}' takes no data type suffix", info->mnemonic);
    return false;
  }
  if (info->hasDType()) {
    auto t = parseDType(parts[1]);
    if (!t) {
      *error = fmt::format("unknown data type '{}'", parts[1]);
      return false;
    }
    insn.dtype = *t;
  }
  if (info->flags & F_DT2) {
    auto t = parseDType(parts[2]);
    if (!t) {
      *error = fmt::format("unknown data type '{}'", parts[2]);
      return false;
    }
    insn.setField(SwitchField::Dt2, static_cast<uint32_t>(*t));
  }
  // Operands are a comma-separated list; switches follow, separated by spaces.
  std::string joined;
  for (size_t i = 0; i < rest.size(); ++i) {
    joined += rest[i];
    if (rest[i] == ',')
      while (i + 1 < rest.size() && (rest[i + 1] == ' ' || rest[i + 1] == '\t')) ++i;
  }
  auto tokens = splitWords(joined);
  int numOperands = 0;
  for (int i = 0; i < 5; ++i)
    if (info->kinds[i]) ++numOperands;
  size_t nextToken = 0;
  if (numOperands > 0) {
    if (tokens.empty()) {
      *error = fmt::format("'{}' expects {} operand{}", info->mnemonic, numOperands, numOperands > 1 ? "s" : "");
      return false;
    }
    auto ops = splitOn(tokens[0], ',');
    nextToken = 1;
    if (static_cast<int>(ops.size()) != numOperands) {
      *error = fmt::format("'{}' expects {} operand{}, got {}", info->mnemonic, numOperands,
                           numOperands > 1 ? "s" : "", ops.size());
      return false;
    }
    Operand* slots[5] = {&insn.dst, &insn.src[0], &insn.src[1], &insn.src[2], &insn.src[3]};
    size_t k = 0;
    for (int i = 0; i < 5; ++i) {
      if (!info->kinds[i]) continue;
      std::string_view t = ops[k++];
      Operand o;
      if (parseRegister(t, &o)) {
        *slots[i] = o;
      } else {
        if (!(info->kinds[i] & kindBit(RegFile::Imm))) {
          *error = looksLikeRegister(t)
                       ? fmt::format("'{}' operand {}: register '{}' does not exist", info->mnemonic, k, t)
                       : fmt::format("'{}' operand {}: expected a register, got '{}'", info->mnemonic, k, t);
          return false;
        }
        uint32_t imm;
        if (!parseImm(insn, i, t, &imm, error, labels)) {
          *error = (info->kinds[i] & ~kindBit(RegFile::Imm)) && looksLikeRegister(t)
                       ? fmt::format("'{}' operand {}: register '{}' does not exist", info->mnemonic, k, t)
                       : fmt::format("'{}' operand {}: {}", info->mnemonic, k, *error);
          return false;
        }
        *slots[i] = Operand{RegFile::Imm, 0};
        insn.imm = imm;
      }
    }
  }
  for (size_t i = nextToken; i < tokens.size(); ++i) {
    std::string_view t = tokens[i];
    size_t eq = t.find('=');
    std::string_view name = t.substr(0, eq);
    std::string_view value = eq == std::string_view::npos ? std::string_view() : t.substr(eq + 1);
    int fieldIndex = -1;
    for (int f = 0; f < kNumSwitchFields; ++f)
      if (info->allowsField(static_cast<SwitchField>(f)) && switchField(static_cast<SwitchField>(f)).name == name)
        fieldIndex = f;
    if (fieldIndex < 0 || static_cast<SwitchField>(fieldIndex) == SwitchField::Dt2) {
      *error = fmt::format("'{}' has no switch '{}'", info->mnemonic, name);
      return false;
    }
    auto field = static_cast<SwitchField>(fieldIndex);
    uint32_t v = 0;
    if (field == SwitchField::Sat || field == SwitchField::LutPtr) {
      if (eq != std::string_view::npos) {
        *error = fmt::format("switch '{}' takes no value", name);
        return false;
      }
      v = 1;
    } else {
      auto names = fieldValueNames(field);
      bool found = false;
      for (size_t n = 0; n < names.size(); ++n)
        if (names[n] == value) {
          v = static_cast<uint32_t>(n);
          found = true;
        }
      if (!found) {
        std::optional<int64_t> num;
        if (field == SwitchField::LoopEnd && labels && !value.empty() && !(value[0] >= '0' && value[0] <= '9')) {
          auto addr = labels(value);
          if (!addr) {
            *error = fmt::format("unknown label '{}'", value);
            return false;
          }
          num = *addr;
        } else {
          num = parseInteger(value);
        }
        const SwitchFieldInfo& fi = switchField(field);
        if (!num || *num < 0 || static_cast<uint64_t>(*num) >> fi.width) {
          *error = fmt::format("switch '{}' needs a value that fits in {} bits, got '{}'", name, fi.width, value);
          return false;
        }
        v = static_cast<uint32_t>(*num);
      }
    }
    insn.setField(field, v);
  }
  std::string why = validateSlot(insn);
  if (!why.empty()) {
    *error = why;
    return false;
  }
  *out = insn;
  return true;
}

bool parseBundle(std::string_view text, Bundle* out, std::string* error, const LabelResolver& labels) {
  auto parts = splitOn(text, ';');
  if (parts.size() != kNumSlots) {
    *error = fmt::format("a bundle has 4 slots separated by ';' (load ; spu ; vpu ; store), found {}", parts.size());
    return false;
  }
  Bundle b;
  for (int s = 0; s < kNumSlots; ++s) {
    std::string why;
    if (!parseSlot(static_cast<Slot>(s), parts[s], &b.slots[s], &why, labels)) {
      *error = fmt::format("{} slot: {}", slotName(static_cast<Slot>(s)), why);
      return false;
    }
  }
  *out = b;
  return true;
}

}  // namespace tpc::isa
