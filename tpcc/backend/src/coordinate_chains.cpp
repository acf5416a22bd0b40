// Offsets from one coordinate as a chain (LLVM IR, before instruction selection).
//
// A kernel's set-up often makes several coordinates a fixed step apart from one base, as each unrolled
// copy's first point or each IV's start value:
//
//     c1 = base + <64, 0, 0, 0, 0>    c2 = base + <128, 0, 0, 0, 0>    c3 = base + <192, 0, 0, 0, 0>
//
// LLVM folds them to that form whatever the source wrote. Each distinct int5 constant costs two
// scalar-slot instructions (all lanes, then the one lane) besides the add; as a chain
//
//     c1 = base + <64, 0, 0, 0, 0>    c2 = c1 + <64, 0, 0, 0, 0>    c3 = c2 + <64, 0, 0, 0, 0>
//
// they share one constant. Outside innermost loops only: there the set-up runs once, while in a loop
// body the chain's latency would lengthen every iteration's schedule.
#include <algorithm>
#include <map>
#include <optional>
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

struct LaneOffset {
  unsigned lane;
  int64_t value;
};

// The int5 constant's one non-zero lane, if it has exactly one. (Vectors of the VPU are left alone: a
// chain of their 4-cycle adds would cost more than the constants.)
std::optional<LaneOffset> singleLaneOffset(const llvm::Value* v) {
  const auto* c = llvm::dyn_cast<llvm::Constant>(v);
  const auto* type = llvm::dyn_cast<llvm::FixedVectorType>(v->getType());
  if (!c || !type || type->getNumElements() != 5 || !type->getElementType()->isIntegerTy(32)) return std::nullopt;
  std::optional<LaneOffset> found;
  for (unsigned lane = 0; lane < type->getNumElements(); ++lane) {
    const auto* element = llvm::dyn_cast_or_null<llvm::ConstantInt>(c->getAggregateElement(lane));
    if (!element) return std::nullopt;  // poison or undef lanes: leave such adds alone
    if (element->isZero()) continue;
    if (found) return std::nullopt;
    found = LaneOffset{lane, element->getSExtValue()};
  }
  return found;
}

// `base + constant` as int5 arithmetic: an add, or an `or` whose operands share no bits.
bool isOffsetAdd(const llvm::Instruction& i) {
  if (i.getOpcode() == llvm::Instruction::Add) return true;
  const auto* disjoint = llvm::dyn_cast<llvm::PossiblyDisjointInst>(&i);
  return disjoint && disjoint->isDisjoint();
}

struct Member {
  int64_t offset;
  llvm::Instruction* add;
};

// Rewrites one group (same block, base and lane) when all steps between sorted offsets are equal and the
// chain needs fewer distinct constants than the group does.
void chainGroup(llvm::Value* base, unsigned lane, std::vector<Member>& members) {
  std::sort(members.begin(), members.end(), [](const Member& a, const Member& b) { return a.offset < b.offset; });
  for (size_t k = 1; k < members.size(); ++k)
    if (members[k].offset == members[k - 1].offset) return;  // not CSE'd: leave it
  const int64_t step = members[1].offset - members[0].offset;
  for (size_t k = 2; k < members.size(); ++k)
    if (members[k].offset - members[k - 1].offset != step) return;
  const size_t constantsAfter = members[0].offset == step ? 1 : 2;
  if (constantsAfter >= members.size()) return;

  // Built before the group's first member, which every use of any member follows.
  llvm::Instruction* first = members.front().add;
  for (const Member& m : members)
    if (m.add->comesBefore(first)) first = m.add;
  auto* type = llvm::cast<llvm::FixedVectorType>(base->getType());
  auto offsetVector = [&](int64_t value) {
    std::vector<llvm::Constant*> lanes(type->getNumElements(), llvm::ConstantInt::get(type->getElementType(), 0));
    lanes[lane] = llvm::ConstantInt::get(type->getElementType(), static_cast<uint64_t>(value), /*isSigned=*/true);
    return llvm::ConstantVector::get(lanes);
  };
  llvm::IRBuilder<> b(first);
  llvm::Value* previous = base;
  for (size_t k = 0; k < members.size(); ++k) {
    llvm::Instruction* old = members[k].add;
    auto* next = llvm::cast<llvm::Instruction>(
        b.CreateAdd(previous, offsetVector(k == 0 ? members[0].offset : step), old->getName() + ".chain"));
    next->setDebugLoc(old->getDebugLoc());
    if (llvm::MDNode* position = old->getMetadata(kSourcePositionMetadata))
      next->setMetadata(kSourcePositionMetadata, position);
    old->replaceAllUsesWith(next);
    previous = next;
  }
  for (Member& m : members) m.add->eraseFromParent();
}

}  // namespace

void chainCoordinateOffsets(llvm::Function& f) {
  llvm::DominatorTree dt(f);
  llvm::LoopInfo li(dt);
  for (llvm::BasicBlock& bb : f) {
    if (const llvm::Loop* loop = li.getLoopFor(&bb); loop && loop->isInnermost()) continue;
    std::map<std::pair<llvm::Value*, unsigned>, std::vector<Member>> groups;
    for (llvm::Instruction& i : bb) {
      if (!isOffsetAdd(i)) continue;
      std::optional<LaneOffset> offset = singleLaneOffset(i.getOperand(1));
      if (!offset) continue;
      groups[{i.getOperand(0), offset->lane}].push_back(Member{offset->value, &i});
    }
    for (auto& [key, members] : groups)
      if (members.size() >= 2) chainGroup(key.first, key.second, members);
  }
}

}  // namespace tpc::cc
