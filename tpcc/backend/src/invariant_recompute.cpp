// Loop-invariant scalars recomputed in innermost loops (LLVM IR, when the scalar registers run out).
//
// LICM hoists every invariant out of a loop, and each hoisted value then holds a scalar register through
// the loop. Most are worth it, but a family of values that are one operation and a constant away from a
// common operand is not: Philox's twenty round keys are seed + k * constant, twenty registers where one
// (the seed) would do. Code generation calls this when the scalar registers do not suffice: in innermost
// loops, uses of such values (and splats of them) are computed again next to the use, from the operand
// the family shares, at one scalar-slot instruction per value and iteration. Chains (x + a, then + b) are
// recomputed whole; a value with two non-constant operands stays hoisted (recomputing it would keep both
// operands live instead of one).
#include <map>
#include <vector>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/ValueHandle.h>
#include <llvm/Transforms/Utils/Local.h>

#include "tpc/cc/codegen.h"

namespace tpc::cc {

namespace {

constexpr int kMaxChain = 4;  // operations recomputed for one use

class Recomputer {
 public:
  explicit Recomputer(const llvm::Loop& loop) : loop_(loop) {}
  void insertBefore(llvm::Instruction* at) { at_ = at; }

  // v computed again before `at` when it is a recomputable invariant (or a splat of one); v otherwise.
  llvm::Value* value(llvm::Value* v, int depth = 0) {
    auto* i = llvm::dyn_cast<llvm::Instruction>(v);
    if (!i || loop_.contains(i) || depth >= kMaxChain) return v;
    if (auto it = made_.find(v); it != made_.end()) return it->second;
    llvm::Value* again = v;
    if (auto* bo = llvm::dyn_cast<llvm::BinaryOperator>(i); bo && cheap(bo)) {
      // One operand a constant, the other recomputed in turn (or kept).
      const int constant = llvm::isa<llvm::Constant>(bo->getOperand(1)) ? 1
                           : llvm::isa<llvm::Constant>(bo->getOperand(0)) ? 0 : -1;
      if (constant >= 0) {
        llvm::Instruction* clone = bo->clone();
        clone->setOperand(1 - constant, value(bo->getOperand(1 - constant), depth + 1));
        clone->insertBefore(at_);
        again = clone;
      }
    } else if (llvm::Value* s = splatScalar(i)) {
      // A splat stays a splat (instruction selection folds it into a scalar operand) of the scalar again.
      llvm::Value* scalar = value(s, depth);
      if (scalar != s) {
        llvm::IRBuilder<> b(at_);
        again = b.CreateVectorSplat(llvm::cast<llvm::FixedVectorType>(i->getType())->getElementCount(), scalar);
      }
    }
    made_[v] = again;
    return again;
  }

 private:
  // A scalar operation the scalar slot issues in one instruction (no division).
  static bool cheap(const llvm::BinaryOperator* bo) {
    if (bo->getType()->isVectorTy()) return false;
    switch (bo->getOpcode()) {
      case llvm::Instruction::Add: case llvm::Instruction::Sub: case llvm::Instruction::Mul:
      case llvm::Instruction::And: case llvm::Instruction::Or: case llvm::Instruction::Xor:
      case llvm::Instruction::Shl: case llvm::Instruction::LShr: case llvm::Instruction::AShr:
      case llvm::Instruction::FAdd: case llvm::Instruction::FSub: case llvm::Instruction::FMul:
        return true;
      default:
        return false;
    }
  }

  // The scalar of a splat in the form canonicalizeSplats leaves, or null.
  static llvm::Value* splatScalar(llvm::Instruction* i) {
    auto* sv = llvm::dyn_cast<llvm::ShuffleVectorInst>(i);
    if (!sv || !llvm::all_of(sv->getShuffleMask(), [](int m) { return m <= 0; })) return nullptr;
    auto* ie = llvm::dyn_cast<llvm::InsertElementInst>(sv->getOperand(0));
    auto* lane = ie ? llvm::dyn_cast<llvm::ConstantInt>(ie->getOperand(2)) : nullptr;
    return lane && lane->isZero() ? ie->getOperand(1) : nullptr;
  }

  const llvm::Loop& loop_;
  llvm::Instruction* at_ = nullptr;
  std::map<llvm::Value*, llvm::Value*> made_;
};

}  // namespace

size_t recomputeInvariantsInLoops(llvm::Function& f) {
  llvm::DominatorTree dt(f);
  llvm::LoopInfo li(dt);
  size_t changed = 0;
  std::vector<llvm::WeakTrackingVH> hoisted;  // (deleting one may delete another)
  for (llvm::Loop* loop : li.getLoopsInPreorder()) {
    if (!loop->isInnermost()) continue;
    for (llvm::BasicBlock* bb : loop->blocks()) {
      // Before the first use in the block (what is live at once stays few where nothing reorders the
      // block); later uses in the block share it.
      Recomputer again(*loop);
      for (llvm::Instruction& i : *bb) {
        if (llvm::isa<llvm::PHINode>(i)) continue;
        again.insertBefore(&i);
        for (llvm::Use& u : i.operands()) {
          llvm::Value* v = again.value(u.get());
          if (v == u.get()) continue;
          if (auto* old = llvm::dyn_cast<llvm::Instruction>(u.get())) hoisted.push_back(old);
          u.set(v);
          ++changed;
        }
      }
    }
  }
  for (llvm::WeakTrackingVH& old : hoisted)
    if (old) llvm::RecursivelyDeleteTriviallyDeadInstructions(old);
  return changed;
}

}  // namespace tpc::cc
