// Jumps through empty blocks (machine IR, after register allocation). Critical edges split for PHI copies
// and the exits of LLVM's loop structures leave blocks with nothing but a jump, and every taken jump costs
// its bundle and the branch penalty: a jump to such a block goes to where it leads instead, one into a
// block that only halts halts itself, a block that only halts moves to the end (the kernel's return sits
// between its loops' preheaders and headers), and blocks no longer reached produce no code.
#include <vector>

#include "tpc/cc/passes.h"

namespace tpc::cc {

namespace {

// Nothing to run and no condition: the block only passes control to `next` (or halts when next == -1).
bool onlyPassesOn(const MBlock& b) {
  return !b.dead && b.insts.empty() && b.condTarget < 0 && b.loopBody < 0 && !b.bodyIter.valid();
}

}  // namespace

void threadJumps(MFunction& mf) {
  const int n = static_cast<int>(mf.blocks.size());
  auto follow = [&](int t, bool haltOk) {
    for (int hops = 0; t >= 0 && hops < n && onlyPassesOn(mf.blocks[static_cast<size_t>(t)]); ++hops) {
      const int next = mf.blocks[static_cast<size_t>(t)].next;
      if (next == t || (next < 0 && !haltOk)) break;
      t = next;
    }
    return t;
  };
  for (MBlock& b : mf.blocks) {
    if (b.dead) continue;
    if (b.condTarget >= 0) b.condTarget = follow(b.condTarget, false);
    // A hardware loop's preheader falls into its body, and the body out into the block after it.
    if (b.next >= 0 && b.loopBody < 0 && !b.bodyIter.valid()) b.next = follow(b.next, true);
  }
  // A block that only halts, between two others, costs a jump over it to whichever falls into its place:
  // the blocks that would fall into it halt themselves, and the jumps to it go to a copy at the end.
  for (int h = 1; h + 1 < n; ++h) {
    MBlock& halt = mf.blocks[static_cast<size_t>(h)];
    if (!onlyPassesOn(halt) || halt.next != -1) continue;
    bool bodyFallsIn = false, jumpedTo = false;
    for (MBlock& b : mf.blocks) {
      if (b.dead) continue;
      if (b.next == h && (b.bodyIter.valid() || b.loopBody >= 0)) bodyFallsIn = true;
      jumpedTo |= b.condTarget == h;
    }
    if (bodyFallsIn) continue;  // a loop body must fall into the block after it
    for (MBlock& b : mf.blocks)
      if (!b.dead && b.next == h) b.next = -1;
    if (jumpedTo) {
      MBlock copy = halt;
      mf.blocks.push_back(copy);
      const int at = static_cast<int>(mf.blocks.size()) - 1;
      for (MBlock& b : mf.blocks)
        if (!b.dead && b.condTarget == h) b.condTarget = at;
    }
  }
  const int all = static_cast<int>(mf.blocks.size());
  // What is no longer reached: control reaches block 0, jump targets, next blocks, loop bodies and, for a
  // loop that runs no iteration, the block after its body.
  std::vector<bool> reached(static_cast<size_t>(all), false);
  std::vector<int> work = {0};
  while (!work.empty()) {
    const int b = work.back();
    work.pop_back();
    if (b < 0 || b >= all || reached[static_cast<size_t>(b)]) continue;
    reached[static_cast<size_t>(b)] = true;
    const MBlock& blk = mf.blocks[static_cast<size_t>(b)];
    work.push_back(blk.condTarget);
    work.push_back(blk.next);
    if (blk.loopBody >= 0) {
      work.push_back(blk.loopBody);
      work.push_back(mf.blocks[static_cast<size_t>(blk.loopBody)].next);
    }
  }
  for (int b = 1; b < all; ++b)
    if (!reached[static_cast<size_t>(b)]) mf.blocks[static_cast<size_t>(b)].dead = true;
}

}  // namespace tpc::cc
