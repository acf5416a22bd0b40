#include "tpc/sim/program.h"

#include "tpc/isa/asm_text.h"

#include <algorithm>
#include <optional>
#include <vector>

#include <fmt/format.h>

namespace tpc::sim {

namespace {

using isa::RegFile;

bool isRegister(RegFile f) { return f != RegFile::None && f != RegFile::Imm; }
bool isSp0(const isa::Operand& o) { return o.file == RegFile::SP && o.index == 0; }

// Registers a slot reads: its register sources, the predicate, and the destination when its old value is
// an input (F_READS_DST, or lanes kept by a vector predicate).
struct SlotAccess {
  std::vector<std::pair<RegFile, uint8_t>> reads;
  std::optional<std::pair<RegFile, uint8_t>> write;
};

SlotAccess accessOf(const isa::SlotInsn& insn) {
  const isa::InsnInfo& info = insn.info();
  SlotAccess a;
  for (const isa::Operand& o : insn.src)
    if (isRegister(o.file)) a.reads.emplace_back(o.file, o.index);
  if (!insn.alwaysExecutes()) {
    RegFile pf = insn.predVector ? RegFile::VP : RegFile::SP;
    if (!(pf == RegFile::SP && insn.predIndex == 0)) a.reads.emplace_back(pf, insn.predIndex);
  }
  if (isRegister(insn.dst.file) && !isSp0(insn.dst)) {
    a.write = std::make_pair(insn.dst.file, insn.dst.index);
    if ((info.flags & isa::F_READS_DST) || insn.predVector) a.reads.emplace_back(insn.dst.file, insn.dst.index);
  }
  return a;
}

}  // namespace

DecodedSlot predecodeSlot(const isa::SlotInsn& insn) {
  const isa::InsnInfo& info = insn.info();
  DecodedSlot d;
  d.id = insn.id;
  d.dt = insn.dtype;
  d.imm = insn.imm;
  d.sw = insn.sw;
  d.dstFile = insn.dst.file;
  d.dst = insn.dst.index;
  // SP0 always reads true: a write to it goes to a scratch register that nothing reads. Only the SPU slot
  // writes scalar predicates, so staging (at most two copies per bundle) never reaches the last scratch one.
  if (isSp0(insn.dst)) d.dst = static_cast<uint8_t>(isa::kNumSPRegs + kScratchRegs - 1);
  for (int i = 0; i < 4; ++i) {
    d.srcFile[i] = insn.src[i].file;
    d.src[i] = insn.src[i].index;
  }
  d.predIndex = insn.predIndex;
  d.predVector = insn.predVector;
  d.predNegate = insn.predNegate;
  d.always = insn.alwaysExecutes();
  d.fn = insn.isNop() ? nullptr : execFunctionFor(insn);
  if (info.slot == isa::Slot::Vpu && info.hasDType()) d.vectorLanes = static_cast<uint16_t>(dtypeLanes(insn.dtype));
  return d;
}

bool Program::setPrintfFormats(std::vector<std::string> formats, std::string* error) {
  std::vector<isa::PrintfFormat> parsed;
  for (size_t i = 0; i < formats.size(); ++i) {
    std::string why;
    auto p = isa::parsePrintfFormat(formats[i], &why);
    if (!p) {
      *error = fmt::format("printf format {} (\"{}\"): {}", i, formats[i], why);
      return false;
    }
    parsed.push_back(*p);
  }
  printfFormats_ = std::move(formats);
  printfParsed_ = std::move(parsed);
  return true;
}

bool Program::load(std::span<const uint8_t> text, std::string* error, const isa::ArchInfo* arch) {
  if (text.size() % isa::kBundleBytes) {
    *error = fmt::format("code size {} is not a multiple of the {}-byte bundle", text.size(), isa::kBundleBytes);
    return false;
  }
  size_t n = text.size() / isa::kBundleBytes;
  bundles_.assign(n, DecodedBundle{});
  raw_.assign(n, isa::Bundle{});
  hasRmw_ = false;
  std::vector<uint32_t> loopEnds;
  for (size_t b = 0; b < n; ++b) {
    const uint32_t address = static_cast<uint32_t>(b * isa::kBundleBytes);
    std::string why;
    if (!isa::decodeBundle(text.data() + b * isa::kBundleBytes, &raw_[b], &why)) {
      *error = fmt::format("bundle at 0x{:x}: illegal instruction: {}", address, why);
      return false;
    }
    DecodedBundle& db = bundles_[b];
    SlotAccess access[isa::kNumSlots];
    for (int s = 0; s < isa::kNumSlots; ++s) {
      const isa::SlotInsn& insn = raw_[b].slots[s];
      db.slots[s] = predecodeSlot(insn);
      if (!insn.isNop() && !db.slots[s].fn) {
        *error = fmt::format("bundle at 0x{:x}: the simulator has no semantics for '{}'", address,
                             isa::formatSlot(insn));
        return false;
      }
      access[s] = accessOf(insn);
      const isa::InsnInfo& info = insn.info();
      if (info.allowsField(isa::SwitchField::Rmw) && insn.field(isa::SwitchField::Rmw) != 0) hasRmw_ = true;
      if (arch && info.hasDType()) {
        auto lacks = [&](DType t) { return !((arch->types >> static_cast<unsigned>(t)) & 1u); };
        DType second = static_cast<DType>(insn.field(isa::SwitchField::Dt2));
        if (lacks(insn.dtype) || ((info.flags & isa::F_DT2) && lacks(second))) {
          *error = fmt::format("bundle at 0x{:x}: '{}' uses a data type that {} does not support", address,
                               isa::formatSlot(insn), arch->name);
          return false;
        }
      }
      if (info.flags & (isa::F_BRANCH | isa::F_LOOP | isa::F_HALT)) db.hasControl = true;
      if (info.flags & isa::F_BRANCH) {
        if (insn.imm / isa::kBundleBytes >= n) {
          *error = fmt::format("bundle at 0x{:x}: jump target 0x{:x} is outside the code", address, insn.imm);
          return false;
        }
      }
      if (info.flags & isa::F_LOOP) {
        uint32_t end = insn.field(isa::SwitchField::LoopEnd);
        if (end <= address || end / isa::kBundleBytes >= n) {
          *error = fmt::format("bundle at 0x{:x}: loop end 0x{:x} must follow the loop and lie inside the code",
                               address, end);
          return false;
        }
        loopEnds.push_back(static_cast<uint32_t>(end / isa::kBundleBytes));
      }
    }
    // Hazard lists.
    for (int s = 0; s < isa::kNumSlots; ++s) {
      for (auto [f, i] : access[s].reads) {
        uint16_t id = regId(f, i);
        if (std::find(db.reads.begin(), db.reads.begin() + db.numReads, id) == db.reads.begin() + db.numReads)
          db.reads[db.numReads++] = id;
      }
      if (access[s].write) {
        uint16_t id = regId(access[s].write->first, access[s].write->second);
        for (int w = 0; w < db.numWrites; ++w)
          if (db.writes[w].reg == id) {
            *error = fmt::format("bundle at 0x{:x}: two slots write {}{}", address,
                                 isa::regFilePrefix(access[s].write->first), access[s].write->second);
            return false;
          }
        db.writes[db.numWrites++] = HazardWrite{id, raw_[b].slots[s].info().latency};
      }
    }
    // A slot that reads a register an earlier slot writes must see the old value: stage it in a scratch
    // register and point the reader there.
    int scratchUsed[8] = {};
    for (int s = 1; s < isa::kNumSlots; ++s) {
      for (int w = 0; w < s; ++w) {
        if (!access[w].write) continue;
        auto [wf, wi] = *access[w].write;
        DecodedSlot& d = db.slots[s];
        bool readsIt = false;
        for (auto [f, i] : access[s].reads) readsIt |= (f == wf && i == wi);
        if (!readsIt) continue;
        // The destination itself is never staged: a slot that reads its own destination is the only writer.
        int& used = scratchUsed[static_cast<int>(wf)];
        if (used >= kScratchRegs || db.numStaging >= db.staging.size()) {
          *error = fmt::format("bundle at 0x{:x}: too many registers read and written in one bundle", address);
          return false;
        }
        uint8_t scratch = static_cast<uint8_t>(isa::regFileSize(wf) + used++);
        db.staging[db.numStaging++] = StagingCopy{wf, wi, scratch};
        for (int k = 0; k < 4; ++k)
          if (d.srcFile[k] == wf && d.src[k] == wi) d.src[k] = scratch;
        RegFile pf = d.predVector ? RegFile::VP : RegFile::SP;
        if (!d.always && pf == wf && d.predIndex == wi) d.predIndex = scratch;
      }
    }
  }
  for (uint32_t e : loopEnds) bundles_[e].isLoopEnd = true;
  return true;
}

}  // namespace tpc::sim
