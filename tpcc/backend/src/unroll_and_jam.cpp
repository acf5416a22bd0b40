// Unroll-and-jam of a loop around an innermost loop that accumulates (LLVM IR, after the standard
// pipeline, before innermost loops are unrolled).
//
//     for n:  acc = 0;  for k: acc = mac(ld(b, {n, k}), ld_g(a, {k, m}), acc);  st(c, {n, m}, acc)
//
// becomes, for F copies of the outer loop's iteration,
//
//     for n step F:  acc_0..acc_F-1 = 0;
//                    for k: s = ld_g(a, {k, m});  acc_j = mac(ld(b, {n + j, k}), s, acc_j)  (j < F)
//                    st(c, {n + j, m}, acc_j)  (j < F)
//
// (with a remainder loop for the last n % F). An accumulation is a chain the inner loop cannot shorten:
// each mac waits for the previous one (6 cycles), each add of a sum over rows or columns for its
// predecessor (4), whatever the unrolling of k. F chains side by side hide that latency, and what the F
// copies read alike (a[m, k] above: gen_addr and ld_g on the load slot next to each ld_tnsr) is read
// once. The floating-point results are those of the source: every accumulator adds in its own order.
//
// LLVM's UnrollAndJamLoop does the restructuring; its legality check needs dependence analysis of plain
// loads and stores and gives up on the intrinsic calls, so the check is ours, from what the calls touch
// (tensors are distinct memories, as everywhere in the backend): the jammed order runs the outer
// iteration n + 1's reads before iteration n's stores, so the loop may store only tensors it does not
// read, and only after the inner loop.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <string>

#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/DomTreeUpdater.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/OptimizationRemarkEmitter.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>
#include <llvm/Transforms/Utils/ValueMapper.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>
#include <llvm/Transforms/Utils/LoopUtils.h>
#include <llvm/Transforms/Utils/UnrollLoop.h>

#include "tpc/cc/codegen.h"
#include "tpc/isa/intrinsic_lowering.h"
#include "tpc/isa/intrinsics.h"

namespace tpc::cc {

namespace {

const isa::IntrinsicInfo* intrinsicOf(const llvm::Instruction& in) {
  auto* call = llvm::dyn_cast<llvm::CallInst>(&in);
  llvm::Function* callee = call ? call->getCalledFunction() : nullptr;
  if (!callee || !callee->getName().starts_with(isa::kBuiltinPrefix.data())) return nullptr;
  return isa::findIntrinsic(callee->getName().drop_front(isa::kBuiltinPrefix.size()));
}

// What an instruction does to memory, for the legality check.
struct Access {
  enum Kind { None, ReadTensor, WriteTensor, ReadGlobal, ReadLocal, Other } kind = None;
  int tensor = -1;  // ReadTensor, WriteTensor; ReadGlobal through gen_addr of a known tensor (-1: any)
};

class Jammer {
 public:
  Jammer(llvm::Function& f, const KernelSignature& signature) : f_(f) {
    int number = 0;
    for (size_t k = 0; k < signature.params.size() && k < f.arg_size(); ++k)
      if (signature.params[k].isTensor) tensors_[f.getArg(static_cast<unsigned>(k))] = number++;
  }

  // Whether some loop is worth trying: it holds one loop, innermost and accumulating, and what it does to
  // memory allows the jam (the rest of legal() is about a shape that unswitching may still make).
  bool anyCandidate() const {
    llvm::DominatorTree dt(f_);
    llvm::LoopInfo li(dt);
    for (llvm::Loop* outer : li.getLoopsInPreorder())
      if (outer->getSubLoops().size() == 1 && outer->getSubLoops()[0]->isInnermost() &&
          accumulates(outer->getSubLoops()[0]) && memoryAllows(outer, nullptr))
        return true;
    return false;
  }

  void run() {
    // One nest at a time: the transformation changes the loops and every analysis.
    for (int rounds = 0; rounds < 16 && jamOne(); ++rounds) {
    }
  }

