// The kernel object's debug information as the debugger asks it: the source position of an address, the
// addresses of a source line, the inline frames at an address, and where each variable lives there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tpc/object/kernel_object.h"

namespace tpc::dbg {

struct SourcePos {
  uint32_t file = 0;  // index into files()
  uint32_t line = 0;
  uint32_t column = 0;
};

// One frame of the (inline) call stack at an address: frame 0 is the innermost.
struct Frame {
  uint32_t scope = 0;          // index into the object's inline scopes (0: the kernel)
  std::string function;
  std::optional<SourcePos> pos;  // where this frame is: the bundle's line, or the call site of the inner frame
};

// A variable's location over its range: an ISA register file (isa::RegFile 1..6) and index, or local
// memory (obj::kLocScalarLocal / kLocVectorLocal) at an offset.
struct VarRecord {
  std::string name;
  std::string type;
  uint32_t lowPc = 0, highPc = 0;
  uint8_t regFile = 0;
  uint16_t regIndex = 0;
  int32_t localOffset = 0;
  uint32_t scope = 0;
  bool isArgument = false;
};

class DebugInfo {
 public:
  DebugInfo() = default;
  explicit DebugInfo(const obj::KernelObject& object);

  bool hasLines() const { return !lines_.empty(); }
  const std::vector<std::string>& files() const { return files_; }
  const std::string& fileName(uint32_t file) const;

  // The source position of the bundle at `address` (the last line entry at or before it).
  std::optional<SourcePos> lineAt(uint32_t address) const;
  // Whether a line entry starts exactly at `address` (a statement boundary for stepping).
  bool isLineStart(uint32_t address) const;
  // Breakpoint address for FILE:LINE: the lowest address of the first line at or after `line` that has
  // code in that file; the line it resolved to goes to *resolvedLine. nullopt when no such line exists.
  std::optional<uint32_t> addressOfLine(uint32_t file, uint32_t line, uint32_t* resolvedLine) const;
  // Every breakpoint location of that line, lowest first: in each straight-line region of the code (split at
  // jump targets, after jumps and halts, at hardware loop bodies and their exits), the lowest address of the
  // line. Optimized code has one line in several regions (an unrolled loop and its remainder, a loop's
  // versions), and a breakpoint must stop in whichever runs. Empty when there is no such line.
  std::vector<uint32_t> addressesOfLine(uint32_t file, uint32_t line, uint32_t* resolvedLine) const;
  // The file index whose name is `name` or ends with "/name"; nullopt if none.
  std::optional<uint32_t> findFile(const std::string& name) const;
  // The lowest address of each function (the kernel's entry, inlined instances' first bundles).
  std::optional<uint32_t> addressOfFunction(const std::string& name) const;

  // Inline frames at `address`, innermost first; the outermost is the kernel.
  std::vector<Frame> framesAt(uint32_t address) const;
  // The innermost scope at an address.
  uint32_t scopeAt(uint32_t address) const;
  // Depth of the inline stack at an address (1: in the kernel's body).
  size_t depthAt(uint32_t address) const { return framesAt(address).size(); }

  // Every variable name declared in `scope` (in first-seen order), and the live record of `name` in that
  // scope at `address` (nullptr: optimized out there).
  std::vector<std::string> variablesOfScope(uint32_t scope, bool arguments) const;
  // Records describe the state after their bundles run (the compiler's convention: a value's range starts at
  // the bundle that writes it and ends before the one that overwrites it); the state before `address` runs
  // is the state after the bundle before it, when that one falls through to it.
  const VarRecord* locate(const std::string& name, uint32_t scope, uint32_t address) const;
  // The declared type of a variable in a scope, empty when unknown.
  std::string typeOf(const std::string& name, uint32_t scope) const;
  bool hasScopes() const { return scopes_.size() > 0; }
  const std::vector<obj::InlineScope>& scopes() const { return scopes_; }
  uint32_t textSize() const { return textSize_; }

 private:
  std::vector<std::string> files_;
  std::vector<obj::LineEntry> lines_;  // sorted by address
  std::vector<VarRecord> vars_;
  std::vector<obj::InlineScope> scopes_;
  std::vector<obj::ScopeRange> scopeRanges_;
  std::string kernelName_;
  uint32_t textSize_ = 0;
  std::vector<bool> fallsThrough_;  // per bundle: execution may continue with the next bundle
  std::vector<bool> regionStart_;   // per bundle: control may arrive other than from the bundle before
};

}  // namespace tpc::dbg
