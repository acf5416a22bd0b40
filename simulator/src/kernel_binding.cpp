#include "tpc/sim/kernel_binding.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "semantics/fp.h"
#include "tpc/support/error.h"

namespace tpc::sim {

std::vector<bool> tensorsStoredTo(const Program& program, int numTensors) {
  // Address registers that some global store reads: an address from gen_addr can only be stored through
  // if it lands in one of them (no instruction copies address registers).
  std::vector<bool> storeAddress(256, false);
  for (size_t b = 0; b < program.size(); ++b)
    for (const isa::SlotInsn& insn : program.raw(b).slots)
      if (insn.id == isa::InsnId::StG || insn.id == isa::InsnId::StGV) storeAddress[insn.src[0].index] = true;
  std::vector<bool> stored(static_cast<size_t>(numTensors), false);
  for (size_t b = 0; b < program.size(); ++b) {
    for (const isa::SlotInsn& insn : program.raw(b).slots) {
      bool storesTensor = (isa::accessesTensorData(insn.id) && isa::insnInfo(insn.id).slot == isa::Slot::Store) ||
                          (insn.id == isa::InsnId::GenAddr && storeAddress[insn.dst.index]);
      if (!storesTensor) continue;
      uint32_t n = insn.field(isa::SwitchField::Tensor);
      if (n < stored.size()) stored[n] = true;
    }
  }
  return stored;
}

uint32_t parseScalarArgument(const std::string& text, DType t) {
  auto bad = [&](const std::string& why) {
    return UserError(fmt::format("-s '{}': {} (the kernel's parameter has type {})", text, why, dtypeName(t)));
  };
  if (text.empty()) throw bad("empty value");
  if (dtypeIsFloat(t)) {
    errno = 0;
    char* end = nullptr;
    float f = std::strtof(text.c_str(), &end);
    if (end != text.c_str() + text.size()) throw bad("not a number");
    if (errno == ERANGE && std::isinf(f)) throw bad("out of range for f32");
    uint32_t bits = sem::asBits(f);
    if (t == DType::F32) return bits;
    return sem::convertFloat(bits, sem::kF32, t == DType::BF16 ? sem::kBF16 : sem::kF16, isa::RoundingMode::RHNE, 0,
                             false);
  }
  // Decimal, or hexadecimal with 0x; a leading zero does not mean octal.
  errno = 0;
  char* end = nullptr;
  bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  bool negHex = text.size() > 3 && text[0] == '-' && text[1] == '0' && (text[2] == 'x' || text[2] == 'X');
  if (std::isspace(static_cast<unsigned char>(text[0]))) throw bad("not an integer");
  long long v = std::strtoll(text.c_str(), &end, hex || negHex ? 16 : 10);
  if (end != text.c_str() + text.size() || errno == ERANGE) throw bad("not an integer");
  long long lo = 0, hi = 0;
  switch (t) {
    case DType::I32: lo = std::numeric_limits<int32_t>::min(); hi = std::numeric_limits<int32_t>::max(); break;
    case DType::U32: hi = std::numeric_limits<uint32_t>::max(); break;
    case DType::I16: lo = std::numeric_limits<int16_t>::min(); hi = std::numeric_limits<int16_t>::max(); break;
    case DType::U16: hi = std::numeric_limits<uint16_t>::max(); break;
    case DType::I8: lo = std::numeric_limits<int8_t>::min(); hi = std::numeric_limits<int8_t>::max(); break;
    default: hi = std::numeric_limits<uint8_t>::max(); break;
  }
  if (v < lo || v > hi) throw bad(fmt::format("out of range [{}, {}]", lo, hi));
  return static_cast<uint32_t>(static_cast<int32_t>(v));  // sign-extended like a scalar register
}

std::array<int64_t, 5> tpcSizes(const std::vector<int64_t>& numpyShape) {
  std::array<int64_t, 5> sizes{1, 1, 1, 1, 1};
  for (size_t k = 0; k < numpyShape.size() && k < 5; ++k) sizes[k] = numpyShape[numpyShape.size() - 1 - k];
  return sizes;
}

Dims5 defaultIndexSpace(const std::vector<HostTensor>& tensors, const std::vector<bool>& stored) {
  const HostTensor* t = nullptr;
  for (size_t n = 0; n < tensors.size() && !t; ++n)
    if (n < stored.size() && stored[n]) t = &tensors[n];
  if (!t && !tensors.empty()) t = &tensors[0];
  if (!t) return Dims5{1, 1, 1, 1, 1};
  Dims5 space = tpcSizes(t->shape);
  int64_t lanes = dtypeLanes(t->dtype);
  space[0] = (space[0] + lanes - 1) / lanes;
  return space;
}

std::string sourceLineOf(const obj::KernelObject& o, uint32_t address) {
  const obj::LineEntry* best = nullptr;
  for (const auto& e : o.debug.lines)
    if (e.address <= address && (!best || e.address >= best->address)) best = &e;
  if (!best) return {};
  std::string file = best->file < o.debug.files.size() ? o.debug.files[best->file] : "?";
  return fmt::format("{}:{}:{}", file, best->line, best->column);
}

}  // namespace tpc::sim