 private:
  // The tensor number of a tensor argument (a parameter or a constant, through casts), -1 when unknown.
  int tensorNumber(llvm::Value* v) const {
    while (auto* cast = llvm::dyn_cast<llvm::CastInst>(v)) v = cast->getOperand(0);
    if (auto it = tensors_.find(v); it != tensors_.end()) return it->second;
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(v)) return static_cast<int>(c->getSExtValue());
    return -1;
  }

  Access accessOf(const llvm::Instruction& in) const {
    if (!in.mayReadOrWriteMemory()) return {};
    if (auto* ld = llvm::dyn_cast<llvm::LoadInst>(&in)) return ld->isSimple() ? Access{Access::ReadLocal} : Access{Access::Other};
    const isa::IntrinsicInfo* info = intrinsicOf(in);
    if (!info) return {Access::Other};
    auto* call = llvm::cast<llvm::CallInst>(&in);
    if (isa::readsCoreState(*info)) return {Access::Other};  // core state: keep the order
    const int t = isa::intrinsicTensorParam(*info);
    const int tensor = t >= 0 ? tensorNumber(call->getArgOperand(static_cast<unsigned>(t))) : -1;
    switch (info->lowering) {
      case isa::Lowering::TensorDimSize:
      case isa::Lowering::TensorDimStride:
      case isa::Lowering::TensorHwprefStride:
      case isa::Lowering::TensorPadBits: return {};
      case isa::Lowering::LdTnsr:
      case isa::Lowering::LdTnsrLow:
      case isa::Lowering::LdTnsrHigh:
        if (info->insn == isa::InsnId::GenAddr) return {};  // an address: reads nothing itself
        return tensor >= 0 ? Access{Access::ReadTensor, tensor} : Access{Access::Other};
      case isa::Lowering::StTnsr:
      case isa::Lowering::StTnsrLow:
      case isa::Lowering::StTnsrHigh: return tensor >= 0 ? Access{Access::WriteTensor, tensor} : Access{Access::Other};
      case isa::Lowering::IndexSpaceOffset:
      case isa::Lowering::IndexSpaceSize: return {};
      default: break;
    }
    if (isa::isPure(*info)) return {};
    // Other loads: local memory, or global memory through an address of gen_addr.
    if (isa::insnInfo(info->insn).slot == isa::Slot::Load && call->arg_size() > 0) {
      llvm::Value* addr = call->getArgOperand(0);
      if (addr->getType()->isPointerTy() && addr->getType()->getPointerAddressSpace() == 2) {
        auto* gen = llvm::dyn_cast<llvm::CallInst>(addr);
        const isa::IntrinsicInfo* genInfo = gen ? intrinsicOf(*gen) : nullptr;
        int from = -1;
        if (genInfo && genInfo->insn == isa::InsnId::GenAddr)
          from = tensorNumber(gen->getArgOperand(static_cast<unsigned>(isa::intrinsicTensorParam(*genInfo))));
        return {Access::ReadGlobal, from};
      }
      return {Access::ReadLocal};
    }
    return {Access::Other};
  }

  // Whether every iteration of the inner loop accumulates: a header PHI of a vector (the induction
  // variables are scalars and coordinates) fed back by an instruction of the loop.
  static bool accumulates(llvm::Loop* inner) {
    for (llvm::PHINode& phi : inner->getHeader()->phis()) {
      auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(phi.getType());
      if (!vt || vt->getNumElements() == 5) continue;
      auto* in = llvm::dyn_cast<llvm::Instruction>(phi.getIncomingValueForBlock(inner->getLoopLatch()));
      if (in && inner->contains(in)) return true;
    }
    return false;
  }

