// The TPC-C front end: Clang as a library with our implicit headers, plus the checks for what the core
// cannot do. Diagnostics go to stderr as "FILE:LINE:COL: error: MESSAGE".
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tpc/cc/isel.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace tpc::cc {

struct FrontendOptions {
  std::string input;
  std::string arch = "gaudi2";
  bool cplusplus = false;
  bool debugInfo = false;
  std::vector<std::string> includeDirs;
  std::vector<std::string> defines;  // NAME or NAME=VALUE
  std::vector<std::string> warnings;  // Clang's warning options as given: -Wall, -Werror, -Wno-NAME, -w
};

struct FrontendResult {
  std::unique_ptr<llvm::Module> module;  // null after errors (already printed)
  KernelSignature signature;
};

FrontendResult compileSource(const FrontendOptions& options, llvm::LLVMContext& context);

// The implicit headers, as the compiler sees them (for --print-header and docs).
std::string implicitHeader(const std::string& name, const std::string& arch = "gaudi2");

}  // namespace tpc::cc
