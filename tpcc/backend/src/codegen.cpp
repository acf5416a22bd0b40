#include "tpc/cc/codegen.h"

#include <cstdio>

#include <fmt/format.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/OptimizationLevel.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Utils/BreakCriticalEdges.h>
#include <llvm/Transforms/Utils/Local.h>
#include <llvm/Transforms/Utils/LowerSwitch.h>
#include <llvm/Transforms/Utils/Mem2Reg.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/LICM.h>
#include <llvm/Transforms/Scalar/SimpleLoopUnswitch.h>
#include <llvm/Transforms/Scalar/LoopPassManager.h>
#include <llvm/Transforms/Scalar/LoopUnrollPass.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>

#include "local_memory_aa.h"
#include "tpc/cc/passes.h"
#include "tpc/isa/intrinsics.h"

namespace tpc::cc {

llvm::Function* findEntry(llvm::Module& module) {
  if (llvm::Function* f = module.getFunction("main"); f && !f->isDeclaration()) return f;
  for (llvm::Function& f : module)
    if (!f.isDeclaration() && f.getName().starts_with("_Z4main")) return &f;
  return nullptr;
}

namespace {

// The trip count of a loop that counts from 0 by a power of two S until its counter reaches X (`i + S != X`
// continues): X / S. LLVM's unrolled loops and their remainders count so (to `unroll_iter`, a multiple of
// the unroll count, and to `xtraiter`); from the backedge-taken count, SCEV gives ((X - S) /u S) + 1 for
// the first (it cannot know that X >= S where the loop is entered) and i4 arithmetic for the second, both
// longer chains of scalar instructions in the preheader. Null when the loop does not count so, or X is
// not known to be a multiple of S; else X, and in `shift` the shift that divides it by S.
llvm::Value* countedTripCount(llvm::Loop* loop, llvm::ScalarEvolution& se, unsigned* shift) {
  llvm::BasicBlock* header = loop->getHeader();
  llvm::BasicBlock* latch = loop->getLoopLatch();
  auto* br = llvm::dyn_cast<llvm::BranchInst>(header->getTerminator());
  auto* cmp = br && br->isConditional() ? llvm::dyn_cast<llvm::ICmpInst>(br->getCondition()) : nullptr;
  if (!cmp || !cmp->isEquality()) return nullptr;
  // Continues while not equal: `ne` branching into the loop, or `eq` branching out of it.
  const bool continuesOnTrue = loop->contains(br->getSuccessor(0));
  if ((cmp->getPredicate() == llvm::ICmpInst::ICMP_NE) != continuesOnTrue) return nullptr;
  for (unsigned k = 0; k < 2; ++k) {
    auto* next = llvm::dyn_cast<llvm::BinaryOperator>(cmp->getOperand(k));
    llvm::Value* limit = cmp->getOperand(1 - k);
    if (!next || next->getOpcode() != llvm::Instruction::Add || !loop->isLoopInvariant(limit)) continue;
    auto* iv = llvm::dyn_cast<llvm::PHINode>(next->getOperand(0));
    auto* step = llvm::dyn_cast<llvm::ConstantInt>(next->getOperand(1));
    if (!iv || !step || iv->getParent() != header || iv->getIncomingValueForBlock(latch) != next) continue;
    auto* start = llvm::dyn_cast<llvm::ConstantInt>(iv->getIncomingValueForBlock(loop->getLoopPreheader()));
    if (!start || !start->isZero() || !step->getValue().isPowerOf2()) continue;
    *shift = step->getValue().logBase2();
    if (se.getMinTrailingZeros(se.getSCEV(limit)) < *shift || !limit->getType()->isIntegerTy(32)) continue;
    return limit;
  }
  return nullptr;
}

// Scalar induction values used after the loop (an unrolled loop's counter, which its remainder loop
// continues from) are computed after it from the trip count instead, so that nothing in the loop keeps
// updating them: the hardware loop counts by itself. Only with a dedicated exit block (critical edges
// are split), where the value can be computed once. `trips`: the trip count, when countedTripCount knew
// it better than scalar evolution's backedge-taken count does.
void rewriteExitValues(llvm::Loop* loop, llvm::BasicBlock* exit, llvm::ScalarEvolution& se,
                       llvm::SCEVExpander& expander, const llvm::SCEV* trips) {
  llvm::BasicBlock* header = loop->getHeader();
  if (exit->getSinglePredecessor() != header) return;
  for (llvm::Instruction& inst : llvm::make_early_inc_range(*header)) {
    if (!inst.getType()->isIntegerTy(32) || llvm::isa<llvm::PHINode>(inst)) continue;
    std::vector<llvm::Use*> outside;
    for (llvm::Use& u : inst.uses())
      if (!loop->contains(llvm::cast<llvm::Instruction>(u.getUser()))) outside.push_back(&u);
    if (outside.empty()) continue;
    auto* rec = llvm::dyn_cast<llvm::SCEVAddRecExpr>(se.getSCEV(&inst));
    if (!rec || rec->getLoop() != loop || !rec->isAffine()) continue;
    const llvm::SCEV* last =
        trips ? rec->evaluateAtIteration(se.getMinusSCEV(se.getTruncateOrZeroExtend(trips, rec->getType()),
                                                         se.getOne(rec->getType())), se)
              : se.getSCEVAtScope(rec, loop->getParentLoop());
    if (llvm::isa<llvm::SCEVCouldNotCompute>(last) || !se.isLoopInvariant(last, loop)) continue;
    llvm::Value* v = expander.expandCodeFor(last, inst.getType(), &*exit->getFirstInsertionPt());
    for (llvm::Use* u : outside) {
      // The exit block's single-entry PHIs take the value itself.
      if (auto* phi = llvm::dyn_cast<llvm::PHINode>(u->getUser()); phi && phi->getParent() == exit) {
        phi->replaceAllUsesWith(v);
        continue;
      }
      u->set(v);
    }
  }
  for (llvm::PHINode& phi : llvm::make_early_inc_range(exit->phis()))
    if (phi.use_empty()) phi.eraseFromParent();
}

// Marks innermost loops that a hardware `loop` can run: a single block (plus the empty block the back
// edge was split into), one exit from that block, a trip count SCEV can compute, and no loop-header value
// used after the loop. The trip count is computed in the preheader and handed to a marker call that
// instruction selection turns into the `loop` instruction; the body follows the preheader in the layout
// and the exit follows the body.
void formHardwareLoops(llvm::Function& f) {
  llvm::DominatorTree dt(f);
  llvm::LoopInfo li(dt);
  llvm::TargetLibraryInfoImpl tlii(llvm::Triple(f.getParent()->getTargetTriple()));
  llvm::TargetLibraryInfo tli(tlii);
  llvm::AssumptionCache ac(f);
  llvm::ScalarEvolution se(f, tli, ac, dt, li);
  llvm::LLVMContext& ctx = f.getContext();
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::FunctionCallee marker =
      f.getParent()->getOrInsertFunction(kHardwareLoopMarker, llvm::Type::getVoidTy(ctx), i32);
  for (llvm::Loop* loop : li.getLoopsInPreorder()) {
    if (!loop->isInnermost()) continue;
    llvm::BasicBlock* header = loop->getHeader();
    llvm::BasicBlock* pre = loop->getLoopPreheader();
    llvm::BasicBlock* latch = loop->getLoopLatch();
    llvm::BasicBlock* exit = loop->getExitBlock();
    if (!pre || !latch || !exit || loop->getExitingBlock() != header) continue;
    if (latch != header && (loop->getNumBlocks() != 2 || latch->size() != 1)) continue;
    auto* br = llvm::dyn_cast<llvm::BranchInst>(header->getTerminator());
    if (!br || !br->isConditional()) continue;
    // A PHI's register is overwritten by the back-edge copies at the end of each iteration, so its value
    // after the loop would be the next iteration's; other values keep the last iteration's.
    bool phiUsedOutside = false;
    for (llvm::PHINode& phi : header->phis())
      for (llvm::User* u : phi.users())
        if (auto* ui = llvm::dyn_cast<llvm::Instruction>(u); ui && !loop->contains(ui)) phiUsedOutside = true;
    if (phiUsedOutside) continue;
    const llvm::SCEV* taken = se.getBackedgeTakenCount(loop);
    if (std::getenv("TPC_DEBUG_HWLOOP")) {
      llvm::errs() << "hwloop candidate " << header->getName() << ": backedge-taken count ";
      taken->print(llvm::errs());
      llvm::errs() << "\n";
    }
    unsigned shift = 0;
    llvm::Value* limit = countedTripCount(loop, se, &shift);
    if (!limit && (llvm::isa<llvm::SCEVCouldNotCompute>(taken) || se.getTypeSizeInBits(taken->getType()) > 32)) continue;
    llvm::SCEVExpander expander(se, f.getParent()->getDataLayout(), "tpc.trips");
    llvm::IRBuilder<> b(pre->getTerminator());
    llvm::Value* count =
        limit ? (shift ? b.CreateLShr(limit, shift, "tpc.trips", /*isExact=*/true) : limit)
              : expander.expandCodeFor(se.getAddExpr(se.getTruncateOrZeroExtend(taken, i32), se.getOne(i32)), i32,
                                       pre->getTerminator());
    b.CreateCall(marker, {count});
    rewriteExitValues(loop, exit, se, expander, limit ? se.getSCEV(count) : nullptr);
    header->moveAfter(pre);
    exit->moveAfter(header);
  }
}

}  // namespace

// InstCombine folds `load T; splat to <64 x T>` into `load <k x T>; splat lane 0 of it`: a vector the
// core has no register for (a __local__ scalar array read once, say). Back to the scalar load and a splat.
static void scalarizeSplatLoads(llvm::Function& f) {
  std::vector<llvm::LoadInst*> loads;
  for (llvm::BasicBlock& bb : f)
    for (llvm::Instruction& i : bb)
      if (auto* ld = llvm::dyn_cast<llvm::LoadInst>(&i); ld && llvm::isa<llvm::FixedVectorType>(ld->getType()))
        loads.push_back(ld);
  for (llvm::LoadInst* ld : loads) {
    auto splatOfLaneZero = [&](llvm::User* u) {
      auto* sv = llvm::dyn_cast<llvm::ShuffleVectorInst>(u);
      if (!sv || sv->getOperand(0) != ld) return false;
      for (int m : sv->getShuffleMask())
        if (m > 0) return false;  // lane 0, or poison
      return true;
    };
    if (ld->use_empty() || !llvm::all_of(ld->users(), splatOfLaneZero)) continue;
    auto* elementType = llvm::cast<llvm::FixedVectorType>(ld->getType())->getElementType();
    llvm::IRBuilder<> b(ld);
    llvm::LoadInst* scalar = b.CreateAlignedLoad(elementType, ld->getPointerOperand(), ld->getAlign(), ld->isVolatile());
    scalar->setDebugLoc(ld->getDebugLoc());
    for (llvm::User* u : llvm::make_early_inc_range(ld->users())) {
      auto* sv = llvm::cast<llvm::ShuffleVectorInst>(u);
      llvm::IRBuilder<> sb(sv);
      unsigned lanes = llvm::cast<llvm::FixedVectorType>(sv->getType())->getNumElements();
      sv->replaceAllUsesWith(sb.CreateVectorSplat(lanes, scalar));
      sv->eraseFromParent();
    }
    ld->eraseFromParent();
  }
}

// Splats in the one form instruction selection folds: shufflevector(insertelement(poison, s, 0), zeroes).
// InstCombine moves bitcasts and operations with constants between the insert and the shuffle (a float
// splat read as integers, splat(x) + 1), and a lane-wise cast of a splat is a splat of the cast scalar:
// all become a splat of a scalar computation, so a broadcast reaches every use as a scalar operand or
// one move.
// Lane 0 of v as a scalar computed at b, when v is built lane-wise from an insert into lane 0: the insert's
// scalar, through bitcasts that keep the lane count and binary operations whose other operand is a
// constant or also such a vector. Null otherwise.
static llvm::Value* laneZero(llvm::Value* v, llvm::IRBuilder<>& b) {
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(v->getType());
  if (!vt) return nullptr;
  if (auto* ie = llvm::dyn_cast<llvm::InsertElementInst>(v)) {
    auto* lane = llvm::dyn_cast<llvm::ConstantInt>(ie->getOperand(2));
    return lane && lane->isZero() ? ie->getOperand(1) : nullptr;
  }
  if (auto* c = llvm::dyn_cast<llvm::Constant>(v)) {
    llvm::Constant* e = c->getAggregateElement(0u);
    return e && !llvm::isa<llvm::UndefValue>(e) ? e : nullptr;
  }
  if (auto* bc = llvm::dyn_cast<llvm::BitCastInst>(v)) {
    auto* from = llvm::dyn_cast<llvm::FixedVectorType>(bc->getOperand(0)->getType());
    if (!from || from->getNumElements() != vt->getNumElements()) return nullptr;
    llvm::Value* s = laneZero(bc->getOperand(0), b);
    return s ? b.CreateBitCast(s, vt->getElementType()) : nullptr;
  }
  if (auto* bo = llvm::dyn_cast<llvm::BinaryOperator>(v)) {
    llvm::Value* l = laneZero(bo->getOperand(0), b);
    llvm::Value* r = l ? laneZero(bo->getOperand(1), b) : nullptr;
    return r ? b.CreateBinOp(bo->getOpcode(), l, r) : nullptr;
  }
  return nullptr;
}

// v (narrow lanes) rebuilt so that every group of r lanes equals its first: the bitcast of an insert into
// lane 0 of a vector with r narrow lanes per lane becomes the bitcast of that lane's splat, a constant
// repeats its first r lanes, and a binary operation is rebuilt from its rebuilt operands. Null where v is
// anything else. New instructions go before `at`.
static llvm::Value* periodicNarrowLanes(llvm::Value* v, unsigned r, llvm::Instruction* at) {
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(v->getType());
  if (!vt || vt->getNumElements() % r != 0) return nullptr;
  if (auto* c = llvm::dyn_cast<llvm::Constant>(v)) {
    std::vector<llvm::Constant*> lanes;
    for (unsigned k = 0; k < vt->getNumElements(); ++k) {
      llvm::Constant* e = c->getAggregateElement(k % r);
      if (!e) return nullptr;
      lanes.push_back(e);
    }
    return llvm::ConstantVector::get(lanes);
  }
  llvm::IRBuilder<> b(at);
  if (auto* bc = llvm::dyn_cast<llvm::BitCastInst>(v)) {
    auto* wide = llvm::dyn_cast<llvm::FixedVectorType>(bc->getOperand(0)->getType());
    auto* ie = llvm::dyn_cast<llvm::InsertElementInst>(bc->getOperand(0));
    auto* lane = ie ? llvm::dyn_cast<llvm::ConstantInt>(ie->getOperand(2)) : nullptr;
    if (!wide || wide->getNumElements() * r != vt->getNumElements() || !lane || !lane->isZero()) return nullptr;
    return b.CreateBitCast(b.CreateVectorSplat(wide->getNumElements(), ie->getOperand(1)), vt);
  }
  if (auto* bo = llvm::dyn_cast<llvm::BinaryOperator>(v)) {
    llvm::Value* l = periodicNarrowLanes(bo->getOperand(0), r, at);
    llvm::Value* rr = l ? periodicNarrowLanes(bo->getOperand(1), r, at) : nullptr;
    return rr ? b.CreateBinOp(bo->getOpcode(), l, rr) : nullptr;
  }
  return nullptr;
}

// The source of a shuffle that repeats its first r lanes (r > 1, mask[k] = k % r or undefined), rebuilt
// periodic (periodicNarrowLanes), when it can be: a replacement for the shuffle. Null otherwise.
static llvm::Value* repeatShuffleSource(llvm::ShuffleVectorInst* sv) {
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(sv->getType());
  auto* from = llvm::dyn_cast<llvm::FixedVectorType>(sv->getOperand(0)->getType());
  if (!vt || vt != from) return nullptr;
  const llvm::ArrayRef<int> mask = sv->getShuffleMask();
  for (unsigned r = 2; r <= 8; r *= 2) {
    bool repeats = vt->getNumElements() % r == 0;
    for (size_t k = 0; repeats && k < mask.size(); ++k) repeats = mask[k] < 0 || mask[k] == static_cast<int>(k % r);
    if (repeats) return periodicNarrowLanes(sv->getOperand(0), r, sv);
  }
  return nullptr;
}

static void canonicalizeSplats(llvm::Function& f) {
  std::vector<llvm::Instruction*> work;
  for (llvm::BasicBlock& bb : f)
    for (llvm::Instruction& i : bb)
      if (llvm::isa<llvm::ShuffleVectorInst>(i) || llvm::isa<llvm::CastInst>(i)) work.push_back(&i);
  auto splatScalar = [](llvm::Value* v) -> llvm::Value* {
    auto* sv = llvm::dyn_cast<llvm::ShuffleVectorInst>(v);
    if (!sv || !llvm::all_of(sv->getShuffleMask(), [](int m) { return m <= 0; })) return nullptr;
    return llvm::getSplatValue(sv);
  };
  for (llvm::Instruction* i : work) {
    auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(i->getType());
    if (!vt) continue;
    llvm::Value* scalar = nullptr;
    if (auto* sv = llvm::dyn_cast<llvm::ShuffleVectorInst>(i)) {
      // A splat in wider lanes read as narrower ones (as_uchar256 of a run-time (uint64)x), perhaps with
      // lane-wise operations on the narrow lanes: InstCombine moves the splat's shuffle last, as one that
      // repeats the first r narrow lanes (one wide lane). Rebuilt with the splat first, every group of r
      // lanes is the same and the shuffle has nothing left to do.
      if (llvm::Value* periodic = repeatShuffleSource(sv)) {
        sv->replaceAllUsesWith(periodic);
        sv->eraseFromParent();
        continue;
      }
      // A splat of lane 0 of a vector computed lane-wise from an insert into lane 0 (InstCombine moves
      // bitcasts and operations with constants inside the splat): the splat of that computation in scalars.
      if (!llvm::all_of(sv->getShuffleMask(), [](int m) { return m <= 0; }) ||
          llvm::isa<llvm::InsertElementInst>(sv->getOperand(0)))
        continue;
      llvm::IRBuilder<> b(sv);
      scalar = laneZero(sv->getOperand(0), b);
      if (!scalar) continue;
    } else {
      auto* cast = llvm::cast<llvm::CastInst>(i);
      llvm::Value* s = splatScalar(cast->getOperand(0));
      auto* fromVt = llvm::dyn_cast<llvm::FixedVectorType>(cast->getOperand(0)->getType());
      if (!s || !fromVt || fromVt->getNumElements() != vt->getNumElements()) continue;
      llvm::IRBuilder<> b(cast);
      scalar = b.CreateCast(cast->getOpcode(), s, vt->getElementType());
    }
    llvm::IRBuilder<> b(i);
    llvm::Value* splat = b.CreateVectorSplat(vt->getNumElements(), scalar);
    if (auto* si = llvm::dyn_cast<llvm::Instruction>(scalar)) si->setDebugLoc(i->getDebugLoc());
    i->replaceAllUsesWith(splat);
    i->eraseFromParent();
  }
  // What the splats replaced, left without users.
  for (bool changed = true; changed;) {
    changed = false;
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& i : llvm::make_early_inc_range(bb))
        if (llvm::isInstructionTriviallyDead(&i)) {
          i.eraseFromParent();
          changed = true;
        }
  }
}

