#include "tpc/isa/isa_doc.h"

#include <fmt/format.h>

#include "tpc/isa/isa.h"

namespace tpc::isa {

namespace {

std::string kinds(uint32_t mask) {
  if (!mask) return "";
  std::string s;
  static constexpr RegFile kFiles[] = {RegFile::V, RegFile::S, RegFile::I, RegFile::SP, RegFile::VP, RegFile::AD};
  for (RegFile f : kFiles)
    if (mask & kindBit(f)) s += (s.empty() ? "" : "/") + std::string(regFilePrefix(f)).append("N");
  if (mask & kindBit(RegFile::Imm)) s += (s.empty() ? "" : "/") + std::string("imm");
  return s;
}

std::string types(uint32_t mask) {
  if (!mask) return "";
  constexpr uint32_t kAll = (1u << kNumDTypes) - 1;
  if (mask == kAll) return "all";
  std::string s;
  for (int t = 0; t < kNumDTypes; ++t)
    if (mask & (1u << t)) s += (s.empty() ? "" : " ") + std::string(dtypeName(static_cast<DType>(t)));
  return s;
}

std::string switches(const InsnInfo& info) {
  std::string s;
  for (int f = 0; f < kNumSwitchFields; ++f)
    if (info.allowsField(static_cast<SwitchField>(f)))
      s += (s.empty() ? "" : " ") + std::string(switchField(static_cast<SwitchField>(f)).name);
  return s;
}

}  // namespace

std::string instructionTableMarkdown() {
  std::string out = "| slot | opcode | mnemonic | dst | src0 | src1 | src2 | src3 | types | latency | switches |\n";
  out += "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const InsnInfo& i : allInsns()) {
    out += fmt::format("| {} | {} | `{}` | {} | {} | {} | {} | {} | {} | {} | {} |\n", slotName(i.slot), i.opcode,
                       i.mnemonic, kinds(i.kinds[0]), kinds(i.kinds[1]), kinds(i.kinds[2]), kinds(i.kinds[3]),
                       kinds(i.kinds[4]), types(i.types), i.latency, switches(i));
  }
  return out;
}

}  // namespace tpc::isa
