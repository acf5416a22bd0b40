// Instruction selection: LLVM IR of the kernel entry (after optimization and inlining) to machine IR.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "tpc/cc/mir.h"

namespace llvm {
class Function;
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
  CodegenError(const std::string& message, SourceLoc loc = {}, bool outOfRegisters = false)
      : std::runtime_error(message), loc(loc), outOfRegisters(outOfRegisters) {}
  SourceLoc loc;
  bool outOfRegisters;  // the allocator ran out: less unrolling may fit
};

MFunction selectInstructions(llvm::Function& entry, const KernelSignature& signature);

}  // namespace tpc::cc
