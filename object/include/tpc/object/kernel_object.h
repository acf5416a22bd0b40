// libtpcobject: the TPC kernel object file (ELF64) that the compiler writes and the assembler,
// simulator and debugger read. The format is described byte by byte in docs/object-format.md.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tpc/object/format.h"
#include "tpc/support/dtype.h"

namespace tpc::obj {

using tpc::DType;

enum class ParamKind : uint8_t { Tensor = 0, Scalar = 1 };

// One kernel parameter, in source order.
struct Param {
  std::string name;
  ParamKind kind = ParamKind::Tensor;
  DType scalarType = DType::I32;  // meaningful only for scalars; a tensor reads back as I32
  bool operator==(const Param&) const = default;
};

// Source position of one bundle. address is the bundle's byte offset in .text (a multiple of 64);
// file indexes DebugInfo::files.
struct LineEntry {
  uint32_t address = 0;
  uint32_t file = 0;
  uint32_t line = 0;
  uint32_t column = 0;
  bool operator==(const LineEntry&) const = default;
};

// Where a source variable lives over [lowPc, highPc) (byte offsets in .text, multiples of 64).
// regFile/regIndex are opaque to this library: their meaning (which register file, or local memory,
// in which case localOffset is the byte offset) is the convention of the compiler and debugger.
struct VarLocation {
  std::string name;
  uint32_t lowPc = 0;
  uint32_t highPc = 0;
  uint8_t regFile = 0;
  uint16_t regIndex = 0;
  int32_t localOffset = 0;
  std::string typeName;
  bool operator==(const VarLocation&) const = default;
};

// Register-file numbers of VarLocation beyond the ISA's register files (isa::RegFile 1..6): the variable
// lives in local memory at localOffset (a spill slot or a __local__ variable).
inline constexpr uint8_t kLocScalarLocal = 16;
// No location: the variable is assigned, in the record's bundle, a value the code does not keep (undef, a
// constant, a value folded away); its earlier locations end there and it is optimized out until the next.
inline constexpr uint8_t kLocNone = 0;
inline constexpr uint8_t kLocVectorLocal = 17;

// An inlined call (.tpc.debug_scopes): scope 0 is the kernel's own body; every other scope is a function
// inlined into its parent scope at callLine:callColumn of the parent's file.
struct InlineScope {
  std::string function;
  uint32_t parent = 0;
  uint32_t callFile = 0, callLine = 0, callColumn = 0;
  bool operator==(const InlineScope&) const = default;
};

// The innermost scope of the bundles in [lowPc, highPc); bundles no range covers are in scope 0.
struct ScopeRange {
  uint32_t lowPc = 0, highPc = 0, scope = 0;
  bool operator==(const ScopeRange&) const = default;
};

// The scope a variable record (same index in DebugInfo::vars) belongs to, and whether it is a parameter.
struct VarScope {
  uint32_t scope = 0;
  bool isArgument = false;
  bool operator==(const VarScope&) const = default;
};

// A loop variable over one dimension of the index space (.tpc.debug_index): the variable `name` of `scope`
// starts at get_index_space_offset()[dim] * scale and moves by multiples of scale, so the index-space
// coordinate of the iteration it is at is its value / scale (the debugger's $idx).
struct IndexSpaceVar {
  std::string name;
  uint32_t scope = 0;
  uint8_t dim = 0;
  int32_t scale = 1;
  bool operator==(const IndexSpaceVar&) const = default;
};

struct DebugInfo {
  std::vector<std::string> files;
  std::vector<LineEntry> lines;
  std::vector<VarLocation> vars;
  // Optional (.tpc.debug_scopes): inlined calls. When present, scopes[0] is the kernel and varScopes has
  // one entry per variable record.
  std::vector<InlineScope> scopes;
  std::vector<ScopeRange> scopeRanges;
  std::vector<VarScope> varScopes;
  std::vector<IndexSpaceVar> indexVars;  // optional (.tpc.debug_index)
  bool empty() const { return files.empty() && lines.empty() && vars.empty() && scopes.empty() && indexVars.empty(); }
  bool operator==(const DebugInfo&) const = default;
};

struct KernelObject {
  std::string kernelName = "main";
  std::string arch = "gaudi2";  // gaudi | gaudi2 | gaudi3
  std::vector<Param> params;
  uint32_t scalarLocalBytes = 0;
  uint32_t vectorLocalBytes = 0;
  std::vector<uint8_t> text;     // raw bundles, size a multiple of kBundleBytes
  std::vector<uint8_t> bitcode;  // optional: the kernel's optimized LLVM bitcode
  std::vector<std::string> printfFormats;  // optional: format strings of printf, by index
  DebugInfo debug;               // optional: sections are written only when non-empty
  bool operator==(const KernelObject&) const = default;
};

// Every failure of this library. what() is "<file>: <detail>", e.g.
//   "k.o: not an ELF file"
//   "k.o: truncated: section '.text' extends past end of file (offset 4096, size 640, file size 1200)"
// For writeObject (no file yet) the prefix is "kernel '<name>'".
class ObjectError : public std::runtime_error {
 public:
  ObjectError(const std::string& file, const std::string& detail)
      : std::runtime_error(file + ": " + detail), file_(file), detail_(detail) {}
  const std::string& file() const { return file_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string file_;
  std::string detail_;
};

// Serializes the object. Throws ObjectError when the object cannot be written as given (text not a
// multiple of 64 bytes, unknown arch, empty kernel name, NUL in a name, scalar type out of range, debug
// info pointing outside .text, ...): whatever writeObject accepts, readObject reads back equal.
std::vector<uint8_t> writeObject(const KernelObject& obj);

// Writes atomically: a temporary file in the same directory, then rename over path. On failure the
// temporary file is removed and ObjectError (prefixed with path) is thrown.
void writeObjectFile(const std::string& path, const KernelObject& obj);

// Parses and validates an object. nameForErrors prefixes every error message. Never reads out of
// bounds; every malformed input throws ObjectError.
KernelObject readObject(std::span<const uint8_t> bytes, const std::string& nameForErrors);
KernelObject readObjectFile(const std::string& path);

}  // namespace tpc::obj