// `for (x = a; x < b; x += S)` with b - a a multiple of S (kernels step through dimension 0 from
// start[0] * 64 to end[0] * 64 by 64) reaches b exactly, so where the loop is entered only when a < b, its
// exit test may be `x + S != b`. Scalar evolution then counts (b - a) / S iterations instead of
// (max(b, a + S) - a - 1) / S + 1, which it must assume for `<` and which costs a chain of scalar
// instructions before each such loop (and in the unroller's and hardware loops' trip counts).
// x when v is `x << k` or `x * 2^k` without signed overflow, else null.
llvm::Value* unshifted(llvm::Value* v, unsigned k) {
  auto* op = llvm::dyn_cast<llvm::BinaryOperator>(v);
  auto* c = op ? llvm::dyn_cast<llvm::ConstantInt>(op->getOperand(1)) : nullptr;
  if (!c || !op->hasNoSignedWrap()) return nullptr;
  if (op->getOpcode() == llvm::Instruction::Shl && c->getZExtValue() == k) return op->getOperand(0);
  if (op->getOpcode() == llvm::Instruction::Mul && c->getValue().isPowerOf2() && c->getValue().logBase2() == k)
    return op->getOperand(0);
  return nullptr;
}

// A loop `for (x = a << k; x != b << k; x += 1 << k)` (start[0] * 64 to end[0] * 64 by 64) exits by a
// counter of its own, `v = a; v + 1 != b`: its trip count is then b - a, one subtraction, where scalar
// evolution otherwise computes ((b << k) - (a << k) - 2^k) >> k + 1 before the loop. x stays as it is.
void countInSteps(llvm::Loop* loop, llvm::ICmpInst* exitTest, unsigned k) {
  llvm::BasicBlock* header = loop->getHeader();
  llvm::BasicBlock* latch = loop->getLoopLatch();
  llvm::BasicBlock* entry = loop->getLoopPredecessor();
  auto* next = llvm::dyn_cast<llvm::BinaryOperator>(exitTest->getOperand(0));
  auto* iv = next ? llvm::dyn_cast<llvm::PHINode>(next->getOperand(0)) : nullptr;
  if (!iv || iv->getParent() != header || iv->getNumIncomingValues() != 2 || iv->getIncomingValueForBlock(latch) != next)
    return;
  llvm::Value* a = unshifted(iv->getIncomingValueForBlock(entry), k);
  llvm::Value* b = unshifted(exitTest->getOperand(1), k);
  if (!a || !b || a->getType() != b->getType()) return;
  llvm::PHINode* v = llvm::PHINode::Create(a->getType(), 2, "steps", header->getFirstNonPHIIt());
  llvm::IRBuilder<> builder(exitTest);
  llvm::Value* vNext = builder.CreateAdd(v, llvm::ConstantInt::get(a->getType(), 1), "steps.next", false, true);
  v->addIncoming(a, entry);
  v->addIncoming(vNext, latch);
  exitTest->setOperand(0, vNext);
  exitTest->setOperand(1, b);
}

