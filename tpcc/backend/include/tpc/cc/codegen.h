// From an optimized LLVM module to a kernel object: the tailored optimization pipeline, then
// instruction selection, register allocation, scheduling and encoding.
#pragma once

#include <memory>
#include <string>

#include "tpc/cc/isel.h"
#include "tpc/object/kernel_object.h"

namespace llvm {
class Module;
}

namespace tpc::cc {

// Inlines every function into the kernel entry and runs O2 without the vectorizers (or, at -O0, only
// what code generation needs: inlining and promotion of locals to registers); then lowers switches and
// splits critical edges for instruction selection.
void optimizeModule(llvm::Module& module, int optLevel);

// The kernel entry: `main` (C), or the C++ function named main.
llvm::Function* findEntry(llvm::Module& module);

struct CodegenOptions {
  std::string arch = "gaudi2";
  bool debugInfo = false;     // line table in the object
  std::string sourceName;     // the file named by the line table
  bool printMir = false;      // dump machine IR to stderr
};

obj::KernelObject generateObject(llvm::Module& module, const KernelSignature& signature,
                                 const CodegenOptions& options);

}  // namespace tpc::cc
