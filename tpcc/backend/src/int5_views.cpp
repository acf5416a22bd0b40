// Narrow views of an int5 across PHIs (LLVM IR, before instruction selection).
//
// LLVM reads `(uint8_t)c[3]` as byte 12 of the int5 bit cast to <20 x i8>, and instruction selection
// reads such a view part by part from the int5's index register (isel.cpp, int5LaneView). When the view
// itself flows through a PHI (a value live out of an unrolled loop: the last iteration's byte, stored
// after the loop), the PHI would hold a <20 x i8>, which no register file holds. The PHI is made one of
// the int5s instead, and the view is taken after it.
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include "tpc/cc/codegen.h"

namespace tpc::cc {

namespace {

// The int5 a view of narrower integers is a bit cast of, or null.
llvm::Value* int5Behind(llvm::Value* v) {
  auto* bc = llvm::dyn_cast<llvm::BitCastInst>(v);
  if (!bc) return nullptr;
  auto* from = llvm::dyn_cast<llvm::FixedVectorType>(bc->getSrcTy());
  if (!from || from->getNumElements() != 5 || !from->getElementType()->isIntegerTy(32)) return nullptr;
  return bc->getOperand(0);
}

bool isNarrowView(llvm::Type* t) {
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(t);
  return vt && vt->getElementType()->isIntegerTy() && vt->getScalarSizeInBits() < 32 &&
         vt->getPrimitiveSizeInBits() == 160;
}

}  // namespace

void viewInt5sAfterPhis(llvm::Function& f) {
  auto* int5 = llvm::FixedVectorType::get(llvm::Type::getInt32Ty(f.getContext()), 5);
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<llvm::PHINode*> phis;
    for (llvm::BasicBlock& bb : f)
      for (llvm::PHINode& phi : bb.phis())
        if (isNarrowView(phi.getType())) phis.push_back(&phi);
    for (llvm::PHINode* phi : phis) {
      bool views = true;
      for (llvm::Value* in : phi->incoming_values()) views &= llvm::isa<llvm::UndefValue>(in) || int5Behind(in);
      if (!views) continue;
      llvm::PHINode* wide = llvm::PHINode::Create(int5, phi->getNumIncomingValues(), phi->getName() + ".int5", phi);
      for (unsigned k = 0; k < phi->getNumIncomingValues(); ++k) {
        llvm::Value* in = phi->getIncomingValue(k);
        wide->addIncoming(llvm::isa<llvm::UndefValue>(in) ? llvm::PoisonValue::get(int5) : int5Behind(in),
                          phi->getIncomingBlock(k));
      }
      llvm::IRBuilder<> b(&*phi->getParent()->getFirstInsertionPt());
      llvm::Value* view = b.CreateBitCast(wide, phi->getType(), phi->getName());
      phi->replaceAllUsesWith(view);
      phi->eraseFromParent();
      changed = true;  // a PHI of this one's view may now qualify
    }
  }
}

}  // namespace tpc::cc
