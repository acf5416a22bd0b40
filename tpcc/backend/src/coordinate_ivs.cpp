// Coordinates of unrolled single-block loops as induction variables of their own (LLVM IR, after
// unrolling, before hardware loops are formed).
//
// An unrolled loop computes each copy's coordinates from the loop's induction variable:
//
//     c_k = insertelement(c, col + 64*k, 0)          (col advances by 64*U per iteration)
//     b_k = {n, k0 + k, 0, 0, 0}                     (a row index in lane 1, n loop-invariant)
//
// which costs scalar-slot work per copy and ties every copy to the induction variable. Instead each c_k
// becomes an int5 PHI that starts at its first value in the preheader and advances by a step vector
// (<64*U, 0, 0, 0, 0>, <0, U, 0, 0, 0>, made once in the preheader) with one index-register add per
// iteration. A coordinate qualifies when exactly one of its lanes varies in the loop, as induction variable
// plus constant (`add` or, after unrolling, `or disjoint`); its other lanes may be inserted in the loop, from
// loop-invariant values, and move to the preheader. The varying lane may also be a constant multiple of
// the induction variable plus a constant (`(group * 4 + k) * 64`), with the step scaled to match. The
// loop's own int5 PHI c, when its back-edge value only rewrites lane 0, keeps lanes 1..4 from entry, so
// insertions into its lane 0 may start from its entry value instead, which makes c loop-invariant for the
// purpose above.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <tuple>
#include <set>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include "ir_patterns.h"
#include "tpc/cc/codegen.h"

namespace tpc::cc {

namespace {

// Insertions into one lane overwrite it entirely: the vector underneath a chain of them.
llvm::Value* underLane(llvm::Value* v, int lane) {
  while (auto* ie = llvm::dyn_cast<llvm::InsertElementInst>(v)) {
    if (laneOf(ie) != lane) break;
    v = ie->getOperand(0);
  }
  return v;
}

// x as scale * v + offset, for the value v under adds (and disjoint ors) of constants, left shifts and
// multiplications by constants: `(group * 4 + k) * 64` after unrolling is `or disjoint (shl group, 8), 64k`.
// Arithmetic wraps as the i32 lane does, so the constants may too.
struct LinearForm {
  llvm::Value* base;
  int64_t scale, offset;
};

LinearForm linearForm(llvm::Value* x) {
  auto [under, offset] = baseAndConstant(x);
  auto* op = llvm::dyn_cast<llvm::BinaryOperator>(under);
  auto* k = op ? llvm::dyn_cast<llvm::ConstantInt>(op->getOperand(1)) : nullptr;
  if (!k) return {under, 1, offset};
  int64_t factor;
  if (op->getOpcode() == llvm::Instruction::Shl && k->getZExtValue() < 31) factor = int64_t{1} << k->getZExtValue();
  else if (op->getOpcode() == llvm::Instruction::Mul && std::llabs(k->getSExtValue()) < (int64_t{1} << 31)) factor = k->getSExtValue();
  else return {under, 1, offset};
  LinearForm inner = linearForm(op->getOperand(0));
  // Wrapped to 32 bits at each step, so that the products stay in range however deep the nesting.
  auto wrap = [](int64_t v) { return static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v))); };
  return {inner.base, wrap(inner.scale * factor), wrap(wrap(inner.offset * factor) + wrap(offset))};
}

