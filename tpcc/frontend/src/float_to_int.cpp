// TPC-C converts floats to integers rounding half to even, as the vendor's compiler does (its conversion
// of `fptosi` is a convert with the core's default rounding, rhne), not toward zero as C does: kernels
// written for it rely on that, e.g. `(int)(count * (1.0f / cores))` to split work evenly. Every C
// conversion from a floating type to an integer type becomes fptosi/fptoui of llvm.roundeven, so that LLVM's
// optimizations and constant folding, the backend (one convert with rm=rhne) and the native reference all
// see the same meaning.
#include "float_to_int.h"

#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

namespace tpc::cc {

void roundFloatToIntConversionsToNearestEven(llvm::Module& module) {
  std::vector<llvm::CastInst*> conversions;
  for (llvm::Function& f : module)
    for (llvm::Instruction& i : llvm::instructions(f))
      if (i.getOpcode() == llvm::Instruction::FPToSI || i.getOpcode() == llvm::Instruction::FPToUI)
        conversions.push_back(llvm::cast<llvm::CastInst>(&i));
  for (llvm::CastInst* c : conversions) {
    llvm::Value* x = c->getOperand(0);
    if (auto* ii = llvm::dyn_cast<llvm::IntrinsicInst>(x); ii && ii->getIntrinsicID() == llvm::Intrinsic::roundeven)
      continue;
    llvm::IRBuilder<> b(c);
    c->setOperand(0, b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, x));
  }
}

}  // namespace tpc::cc