void exitAtLimit(llvm::Function& f) {
  llvm::DominatorTree dt(f);
  llvm::LoopInfo li(dt);
  llvm::TargetLibraryInfoImpl tlii(llvm::Triple(f.getParent()->getTargetTriple()));
  llvm::TargetLibraryInfo tli(tlii);
  llvm::AssumptionCache ac(f);
  llvm::ScalarEvolution se(f, tli, ac, dt, li);
  for (llvm::Loop* loop : li.getLoopsInPreorder()) {
    llvm::BasicBlock* latch = loop->getLoopLatch();
    if (!latch || !loop->getLoopPredecessor() || loop->getExitingBlock() != latch) continue;
    auto* br = llvm::dyn_cast<llvm::BranchInst>(latch->getTerminator());
    auto* cmp = br && br->isConditional() ? llvm::dyn_cast<llvm::ICmpInst>(br->getCondition()) : nullptr;
    if (!cmp || !cmp->hasOneUse() || !loop->contains(br->getSuccessor(0))) continue;  // continues while true
    const llvm::ICmpInst::Predicate pred = cmp->getPredicate();
    if (pred != llvm::ICmpInst::ICMP_SLT && pred != llvm::ICmpInst::ICMP_ULT) continue;
    llvm::Value* limit = cmp->getOperand(1);
    auto* next = llvm::dyn_cast<llvm::SCEVAddRecExpr>(se.getSCEV(cmp->getOperand(0)));
    if (!loop->isLoopInvariant(limit) || !next || next->getLoop() != loop || !next->isAffine()) continue;
    auto* step = llvm::dyn_cast<llvm::SCEVConstant>(next->getStepRecurrence(se));
    if (!step || !step->getAPInt().isStrictlyPositive() || !step->getAPInt().isPowerOf2()) continue;
    const llvm::SCEV* first = se.getMinusSCEV(next->getStart(), step);  // the value of the first iteration
    const llvm::SCEV* end = se.getSCEV(limit);
    if (se.getMinTrailingZeros(se.getMinusSCEV(end, first)) < step->getAPInt().logBase2()) continue;
    if (!se.isLoopEntryGuardedByCond(loop, pred, first, end)) continue;
    cmp->setPredicate(llvm::ICmpInst::ICMP_NE);
    countInSteps(loop, cmp, step->getAPInt().logBase2());
    se.forgetLoop(loop);
  }
}