void reduceLoop(llvm::Loop* loop, size_t maxIvs) {
  llvm::BasicBlock* header = loop->getHeader();
  llvm::BasicBlock* pre = loop->getLoopPreheader();
  llvm::BasicBlock* latch = loop->getLoopLatch();
  if (!pre || !latch || loop->getExitingBlock() != header) return;
  if (latch != header && (loop->getNumBlocks() != 2 || latch->size() != 1)) return;

  // 1. int5 PHIs whose back-edge value only rewrites one lane (the inner loop's coordinate: lane 0 of a
  // row, lane 1 of a column).
  for (llvm::PHINode& phi : header->phis()) {
    auto* back = isInt5(phi.getType()) ? llvm::dyn_cast<llvm::InsertElementInst>(phi.getIncomingValueForBlock(latch)) : nullptr;
    const int lane = back ? laneOf(back) : -1;
    if (lane < 0 || underLane(back, lane) != &phi) continue;
    llvm::Value* entry = phi.getIncomingValueForBlock(pre);
    for (llvm::Use& u : llvm::make_early_inc_range(phi.uses())) {
      auto* ie = llvm::dyn_cast<llvm::InsertElementInst>(u.getUser());
      if (ie && u.getOperandNo() == 0 && ie->getParent() == header && laneOf(ie) == lane) u.set(entry);
    }
  }

  // 2. Candidates: int5 values of which one lane is (induction variable + constant) and the others are
  // loop-invariant, used by something other than a further insertion.
  struct Candidate {
    llvm::InsertElementInst* ie;
    llvm::Value* base;                                     // loop-invariant vector under the insertions
    std::vector<std::pair<uint64_t, llvm::Value*>> fixed;  // loop-invariant lanes inserted in the loop
    uint64_t lane;
    llvm::PHINode* iv;
    int64_t scale, offset, step;  // the varying lane is scale * iv + offset, and advances by step
  };
  std::vector<Candidate> found;
  for (llvm::Instruction& inst : *header) {
    auto* ie = llvm::dyn_cast<llvm::InsertElementInst>(&inst);
    if (!ie || !isInt5(ie->getType())) continue;
    bool usedAsCoordinate = false;
    for (llvm::User* u : ie->users()) {
      auto* next = llvm::dyn_cast<llvm::InsertElementInst>(u);
      if (!next || next->getParent() != header) usedAsCoordinate = true;
    }
    if (!usedAsCoordinate) continue;
    Candidate c{ie, nullptr, {}, 0, nullptr, 1, 0, 0};
    llvm::Value* varying = nullptr;
    std::set<uint64_t> seen;
    llvm::Value* v = ie;
    bool ok = true;
    while (!loop->isLoopInvariant(v)) {
      auto* link = llvm::dyn_cast<llvm::InsertElementInst>(v);
      auto* laneConst = link ? llvm::dyn_cast<llvm::ConstantInt>(link->getOperand(2)) : nullptr;
      if (!laneConst || link->getParent() != header) {
        ok = false;
        break;
      }
      uint64_t lane = laneConst->getZExtValue();
      llvm::Value* x = link->getOperand(1);
      if (seen.insert(lane).second) {  // a lane inserted again above is overwritten: skip the older one
        if (loop->isLoopInvariant(x)) {
          c.fixed.push_back({lane, x});
        } else if (!varying) {
          varying = x;
          c.lane = lane;
        } else {
          ok = false;
          break;
        }
      }
      v = link->getOperand(0);
    }
    if (!ok || !varying) continue;
    c.base = v;
    const LinearForm lin = linearForm(varying);
    auto* iv = llvm::dyn_cast<llvm::PHINode>(lin.base);
    if (!iv || iv->getParent() != header) continue;
    auto [from, ivStep] = baseAndConstant(iv->getIncomingValueForBlock(latch));
    const int64_t step = static_cast<int32_t>(static_cast<uint32_t>(ivStep * lin.scale));
    if (from != iv || !step) continue;
    c.iv = iv;
    c.scale = lin.scale;
    c.offset = lin.offset;
    c.step = step;
    // Users after the loop get the last value back from the next one; only where that is simple.
    bool simple = true;
    for (llvm::Use& u : ie->uses()) {
      auto* phi = llvm::dyn_cast<llvm::PHINode>(u.getUser());
      if (phi && !loop->contains(phi) && loop->contains(phi->getIncomingBlock(u)) &&
          !phi->getParent()->getSinglePredecessor())
        simple = false;
    }
    if (!simple) continue;
    // The same coordinate built again (a store after its load, each inserting the same lanes): one
    // induction variable serves both.
    std::sort(c.fixed.begin(), c.fixed.end());
    auto same = std::find_if(found.begin(), found.end(), [&](const Candidate& o) {
      return o.base == c.base && o.fixed == c.fixed && o.lane == c.lane && o.iv == c.iv && o.offset == c.offset &&
             o.step == c.step;
    });
    if (same != found.end()) c.ie->replaceAllUsesWith(same->ie);  // left without users, erased below
    else found.push_back(c);
  }
  if (found.empty()) return;
  // Each one holds an index register through the loop: leave room for the rest of the kernel. With more,
  // copies of one coordinate that differ only by a constant in the varying lane share an induction
  // variable: the first copy has it, each further copy is the previous one plus a constant vector (one
  // index-register add; selection keeps one register per such constant).
  std::map<Candidate*, Candidate*> derivedFrom;  // copy -> the previous copy of its coordinate
  if (found.size() > maxIvs) {
    std::map<std::tuple<llvm::Value*, std::vector<std::pair<uint64_t, llvm::Value*>>, uint64_t, llvm::PHINode*, int64_t>,
             std::vector<Candidate*>> groups;
    for (Candidate& c : found) {
      groups[{c.base, c.fixed, c.lane, c.iv, c.step}].push_back(&c);
    }
    if (groups.size() > maxIvs) return;
    // A copy whose value is also used after the loop keeps an induction variable of its own (its last
    // value comes back from the next one).
    auto usedAfterLoop = [&](const Candidate* c) {
      for (llvm::User* u : c->ie->users())
        if (!loop->contains(llvm::cast<llvm::Instruction>(u))) return true;
      return false;
    };
    size_t ivs = 0;
    for (auto& [key, copies] : groups) {
      std::stable_sort(copies.begin(), copies.end(), [](Candidate* a, Candidate* b) { return a->offset < b->offset; });
      for (size_t k = 0; k < copies.size(); ++k) {
        if (k > 0 && !usedAfterLoop(copies[k])) derivedFrom[copies[k]] = copies[k - 1];
        else ++ivs;
      }
    }
    if (ivs > maxIvs) return;
  }

  llvm::LLVMContext& ctx = header->getContext();
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  auto* int5 = llvm::FixedVectorType::get(i32, 5);
  std::map<std::pair<uint64_t, int64_t>, llvm::Value*> stepVectors;  // by (lane, step)
  std::map<Candidate*, llvm::Value*> inLoop;                         // each copy's value in the loop
  llvm::Instruction* preEnd = pre->getTerminator();
  // A vector with `value` in `lane` and zeros elsewhere, once per lane and value: an instruction (not a
  // folded constant), so that selection makes it before the loop rather than in it (and LICM moves it
  // out of enclosing loops).
  auto laneVector = [&](uint64_t lane, int64_t value, const char* name) {
    llvm::Value*& v = stepVectors[{lane, value}];
    if (!v)
      v = llvm::InsertElementInst::Create(llvm::Constant::getNullValue(int5), llvm::ConstantInt::get(i32, value),
                                          llvm::ConstantInt::get(i32, lane), name, preEnd);
    return v;
  };
  // Copies of one coordinate (they differ only by a constant in the varying lane) start from each other:
  // each start is an earlier one plus a constant vector, one index-register add, instead of a scalar add,
  // a copy of the invariant lanes and a lane move. The starts are computed again whenever the loop is
  // entered (each row of a loop nest), so this is most of a short loop's setup. Two chains (each copy
  // from the one two before) halve the adds' latency.
  std::map<Candidate*, Candidate*> startFrom;
  {
    std::map<std::tuple<llvm::Value*, std::vector<std::pair<uint64_t, llvm::Value*>>, uint64_t, llvm::PHINode*, int64_t, int64_t>,
             std::vector<Candidate*>> groups;
    for (Candidate& c : found)
      if (!derivedFrom.count(&c)) groups[{c.base, c.fixed, c.lane, c.iv, c.step, c.scale}].push_back(&c);
    for (auto& [key, copies] : groups) {
      std::stable_sort(copies.begin(), copies.end(), [](Candidate* a, Candidate* b) { return a->offset < b->offset; });
      for (size_t k = 1; k < copies.size(); ++k) startFrom[copies[k]] = copies[k >= 2 ? k - 2 : 0];
    }
  }
  std::map<Candidate*, llvm::Value*> starts;
  std::function<llvm::Value*(Candidate&)> startOf = [&](Candidate& c) -> llvm::Value* {
    if (auto it = starts.find(&c); it != starts.end()) return it->second;
    llvm::IRBuilder<> pb(preEnd);
    llvm::Value* start;
    if (auto it = startFrom.find(&c); it != startFrom.end()) {
      llvm::Value* from = startOf(*it->second);
      const int64_t delta = static_cast<int32_t>(static_cast<uint32_t>(c.offset - it->second->offset));
      start = pb.CreateAdd(from, laneVector(c.lane, delta, "coord.delta"), "coord.start");
    } else {
      llvm::Value* first = c.iv->getIncomingValueForBlock(pre);
      if (c.scale != 1) first = pb.CreateMul(first, llvm::ConstantInt::get(c.iv->getType(), c.scale));
      if (c.offset) first = pb.CreateAdd(first, llvm::ConstantInt::get(c.iv->getType(), c.offset));
      if (first->getType() != i32) first = pb.CreateSExtOrTrunc(first, i32);
      // A constant first value goes in before the other lanes: over a constant base it folds into it.
      start = c.base;
      const bool firstIsConstant = llvm::isa<llvm::Constant>(first);
      if (firstIsConstant) start = pb.CreateInsertElement(start, first, llvm::ConstantInt::get(i32, c.lane));
      for (auto [lane, value] : c.fixed) start = pb.CreateInsertElement(start, value, llvm::ConstantInt::get(i32, lane));
      if (!firstIsConstant) start = pb.CreateInsertElement(start, first, llvm::ConstantInt::get(i32, c.lane));
      start->setName("coord.start");
    }
    return starts[&c] = start;
  };
  // Derived copies right after the PHIs, in order of offset, so each follows the one it adds to.
  llvm::Instruction* derivedAt = nullptr;
  for (Candidate& c : found) {
    if (derivedFrom.count(&c)) continue;
    llvm::Value* stepVec = laneVector(c.lane, c.step, "coord.step");
    llvm::Value* start = startOf(c);
    llvm::PHINode* phi = llvm::PHINode::Create(int5, 2, "coord", header->getFirstNonPHIIt());
    llvm::IRBuilder<> lb(header->getTerminator());
    llvm::Value* next = lb.CreateAdd(phi, stepVec, "coord.next");
    phi->addIncoming(start, pre);
    phi->addIncoming(next, latch);
    inLoop[&c] = phi;
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
  std::vector<std::pair<int64_t, Candidate*>> derived;
  for (auto& [copy, from] : derivedFrom) derived.push_back({copy->offset, copy});
  std::stable_sort(derived.begin(), derived.end(), [](auto& a, auto& b) { return a.first < b.first; });
  for (auto& [offset, copy] : derived) {
    Candidate* from = derivedFrom[copy];
    if (copy->offset == from->offset) {  // the same coordinate, built again
      inLoop[copy] = inLoop.at(from);
      copy->ie->replaceAllUsesWith(inLoop[copy]);
      copy->ie->eraseFromParent();
      continue;
    }
    if (!derivedAt) derivedAt = &*header->getFirstNonPHIIt();
    llvm::Constant* delta = llvm::ConstantVector::get([&] {
      std::vector<llvm::Constant*> lanes(5, llvm::ConstantInt::get(i32, 0));
      lanes[copy->lane] = llvm::ConstantInt::get(i32, copy->offset - from->offset);
      return lanes;
    }());
    llvm::IRBuilder<> db(derivedAt);
    llvm::Value* value = db.CreateAdd(inLoop.at(from), delta, "coord.copy");
    inLoop[copy] = value;
    copy->ie->replaceAllUsesWith(value);
    copy->ie->eraseFromParent();
  }
  // Insertions that built the replaced coordinates, and the loop's own int5 PHIs, may be left without users.
  for (bool erased = true; erased;) {
    erased = false;
    for (llvm::Instruction& inst : llvm::make_early_inc_range(*header))
      if (isInt5(inst.getType()) && inst.use_empty() && (llvm::isa<llvm::InsertElementInst>(inst) || llvm::isa<llvm::PHINode>(inst))) {
        inst.eraseFromParent();
        erased = true;
      }
  }
}

// What lane `lane` of an int5 value is, through insertions and PHIs: the value inserted there, a constant
// element, or {v, lane} of an opaque v. A PHI whose incoming values agree (or come back to it) is that.
struct LaneSource {
  llvm::Value* value = nullptr;  // null: unknown
  int lane = -1;                 // -1: value is the lane itself; else lane of an opaque vector
  bool operator==(const LaneSource&) const = default;
};

LaneSource sourceOfLane(llvm::Value* v, unsigned lane, llvm::PHINode* self, std::set<llvm::PHINode*>& visiting) {
  for (int depth = 0; depth < 64; ++depth) {
    if (auto* ie = llvm::dyn_cast<llvm::InsertElementInst>(v)) {
      auto* k = llvm::dyn_cast<llvm::ConstantInt>(ie->getOperand(2));
      if (!k) return {};
      if (k->getZExtValue() == lane) return {ie->getOperand(1), -1};
      v = ie->getOperand(0);
      continue;
    }
    if (auto* c = llvm::dyn_cast<llvm::Constant>(v)) return {c->getAggregateElement(lane), -1};
    if (auto* phi = llvm::dyn_cast<llvm::PHINode>(v)) {
      if (phi == self || !visiting.insert(phi).second) return {phi, static_cast<int>(lane)};  // around a cycle
      LaneSource common;
      bool throughSelf = false;
      for (llvm::Value* in : phi->incoming_values()) {
        LaneSource s = sourceOfLane(in, lane, self, visiting);
        if (s == LaneSource{phi, static_cast<int>(lane)}) continue;  // its own value, around its loop
        if (self && s == LaneSource{self, static_cast<int>(lane)}) {
          throughSelf = true;
          continue;
        }
        if (!s.value || (common.value && !(s == common))) return {phi, static_cast<int>(lane)};
        common = s;
      }
      visiting.erase(phi);
      if (throughSelf) return common.value ? LaneSource{phi, static_cast<int>(lane)} : LaneSource{self, static_cast<int>(lane)};
      return common.value ? common : LaneSource{phi, static_cast<int>(lane)};
    }
    return {v, static_cast<int>(lane)};
  }
  return {};
}

}  // namespace

