// The ORC JIT of the native path: one LLJIT for the host, and one JITDylib per host thread holding its
// own copy of the prepared kernel module (and so its own __local__ variables).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Module.h>

namespace tpc::native {

struct KernelFunctions {
  void* entry = nullptr;        // kEntryName
  void (*resetLocals)() = nullptr;  // kResetLocalsName
};

class Jit {
 public:
  Jit();  // throws std::runtime_error when the host target is not available
  ~Jit();
  const std::string& hostTriple() const;
  const llvm::DataLayout& hostLayout() const;
  // Compiles `module` (taking ownership of its context) into a new JITDylib per copy and returns the
  // functions of each copy.
  std::vector<KernelFunctions> addCopies(std::unique_ptr<llvm::LLVMContext> context,
                                         std::unique_ptr<llvm::Module> module, int copies);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tpc::native