// Instructions an unrolled loop body may hold: unrolling amortizes a short body's loop overhead and
// gives the scheduler independent work, but a long body has both already (modulo scheduling overlaps its
// iterations), and copies of it only grow the code (kernels are loaded whole into the core's memory).
constexpr unsigned kUnrolledBodyBudget = 192;

// An induction variable that only counts iterations for the exit test (countInSteps's), its PHI or its
// increment: a hardware loop does that by itself, so it is not part of the body the budget is about.
bool isLoopControl(const llvm::Instruction& in, const llvm::Loop* loop) {
  auto onlyControl = [&](const llvm::Instruction& i) {
    return !i.use_empty() && llvm::all_of(i.users(), [&](const llvm::User* u) {
      auto* ui = llvm::dyn_cast<llvm::Instruction>(u);
      return ui && loop->contains(ui) && (llvm::isa<llvm::PHINode>(ui) || llvm::isa<llvm::ICmpInst>(ui) ||
                                          llvm::isa<llvm::BinaryOperator>(ui));
    });
  };
  if (!in.getType()->isIntegerTy() || (!llvm::isa<llvm::PHINode>(in) && !llvm::isa<llvm::BinaryOperator>(in)))
    return false;
  if (!onlyControl(in)) return false;
  // The PHI feeds only its increment, and the increment only the PHI and the exit test.
  for (const llvm::User* u : in.users())
    if (auto* ui = llvm::dyn_cast<llvm::Instruction>(u); ui && !llvm::isa<llvm::ICmpInst>(ui) && !onlyControl(*ui))
      return false;
  return true;
}