  // The checks of LLVM's isSafeToUnrollAndJam that are about the loops' shape (UnrollAndJamLoop relies on
  // them), and ours about memory in place of its dependence analysis.
  bool legal(llvm::Loop* outer, llvm::Loop* inner, llvm::DominatorTree& dt, llvm::ScalarEvolution& se) {
    for (llvm::Loop* l : {outer, inner})
      if (!l->isLoopSimplifyForm() || !l->isRotatedForm() || !l->getExitBlock() || !l->getExitingBlock() ||
          l->getHeader()->hasAddressTaken())
        return false;
    // Blocks before the inner loop (fore) lead only to it; after it (aft) exactly one block, the latch.
    llvm::BasicBlock* innerLatch = inner->getLoopLatch();
    std::set<llvm::BasicBlock*> fore, aft;
    for (llvm::BasicBlock* bb : outer->blocks())
      if (!inner->contains(bb)) (dt.dominates(innerLatch, bb) ? aft : fore).insert(bb);
    for (llvm::BasicBlock* bb : fore) {
      if (bb == inner->getLoopPreheader()) continue;
      for (llvm::BasicBlock* succ : llvm::successors(bb))
        if (!fore.count(succ)) return false;
    }
    if (aft.size() != 1 || *aft.begin() != outer->getLoopLatch()) return false;
    if (!llvm::hasIterationCountInvariantInParent(inner, se)) return false;
    // The outer header's PHIs take values computed in the aft block; those must be movable before the
    // inner loop (no memory, no PHIs).
    std::function<bool(llvm::Instruction*)> movable = [&](llvm::Instruction* in) {
      if (inner->contains(in)) return false;
      if (!aft.count(in->getParent())) return true;
      if (llvm::isa<llvm::PHINode>(in) || in->mayHaveSideEffects() || in->mayReadOrWriteMemory()) return false;
      for (llvm::Value* op : in->operands())
        if (auto* oi = llvm::dyn_cast<llvm::Instruction>(op); oi && !movable(oi)) return false;
      return true;
    };
    for (llvm::PHINode& phi : outer->getHeader()->phis())
      if (auto* in = llvm::dyn_cast<llvm::Instruction>(phi.getIncomingValueForBlock(outer->getLoopLatch())); in && !movable(in))
        return false;
    return memoryAllows(outer, &aft);
  }

  // Memory: stores of tensors only, after the inner loop (in `aft`, when known), and of tensors the loop
  // does not read.
  bool memoryAllows(llvm::Loop* outer, const std::set<llvm::BasicBlock*>* aft) const {
    std::set<int> read, written;
    bool anyGlobal = false;
    for (llvm::BasicBlock* bb : outer->blocks())
      for (llvm::Instruction& in : *bb) {
        const Access a = accessOf(in);
        switch (a.kind) {
          case Access::None: break;
          case Access::ReadTensor: read.insert(a.tensor); break;
          case Access::ReadGlobal:
            if (a.tensor < 0) anyGlobal = true;
            else read.insert(a.tensor);
            break;
          case Access::ReadLocal: break;
          case Access::WriteTensor:
            if (aft && !aft->count(bb)) return false;
            written.insert(a.tensor);
            break;
          case Access::Other: return false;
        }
      }
    if (anyGlobal && !written.empty()) return false;
    for (int t : written)
      if (read.count(t)) return false;
    return true;
  }

  // After jamming, the copies of what does not depend on the outer loop compute the same values: one of
  // each is kept (in block order, so that operands are already shared when their users are compared).
  // The intrinsics' calls are kept apart by LLVM (loads have unknown effects); here reads are shared too,
  // since the jammed inner loop stores nothing (see legal()).
  void shareCopies(llvm::Loop* inner) {
    mergeInductionCopies(inner);
    for (llvm::BasicBlock* bb : inner->blocks()) {
      std::map<std::vector<const void*>, llvm::Instruction*> seen;
      for (llvm::Instruction& in : llvm::make_early_inc_range(*bb)) {
        if (llvm::isa<llvm::PHINode>(in) || in.isTerminator() || in.getType()->isVoidTy()) continue;
        const Access a = accessOf(in);
        const bool shareable = intrinsicOf(in) ? a.kind != Access::Other && a.kind != Access::WriteTensor
                                               : !in.mayHaveSideEffects() && !in.mayReadOrWriteMemory();
        if (!shareable) continue;
        std::vector<const void*> key = {reinterpret_cast<const void*>(static_cast<uintptr_t>(in.getOpcode())), in.getType()};
        if (auto* call = llvm::dyn_cast<llvm::CallInst>(&in)) key.push_back(call->getCalledFunction());
        if (auto* cmp = llvm::dyn_cast<llvm::CmpInst>(&in)) key.push_back(reinterpret_cast<const void*>(static_cast<uintptr_t>(cmp->getPredicate())));
        for (llvm::Value* op : in.operands()) key.push_back(op);
        if (auto* sv = llvm::dyn_cast<llvm::ShuffleVectorInst>(&in))
          for (int m : sv->getShuffleMask()) key.push_back(reinterpret_cast<const void*>(static_cast<intptr_t>(m)));
        if (auto* ev = llvm::dyn_cast<llvm::ExtractValueInst>(&in))
          for (unsigned i : ev->indices()) key.push_back(reinterpret_cast<const void*>(static_cast<uintptr_t>(i)));
        if (llvm::isa<llvm::InsertValueInst>(in) || llvm::isa<llvm::GetElementPtrInst>(in) || llvm::isa<llvm::AllocaInst>(in))
          continue;  // indices or types the key does not hold
        auto [it, added] = seen.emplace(key, &in);
        if (added) continue;
        in.replaceAllUsesWith(it->second);
        in.eraseFromParent();
      }
    }
  }

