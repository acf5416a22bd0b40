// Alias analysis of TPC intrinsic calls against __local__ memory (address space 1). Only the intrinsics that
// take a local byte address (s_<t>_ld_l, s_<t>_st_l, v_<t>_ld_l_v, v_<t>_st_l_v and their forms) may read or
// write it; tensor, global, index-space and arithmetic intrinsics cannot. Without this LLVM assumes that
// every intrinsic call may write any __local__ variable, and reloads staged data after each tensor load.
#pragma once

#include <llvm/Analysis/AliasAnalysis.h>
#include <llvm/IR/PassManager.h>

namespace tpc::cc {

class LocalMemoryAAResult : public llvm::AAResultBase {
 public:
  LocalMemoryAAResult() = default;
  using llvm::AAResultBase::getModRefInfo;
  llvm::ModRefInfo getModRefInfo(const llvm::CallBase* call, const llvm::MemoryLocation& loc,
                                 llvm::AAQueryInfo& info);
  bool invalidate(llvm::Function&, const llvm::PreservedAnalyses&, llvm::FunctionAnalysisManager::Invalidator&) {
    return false;  // holds no state
  }
};

class LocalMemoryAA : public llvm::AnalysisInfoMixin<LocalMemoryAA> {
 public:
  using Result = LocalMemoryAAResult;
  Result run(llvm::Function&, llvm::FunctionAnalysisManager&) { return Result(); }

 private:
  friend llvm::AnalysisInfoMixin<LocalMemoryAA>;
  static llvm::AnalysisKey Key;
};

}  // namespace tpc::cc