// Asks LLVM's unroller to unroll innermost loops `count` times, or fewer when the copies would exceed the
// budget, unless the source says otherwise.
void requestUnrolling(llvm::Function& f, unsigned count) {
  llvm::DominatorTree dt(f);
  llvm::LoopInfo li(dt);
  llvm::LLVMContext& ctx = f.getContext();
  for (llvm::Loop* loop : li.getLoopsInPreorder()) {
    if (!loop->isInnermost()) continue;
    if (llvm::findOptionMDForLoop(loop, "llvm.loop.unroll.count") || llvm::findOptionMDForLoop(loop, "llvm.loop.unroll.disable") ||
        llvm::findOptionMDForLoop(loop, "llvm.loop.unroll.full") || llvm::findOptionMDForLoop(loop, "llvm.loop.unroll.enable"))
      continue;
    unsigned size = 0;
    for (llvm::BasicBlock* b : loop->blocks())
      for (llvm::Instruction& in : *b)
        if (!isLoopControl(in, loop)) ++size;
    unsigned copies = count;
    while (copies > 1 && copies * size > kUnrolledBodyBudget) copies /= 2;
    if (copies <= 1) continue;
    llvm::SmallVector<llvm::Metadata*, 4> ops;
    ops.push_back(nullptr);  // self reference
    if (llvm::MDNode* id = loop->getLoopID())
      for (unsigned k = 1; k < id->getNumOperands(); ++k) ops.push_back(id->getOperand(k));
    ops.push_back(llvm::MDNode::get(ctx, {llvm::MDString::get(ctx, "llvm.loop.unroll.count"),
                                          llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), copies))}));
    llvm::MDNode* id = llvm::MDNode::getDistinct(ctx, ops);
    id->replaceOperandWith(0, id);
    loop->setLoopID(id);
  }
}

// The unroller's remainder goes after the unrolled loop (an epilogue), whose exit then counts iterations:
// a trip count scalar evolution computes, so the loop can become a hardware loop.
void preferUnrollEpilogue() {
  static bool done = [] {
    auto& options = llvm::cl::getRegisteredOptions();
    // As if given on the command line: the unroller consults the option only when it occurred.
    if (auto it = options.find("unroll-runtime-epilog"); it != options.end())
      it->second->addOccurrence(1, "unroll-runtime-epilog", "true");
    return true;
  }();
  (void)done;
}

// An instruction's source position (before inlining: the position in the function it belongs to).
static SourceLoc sourceLoc(const llvm::Instruction& in) {
  const llvm::DILocation* l = in.getDebugLoc().get();
  return l ? SourceLoc{l->getLine(), l->getColumn()} : SourceLoc{};
}

// Clang's ABI passes a pair (float128, ...) argument `byval`, as a pointer to a copy in local memory. The
// builtins (__tpc_<name>) take pairs by value instead: the members are loaded before the call, so that SROA
// keeps pairs in registers and selection sees an aggregate value of two vector registers.
static void passPairsByValue(llvm::Module& module) {
  std::vector<llvm::Function*> builtins;
  for (llvm::Function& f : module)
    if (f.isDeclaration() && f.getName().starts_with("__tpc_"))
      for (llvm::Argument& a : f.args())
        if (a.hasByValAttr()) {
          builtins.push_back(&f);
          break;
        }
  for (llvm::Function* old : builtins) {
    std::vector<llvm::Type*> params;
    for (llvm::Argument& a : old->args()) params.push_back(a.hasByValAttr() ? a.getParamByValType() : a.getType());
    auto* type = llvm::FunctionType::get(old->getReturnType(), params, false);
    llvm::Function* f = llvm::Function::Create(type, old->getLinkage(), "", module);
    f->takeName(old);
    f->setAttributes(llvm::AttributeList::get(module.getContext(), old->getAttributes().getFnAttrs(), {}, {}));
    std::vector<llvm::CallInst*> calls;
    for (llvm::User* u : old->users()) {
      auto* call = llvm::dyn_cast<llvm::CallInst>(u);
      if (!call || call->getCalledFunction() != old)
        throw CodegenError(fmt::format("'{}' is used other than called", f->getName().str()),
                           llvm::isa<llvm::Instruction>(u) ? sourceLoc(*llvm::cast<llvm::Instruction>(u)) : SourceLoc{});
      calls.push_back(call);
    }
    for (llvm::CallInst* call : calls) {
      llvm::IRBuilder<> b(call);
      std::vector<llvm::Value*> args;
      for (unsigned k = 0; k < call->arg_size(); ++k) {
        llvm::Value* v = call->getArgOperand(k);
        llvm::Argument* a = old->getArg(k);
        if (a->hasByValAttr()) {
          auto* st = llvm::dyn_cast<llvm::StructType>(a->getParamByValType());
          if (!st) throw CodegenError(fmt::format("'{}': a by-value argument that is not a pair", f->getName().str()),
                                      sourceLoc(*call));
          llvm::Value* agg = llvm::PoisonValue::get(st);
          for (unsigned e = 0; e < st->getNumElements(); ++e) {
            llvm::Value* at = b.CreateStructGEP(st, v, e);
            agg = b.CreateInsertValue(agg, b.CreateLoad(st->getElementType(e), at), e);
          }
          v = agg;
        }
        args.push_back(v);
      }
      llvm::CallInst* repl = b.CreateCall(f, args);
      repl->setDebugLoc(call->getDebugLoc());
      repl->takeName(call);
      call->replaceAllUsesWith(repl);
      call->eraseFromParent();
    }
    old->eraseFromParent();
  }
}