  // Each jammed copy of the inner loop brought its own induction variable (k, k.1, ...), all counting
  // alike: a PHI with the same start whose next value is computed alike from it is the first one.
  static void mergeInductionCopies(llvm::Loop* inner) {
    llvm::BasicBlock* header = inner->getHeader();
    llvm::BasicBlock* pre = inner->getLoopPreheader();
    llvm::BasicBlock* latch = inner->getLoopLatch();
    if (!pre || !latch) return;
    std::function<bool(llvm::Value*, llvm::Value*, llvm::PHINode*, llvm::PHINode*, int)> same =
        [&](llvm::Value* a, llvm::Value* b, llvm::PHINode* copy, llvm::PHINode* first, int depth) {
          if (a == b || (a == copy && b == first)) return true;
          auto* ia = llvm::dyn_cast<llvm::Instruction>(a);
          auto* ib = llvm::dyn_cast<llvm::Instruction>(b);
          if (!ia || !ib || depth > 8 || llvm::isa<llvm::PHINode>(ia) || !ia->isSameOperationAs(ib) ||
              ia->mayHaveSideEffects() || ia->mayReadOrWriteMemory())
            return false;
          for (unsigned k = 0; k < ia->getNumOperands(); ++k)
            if (!same(ia->getOperand(k), ib->getOperand(k), copy, first, depth + 1)) return false;
          return true;
        };
    std::vector<llvm::PHINode*> phis;
    for (llvm::PHINode& phi : header->phis()) phis.push_back(&phi);
    std::set<llvm::PHINode*> merged;
    for (size_t i = 0; i < phis.size(); ++i) {
      if (merged.count(phis[i])) continue;
      for (size_t j = i + 1; j < phis.size(); ++j) {
        llvm::PHINode* first = phis[i];
        llvm::PHINode* copy = phis[j];
        if (merged.count(copy) || copy->getType() != first->getType() ||
            copy->getIncomingValueForBlock(pre) != first->getIncomingValueForBlock(pre) ||
            !same(copy->getIncomingValueForBlock(latch), first->getIncomingValueForBlock(latch), copy, first, 0))
          continue;
        copy->replaceAllUsesWith(first);
        merged.insert(copy);
      }
    }
    for (llvm::PHINode* phi : merged) phi->eraseFromParent();
  }

  // How many outer iterations to jam: enough accumulator chains to cover the accumulate's latency with
  // loads to spare; more when reads are shared (matmul: (F + 2) / F loads per mac).
  static unsigned copiesFor(llvm::Loop* inner) {
    unsigned vectors = 0;
    for (llvm::BasicBlock* bb : inner->blocks())
      for (llvm::Instruction& in : *bb)
        if (in.getType()->isVectorTy() && !llvm::isa<llvm::PHINode>(in)) ++vectors;
    return vectors > 8 ? 2 : 8;
  }

