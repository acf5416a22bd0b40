// Instruction selection: LLVM IR of the kernel entry (after optimization and inlining) to machine IR.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tpc/cc/mir.h"

namespace llvm {
class Function;
class DILocalVariable;
class DILocation;
}

namespace tpc::cc {

struct KernelParam {
  std::string name;
  bool isTensor = false;
  DType scalarType = DType::I32;
};

struct KernelSignature {
  std::string name;
  std::vector<KernelParam> params;
};

// Where the front end's implicit headers (tpc-defs.h, tpc-intrinsics.h, tpc-special.h,
// tpc-legacy-aliases.h) live, in memory. Code inlined from them is reported at the user's call.
inline constexpr const char* kImplicitHeaderDir = "/tpc-clang/include";

// An error in code generation, with the source position when the IR carries it.
class CodegenError : public std::runtime_error {
 public:
  CodegenError(const std::string& message, SourceLoc loc = {}, bool outOfRegisters = false,
               RegFile exhausted = RegFile::None)
      : std::runtime_error(message), loc(loc), outOfRegisters(outOfRegisters), exhausted(exhausted) {}
  SourceLoc loc;
  bool outOfRegisters;  // the allocator ran out: less unrolling may fit
  RegFile exhausted;    // the register file that ran out, when known
  int busiestBlock = -1;  // where the most registers of that file are live, when known (an MFunction block)
};

MFunction selectInstructions(llvm::Function& entry, const KernelSignature& signature);

// A source variable (of an inlined call when inlinedAt is set) that is the kernel's loop over index-space
// dimension `dim`: it starts at get_index_space_offset()[dim] * scale and moves by multiples of scale.
struct IndexSpaceVariable {
  const llvm::DILocalVariable* var;
  const llvm::DILocation* inlinedAt;
  int dim;
  int32_t scale;
};
// Read from the debug records of `f` (-g). See index_space_vars.cpp.
std::vector<IndexSpaceVariable> findIndexSpaceVariables(llvm::Function& f);

}  // namespace tpc::cc
