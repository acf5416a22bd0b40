// Scheduling across block boundaries, on machine IR built by hand after register allocation: straight-line
// blocks joined so that bundles fill across them, a jump to a short loop latch replaced by a copy of it
// (block_merging.cpp), and a loop body that would wait in every iteration for its preheader's writes,
// where the preheader waits once instead (schedule.cpp).
#include <gtest/gtest.h>

#include "tpc/cc/passes.h"

namespace tpc::cc {
namespace {

using isa::InsnId;

Reg phys(RegFile file, uint32_t id) { return Reg{file, id, true}; }

MInst op(InsnId id, Reg dst, MOperand a, MOperand b) {
  MInst mi;
  mi.op = id;
  mi.dtype = DType::F32;
  mi.dst = dst;
  mi.src[0] = a;
  mi.src[1] = b;
  return mi;
}

MInst scalarAdd(uint32_t dst, uint32_t src) {
  MInst mi = op(InsnId::SpuAdd, phys(RegFile::S, dst), MOperand::ofReg(phys(RegFile::S, src)), MOperand::ofImm(1));
  mi.dtype = DType::I32;
  return mi;
}

MInst vectorAdd(uint32_t dst, uint32_t a, uint32_t b) {
  return op(InsnId::VpuAdd, phys(RegFile::V, dst), MOperand::ofReg(phys(RegFile::V, a)),
            MOperand::ofReg(phys(RegFile::V, b)));
}

// The bundle that holds an instruction `id` in `slot`, -1 when none does.
int bundleOf(const std::vector<ScheduledBundle>& bundles, isa::Slot slot, InsnId id) {
  for (size_t k = 0; k < bundles.size(); ++k)
    if (bundles[k].bundle[slot].id == id) return static_cast<int>(k);
  return -1;
}

// Block 0: a chain of two scalar adds (4 cycles apart); block 1, reached only from block 0: a vector add
// that depends on neither.
MFunction straightLine() {
  MFunction mf;
  mf.blocks.resize(2);
  mf.blocks[0].insts = {scalarAdd(1, 0), scalarAdd(2, 1)};
  mf.blocks[0].next = 1;
  mf.blocks[1].insts = {vectorAdd(1, 2, 3)};
  return mf;
}

TEST(BlockMerging, StraightLineBlocksShareBundles) {
  MFunction mf = straightLine();
  mergeStraightBlocks(mf);
  EXPECT_TRUE(mf.blocks[1].dead);
  EXPECT_EQ(mf.blocks[0].insts.size(), 3u);
  EXPECT_EQ(mf.blocks[0].next, -1);  // block 1's way out: the kernel ends
  const auto bundles = scheduleFunction(mf, *isa::findArch("gaudi2"));
  // The vector add issues with the first scalar add instead of after the chain.
  EXPECT_EQ(bundleOf(bundles, isa::Slot::Vpu, InsnId::VpuAdd), 0);
  EXPECT_EQ(bundleOf(bundles, isa::Slot::Spu, InsnId::SpuAdd), 0);
}

TEST(BlockMerging, BlockReachedFromElsewhereStaysApart) {
  MFunction mf = straightLine();
  // Block 2 jumps back into block 1 on a condition: block 1 has two ways in.
  mf.blocks.resize(3);
  mf.blocks[1].next = 2;
  mf.blocks[2].condTarget = 1;
  mf.blocks[2].condPred = phys(RegFile::SP, 1);
  mf.blocks[2].next = -1;
  mergeStraightBlocks(mf);
  EXPECT_FALSE(mf.blocks[1].dead);
  EXPECT_EQ(mf.blocks[0].insts.size(), 2u);
  EXPECT_EQ(mf.blocks[0].next, 1);
}

TEST(BlockMerging, LoopBodyIsNeverJoined) {
  MFunction mf;
  mf.blocks.resize(3);
  mf.blocks[0].insts = {scalarAdd(1, 0)};
  mf.blocks[0].next = 1;
  mf.blocks[0].loopBody = 1;
  mf.blocks[0].loopCount = phys(RegFile::S, 1);
  mf.blocks[0].loopZero = phys(RegFile::S, 2);
  mf.blocks[0].loopIter = phys(RegFile::S, 3);
  mf.blocks[1].insts = {vectorAdd(1, 2, 3)};
  mf.blocks[1].bodyIter = phys(RegFile::S, 3);
  mf.blocks[1].next = 2;
  mergeStraightBlocks(mf);
  EXPECT_FALSE(mf.blocks[1].dead);
  EXPECT_EQ(mf.blocks[0].insts.size(), 1u);
}

// Block 0 works and jumps over block 1 to block 2, a loop's latch: an add, and a branch back to block 0
// unless the count is reached, else on to block 3, which only halts.
MFunction jumpToLatch() {
  MFunction mf;
  mf.blocks.resize(4);
  mf.blocks[0].insts = {vectorAdd(1, 2, 3)};
  mf.blocks[0].next = 2;
  mf.blocks[1].insts = {vectorAdd(4, 5, 6)};
  mf.blocks[1].next = 2;
  mf.blocks[2].insts = {scalarAdd(1, 1)};
  mf.blocks[2].condTarget = 3;
  mf.blocks[2].condPred = phys(RegFile::SP, 1);
  mf.blocks[2].next = 0;
  return mf;
}

TEST(TailDuplication, JumpToShortLatchBecomesItsCopy) {
  MFunction mf = jumpToLatch();
  duplicateShortTails(mf);
  // Block 0 runs the latch itself: its add, then back to block 0 on the opposite condition, else halt.
  ASSERT_EQ(mf.blocks[0].insts.size(), 2u);
  EXPECT_EQ(mf.blocks[0].insts[1].op, InsnId::SpuAdd);
  EXPECT_EQ(mf.blocks[0].condTarget, 0);
  EXPECT_TRUE(mf.blocks[0].condNegate);
  EXPECT_EQ(mf.blocks[0].condPred, phys(RegFile::SP, 1));
  EXPECT_EQ(mf.blocks[0].next, -1);
  // Block 1 falls into the latch: no jump to save there.
  EXPECT_EQ(mf.blocks[1].insts.size(), 1u);
  EXPECT_EQ(mf.blocks[1].next, 2);
  // No unconditional jump is left in block 0's code.
  const auto bundles = scheduleFunction(mf, *isa::findArch("gaudi2"));
  int jumps = 0;
  for (const ScheduledBundle& b : bundles) jumps += b.bundle[isa::Slot::Spu].id == InsnId::SpuJmpr;
  EXPECT_EQ(jumps, 2);  // block 0's conditional one and block 2's (block 1 falls into block 2)
}

TEST(TailDuplication, LongTailStays) {
  MFunction mf = jumpToLatch();
  for (int k = 0; k < 8; ++k) mf.blocks[2].insts.push_back(scalarAdd(2, 2));
  duplicateShortTails(mf);
  EXPECT_EQ(mf.blocks[0].insts.size(), 1u);
  EXPECT_EQ(mf.blocks[0].next, 2);
}

// A preheader whose last instruction is a vector multiply (4 cycles to land) and a loop body whose only
// instruction reads its result.
MFunction loopReadingThePreheadersLastWrite() {
  MFunction mf;
  mf.blocks.resize(3);
  MBlock& pre = mf.blocks[0];
  pre.insts = {scalarAdd(1, 0), op(InsnId::VpuMul, phys(RegFile::V, 1), MOperand::ofReg(phys(RegFile::V, 0)),
                                   MOperand::ofReg(phys(RegFile::V, 0)))};
  pre.next = 1;
  pre.loopBody = 1;
  pre.loopCount = phys(RegFile::S, 1);
  pre.loopZero = phys(RegFile::S, 2);
  pre.loopIter = phys(RegFile::S, 3);
  mf.blocks[1].insts = {vectorAdd(2, 1, 3)};
  mf.blocks[1].bodyIter = phys(RegFile::S, 3);
  mf.blocks[1].next = 2;
  return mf;
}

TEST(LoopEntry, PreheaderWaitsOnceRatherThanTheBodyEveryIteration) {
  const MFunction mf = loopReadingThePreheadersLastWrite();
  const auto bundles = scheduleFunction(mf, *isa::findArch("gaudi2"));
  const int loop = bundleOf(bundles, isa::Slot::Spu, InsnId::SpuLoop);
  ASSERT_GE(loop, 0);
  const uint32_t end = bundles[static_cast<size_t>(loop)].bundle[isa::Slot::Spu].field(isa::SwitchField::LoopEnd);
  // One bundle of body: the add, with the multiply landed before the loop starts.
  EXPECT_EQ(end, static_cast<uint32_t>((loop + 1) * isa::kBundleBytes));
  const int mul = bundleOf(bundles, isa::Slot::Vpu, InsnId::VpuMul);
  EXPECT_GE(loop + 1, mul + isa::insnInfo(InsnId::VpuMul).latency);
}

}  // namespace
}  // namespace tpc::cc