// memset and memcpy of a constant size (aggregate initializations and copies: `int5 c[6] = {0};`) as stores
// and loads, which SROA can promote and the backend selects; at -O1 and up InstCombine does this, at -O0
// (SROA and mem2reg only) this does. A whole local variable is stored and loaded as its own type (vectors
// stay vectors, and a copy of a constant initializer stores the constant: the core has no memory for
// Clang's constant globals); other small ranges without vectors word by word.
static void expandMemoryIntrinsics(llvm::Module& module) {
  const llvm::DataLayout& dl = module.getDataLayout();
  std::vector<llvm::MemIntrinsic*> found;
  for (llvm::Function& f : module)
    for (llvm::Instruction& i : llvm::instructions(f))
      if (auto* mi = llvm::dyn_cast<llvm::MemIntrinsic>(&i); mi && !mi->isVolatile() && llvm::isa<llvm::ConstantInt>(mi->getLength()))
        if (llvm::isa<llvm::MemCpyInst>(mi) || (llvm::isa<llvm::MemSetInst>(mi) && llvm::isa<llvm::ConstantInt>(llvm::cast<llvm::MemSetInst>(mi)->getValue())))
          found.push_back(mi);
  for (llvm::MemIntrinsic* mi : found) {
    const uint64_t n = llvm::cast<llvm::ConstantInt>(mi->getLength())->getZExtValue();
    auto* set = llvm::dyn_cast<llvm::MemSetInst>(mi);
    const uint64_t byte = set ? llvm::cast<llvm::ConstantInt>(set->getValue())->getZExtValue() & 0xff : 0;
    llvm::IRBuilder<> b(mi);
    auto* whole = llvm::dyn_cast<llvm::AllocaInst>(mi->getDest()->stripPointerCasts());
    if (whole && dl.getTypeAllocSize(whole->getAllocatedType()) == n && (!set || byte == 0)) {
      llvm::Type* t = whole->getAllocatedType();
      llvm::Value* src = set ? nullptr : llvm::cast<llvm::MemCpyInst>(mi)->getSource();
      auto* constant = llvm::dyn_cast_or_null<llvm::GlobalVariable>(src ? src->stripPointerCasts() : nullptr);
      llvm::Value* v = set ? llvm::Constant::getNullValue(t)
                       : constant && constant->isConstant() && constant->hasDefinitiveInitializer() &&
                               constant->getValueType() == t
                           ? static_cast<llvm::Value*>(constant->getInitializer())  // a constant initializer
                           : static_cast<llvm::Value*>(b.CreateLoad(t, src));
      b.CreateStore(v, whole);
    } else if (n < 256) {
      llvm::Type* i8 = b.getInt8Ty();
      auto at = [&](llvm::Value* base, uint64_t offset) { return b.CreateConstInBoundsGEP1_64(i8, base, offset); };
      for (uint64_t off = 0; off < n;) {
        const uint64_t step = n - off >= 4 ? 4 : 1;
        llvm::Type* t = step == 4 ? b.getInt32Ty() : i8;
        llvm::Value* v = set ? static_cast<llvm::Value*>(llvm::ConstantInt::get(t, step == 4 ? byte * 0x01010101u : byte))
                             : b.CreateAlignedLoad(t, at(llvm::cast<llvm::MemCpyInst>(mi)->getSource(), off), llvm::Align(1));
        b.CreateAlignedStore(v, at(mi->getDest(), off), llvm::Align(1));
        off += step;
      }
    } else {
      continue;
    }
    mi->eraseFromParent();
  }
}

namespace {

// PHIs whose incoming values are all one value (the loop-closed SSA form LICM leaves at loop exits): that
// value. Each would be a copy after the loop, and a copy of a loop's induction value keeps it from
// sharing a register with the PHI it feeds (one more instruction per iteration).
void removeSingleValuePhis(llvm::Function& f) {
  for (llvm::BasicBlock& bb : f)
    for (llvm::PHINode& phi : llvm::make_early_inc_range(bb.phis()))
      if (llvm::Value* v = phi.getNumIncomingValues() ? phi.getIncomingValue(0) : nullptr;
          v && v != &phi && llvm::all_of(phi.incoming_values(), [&](llvm::Value* in) { return in == v; })) {
        phi.replaceAllUsesWith(v);
        phi.eraseFromParent();
      }
}

// Copies every instruction's source position into kSourcePositionMetadata. Instructions of the implicit
// headers get none: an error in their code points at the user's call, which their debug location
// says (inlinedAt) while they keep it, and their users' positions otherwise.
void keepSourcePositions(llvm::Module& module) {
  llvm::LLVMContext& ctx = module.getContext();
  const unsigned kind = ctx.getMDKindID(kSourcePositionMetadata);
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  for (llvm::Function& f : module)
    for (llvm::Instruction& in : llvm::instructions(f)) {
      const llvm::DILocation* l = in.getDebugLoc().get();
      if (!l || !l->getLine() || l->getFilename().starts_with(kImplicitHeaderDir)) continue;
      in.setMetadata(kind, llvm::MDNode::get(ctx, {llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i32, l->getLine())),
                                                   llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i32, l->getColumn()))}));
    }
}

