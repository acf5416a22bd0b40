// Rounding to even across PHIs and selects (LLVM IR, before instruction selection).
//
// TPC-C converts a float to an integer as fptosi (or fptoui) of llvm.roundeven, and instruction selection
// makes the pair one convert that rounds half to even (isel.cpp, roundedToEven); roundeven alone is no
// instruction. When LLVM merges two paths that each convert, the rounding can end up before the merge, a
// PHI or a select, and the conversion after it (fuzz seeds 349424 and 350144: `(int)x` on both arms of
// an if). The merge is made one of the unrounded values instead, and the rounding is done after it.
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include "tpc/cc/codegen.h"

namespace tpc::cc {

namespace {

bool isRoundEven(const llvm::Value* v) {
  const auto* ii = llvm::dyn_cast<llvm::IntrinsicInst>(v);
  return ii && ii->getIntrinsicID() == llvm::Intrinsic::roundeven;
}

// A value that rounding to even leaves as it is, before that rounding: the argument of a roundeven call,
// a constant that is already an integer (LLVM folds the rounding of a constant), undef; or null.
llvm::Value* unrounded(llvm::Value* v) {
  if (isRoundEven(v)) return llvm::cast<llvm::IntrinsicInst>(v)->getArgOperand(0);
  if (llvm::isa<llvm::UndefValue>(v)) return llvm::PoisonValue::get(v->getType());
  const llvm::Constant* c = llvm::dyn_cast<llvm::Constant>(v);
  if (c && c->getType()->isVectorTy()) c = c->getSplatValue();
  if (const auto* fp = llvm::dyn_cast_or_null<llvm::ConstantFP>(c); fp && fp->getValueAPF().isInteger()) return v;
  return nullptr;
}

// Whether every merged value is rounded (one a roundeven call at least, or nothing would change).
bool allRounded(llvm::ArrayRef<llvm::Value*> values) {
  bool call = false;
  for (llvm::Value* v : values) {
    if (!unrounded(v)) return false;
    call |= isRoundEven(v);
  }
  return call;
}

// `merge` (already built from the unrounded values) rounded where `old` was, and `old` gone, with the
// roundings it merged when nothing else reads them.
void replaceWithRounded(llvm::Instruction* old, llvm::Value* merge, llvm::Instruction* at) {
  llvm::IRBuilder<> b(at);
  llvm::Value* round = b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, merge, nullptr, old->getName());
  if (auto* call = llvm::dyn_cast<llvm::Instruction>(round)) call->setDebugLoc(old->getDebugLoc());
  old->replaceAllUsesWith(round);
  std::vector<llvm::Instruction*> sources;
  for (llvm::Value* in : old->operands())
    if (isRoundEven(in)) sources.push_back(llvm::cast<llvm::Instruction>(in));
  old->eraseFromParent();
  for (llvm::Instruction* i : sources)
    if (i->use_empty()) i->eraseFromParent();
}

}  // namespace

void roundAfterMerges(llvm::Function& f) {
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<llvm::Instruction*> merges;
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& i : bb)
        if ((llvm::isa<llvm::PHINode>(i) || llvm::isa<llvm::SelectInst>(i)) && i.getType()->isFPOrFPVectorTy())
          merges.push_back(&i);
    for (llvm::Instruction* i : merges) {
      if (auto* phi = llvm::dyn_cast<llvm::PHINode>(i)) {
        std::vector<llvm::Value*> in(phi->incoming_values().begin(), phi->incoming_values().end());
        if (!allRounded(in)) continue;
        llvm::PHINode* raw = llvm::PHINode::Create(phi->getType(), phi->getNumIncomingValues(), phi->getName() + ".unrounded", phi);
        for (unsigned k = 0; k < phi->getNumIncomingValues(); ++k)
          raw->addIncoming(unrounded(phi->getIncomingValue(k)), phi->getIncomingBlock(k));
        replaceWithRounded(phi, raw, &*phi->getParent()->getFirstInsertionPt());
      } else {
        auto* select = llvm::cast<llvm::SelectInst>(i);
        if (!allRounded({select->getTrueValue(), select->getFalseValue()})) continue;
        llvm::IRBuilder<> b(select);
        llvm::Value* raw = b.CreateSelect(select->getCondition(), unrounded(select->getTrueValue()),
                                          unrounded(select->getFalseValue()), select->getName() + ".unrounded");
        replaceWithRounded(select, raw, select);
      }
      changed = true;  // a merge of this one may now qualify
    }
  }
}

}  // namespace tpc::cc
