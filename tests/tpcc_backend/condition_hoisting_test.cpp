// Branch conditions computed in the block whose conditional branch leads to theirs (condition_hoisting.cpp),
// on machine IR built by hand before register allocation: the compare and the arithmetic it needs move
// when that block's scalar slot has room before its own branch, and stay when it has none, when a value
// they read changes on the way, or when their result is written elsewhere too.
#include <gtest/gtest.h>

#include "mir_builders.h"
#include "tpc/cc/passes.h"

namespace tpc::cc {
namespace {

using isa::InsnId;
using test::op;
using test::virt;

Reg s(uint32_t id) { return virt(RegFile::S, id); }
Reg sp(uint32_t id) { return virt(RegFile::SP, id); }

MInst scalar(InsnId id, Reg dst, Reg a, uint32_t imm) {
  MInst mi = op(id, dst, MOperand::ofReg(a), MOperand::ofImm(imm));
  mi.dtype = DType::I32;
  return mi;
}

// Block 0 branches on `rows < 4` (%sp1) to block 3; block 1, its other way, branches on `(rows & 3) == 3`
// (%s2, %sp2) to block 2, else falls into block 3.
MFunction twoDecisions() {
  MFunction mf;
  mf.blocks.resize(4);
  mf.blocks[0].insts = {scalar(InsnId::SpuCmpLess, sp(1), s(1), 4)};
  mf.blocks[0].condPred = sp(1);
  mf.blocks[0].condTarget = 3;
  mf.blocks[0].next = 1;
  mf.blocks[1].insts = {scalar(InsnId::SpuAnd, s(2), s(1), 3), scalar(InsnId::SpuCmpEq, sp(2), s(2), 3)};
  mf.blocks[1].condPred = sp(2);
  mf.blocks[1].condTarget = 2;
  mf.blocks[1].next = 3;
  mf.blocks[2].next = 3;
  mf.blocks[3].next = -1;
  return mf;
}

TEST(ConditionHoisting, CompareAndItsArithmeticMoveIntoTheBranchingBlock) {
  MFunction mf = twoDecisions();
  EXPECT_EQ(hoistBranchConditions(mf), 2);
  ASSERT_EQ(mf.blocks[0].insts.size(), 3u);
  EXPECT_EQ(mf.blocks[0].insts[1].op, InsnId::SpuAnd);
  EXPECT_EQ(mf.blocks[0].insts[2].op, InsnId::SpuCmpEq);
  EXPECT_TRUE(mf.blocks[1].insts.empty());
  EXPECT_EQ(mf.blocks[1].condPred, sp(2));  // block 1 still branches, on the value computed before it
}

TEST(ConditionHoisting, CrossesABlockThatOnlyFallsIntoTheDecision) {
  MFunction mf = twoDecisions();
  // Block 0's other way is now block 4, which falls into block 1 (after a vector add).
  mf.blocks.resize(5);
  mf.blocks[0].next = 4;
  mf.blocks[4].insts = {op(InsnId::VpuAdd, virt(RegFile::V, 1), MOperand::ofReg(virt(RegFile::V, 2)),
                           MOperand::ofReg(virt(RegFile::V, 3)))};
  mf.blocks[4].next = 1;
  EXPECT_EQ(hoistBranchConditions(mf), 2);
  EXPECT_EQ(mf.blocks[0].insts.size(), 3u);
  // Unless that block writes what the compare reads.
  MFunction writes = twoDecisions();
  writes.blocks.resize(5);
  writes.blocks[0].next = 4;
  writes.blocks[4].insts = {scalar(InsnId::SpuAdd, s(1), s(1), 1)};
  writes.blocks[4].next = 1;
  EXPECT_EQ(hoistBranchConditions(writes), 0);
}

TEST(ConditionHoisting, ABlockWithoutRoomInItsScalarSlotKeepsItsLength) {
  MFunction mf = twoDecisions();
  // Block 0's scalar slot is full until its branch: four more instructions that its branch waits for.
  for (uint32_t k = 0; k < 4; ++k) mf.blocks[0].insts.push_back(scalar(InsnId::SpuAdd, s(10 + k), s(3), k));
  EXPECT_EQ(hoistBranchConditions(mf), 0);
  EXPECT_EQ(mf.blocks[1].insts.size(), 2u);
}

TEST(ConditionHoisting, ValuesWrittenTwiceOrReadAfterAChangeStay) {
  MFunction twice = twoDecisions();
  twice.blocks[2].insts = {scalar(InsnId::SpuAnd, s(2), s(1), 1)};  // %s2 has another definition
  EXPECT_EQ(hoistBranchConditions(twice), 0);
  MFunction loaded = twoDecisions();
  // %s1 is loaded from local memory in block 1 before the `and` reads it.
  MInst load = op(InsnId::LdL, s(1), MOperand::ofImm(0));
  load.dtype = DType::I32;
  loaded.blocks[1].insts.insert(loaded.blocks[1].insts.begin(), load);
  EXPECT_EQ(hoistBranchConditions(loaded), 0);
  MFunction before = twoDecisions();
  // Block 0 reads %s2 before block 1 defines it.
  before.blocks[0].insts.push_back(scalar(InsnId::SpuAdd, s(9), s(2), 1));
  EXPECT_EQ(hoistBranchConditions(before), 0);
}

}  // namespace
}  // namespace tpc::cc
