// Constant coordinate vectors made in loops moved out of their loop nest, one per value (LLVM IR, after the
// coordinate passes, before instruction selection).
//
// coordinate_ivs.cpp makes each IV's step (`<0, 1, 0, 0, 0>`) as an instruction in the loop's preheader,
// so that selection builds it there rather than in the loop. When that loop is inside another (a row
// loop around a loop over k, or the many copies of a nest that unroll-and-jam and the remainders make),
// the preheader runs once per outer iteration and every copy builds the same steps again: two scalar-slot
// instructions each time. They move to the preheader of the outermost loop around them, one per value
// there, and hold an index register through that nest. (Not to the entry block: kernels whose work is a
// few vectors per core spend their set-up on the scalar slot, and most paths never enter a given nest.)
#include <algorithm>
#include <map>
#include <vector>

#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/Analysis/ConstantFolding.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>

#include "ir_patterns.h"
#include "tpc/cc/codegen.h"

namespace tpc::cc {

namespace {

// The constant an insertion of constants into a constant (or into such an insertion) makes.
llvm::Constant* constantValue(llvm::Value* v, const std::map<llvm::Value*, llvm::Constant*>& known) {
  if (auto* c = llvm::dyn_cast<llvm::Constant>(v)) return c;
  if (auto it = known.find(v); it != known.end()) return it->second;
  return nullptr;
}

}  // namespace

void hoistConstantCoordinates(llvm::Function& f) {
  llvm::DominatorTree dt(f);
  llvm::LoopInfo li(dt);
  std::map<llvm::Value*, llvm::Constant*> known;  // each such insertion's value
  // The one built for each value in each outermost preheader.
  std::map<std::pair<llvm::BasicBlock*, llvm::Constant*>, llvm::Instruction*> kept;
  for (llvm::BasicBlock* bb : llvm::ReversePostOrderTraversal<llvm::Function*>(&f)) {
    llvm::Loop* loop = li.getLoopFor(bb);
    while (loop && loop->getParentLoop()) loop = loop->getParentLoop();
    llvm::BasicBlock* to = loop ? loop->getLoopPreheader() : nullptr;
    for (llvm::Instruction& i : llvm::make_early_inc_range(*bb)) {
      auto* ie = llvm::dyn_cast<llvm::InsertElementInst>(&i);
      if (!ie || !isInt5(ie->getType())) continue;
      llvm::Constant* into = constantValue(ie->getOperand(0), known);
      auto* value = llvm::dyn_cast<llvm::Constant>(ie->getOperand(1));
      auto* lane = llvm::dyn_cast<llvm::Constant>(ie->getOperand(2));
      if (!into || !value || !lane) continue;
      llvm::Constant* folded = llvm::ConstantFoldInsertElementInstruction(into, value, lane);
      if (!folded) continue;
      known[ie] = folded;
      if (!to) continue;  // runs once anyway
      // Built on an insertion that stays where it is: it stays too.
      if (auto* under = llvm::dyn_cast<llvm::Instruction>(ie->getOperand(0));
          under && !dt.dominates(under, to->getTerminator()))
        continue;
      auto [it, fresh] = kept.try_emplace({to, folded}, ie);
      if (!fresh) {
        ie->replaceAllUsesWith(it->second);
        ie->eraseFromParent();
        continue;
      }
      ie->moveBefore(to->getTerminator());
    }
  }

  // Coordinates built of values that do not change in the loop around them (a row's start {0, m, 0, 0,
  // 0} for a loop over k, made each time the row's next columns start): one loop out, before it.
  for (llvm::BasicBlock* bb : llvm::ReversePostOrderTraversal<llvm::Function*>(&f)) {
    llvm::Loop* loop = li.getLoopFor(bb);
    if (!loop || loop->isInnermost() || !loop->getLoopPreheader()) continue;
    llvm::Instruction* end = loop->getLoopPreheader()->getTerminator();
    for (llvm::Instruction& i : llvm::make_early_inc_range(*bb)) {
      auto* ie = llvm::dyn_cast<llvm::InsertElementInst>(&i);
      if (!ie || !isInt5(ie->getType())) continue;
      const bool invariant = std::all_of(ie->op_begin(), ie->op_end(), [&](const llvm::Use& u) {
        auto* def = llvm::dyn_cast<llvm::Instruction>(u.get());
        return !def || dt.dominates(def, end);
      });
      if (invariant) ie->moveBefore(end);
    }
  }
}

}  // namespace tpc::cc
