// Scheduling across block boundaries, on machine IR built by hand after register allocation: straight-line
// blocks joined so that bundles fill across them, a jump to a short loop latch replaced by a copy of it
// (block_merging.cpp), and a loop body that would wait in every iteration for its preheader's writes,
// where the preheader waits once instead (schedule.cpp); a block falling into a decision between a target
// and halting takes the decision's branch (block_merging.cpp). Writes that no path reads are dropped
// (dce.cpp, eliminateDeadWrites), and a copy read only on the one path after it reads its source instead
// (dce.cpp, forwardCopiesIntoSinglePaths). Priorities of the list scheduler (schedule.cpp).
#include <gtest/gtest.h>

#include "mir_builders.h"
#include "tpc/cc/passes.h"

namespace tpc::cc {
namespace {

using isa::InsnId;
using test::op;
using test::phys;
using test::virt;

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
  // Block 1 falls into the latch, which decides between block 0 and halting (block 3 only halts): it
  // takes a copy too (FallingIntoADecisionTakesItsBranch).
  EXPECT_EQ(mf.blocks[1].insts.size(), 2u);
  EXPECT_EQ(mf.blocks[1].next, -1);
  // No unconditional jump is left: each block has its conditional one (block 2's, now reached from
  // nowhere, is dropped by jump threading in the compiler).
  const auto bundles = scheduleFunction(mf, *isa::findArch("gaudi2"));
  int jumps = 0;
  for (const ScheduledBundle& b : bundles) jumps += b.bundle[isa::Slot::Spu].id == InsnId::SpuJmpr;
  EXPECT_EQ(jumps, 3);
}

// Block 0 (a loop's epilogue, say) falls into block 1, which decides between block 3 (a remainder loop)
// and halting; block 2 jumps into block 1 too.
MFunction fallIntoDecision() {
  MFunction mf;
  mf.blocks.resize(4);
  mf.blocks[0].insts = {vectorAdd(1, 2, 3)};
  mf.blocks[0].next = 1;
  mf.blocks[1].condTarget = 3;
  mf.blocks[1].condPred = phys(RegFile::SP, 1);
  mf.blocks[1].next = -1;
  mf.blocks[2].insts = {vectorAdd(4, 5, 6)};
  mf.blocks[2].next = 1;
  mf.blocks[3].insts = {scalarAdd(1, 1)};
  return mf;
}

TEST(TailDuplication, FallingIntoADecisionTakesItsBranch) {
  MFunction mf = fallIntoDecision();
  duplicateShortTails(mf);
  EXPECT_EQ(mf.blocks[0].condTarget, 3);
  EXPECT_EQ(mf.blocks[0].condPred, phys(RegFile::SP, 1));
  EXPECT_EQ(mf.blocks[0].next, -1);
  EXPECT_EQ(mf.blocks[1].condTarget, 3);  // still there, for whatever else reaches it
  // The branch shares the add's bundle, where block 1's would have come after it.
  const auto bundles = scheduleFunction(mf, *isa::findArch("gaudi2"));
  EXPECT_EQ(bundleOf(bundles, isa::Slot::Spu, InsnId::SpuJmpr), bundleOf(bundles, isa::Slot::Vpu, InsnId::VpuAdd));
}

TEST(TailDuplication, DecisionReachedOnlyByFallingThroughIsLeftToJoining) {
  MFunction mf = fallIntoDecision();
  mf.blocks[2].next = -1;
  duplicateShortTails(mf);
  EXPECT_EQ(mf.blocks[0].next, 1);
  EXPECT_EQ(mf.blocks[0].condTarget, -1);
}

TEST(TailDuplication, JumpToADecisionBetweenTwoBlocksTakesBothJumps) {
  // The latch goes back to block 0 or on to block 3, which works (does not only halt): block 0's copy
  // ends in two jumps, the conditional one and one to block 0, where it jumped to the latch and the
  // latch branched after its add.
  MFunction mf = jumpToLatch();
  mf.blocks[3].insts = {vectorAdd(7, 8, 9)};
  duplicateShortTails(mf);
  ASSERT_EQ(mf.blocks[0].insts.size(), 2u);
  EXPECT_EQ(mf.blocks[0].insts[1].op, InsnId::SpuAdd);
  EXPECT_EQ(mf.blocks[0].condTarget, 3);
  EXPECT_FALSE(mf.blocks[0].condNegate);
  EXPECT_EQ(mf.blocks[0].next, 0);
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

// ------------------------------------------------------------------------------------ priorities

TEST(Priorities, TheNextBlocksConditionComesFirst) {
  // Block 0: an add and a compare, equally long; block 1 only branches on the compare.
  MFunction mf;
  mf.blocks.resize(4);
  MInst compare = op(InsnId::SpuCmpLess, phys(RegFile::SP, 1), MOperand::ofReg(phys(RegFile::S, 1)), MOperand::ofImm(8));
  compare.dtype = DType::I32;
  mf.blocks[0].insts = {scalarAdd(3, 2), compare};
  mf.blocks[0].next = 1;
  mf.blocks[1].condPred = phys(RegFile::SP, 1);
  mf.blocks[1].condTarget = 3;
  mf.blocks[1].next = 2;
  mf.blocks[2].insts = {vectorAdd(1, 2, 3)};
  const auto bundles = scheduleFunction(mf, *isa::findArch("gaudi2"));
  EXPECT_EQ(bundleOf(bundles, isa::Slot::Spu, InsnId::SpuCmpLess), 0);
  EXPECT_EQ(bundleOf(bundles, isa::Slot::Spu, InsnId::SpuJmpr), isa::insnInfo(InsnId::SpuCmpLess).latency);
}

TEST(Priorities, OfTwoEquallyUrgentTheShorterLatencyStartsItsChain) {
  // A 4-cycle shift, and a whole-register copy (2 cycles) whose lane 0 is then set (2 more): equally far
  // from the end, but starting the copy first lets the lane write follow while the shift is in flight.
  MFunction mf;
  mf.blocks.resize(1);
  MInst shift = op(InsnId::SpuShl, phys(RegFile::S, 5), MOperand::ofReg(phys(RegFile::S, 6)), MOperand::ofImm(1));
  shift.dtype = DType::I32;
  MInst copy = op(InsnId::SpuIMov, phys(RegFile::I, 2), MOperand::ofReg(phys(RegFile::I, 3)), MOperand{});
  copy.dtype = DType::I32;
  copy.sw = 0x1f00;  // all five lanes
  MInst lane = op(InsnId::SpuIMov, phys(RegFile::I, 2), MOperand::ofReg(phys(RegFile::S, 4)), MOperand{});
  lane.dtype = DType::I32;
  lane.sw = 0x100;  // lane 0
  lane.dstIsRead = true;
  mf.blocks[0].insts = {shift, copy, lane};
  const auto bundles = scheduleFunction(mf, *isa::findArch("gaudi2"));
  EXPECT_EQ(bundleOf(bundles, isa::Slot::Spu, InsnId::SpuShl), 1);
  // The lane write: two cycles after the copy, in bundle 2 (the copy's is 0).
  EXPECT_EQ(bundles[2].bundle[isa::Slot::Spu].id, InsnId::SpuIMov);
}

// ------------------------------------------------------------------------------------ dead writes

MInst vAdd(uint32_t dst, uint32_t a, uint32_t b) {
  return op(InsnId::VpuAdd, virt(RegFile::V, dst), MOperand::ofReg(virt(RegFile::V, a)), MOperand::ofReg(virt(RegFile::V, b)));
}

MInst vStore(uint32_t value) {
  MInst mi;
  mi.op = InsnId::StTnsr;
  mi.src[0] = MOperand::ofReg(phys(RegFile::I, 0));
  mi.src[1] = MOperand::ofReg(virt(RegFile::V, value));
  return mi;
}

size_t count(const MBlock& b, InsnId id) {
  size_t n = 0;
  for (const MInst& mi : b.insts) n += mi.op == id;
  return n;
}

TEST(DeadWrites, OverwrittenOnEveryPathGoes) {
  MFunction mf;
  mf.blocks.resize(2);
  mf.blocks[0].insts = {vAdd(1, 2, 3)};
  mf.blocks[0].next = 1;
  mf.blocks[1].insts = {vAdd(1, 4, 5), vStore(1)};
  eliminateDeadWrites(mf);
  EXPECT_EQ(mf.blocks[0].insts.size(), 0u);
  EXPECT_EQ(mf.blocks[1].insts.size(), 2u);
}

TEST(DeadWrites, ReadOnOnePathStays) {
  MFunction mf;
  mf.blocks.resize(3);
  mf.blocks[0].insts = {vAdd(1, 2, 3)};
  mf.blocks[0].condTarget = 2;
  mf.blocks[0].condPred = phys(RegFile::SP, 1);
  mf.blocks[0].next = 1;
  mf.blocks[1].insts = {vAdd(1, 4, 5), vStore(1)};
  mf.blocks[2].insts = {vStore(1)};
  eliminateDeadWrites(mf);
  EXPECT_EQ(mf.blocks[0].insts.size(), 1u);
}

TEST(DeadWrites, AnUpdateForAnIterationThatNeverComesGoes) {
  // A hardware loop whose body stores v1 and advances it (read again by the next iteration); the block
  // after it advances v1 once more, as an epilogue does, and the kernel ends.
  MFunction mf;
  mf.blocks.resize(3);
  mf.blocks[0].insts = {vAdd(1, 2, 3)};
  mf.blocks[0].next = 1;
  mf.blocks[0].loopBody = 1;
  mf.blocks[0].loopCount = virt(RegFile::S, 1);
  mf.blocks[0].loopZero = virt(RegFile::S, 2);
  mf.blocks[0].loopIter = virt(RegFile::S, 3);
  mf.blocks[1].insts = {vStore(1), vAdd(1, 1, 4)};
  mf.blocks[1].bodyIter = virt(RegFile::S, 3);
  mf.blocks[1].next = 2;
  mf.blocks[2].insts = {vStore(1), vAdd(1, 1, 4)};
  eliminateDeadWrites(mf);
  EXPECT_EQ(mf.blocks[0].insts.size(), 1u);
  EXPECT_EQ(count(mf.blocks[1], InsnId::VpuAdd), 1u);
  EXPECT_EQ(count(mf.blocks[2], InsnId::VpuAdd), 0u);
  EXPECT_EQ(count(mf.blocks[2], InsnId::StTnsr), 1u);
}

TEST(DeadWrites, APredicatedWriteKeepsTheOldValueAlive) {
  MFunction mf;
  mf.blocks.resize(1);
  MInst maybe = vAdd(1, 4, 5);
  maybe.pred = phys(RegFile::SP, 1);
  mf.blocks[0].insts = {vAdd(1, 2, 3), maybe, vStore(1)};
  eliminateDeadWrites(mf);
  EXPECT_EQ(mf.blocks[0].insts.size(), 3u);
}

// Scalar virtual registers: `t = copy x`, `dst = src + imm`, and a result that leaves the function (a
// physical register, which dead-code elimination keeps).
MInst sCopy(uint32_t t, uint32_t x) {
  MInst mi = op(InsnId::SpuMov, virt(RegFile::S, t), MOperand::ofReg(virt(RegFile::S, x)), MOperand{});
  mi.dtype = DType::I32;
  mi.copy = true;
  return mi;
}
MInst sAddImm(Reg dst, uint32_t src, int32_t imm) {
  MInst mi = op(InsnId::SpuAdd, dst, MOperand::ofReg(virt(RegFile::S, src)), MOperand::ofImm(static_cast<uint32_t>(imm)));
  mi.dtype = DType::I32;
  return mi;
}

// Block 0 copies x (s2) to a counter t (s1) and goes on to block 1, its only way in, which decrements the
// counter into s3, writes the counter again from that, and reads x once more (as a loop resetting the
// counter would).
MFunction counterStartCopied() {
  MFunction mf;
  mf.blocks.resize(2);
  mf.blocks[0].insts = {sCopy(1, 2)};
  mf.blocks[0].next = 1;
  mf.blocks[1].insts = {sAddImm(virt(RegFile::S, 3), 1, -1), sAddImm(virt(RegFile::S, 1), 3, 0),
                        sAddImm(phys(RegFile::S, 5), 2, 1), sAddImm(phys(RegFile::S, 6), 1, 1)};
  return mf;
}

TEST(CopyForwarding, ACopyReadOnlyOnItsOnePathGoes) {
  MFunction mf = counterStartCopied();
  forwardCopiesIntoSinglePaths(mf);
  eliminateDeadWrites(mf);
  EXPECT_EQ(mf.blocks[0].insts.size(), 0u);
  ASSERT_EQ(mf.blocks[1].insts.size(), 4u);
  EXPECT_EQ(mf.blocks[1].insts[0].src[0].reg, virt(RegFile::S, 2));
  EXPECT_EQ(mf.blocks[1].insts[3].src[0].reg, virt(RegFile::S, 1));  // the counter's new value
}

TEST(CopyForwarding, ABlockWithAnotherWayInKeepsTheCopy) {
  MFunction mf = counterStartCopied();
  mf.blocks.resize(3);
  mf.blocks[2].next = 1;  // a second predecessor, where t holds something else
  forwardCopiesIntoSinglePaths(mf);
  eliminateDeadWrites(mf);
  EXPECT_EQ(mf.blocks[0].insts.size(), 1u);
  EXPECT_EQ(mf.blocks[1].insts[0].src[0].reg, virt(RegFile::S, 1));
}

TEST(CopyForwarding, ASourceWrittenBeforeTheReadKeepsTheCopy) {
  MFunction mf = counterStartCopied();
  mf.blocks[0].insts.push_back(sAddImm(virt(RegFile::S, 2), 4, 0));
  forwardCopiesIntoSinglePaths(mf);
  EXPECT_EQ(mf.blocks[1].insts[0].src[0].reg, virt(RegFile::S, 1));
}

}  // namespace
}  // namespace tpc::cc
