// Coordinates of unrolled single-block loops as induction variables of their own (LLVM IR, after
// unrolling, before hardware loops are formed).
//
// An unrolled streaming loop computes each copy's coordinates from the loop's induction variable:
//
//     c_k = insertelement(c, col + 64*k, 0)          (col advances by 64*U per iteration)
//
// which costs scalar-slot work per copy and ties every copy to col. Instead each c_k becomes an int5
// PHI that starts at insertelement(c_entry, col_entry + 64*k, 0) in the preheader and advances by
// <64*U, 0, 0, 0, 0> with one index-register add per iteration (the step vector is made once in the
// preheader). The loop's own int5 PHI c, when its back-edge value only rewrites lane 0, keeps lanes 1..4
// from entry, so insertions into its lane 0 may start from its entry value instead, which makes c
// loop-invariant for the purpose above.
#include <map>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include "tpc/cc/codegen.h"

namespace tpc::cc {

namespace {

bool intoLaneZero(const llvm::InsertElementInst* ie) {
  auto* k = llvm::dyn_cast<llvm::ConstantInt>(ie->getOperand(2));
  return k && k->isZero();
}

// Lane-0 insertions overwrite lane 0 entirely: the vector underneath a chain of them.
llvm::Value* underLaneZero(llvm::Value* v) {
  while (auto* ie = llvm::dyn_cast<llvm::InsertElementInst>(v)) {
    if (!intoLaneZero(ie)) break;
    v = ie->getOperand(0);
  }
  return v;
}

std::pair<llvm::Value*, int64_t> baseAndConstant(llvm::Value* x) {
  int64_t c = 0;
  while (auto* add = llvm::dyn_cast<llvm::BinaryOperator>(x)) {
    if (add->getOpcode() != llvm::Instruction::Add) break;
    auto* k = llvm::dyn_cast<llvm::ConstantInt>(add->getOperand(1));
    if (!k) break;
    c += k->getSExtValue();
    x = add->getOperand(0);
  }
  return {x, c};
}

bool isInt5(llvm::Type* t) {
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(t);
  return vt && vt->getNumElements() == 5 && vt->getElementType()->isIntegerTy(32);
}

void reduceLoop(llvm::Loop* loop) {
  llvm::BasicBlock* header = loop->getHeader();
  llvm::BasicBlock* pre = loop->getLoopPreheader();
  llvm::BasicBlock* latch = loop->getLoopLatch();
  if (!pre || !latch || loop->getExitingBlock() != header) return;
  if (latch != header && (loop->getNumBlocks() != 2 || latch->size() != 1)) return;

  // 1. int5 PHIs whose back-edge value only rewrites lane 0.
  for (llvm::PHINode& phi : header->phis()) {
    if (!isInt5(phi.getType()) || underLaneZero(phi.getIncomingValueForBlock(latch)) != &phi) continue;
    llvm::Value* entry = phi.getIncomingValueForBlock(pre);
    for (llvm::Use& u : llvm::make_early_inc_range(phi.uses())) {
      auto* ie = llvm::dyn_cast<llvm::InsertElementInst>(u.getUser());
      if (ie && u.getOperandNo() == 0 && ie->getParent() == header && intoLaneZero(ie)) u.set(entry);
    }
  }

  // 2. Candidates: lane-0 insertions of (induction variable + constant) over a loop-invariant vector.
  struct Candidate {
    llvm::InsertElementInst* ie;
    llvm::Value* base;
    llvm::PHINode* iv;
    int64_t offset, step;
  };
  std::vector<Candidate> found;
  for (llvm::Instruction& inst : *header) {
    auto* ie = llvm::dyn_cast<llvm::InsertElementInst>(&inst);
    if (!ie || !isInt5(ie->getType()) || !intoLaneZero(ie)) continue;
    llvm::Value* base = underLaneZero(ie->getOperand(0));
    if (!loop->isLoopInvariant(base)) continue;
    auto [x, offset] = baseAndConstant(ie->getOperand(1));
    auto* iv = llvm::dyn_cast<llvm::PHINode>(x);
    if (!iv || iv->getParent() != header) continue;
    auto [from, step] = baseAndConstant(iv->getIncomingValueForBlock(latch));
    if (from != iv || !step) continue;
    // Users after the loop get the last value back from the next one; only where that is simple.
    bool simple = true;
    for (llvm::Use& u : ie->uses()) {
      auto* phi = llvm::dyn_cast<llvm::PHINode>(u.getUser());
      if (phi && !loop->contains(phi) && loop->contains(phi->getIncomingBlock(u)) &&
          !phi->getParent()->getSinglePredecessor())
        simple = false;
    }
    if (simple) found.push_back({ie, base, iv, offset, step});
  }
  // Each one holds an index register through the loop: leave room for the rest of the kernel.
  if (found.empty() || found.size() > 20) return;

  llvm::LLVMContext& ctx = header->getContext();
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  auto* int5 = llvm::FixedVectorType::get(i32, 5);
  std::map<int64_t, llvm::Value*> stepVectors;
  for (const Candidate& c : found) {
    llvm::Instruction* preEnd = pre->getTerminator();
    // The step vector, once per step: an instruction (not a folded constant), so that selection makes
    // it in the preheader rather than in the loop.
    llvm::Value*& stepVec = stepVectors[c.step];
    if (!stepVec)
      stepVec = llvm::InsertElementInst::Create(llvm::Constant::getNullValue(int5), llvm::ConstantInt::get(i32, c.step),
                                                llvm::ConstantInt::get(i32, 0), "coord.step", preEnd);
    llvm::IRBuilder<> pb(preEnd);
    llvm::Value* first = pb.CreateAdd(c.iv->getIncomingValueForBlock(pre), llvm::ConstantInt::get(c.iv->getType(), c.offset));
    if (first->getType() != i32) first = pb.CreateSExtOrTrunc(first, i32);
    llvm::Value* start = pb.CreateInsertElement(c.base, first, llvm::ConstantInt::get(i32, 0), "coord.start");
    llvm::PHINode* phi = llvm::PHINode::Create(int5, 2, "coord", header->getFirstNonPHIIt());
    llvm::IRBuilder<> lb(header->getTerminator());
    llvm::Value* next = lb.CreateAdd(phi, stepVec, "coord.next");
    phi->addIncoming(start, pre);
    phi->addIncoming(next, latch);
    // After the loop: the last iteration's value is the next one minus the step.
    for (llvm::Use& u : llvm::make_early_inc_range(c.ie->uses())) {
      auto* ui = llvm::cast<llvm::Instruction>(u.getUser());
      if (loop->contains(ui)) {
        u.set(phi);
      } else if (auto* outPhi = llvm::dyn_cast<llvm::PHINode>(ui); outPhi && !loop->contains(outPhi->getIncomingBlock(u))) {
        llvm::IRBuilder<> eb(outPhi->getIncomingBlock(u)->getTerminator());
        u.set(eb.CreateSub(next, stepVec, "coord.last"));
      } else if (outPhi) {
        u.set(next);
        llvm::IRBuilder<> eb(&*outPhi->getParent()->getFirstInsertionPt());
        llvm::Value* last = eb.CreateSub(outPhi, stepVec, "coord.last");
        outPhi->replaceUsesWithIf(last, [&](llvm::Use& v) { return v.getUser() != last; });
      } else {
        llvm::IRBuilder<> ob(ui);
        u.set(ob.CreateSub(next, stepVec, "coord.last"));
      }
    }
    c.ie->eraseFromParent();
  }
  // The loop's own int5 PHIs may be left without users.
  for (llvm::PHINode& phi : llvm::make_early_inc_range(header->phis()))
    if (isInt5(phi.getType()) && phi.use_empty()) phi.eraseFromParent();
}

}  // namespace

void reduceCoordinates(llvm::Function& f) {
  llvm::DominatorTree dt(f);
  llvm::LoopInfo li(dt);
  for (llvm::Loop* loop : li.getLoopsInPreorder())
    if (loop->isInnermost()) reduceLoop(loop);
}

}  // namespace tpc::cc