  // One outer iteration (one column, row or output vector per core, common when the index space is
  // split over 24 cores) gains nothing from the jam and would pay for every level of remainders (about
  // 50 cycles of trip counts and branches): it runs a copy of the nest as it was instead, chosen by one
  // test of the trip count before the nest.
  void versionSingleIteration(llvm::Loop* outer, llvm::DominatorTree& dt, llvm::LoopInfo& li, llvm::ScalarEvolution& se) {
    llvm::BasicBlock* pre = outer->getLoopPreheader();
    llvm::BasicBlock* exit = outer->getExitBlock();
    const llvm::SCEV* btc = se.getBackedgeTakenCount(outer);
    if (!pre || !exit || llvm::isa<llvm::SCEVCouldNotCompute>(btc) || !btc->getType()->isIntegerTy() ||
        !llvm::isa<llvm::BranchInst>(pre->getTerminator()))
      return;
    llvm::BasicBlock* newPre = llvm::SplitBlock(pre, pre->getTerminator(), &dt, &li, nullptr, pre->getName() + ".jam");
    llvm::ValueToValueMapTy vmap;
    llvm::SmallVector<llvm::BasicBlock*, 16> blocks;
    llvm::Loop* clone = llvm::cloneLoopWithPreheader(newPre, pre, outer, vmap, ".once", &li, &dt, blocks);
    llvm::remapInstructionsInBlocks(blocks, vmap);
    // The exit's loop-closed PHIs take the copy's values from the copy's exiting blocks.
    for (llvm::PHINode& phi : exit->phis())
      for (unsigned k = 0, n = phi.getNumIncomingValues(); k < n; ++k) {
        llvm::BasicBlock* from = phi.getIncomingBlock(k);
        if (!outer->contains(from)) continue;
        llvm::Value* v = phi.getIncomingValue(k);
        auto it = vmap.find(v);
        phi.addIncoming(it != vmap.end() ? static_cast<llvm::Value*>(it->second) : v, llvm::cast<llvm::BasicBlock>(vmap[from]));
      }
    llvm::SCEVExpander expander(se, f_.getParent()->getDataLayout(), "jam");
    llvm::Instruction* term = pre->getTerminator();
    llvm::Value* count = expander.expandCodeFor(btc, btc->getType(), term->getIterator());
    llvm::IRBuilder<> builder(term);
    llvm::Value* once = builder.CreateICmpEQ(count, llvm::ConstantInt::get(btc->getType(), 0), "jam.once");
    builder.CreateCondBr(once, llvm::cast<llvm::BasicBlock>(vmap[newPre]), newPre);
    term->eraseFromParent();
    dt.recalculate(f_);
    // The exit is shared now; the remainder loop wants one of its own after the nest.
    llvm::formDedicatedExitBlocks(outer, &dt, &li, nullptr, /*PreserveLCSSA=*/true);
    se.forgetAllLoops();
    done_.insert(clone->getHeader());
    if (debug_) std::fprintf(stderr, "tpc-clang: unroll-and-jam: a copy of the nest for one iteration\n");
  }

