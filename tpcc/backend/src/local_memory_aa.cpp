#include "local_memory_aa.h"

#include <llvm/IR/Function.h>
#include <llvm/IR/InstrTypes.h>

#include "tpc/isa/intrinsics.h"

namespace tpc::cc {

llvm::AnalysisKey LocalMemoryAA::Key;

namespace {

constexpr unsigned kLocalAddressSpace = 1;  // __local__ (tpc-defs.h)

// Whether a call may access local memory: anything but an intrinsic of the table whose instruction is not
// a local-memory access.
bool mayAccessLocalMemory(const llvm::CallBase* call) {
  const llvm::Function* f = call->getCalledFunction();
  if (!f || !f->getName().starts_with(isa::kBuiltinPrefix)) return true;
  const isa::IntrinsicInfo* in = isa::findIntrinsic(f->getName().drop_front(isa::kBuiltinPrefix.size()));
  if (!in) return true;
  switch (in->insn) {
    case isa::InsnId::LdL:
    case isa::InsnId::LdLV:
    case isa::InsnId::StL:
    case isa::InsnId::StLV: return true;
    default: return false;
  }
}

}  // namespace

llvm::ModRefInfo LocalMemoryAAResult::getModRefInfo(const llvm::CallBase* call, const llvm::MemoryLocation& loc,
                                                    llvm::AAQueryInfo&) {
  const llvm::Value* p = loc.Ptr;
  if (p && p->getType()->isPointerTy() && p->getType()->getPointerAddressSpace() == kLocalAddressSpace &&
      !mayAccessLocalMemory(call))
    return llvm::ModRefInfo::NoModRef;
  return llvm::ModRefInfo::ModRef;
}

}  // namespace tpc::cc
