// Straight-line blocks joined (machine IR, after register allocation and jump threading). The list
// scheduler fills bundles within a block only, so a block boundary that control always crosses straight
// through wastes the slots the other side could fill: the scalar set-up before a loop's prologue leaves
// the prologue's loads waiting, and the prologue's scalar slot idles. A block that falls into its layout
// successor without a condition, when that successor is reached from nowhere else, takes the successor's
// instructions and its way out; the successor produces no code.
#include <vector>

#include "tpc/cc/passes.h"

namespace tpc::cc {

namespace {

// The most instructions a tail copied in place of a jump to it may have: a loop's latch (an increment,
// a compare, the branch) and a little more.
constexpr size_t kShortTail = 6;

bool onlyHalts(const MBlock& b) {
  return !b.dead && b.insts.empty() && b.condTarget < 0 && b.next == -1 && b.loopBody < 0 && !b.bodyIter.valid();
}

// Whether control entering block b (-1: the kernel's end) only halts: b halts, or jumps through empty
// blocks to one that does.
bool leadsOnlyToHalt(const MFunction& mf, int b) {
  for (int steps = 0; steps < 8; ++steps) {
    if (b == -1) return true;
    if (b < 0) return false;
    const MBlock& blk = mf.blocks[static_cast<size_t>(b)];
    if (blk.dead || !blk.insts.empty() || blk.condTarget >= 0 || blk.loopBody >= 0 || blk.bodyIter.valid()) return false;
    b = blk.next;
  }
  return false;
}

// The block that comes after block b in the layout (dead blocks produce no code), -2 when none does.
int nextLive(const MFunction& mf, int b) {
  const int n = static_cast<int>(mf.blocks.size());
  int s = b + 1;
  while (s < n && mf.blocks[static_cast<size_t>(s)].dead) ++s;
  return s < n ? s : -2;
}

// `into` runs `code` after its own instructions and then goes on as `ending` does (its condition and
// target, its next block, its hardware loop).
void append(MBlock& into, const std::vector<MInst>& code, const MBlock& ending) {
  into.insts.insert(into.insts.end(), code.begin(), code.end());
  into.condTarget = ending.condTarget;
  into.condPred = ending.condPred;
  into.condNegate = ending.condNegate;
  into.next = ending.next;
  into.endLoc = ending.endLoc;
  into.loopBody = ending.loopBody;
  into.loopCount = ending.loopCount;
  into.loopZero = ending.loopZero;
  into.loopIter = ending.loopIter;
}

// How many edges reach each block: jumps, fall-throughs, loop bodies and, for a loop that runs no
// iteration, the block after its body.
std::vector<int> edgesIn(const MFunction& mf) {
  const int n = static_cast<int>(mf.blocks.size());
  std::vector<int> edges(static_cast<size_t>(n), 0);
  auto count = [&](int to) {
    if (to >= 0 && to < n) ++edges[static_cast<size_t>(to)];
  };
  for (const MBlock& b : mf.blocks) {
    if (b.dead) continue;
    count(b.condTarget);
    count(b.next);
    if (b.loopBody >= 0) {
      count(b.loopBody);
      count(mf.blocks[static_cast<size_t>(b.loopBody)].next);
    }
  }
  return edges;
}

}  // namespace

void mergeStraightBlocks(MFunction& mf) {
  const int n = static_cast<int>(mf.blocks.size());
  const std::vector<int> edges = edgesIn(mf);
  for (int a = 0; a < n; ++a) {
    MBlock& first = mf.blocks[static_cast<size_t>(a)];
    // A loop body ends where its loop ends, and a preheader's body must follow it: neither takes more.
    if (first.dead || first.condTarget >= 0 || first.loopBody >= 0 || first.bodyIter.valid()) continue;
    for (;;) {
      const int s = nextLive(mf, a);
      if (s < 0 || first.next != s) break;
      MBlock& second = mf.blocks[static_cast<size_t>(s)];
      if (second.bodyIter.valid() || edges[static_cast<size_t>(s)] != 1) break;
      append(first, second.insts, second);
      second = MBlock{};
      second.dead = true;
      if (first.condTarget >= 0 || first.loopBody >= 0) break;
    }
  }
}

void duplicateShortTails(MFunction& mf) {
  const int n = static_cast<int>(mf.blocks.size());
  const std::vector<int> edges = edgesIn(mf);
  for (int a = 0; a < n; ++a) {
    MBlock& from = mf.blocks[static_cast<size_t>(a)];
    if (from.dead || from.condTarget >= 0 || from.loopBody >= 0 || from.bodyIter.valid()) continue;
    const int t = from.next, after = nextLive(mf, a);
    if (t < 0 || t == a) continue;
    const MBlock& tail = mf.blocks[static_cast<size_t>(t)];
    if (tail.dead || tail.loopBody >= 0 || tail.bodyIter.valid() || tail.insts.size() > kShortTail) continue;
    MBlock end = tail;
    if (t == after) {
      // `from` falls into the tail, so there is no jump to save; but where the tail decides between a
      // target and halting (after a loop's epilogue: whether a remainder loop runs), a copy ending in its
      // conditional jump and a halt in place lets the decision share from's last bundles, and the tail's
      // own bundle goes. The tail stays for its other predecessors (one alone is joined anyway).
      if (edges[static_cast<size_t>(t)] < 2 || end.condTarget < 0) continue;
      if (leadsOnlyToHalt(mf, end.next)) {
        end.next = -1;
      } else if (leadsOnlyToHalt(mf, end.condTarget)) {
        end.condTarget = end.next;
        end.condNegate = !end.condNegate;
        end.next = -1;
      } else {
        continue;
      }
      append(from, tail.insts, end);
      continue;
    }
    // The copy ends as the tail does: going on by halting or into the block after `from`, or its
    // condition's target being that block (the scheduler jumps on the opposite condition), or a block that
    // only halts (the same, halting in place). A tail that decides between two other blocks ends in both
    // jumps: the decision taken costs one jump instead of two, and its compare shares from's bundles. A
    // tail that only jumps on would need a jump of its own: nothing saved.
    if (end.condTarget >= 0 && end.next != -1 && end.next != after && end.condTarget != after &&
        onlyHalts(mf.blocks[static_cast<size_t>(end.condTarget)])) {
      end.condTarget = end.next;
      end.condNegate = !end.condNegate;
      end.next = -1;
    }
    if (end.condTarget < 0 && end.next != -1 && end.next != after) continue;
    append(from, tail.insts, end);
  }
}

}  // namespace tpc::cc