  bool jamOne() {
    llvm::DominatorTree dt(f_);
    llvm::LoopInfo li(dt);
    llvm::TargetLibraryInfoImpl tlii(llvm::Triple(f_.getParent()->getTargetTriple()));
    llvm::TargetLibraryInfo tli(tlii);
    llvm::AssumptionCache ac(f_);
    llvm::ScalarEvolution se(f_, tli, ac, dt, li);
    llvm::TargetTransformInfo tti(f_.getParent()->getDataLayout());
    llvm::OptimizationRemarkEmitter ore(&f_);
    for (llvm::Loop* outer : li.getLoopsInPreorder()) {
      llvm::BasicBlock* header = outer->getHeader();
      if (outer->getSubLoops().size() != 1 || done_.count(header)) continue;
      llvm::Loop* inner = outer->getSubLoops()[0];
      if (!inner->isInnermost() || !accumulates(inner)) continue;
      done_.insert(header);
      llvm::simplifyLoop(outer, &dt, &li, &se, &ac, nullptr, /*PreserveLCSSA=*/false);
      llvm::formLCSSARecursively(*outer, dt, &li, &se);
      // The inner loop's exit block (its loop-closed PHIs) and the outer latch after it are one block
      // after the inner loop (UnrollAndJamLoop's shape).
      if (llvm::BasicBlock* latch = outer->getLoopLatch(); latch && latch != inner->getExitBlock() &&
                                                              latch->getSinglePredecessor() == inner->getExitBlock()) {
        llvm::DomTreeUpdater dtu(dt, llvm::DomTreeUpdater::UpdateStrategy::Eager);
        llvm::MergeBlockIntoPredecessor(latch, &dtu, &li);
      }
      const unsigned line = outer->getStartLoc() ? outer->getStartLoc().getLine() : 0;
      if (!legal(outer, inner, dt, se)) {
        if (debug_) std::fprintf(stderr, "tpc-clang: unroll-and-jam: loop at line %u: not legal\n", line);
        continue;
      }
      const unsigned copies = factorFor_.count(header) ? factorFor_[header] : copiesFor(inner);
      if (!factorFor_.count(header)) versionSingleIteration(outer, dt, li, se);
      // The remainder loop first (the last n % F iterations), as UnrollAndJamLoop would make it, but also
      // when computing the trip count takes a few instructions (its cost model is the default target's,
      // for which `(64 * n - 1) / 64 + 1` is already too much).
      llvm::Loop* remainder = nullptr;
      if (!llvm::UnrollRuntimeLoopRemainder(outer, copies, /*AllowExpensiveTripCount=*/true, /*UseEpilogRemainder=*/true,
                                            /*UnrollRemainder=*/false, /*ForgetAllSCEV=*/false, &li, &se, &dt, &ac, &tti,
                                            /*PreserveLCSSA=*/true, &remainder)) {
        if (debug_) std::fprintf(stderr, "tpc-clang: unroll-and-jam: loop at line %u: no remainder loop\n", line);
        continue;
      }
      if (llvm::UnrollAndJamLoop(outer, copies, 0, copies, /*UnrollRemainder=*/false, &li, &se, &dt, &ac, &tti, &ore,
                                 nullptr) == llvm::LoopUnrollResult::Unmodified) {
        if (debug_) std::fprintf(stderr, "tpc-clang: unroll-and-jam: loop at line %u: not jammed by LLVM\n", line);
        continue;
      }
      if (debug_) std::fprintf(stderr, "tpc-clang: unroll-and-jam: loop at line %u: %u copies\n", line, copies);
      // The last n % F iterations: jammed by half as many, and so on, so that a short outer loop (fewer
      // iterations than F) still gets several chains.
      if (remainder) {
        if (copies / 2 >= 2) factorFor_[remainder->getHeader()] = copies / 2;
        else done_.insert(remainder->getHeader());
      }
      shareCopies(inner);
      // The jammed body holds the copies already: unrolled further, its coordinates would outnumber the
      // index registers. Modulo scheduling overlaps its iterations.
      llvm::LLVMContext& ctx = f_.getContext();
      llvm::MDNode* disable = llvm::MDNode::get(ctx, {llvm::MDString::get(ctx, "llvm.loop.unroll.disable")});
      llvm::SmallVector<llvm::Metadata*, 4> ops = {nullptr, disable};
      llvm::MDNode* id = llvm::MDNode::getDistinct(ctx, ops);
      id->replaceOperandWith(0, id);
      inner->setLoopID(id);
      return true;
    }
    return false;
  }

  llvm::Function& f_;
  const bool debug_ = std::getenv("TPC_DEBUG_UNROLL_AND_JAM") != nullptr;
  std::map<const llvm::Value*, int> tensors_;
  std::set<llvm::BasicBlock*> done_;
  std::map<llvm::BasicBlock*, unsigned> factorFor_;  // remainder loops' headers -> their jam factor
};

}  // namespace

bool hasUnrollAndJamCandidate(llvm::Function& f, const KernelSignature& signature) {
  const char* mode = std::getenv("TPC_UNROLL_AND_JAM");
  if (mode && std::string(mode) == "0") return false;
  return Jammer(f, signature).anyCandidate();
}

void unrollAndJam(llvm::Function& f, const KernelSignature& signature) { Jammer(f, signature).run(); }

}  // namespace tpc::cc
