// Coordinates built lane by lane from `x + C` as one shared vector plus constants (LLVM IR, before
// coordinate chains and instruction selection).
//
// Unrolling a loop over columns leaves each copy's coordinates built from its own scalar:
//
//     c_j = {n + 64 j, m, 0, 0, 0}        (j = 0..7, inserted lane by lane)
//
// which costs each copy a scalar add, a copy of the other lanes and a lane write, besides the lanes
// written after it. When several coordinates of one block differ only by constants added to the scalars
// of their lanes, they become one vector and constant offsets:
//
//     c = {n, m, 0, 0, 0}        c_j = c + <64 j, 0, 0, 0, 0>
//
// whose adds coordinate chains (coordinate_chains.cpp) then link by one shared step. matmul's group of 8
// output vectors builds 8 such coordinates for its loads and 8 for its stores whenever the row's next 8
// columns start.
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Transforms/Utils/Local.h>

#include "ir_patterns.h"
#include "tpc/cc/codegen.h"

namespace tpc::cc {

namespace {

// A coordinate as its insertions: the vector under them and the value each written lane ends with.
struct Built {
  llvm::Value* under = nullptr;
  std::vector<std::pair<int, llvm::Value*>> lanes;  // by lane
};

std::optional<Built> decompose(llvm::InsertElementInst* root) {
  Built b;
  bool written[5] = {};
  llvm::Value* v = root;
  while (auto* ie = llvm::dyn_cast<llvm::InsertElementInst>(v)) {
    const int lane = laneOf(ie);
    if (lane < 0) return std::nullopt;
    if (!written[lane]) b.lanes.push_back({lane, ie->getOperand(1)});
    written[lane] = true;
    v = ie->getOperand(0);
  }
  b.under = v;
  std::sort(b.lanes.begin(), b.lanes.end());
  return b;
}

// Read as a whole (not only built on by further insertions).
bool isCoordinate(const llvm::InsertElementInst& ie) {
  for (const llvm::Use& u : ie.uses()) {
    const auto* next = llvm::dyn_cast<llvm::InsertElementInst>(u.getUser());
    if (!next || u.getOperandNo() != 0) return true;
  }
  return false;
}

// x is lane `lane` of v already (inserting it would change nothing).
bool readFromLane(llvm::Value* x, llvm::Value* v, int lane) {
  const auto* ex = llvm::dyn_cast<llvm::ExtractElementInst>(x);
  const auto* k = ex ? llvm::dyn_cast<llvm::ConstantInt>(ex->getIndexOperand()) : nullptr;
  return k && ex->getVectorOperand() == v && k->getZExtValue() == static_cast<uint64_t>(lane);
}

struct Member {
  llvm::InsertElementInst* root;
  std::array<int64_t, 5> offset;
};

}  // namespace

void shareLaneOffsets(llvm::Function& f) {
  llvm::Type* i32 = llvm::Type::getInt32Ty(f.getContext());
  std::vector<llvm::Instruction*> replaced;
  llvm::DominatorTree dt(f);
  llvm::LoopInfo li(dt);
  for (llvm::BasicBlock& bb : f) {
    // In an innermost loop the offsets' constants would be made again each iteration, where selection's
    // own reuse of a coordinate at hand (`c[0] += 64`) costs one add.
    if (const llvm::Loop* loop = li.getLoopFor(&bb); loop && loop->isInnermost()) continue;
    // Coordinates of this block by what they are built of once the constants are taken out.
    using Key = std::tuple<llvm::Value*, std::vector<std::pair<int, llvm::Value*>>>;
    std::map<Key, std::vector<Member>> groups;
    std::vector<Key> order;  // keys in program order (the map's order is by address)
    for (llvm::Instruction& i : bb) {
      auto* ie = llvm::dyn_cast<llvm::InsertElementInst>(&i);
      if (!ie || !isInt5(ie->getType()) || !isCoordinate(*ie)) continue;
      std::optional<Built> built = decompose(ie);
      if (!built) continue;
      Member m{ie, {}};
      std::vector<std::pair<int, llvm::Value*>> stripped;
      for (auto [lane, value] : built->lanes) {
        auto [x, c] = baseAndConstant(value);
        m.offset[static_cast<size_t>(lane)] = static_cast<int32_t>(c);  // int5 lanes wrap at 32 bits
        stripped.push_back({lane, x});
      }
      Key key{built->under, stripped};
      auto [it, fresh] = groups.try_emplace(key);
      if (fresh) order.push_back(key);
      it->second.push_back(m);
    }
    for (const Key& key : order) {
      std::vector<Member>& members = groups[key];
      // One coordinate alone gains nothing: its scalar add and lane write become a lane write and an add.
      if (members.size() < 2) continue;
      bool anyOffset = false;
      for (const Member& m : members)
        for (int64_t c : m.offset) anyOffset |= c != 0;
      if (!anyOffset) continue;

      // The shared vector, where the first coordinate was built (its lanes' values are at hand there).
      llvm::Instruction* at = members.front().root;
      {
        // After an inner loop: in the header of the loop around it, if the lanes' values are known there,
        // so that the vector is ready when the inner loop ends (built after it, its lane writes, 2 cycles
        // each, delayed the first store by 6 cycles in matmul; it holds one index register through the
        // inner loop instead).
        const llvm::Loop* loop = li.getLoopFor(&bb);
        if (loop && loop->getHeader() != &bb) {
          llvm::Instruction* end = loop->getHeader()->getTerminator();
          bool known = true;
          auto check = [&](llvm::Value* v) {
            if (auto* i = llvm::dyn_cast<llvm::Instruction>(v)) known &= dt.dominates(i, end);
          };
          check(std::get<0>(key));
          for (auto [lane, x] : std::get<1>(key)) check(x);
          bool innerBetween = false;
          for (const llvm::Loop* inner : loop->getSubLoops()) innerBetween |= dt.dominates(inner->getHeader(), &bb);
          if (known && innerBetween) at = end;
        }
      }
      // Lanes in order of how long their values stay the same: constants (over a constant vector they
      // fold into it), then values the enclosing loop does not change (the vector built of those up to
      // there is moved out of the loop later, hoistConstantCoordinates), then the others.
      const llvm::Loop* around = li.getLoopFor(at->getParent());
      auto rank = [&](llvm::Value* x) {
        if (llvm::isa<llvm::Constant>(x)) return 0;
        return around && around->isLoopInvariant(x) ? 1 : 2;
      };
      llvm::IRBuilder<> b(at);
      llvm::Value* shared = std::get<0>(key);
      for (int r : {0, 1, 2})
        for (auto [lane, x] : std::get<1>(key))
          if (rank(x) == r && !readFromLane(x, shared, lane))
            shared = b.CreateInsertElement(shared, x, llvm::ConstantInt::get(i32, static_cast<uint64_t>(lane)));
      if (auto* si = llvm::dyn_cast<llvm::Instruction>(shared)) si->setName("lanes.shared");
      for (const Member& m : members) {
        llvm::Value* now = shared;
        if (m.offset != std::array<int64_t, 5>{}) {
          std::vector<llvm::Constant*> lanes;
          for (int64_t c : m.offset) lanes.push_back(llvm::ConstantInt::get(i32, static_cast<uint64_t>(c), true));
          llvm::IRBuilder<> at(m.root);
          now = at.CreateAdd(shared, llvm::ConstantVector::get(lanes), m.root->getName() + ".offset");
          if (auto* ni = llvm::dyn_cast<llvm::Instruction>(now)) {
            ni->setDebugLoc(m.root->getDebugLoc());
            if (llvm::MDNode* position = m.root->getMetadata(kSourcePositionMetadata))
              ni->setMetadata(kSourcePositionMetadata, position);
          }
        }
        m.root->replaceAllUsesWith(now);
        replaced.push_back(m.root);
      }
    }
  }
  // The old insertions and the scalar adds that only they read.
  for (llvm::Instruction* i : replaced)
    if (i->use_empty()) llvm::RecursivelyDeleteTriviallyDeadInstructions(i);
}

}  // namespace tpc::cc