// An int5 PHI of a loop nest (`int5 c` declared outside the loops and partly rewritten in them) whose
// lanes that its users read are the same on every path as where it starts (c[1] = 0 after an inner loop
// over c[1], c[0] = col before it): those users can read the starting value, and the PHI, which ties
// every outer iteration to the last value of the inner loop, goes away.
void forwardInvariantLanes(llvm::Function& f) {
  for (llvm::BasicBlock& bb : f)
    for (llvm::PHINode& phi : llvm::make_early_inc_range(bb.phis())) {
      auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(phi.getType());
      if (!vt || vt->getNumElements() != 5 || !vt->getElementType()->isIntegerTy(32)) continue;
      // The lanes read: all but the one an insertion overwrites, for each user.
      unsigned read = 0;
      for (llvm::User* u : phi.users()) {
        auto* ie = llvm::dyn_cast<llvm::InsertElementInst>(u);
        auto* k = ie && ie->getOperand(0) == &phi ? llvm::dyn_cast<llvm::ConstantInt>(ie->getOperand(2)) : nullptr;
        read |= k && k->getZExtValue() < 5 ? 0x1fu & ~(1u << k->getZExtValue()) : 0x1fu;
      }
      // The start: the one incoming value from a block the PHI's block dominates none of (the entry edge).
      llvm::Value* start = nullptr;
      for (unsigned k = 0; k < phi.getNumIncomingValues(); ++k) {
        llvm::Value* in = phi.getIncomingValue(k);
        if (auto* inst = llvm::dyn_cast<llvm::Instruction>(in); inst && inst->getParent() == &bb) start = nullptr;
        if (llvm::isa<llvm::Constant>(in) || llvm::isa<llvm::Argument>(in)) start = start ? start : in;
      }
      if (!start) continue;
      bool same = true;
      for (unsigned lane = 0; lane < 5 && same; ++lane) {
        if (!(read & (1u << lane))) continue;
        std::set<llvm::PHINode*> visiting;
        std::set<llvm::PHINode*> none;
        const LaneSource want = sourceOfLane(start, lane, nullptr, none);
        for (llvm::Value* in : phi.incoming_values()) {
          const LaneSource s = sourceOfLane(in, lane, &phi, visiting);
          if (!(s == want) && !(s == LaneSource{&phi, static_cast<int>(lane)})) same = false;
        }
      }
      if (!same) continue;
      phi.replaceAllUsesWith(start);
      phi.eraseFromParent();
    }
}

void reduceCoordinates(llvm::Function& f, size_t maxIvs) {
  llvm::DominatorTree dt(f);
  llvm::LoopInfo li(dt);
  for (llvm::Loop* loop : li.getLoopsInPreorder())
    if (loop->isInnermost()) reduceLoop(loop, maxIvs);
}

}  // namespace tpc::cc
