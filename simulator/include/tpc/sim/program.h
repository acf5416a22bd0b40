// A kernel's code, decoded once (the decode cache): each slot carries a pointer to its semantics function
// and its operands resolved, and each bundle its hazard lists, so the execution loop does no decoding,
// allocation or lookup.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tpc/isa/encoding.h"
#include "tpc/isa/printf_format.h"
#include "tpc/sim/registers.h"

namespace tpc::sim {

class Core;
struct DecodedSlot;
using ExecFn = void (*)(Core&, const DecodedSlot&);

struct DecodedSlot {
  ExecFn fn = nullptr;  // nullptr for a nop
  uint32_t imm = 0;
  uint32_t sw = 0;
  isa::InsnId id = isa::InsnId::LdNop;
  DType dt = DType::F32;
  isa::RegFile dstFile = isa::RegFile::None;
  uint8_t dst = 0;
  std::array<isa::RegFile, 4> srcFile{};
  std::array<uint8_t, 4> src{};
  uint8_t predIndex = 0;
  bool predVector = false;
  bool predNegate = false;
  bool always = true;     // no predicate to test
  uint16_t vectorLanes = 0;  // lanes of a VPU operation, for the lane-operation count

  uint32_t field(isa::SwitchField f) const { return isa::switchField(f).get(sw); }
};

struct HazardWrite {
  uint16_t reg;
  uint8_t latency;
};

// Copies a register into a scratch register before the bundle runs (see registers.h).
struct StagingCopy {
  isa::RegFile file;
  uint8_t from, to;
};

struct DecodedBundle {
  std::array<DecodedSlot, isa::kNumSlots> slots;
  uint8_t numReads = 0, numWrites = 0, numStaging = 0;
  std::array<uint16_t, 24> reads{};
  std::array<HazardWrite, isa::kNumSlots> writes{};
  std::array<StagingCopy, 8> staging{};
  bool isLoopEnd = false;
  bool hasControl = false;  // jmpr, loop or halt in the SPU slot
};

class Program {
 public:
  // Decodes and predecodes `text`; on an invalid bundle returns false with the bundle address and reason.
  // With an architecture, instructions on data types it lacks (f16 on gaudi) are invalid too.
  bool load(std::span<const uint8_t> text, std::string* error, const isa::ArchInfo* arch = nullptr);

  // The format strings printf instructions name; each is checked (at most one conversion, no %s or %n).
  bool setPrintfFormats(std::vector<std::string> formats, std::string* error);
  const std::string& printfFormat(uint32_t index) const { return printfFormats_[index]; }
  const isa::PrintfFormat& printfParsed(uint32_t index) const { return printfParsed_[index]; }
  size_t numPrintfFormats() const { return printfFormats_.size(); }

  size_t size() const { return bundles_.size(); }
  // Whether a store reads and modifies memory (rmw=add|sub|min|max): cores that update the same elements
  // must then do it in a fixed order for the result to be the same every run.
  bool hasReadModifyWriteStores() const { return hasRmw_; }
  const DecodedBundle& bundle(size_t index) const { return bundles_[index]; }
  const isa::Bundle& raw(size_t index) const { return raw_[index]; }
  const std::vector<DecodedBundle>& bundles() const { return bundles_; }

 private:
  std::vector<DecodedBundle> bundles_;
  std::vector<isa::Bundle> raw_;
  std::vector<std::string> printfFormats_;
  std::vector<isa::PrintfFormat> printfParsed_;
  bool hasRmw_ = false;
};

// One instruction with its semantics function and operands resolved, as the execution loop runs it.
DecodedSlot predecodeSlot(const isa::SlotInsn& insn);

// The semantics function of an instruction with its data types (exec_table.cpp).
ExecFn execFunctionFor(const isa::SlotInsn& insn);

}  // namespace tpc::sim
