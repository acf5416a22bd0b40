// Straight-line blocks joined (machine IR, after register allocation and jump threading). The list
// scheduler fills bundles within a block only, so a block boundary that control always crosses straight
// through wastes the slots the other side could fill: the scalar set-up before a loop's prologue leaves
// the prologue's loads waiting, and the prologue's scalar slot idles. A block that falls into its layout
// successor without a condition, when that successor is reached from nowhere else, takes the successor's
// instructions and its way out; the successor produces no code.
#include <vector>

#include "tpc/cc/passes.h"

namespace tpc::cc {

void mergeStraightBlocks(MFunction& mf) {
  const int n = static_cast<int>(mf.blocks.size());
  // How many edges reach each block: jumps, fall-throughs, loop bodies and, for a loop that runs no
  // iteration, the block after its body.
  std::vector<int> edgesIn(static_cast<size_t>(n), 0);
  auto count = [&](int to) {
    if (to >= 0 && to < n) ++edgesIn[static_cast<size_t>(to)];
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
  for (int a = 0; a < n; ++a) {
    MBlock& first = mf.blocks[static_cast<size_t>(a)];
    // A loop body ends where its loop ends, and a preheader's body must follow it: neither takes more.
    if (first.dead || first.condTarget >= 0 || first.loopBody >= 0 || first.bodyIter.valid()) continue;
    for (;;) {
      int s = a + 1;
      while (s < n && mf.blocks[static_cast<size_t>(s)].dead) ++s;
      if (s >= n || first.next != s) break;
      MBlock& second = mf.blocks[static_cast<size_t>(s)];
      if (second.bodyIter.valid() || edgesIn[static_cast<size_t>(s)] != 1) break;
      first.insts.insert(first.insts.end(), second.insts.begin(), second.insts.end());
      first.condTarget = second.condTarget;
      first.condPred = second.condPred;
      first.condNegate = second.condNegate;
      first.next = second.next;
      first.endLoc = second.endLoc;
      first.loopBody = second.loopBody;
      first.loopCount = second.loopCount;
      first.loopZero = second.loopZero;
      first.loopIter = second.loopIter;
      second = MBlock{};
      second.dead = true;
      if (first.condTarget >= 0 || first.loopBody >= 0) break;
    }
  }
}

}  // namespace tpc::cc