// dispatchTensorChoices on the kernel entry, as a pass of the pipeline (before switches are lowered and
// critical edges split, since it adds branches).
struct TensorChoicesPass : llvm::PassInfoMixin<TensorChoicesPass> {
  TensorChoicesPass(const llvm::Function* entry, const KernelSignature* signature) : entry(entry), signature(signature) {}
  const llvm::Function* entry;
  const KernelSignature* signature;
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager&) {
    if (&f != entry) return llvm::PreservedAnalyses::all();
    dispatchTensorChoices(f, *signature);
    return llvm::PreservedAnalyses::none();
  }
};

}  // namespace

void optimizeModule(llvm::Module& module, const KernelSignature& signature, int optLevel, int unrollCount,
                    bool coordinateIvs, bool hoistSteps) {
  preferUnrollEpilogue();
  keepSourcePositions(module);
  passPairsByValue(module);
  llvm::Function* entry = findEntry(module);
  // Helper functions exist only inlined into the kernel.
  for (llvm::Function& f : module) {
    if (f.isDeclaration() || &f == entry) continue;
    f.removeFnAttr(llvm::Attribute::NoInline);
    f.removeFnAttr(llvm::Attribute::OptimizeNone);
    f.addFnAttr(llvm::Attribute::AlwaysInline);
    f.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  if (entry) {
    entry->removeFnAttr(llvm::Attribute::NoInline);
    entry->removeFnAttr(llvm::Attribute::OptimizeNone);
  }
  // Every intrinsic returns and never unwinds. Without saying so, a loop containing a tensor load could
  // leave early in LLVM's eyes, and a loop stepping by a vector's width to an arbitrary bound would have no
  // trip count (no runtime unrolling, no hardware loop).
  for (llvm::Function& f : module)
    if (f.isDeclaration() && f.getName().starts_with(isa::kBuiltinPrefix.data())) {
      f.addFnAttr(llvm::Attribute::NoUnwind);
      f.addFnAttr(llvm::Attribute::WillReturn);
      const isa::IntrinsicInfo* in = isa::findIntrinsic(f.getName().drop_front(isa::kBuiltinPrefix.size()));
      if (in && isa::readsCoreState(*in))
        f.setMemoryEffects(llvm::MemoryEffects::inaccessibleMemOnly(llvm::ModRefInfo::Ref));
    }

  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = false;
  tuning.SLPVectorization = false;
  tuning.LoopUnrolling = true;  // honours #pragma unroll
  llvm::PassBuilder pb(nullptr, tuning);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  // Before the default analyses: the alias analysis pipeline with our knowledge of local memory.
  fam.registerPass([] { return LocalMemoryAA(); });
  fam.registerPass([&pb] {
    llvm::AAManager aa = pb.buildDefaultAAPipeline();
    aa.registerFunctionAnalysis<LocalMemoryAA>();
    return aa;
  });
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);

  llvm::ModulePassManager mpm = optLevel == 0 ? pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                                              : pb.buildPerModuleDefaultPipeline(optLevel == 1 ? llvm::OptimizationLevel::O1
                                                                                : optLevel == 3 ? llvm::OptimizationLevel::O3
                                                                                                : llvm::OptimizationLevel::O2);
  llvm::FunctionPassManager fpm;
  if (optLevel > 0 && unrollCount > 1) {
    // The standard pipeline has simplified the loops; unroll the innermost ones now and clean up.
    mpm.run(module, mam);
    mpm = llvm::ModulePassManager();
    mam.clear();
    if (entry) exitAtLimit(*entry);
    if (entry) forwardInvariantLanes(*entry);
    if (entry && hasUnrollAndJamCandidate(*entry, signature)) {
      // A guard around an inner loop (`k < depth` before its first iteration) that does not change in the
      // outer loop is decided once before it (non-trivial unswitching), which unroll-and-jam needs. Only
      // in kernels with such a nest: elsewhere the copies of loops would only grow the code.
      lam.clear();
      fam.clear();
      llvm::FunctionPassManager unswitch;
      unswitch.addPass(llvm::createFunctionToLoopPassAdaptor(llvm::SimpleLoopUnswitchPass(/*NonTrivial=*/true), /*UseMemorySSA=*/true));
      unswitch.run(*entry, fam);
      fam.clear();
      unrollAndJam(*entry, signature);
    }
    if (entry) requestUnrolling(*entry, static_cast<unsigned>(unrollCount));
    fpm.addPass(llvm::LoopUnrollPass(llvm::LoopUnrollOptions(optLevel)));
    // Arrays that only the unrolled copies made constant-indexed (a loop whose body was too large for the
    // standard pipeline's full unrolling) become registers instead of local memory.
    fpm.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
    fpm.addPass(llvm::InstCombinePass());
    fpm.addPass(llvm::EarlyCSEPass());
    fpm.addPass(llvm::SimplifyCFGPass());
  }
  if (optLevel == 0) {
    // After inlining (the O0 pipeline's always-inliner), before SROA.
    mpm.run(module, mam);
    mpm = llvm::ModulePassManager();
    mam.clear();
    expandMemoryIntrinsics(module);
    fpm.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
    fpm.addPass(llvm::PromotePass());
  }
  fpm.addPass(TensorChoicesPass(entry, &signature));
  fpm.addPass(llvm::LowerSwitchPass());
  fpm.addPass(llvm::BreakCriticalEdgesPass());
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  mpm.run(module, mam);

  if (entry) expandBitIntrinsics(*entry);
  if (entry) expandPowerOfTwoDivision(*entry);
  if (entry) expandVectorDivision(*entry);
  if (entry) scalarizeSplatLoads(*entry);
  if (entry) canonicalizeSplats(*entry);
  if (entry) roundAfterMerges(*entry);
  if (entry && optLevel > 0) {
    // What the unroller put in inner preheaders without depending on the outer loop (trip count tests,
    // the remainder's count) would run once per outer iteration.
    lam.clear();
    fam.clear();
    llvm::FunctionPassManager hoist;
    hoist.addPass(llvm::createFunctionToLoopPassAdaptor(llvm::LICMPass(llvm::LICMOptions()), /*UseMemorySSA=*/true));
    hoist.addPass(llvm::BreakCriticalEdgesPass());
    hoist.run(*entry, fam);
    fam.clear();
    removeSingleValuePhis(*entry);
    viewInt5sAfterPhis(*entry);
    scalarizeViewArithmetic(*entry);
    if (coordinateIvs) reduceCoordinates(*entry);
    shareLaneOffsets(*entry);
    chainCoordinateOffsets(*entry);
    if (hoistSteps) hoistConstantCoordinates(*entry);
    sinkIvIncrements(*entry);
    formHardwareLoops(*entry);
  }

  // What is left besides the entry was inlined everywhere.
  std::vector<llvm::Function*> dead;
  for (llvm::Function& f : module)
    if (&f != entry && !f.isDeclaration() && f.use_empty()) dead.push_back(&f);
  for (llvm::Function* f : dead) f->eraseFromParent();
}

