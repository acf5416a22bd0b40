// Offsets from one coordinate as chains (LLVM IR, before instruction selection).
//
// A kernel's set-up often makes several coordinates fixed steps apart from one base, as each unrolled
// copy's first point or each IV's start value:
//
//     c1 = base + <64, 0, 0, 0, 0>    c2 = base + <128, 0, 0, 0, 0>    c3 = base + <64, 1, 0, 0, 0>
//
// LLVM folds them to that form whatever the source wrote. Each distinct int5 constant costs one
// scalar-slot instruction for all lanes and one for each non-zero lane, besides the add; as chains
//
//     c1 = base + <64, 0, 0, 0, 0>    c2 = c1 + <64, 0, 0, 0, 0>    c3 = c1 + <0, 1, 0, 0, 0>
//
// they share a few steps: a band of rows side by side, U points each, needs two (along the row and to
// the next row) where folded it needs one per coordinate. The steps are picked greedily, each the one that
// reaches the most offsets from those already built; the group is rewritten only when that costs fewer
// instructions. Outside innermost loops only: there the set-up runs once, while in a loop body the
// chain's latency would lengthen every iteration's schedule.
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include "tpc/cc/codegen.h"

namespace tpc::cc {

namespace {

using Offset = std::array<int64_t, 5>;

constexpr size_t kMaxCandidateSteps = 1024;
constexpr int kDepthForTwoChains = 4;  // adds in a row before a second chain pays for its constant

// The int5 constant's lanes, if all are known and one is not zero. (Vectors of the VPU are left alone: a
// chain of their 4-cycle adds would cost more than the constants.)
std::optional<Offset> constantOffset(const llvm::Value* v) {
  const auto* c = llvm::dyn_cast<llvm::Constant>(v);
  const auto* type = llvm::dyn_cast<llvm::FixedVectorType>(v->getType());
  if (!c || !type || type->getNumElements() != 5 || !type->getElementType()->isIntegerTy(32)) return std::nullopt;
  Offset found{};
  bool nonZero = false;
  for (unsigned lane = 0; lane < 5; ++lane) {
    const auto* element = llvm::dyn_cast_or_null<llvm::ConstantInt>(c->getAggregateElement(lane));
    if (!element) return std::nullopt;  // poison or undef lanes: leave such adds alone
    found[lane] = element->getSExtValue();
    nonZero |= found[lane] != 0;
  }
  if (!nonZero) return std::nullopt;
  return found;
}

// Scalar-slot instructions that make the constant: all lanes, then each non-zero one.
int constantCost(const Offset& o) {
  return 1 + static_cast<int>(std::count_if(o.begin(), o.end(), [](int64_t x) { return x != 0; }));
}

Offset minus(const Offset& a, const Offset& b) {
  Offset d{};
  for (size_t k = 0; k < 5; ++k) d[k] = a[k] - b[k];
  return d;
}

// `base + constant` as int5 arithmetic: an add, or an `or` whose operands share no bits.
bool isOffsetAdd(const llvm::Instruction& i) {
  if (i.getOpcode() == llvm::Instruction::Add) return true;
  const auto* disjoint = llvm::dyn_cast<llvm::PossiblyDisjointInst>(&i);
  return disjoint && disjoint->isDisjoint();
}

struct Member {
  Offset offset;
  llvm::Instruction* add;
};

// How a member is built: from `parent` (-1: the base, else a member's index) plus `step`.
struct Link {
  int parent = -2;  // -2: not built from another: the member keeps its own add
  Offset step{};
};

// How many members the base reaches by the steps, through the members reached (breadth first). `index`:
// each member's offset to its position.
int reach(const std::vector<Member>& members, const std::map<Offset, int>& index, const std::vector<Offset>& steps) {
  std::vector<bool> reached(members.size(), false);
  std::vector<Offset> frontier{Offset{}};
  for (size_t next = 0; next < frontier.size(); ++next)
    for (const Offset& s : steps) {
      Offset to = frontier[next];
      for (size_t k = 0; k < 5; ++k) to[k] += s[k];
      auto it = index.find(to);
      if (it == index.end() || reached[static_cast<size_t>(it->second)]) continue;
      reached[static_cast<size_t>(it->second)] = true;
      frontier.push_back(to);
    }
  return static_cast<int>(frontier.size()) - 1;
}

struct Placement {
  std::vector<Link> plan;
  int cost = 0;   // scalar-slot instructions for the constants
  int depth = 0;  // the longest chain of adds
};

// Built in program order, each where its member was, so that it lives no longer than the member did (a
// run of stores, each at the next offset, keeps one coordinate alive, not all of them): from a member
// before it one step away, or from the base; of those the one at the shallowest depth in its chain, and
// of equally deep ones the one that came last. A member with none keeps its add.
Placement place(const std::vector<Member>& members, const std::vector<Offset>& steps) {
  Placement p;
  p.plan.resize(members.size());
  std::vector<int> depth(members.size(), 0);
  std::map<Offset, int> seen;  // offset -> the member built at it so far
  std::set<Offset> used;
  for (size_t m = 0; m < members.size(); ++m) {
    int bestDepth = 0;
    for (const Offset& step : steps) {
      const Offset from = minus(members[m].offset, step);
      int parent = -2;
      if (from == Offset{}) parent = -1;
      if (auto it = seen.find(from); it != seen.end()) parent = it->second;
      if (parent == -2) continue;
      const int d = parent < 0 ? 1 : depth[static_cast<size_t>(parent)] + 1;
      if (p.plan[m].parent == -2 || d < bestDepth || (d == bestDepth && parent > p.plan[m].parent)) {
        p.plan[m] = Link{parent, step};
        bestDepth = d;
      }
    }
    if (p.plan[m].parent == -2) {
      p.cost += constantCost(members[m].offset);
      depth[m] = 1;
    } else {
      used.insert(p.plan[m].step);
      depth[m] = bestDepth;
    }
    p.depth = std::max(p.depth, depth[m]);
    seen[members[m].offset] = static_cast<int>(m);
  }
  for (const Offset& step : used) p.cost += constantCost(step);
  return p;
}

// Rewrites one group (same block and base) as chains when its steps cost fewer instructions than the
// group's constants.
void chainGroup(llvm::Value* base, std::vector<Member>& members) {
  std::map<Offset, int> index;
  for (size_t m = 0; m < members.size(); ++m) index[members[m].offset] = static_cast<int>(m);
  if (index.size() != members.size()) return;  // an offset twice, not CSE'd: leave it
  int costBefore = 0;
  for (const Member& m : members) costBefore += constantCost(m.offset);

  // Candidate steps: every difference between two offsets (the base's being zero). Groups with more than
  // a thousand (offsets with few common steps) are left as they are: the search grows with their square.
  std::set<Offset> candidateSet;
  for (size_t m = 0; m < members.size(); ++m) {
    candidateSet.insert(members[m].offset);
    for (size_t p = 0; p < members.size() && candidateSet.size() <= kMaxCandidateSteps; ++p)
      if (p != m) candidateSet.insert(minus(members[m].offset, members[p].offset));
    if (candidateSet.size() > kMaxCandidateSteps) return;
  }
  const std::vector<Offset> candidates(candidateSet.begin(), candidateSet.end());
  std::vector<Offset> steps;
  int reached = 0, costAfter = 0;
  while (reached < static_cast<int>(members.size())) {
    int bestReach = reached, bestCost = 0;
    std::optional<Offset> best;
    for (const Offset& c : candidates) {
      std::vector<Offset> trial = steps;
      trial.push_back(c);
      const int r = reach(members, index, trial);
      if (r > bestReach || (r == bestReach && best && constantCost(c) < bestCost)) {
        if (r == reached) continue;
        bestReach = r;
        bestCost = constantCost(c);
        best = c;
      }
    }
    if (!best) return;
    steps.push_back(*best);
    costAfter += bestCost;
    reached = bestReach;
  }
  if (costAfter >= costBefore) return;

  Placement placed = place(members, steps);
  if (placed.cost >= costBefore) return;
  // A long run at one step makes each coordinate wait for the one before it (index-register adds take 2
  // cycles, so stores at the next offsets each issue every other cycle): twice the step as well makes two
  // chains, at the price of one more constant. Only where each coordinate serves one access and nothing
  // else (two loads at each take the load slot as long as the add takes; a loop's start values wait for
  // the loop's own set-up anyway), and only for one step (in a grid, the
  // shallowest parent may be a coordinate made long before, which would keep many alive).
  const bool oneAccessEach = std::all_of(members.begin(), members.end(), [](const Member& m) {
    return m.add->hasOneUse() && llvm::isa<llvm::CallInst>(*m.add->user_begin());
  });
  if (steps.size() == 1 && oneAccessEach && placed.depth >= kDepthForTwoChains) {
    Offset twice{};
    for (size_t k = 0; k < 5; ++k) twice[k] = 2 * steps[0][k];
    Placement twoChains = place(members, {steps[0], twice});
    if (twoChains.cost < costBefore && twoChains.depth < placed.depth) placed = twoChains;
  }
  const std::vector<Link>& plan = placed.plan;

  auto* type = llvm::cast<llvm::FixedVectorType>(base->getType());
  auto offsetVector = [&](const Offset& o) {
    std::vector<llvm::Constant*> lanes;
    for (int64_t x : o)
      lanes.push_back(llvm::ConstantInt::get(type->getElementType(), static_cast<uint64_t>(x), /*isSigned=*/true));
    return llvm::ConstantVector::get(lanes);
  };
  std::vector<llvm::Value*> built(members.size(), nullptr);
  for (size_t m = 0; m < members.size(); ++m) {
    llvm::Instruction* old = members[m].add;
    if (plan[m].parent == -2) {
      built[m] = old;
      continue;
    }
    llvm::IRBuilder<> b(old);
    llvm::Value* from = plan[m].parent < 0 ? base : built[static_cast<size_t>(plan[m].parent)];
    auto* next = llvm::cast<llvm::Instruction>(b.CreateAdd(from, offsetVector(plan[m].step), old->getName() + ".chain"));
    next->setDebugLoc(old->getDebugLoc());
    if (llvm::MDNode* position = old->getMetadata(kSourcePositionMetadata))
      next->setMetadata(kSourcePositionMetadata, position);
    old->replaceAllUsesWith(next);
    old->eraseFromParent();
    built[m] = next;
  }
}

}  // namespace

void chainCoordinateOffsets(llvm::Function& f) {
  llvm::DominatorTree dt(f);
  llvm::LoopInfo li(dt);
  for (llvm::BasicBlock& bb : f) {
    if (const llvm::Loop* loop = li.getLoopFor(&bb); loop && loop->isInnermost()) continue;
    std::map<llvm::Value*, std::vector<Member>> groups;
    for (llvm::Instruction& i : bb) {
      if (!isOffsetAdd(i)) continue;
      std::optional<Offset> offset = constantOffset(i.getOperand(1));
      if (!offset) continue;
      groups[i.getOperand(0)].push_back(Member{*offset, &i});
    }
    for (auto& [base, members] : groups)
      if (members.size() >= 2) chainGroup(base, members);
  }
}

}  // namespace tpc::cc