obj::KernelObject generateObject(llvm::Module& module, const KernelSignature& signature,
                                 const CodegenOptions& options) {
  const isa::ArchInfo* arch = isa::findArch(options.arch);
  if (!arch) throw CodegenError(fmt::format("unknown architecture '{}'", options.arch));
  llvm::Function* entry = findEntry(module);
  if (!entry) throw CodegenError("no kernel entry: define 'void main(tensor ..., scalars ...)'");

  // Modulo scheduling overlaps iterations, which needs more registers: when they run out, the loop where
  // they do is compiled again with a schedule that leaves more registers free by its own count (a larger
  // II where needed), then with less of what costs registers, the others keeping theirs; when that is not
  // enough, every loop is (modulo_retries.cpp). Last the loops run without overlap, unless the driver
  // would rather unroll less first.
  MFunction mf;
  ModuloRetries retries(options.flatWhenOutOfRegisters);
  bool recomputed = false;  // invariants recomputed in the loops (once, then from the start)
  for (;;) {
    mf = selectInstructions(*entry, signature);
    forwardCopies(mf);
    eliminateDeadCode(mf);
    legalizeImmediates(mf);
    if (options.mergeStraightBlocks) hoistBranchConditions(mf);
    ModuloResult modulo;
    const bool scheduled = moduloScheduleLoops(mf, retries.plan(), &modulo) > 0;
    if (scheduled) {
      forwardCopiesIntoSinglePaths(mf);  // counters' starts copied before prologues
      eliminateDeadWrites(mf);           // the epilogues' updates for iterations that never come
    }
    if (options.printMir) std::fprintf(stderr, "%s", printMir(mf).c_str());
    try {
      allocateRegisters(mf, options.allowSpill && !scheduled);
      break;
    } catch (const CodegenError& e) {
      if (!e.outOfRegisters) throw;
      // Hoisted invariants that each hold a scalar register through a loop: one operand held instead.
      if (e.exhausted == RegFile::S && !recomputed) {
        recomputed = true;
        if (recomputeInvariantsInLoops(*entry) > 0) {
          if (std::getenv("TPC_DEBUG_MODSCHED"))
            std::fprintf(stderr, "tpc-clang: %s; again with invariants recomputed in the loops\n", e.what());
          retries.restart();
          continue;
        }
      }
      if (!scheduled) throw;
      const ModuloRetries::Next next = retries.escalate(mf, e, modulo);
      if (next == ModuloRetries::Next::GiveUp) throw;
      if (next == ModuloRetries::Next::UnrollLess)
        throw CodegenError("the overlapped loops need more registers than the core has", SourceLoc{}, true);
      if (std::getenv("TPC_DEBUG_MODSCHED"))
        std::fprintf(stderr, "tpc-clang: %s (busiest in bb%d, loop %d); again with fewer registers\n", e.what(),
                     e.busiestBlock,
                     e.busiestBlock >= 0 && e.busiestBlock < static_cast<int>(mf.blocks.size())
                         ? mf.blocks[static_cast<size_t>(e.busiestBlock)].moduloLoop
                         : -1);
    }
  }
  threadJumps(mf);
  if (options.mergeStraightBlocks) {
    duplicateShortTails(mf);
    threadJumps(mf);
    mergeStraightBlocks(mf);
  }
  if (options.printMir) std::fprintf(stderr, "after allocation:\n%s", printMir(mf).c_str());
  std::vector<ScheduledBundle> bundles = scheduleFunction(mf, *arch);

  obj::KernelObject o;
  o.kernelName = signature.name;
  o.arch = options.arch;
  for (const KernelParam& p : signature.params)
    o.params.push_back(obj::Param{p.name, p.isTensor ? obj::ParamKind::Tensor : obj::ParamKind::Scalar,
                                  p.isTensor ? DType::I32 : p.scalarType});
  o.scalarLocalBytes = mf.scalarLocalBytes;
  o.printfFormats = mf.printfFormats;
  o.vectorLocalBytes = mf.vectorLocalBytes;
  o.text.resize(bundles.size() * isa::kBundleBytes);
  for (size_t k = 0; k < bundles.size(); ++k) isa::encodeBundle(bundles[k].bundle, o.text.data() + k * isa::kBundleBytes);
  if (options.debugInfo) {
    o.debug.files.push_back(options.sourceName);
    uint32_t lastLine = 0, lastCol = 0;
    for (size_t k = 0; k < bundles.size(); ++k) {
      const SourceLoc& l = bundles[k].loc;
      if (!l.line || (l.line == lastLine && l.column == lastCol)) continue;
      o.debug.lines.push_back(obj::LineEntry{static_cast<uint32_t>(k * isa::kBundleBytes), 0, l.line, l.column});
      lastLine = l.line;
      lastCol = l.column;
    }
  }
  if (options.debugInfo) {
    std::vector<obj::VarScope> varScopes;
    o.debug.vars = variableLocations(mf, bundles, &varScopes);
    if (!mf.scopes.empty()) appendInlineScopes(mf, bundles, std::move(varScopes), o);
    for (const MFunction::IndexVariable& v : mf.indexVariables)
      o.debug.indexVars.push_back({mf.variables[v.variable].name, mf.variables[v.variable].scope, v.dim, v.scale});
  }
  llvm::SmallVector<char, 0> bitcode;
  llvm::raw_svector_ostream os(bitcode);
  llvm::WriteBitcodeToFile(module, os);
  o.bitcode.assign(bitcode.begin(), bitcode.end());
  return o;
}

}  // namespace tpc::cc
