// Retries after the registers run out (modulo_retries.cpp): the loop whose blocks hold the most live
// registers is rescheduled more cautiously and the others keep their schedules; pressure outside every
// loop moves all loops on together; and the last step, no overlap, is the driver's to refuse.
#include <gtest/gtest.h>

#include "tpc/cc/passes.h"

namespace tpc::cc {
namespace {

// Blocks 0 and 1 belong to modulo-scheduled loops 0 and 1; block 2 to none.
MFunction twoLoops() {
  MFunction mf;
  mf.blocks.resize(3);
  mf.blocks[0].moduloLoop = 0;
  mf.blocks[1].moduloLoop = 1;
  return mf;
}

CodegenError outOfVectorsIn(int block) {
  CodegenError e("out of v registers", SourceLoc{}, /*outOfRegisters=*/true, RegFile::V);
  e.busiestBlock = block;
  return e;
}

// Both loops scheduled, loop 1 with a second induction variable and no copies.
ModuloResult bothScheduled() {
  ModuloResult r;
  r.loops = 2;
  r.perLoop[0] = ModuloLoopResult{0, 0};
  r.perLoop[1] = ModuloLoopResult{1, 0};
  return r;
}

TEST(ModuloRetries, TheLoopWhereRegistersRanOutAloneBecomesMoreCautious) {
  const MFunction mf = twoLoops();
  ModuloRetries retries(/*flatAllowed=*/true);
  EXPECT_EQ(retries.plan().of(1).registerMargin, 0);
  ASSERT_EQ(retries.escalate(mf, outOfVectorsIn(1), bothScheduled()), ModuloRetries::Next::Retry);
  EXPECT_EQ(retries.plan().of(1).registerMargin, 4);
  EXPECT_EQ(retries.plan().of(0).registerMargin, 0);
  ASSERT_EQ(retries.escalate(mf, outOfVectorsIn(1), bothScheduled()), ModuloRetries::Next::Retry);
  EXPECT_EQ(retries.plan().of(1).registerMargin, 8);
  // Loop 1 used a second induction variable: the next step drops it (and not the copies it never used).
  ASSERT_EQ(retries.escalate(mf, outOfVectorsIn(1), bothScheduled()), ModuloRetries::Next::Retry);
  EXPECT_FALSE(retries.plan().of(1).splitIvs);
  EXPECT_TRUE(retries.plan().of(1).expand);
  EXPECT_EQ(retries.plan().of(1).registerMargin, 0);
  EXPECT_TRUE(retries.plan().of(0).splitIvs);
  EXPECT_TRUE(retries.plan().of(0).overlap);
}

TEST(ModuloRetries, PressureOutsideEveryLoopMovesAllLoopsOn) {
  const MFunction mf = twoLoops();
  ModuloRetries retries(true);
  ASSERT_EQ(retries.escalate(mf, outOfVectorsIn(1), bothScheduled()), ModuloRetries::Next::Retry);
  ASSERT_EQ(retries.escalate(mf, outOfVectorsIn(1), bothScheduled()), ModuloRetries::Next::Retry);
  ASSERT_EQ(retries.escalate(mf, outOfVectorsIn(2), bothScheduled()), ModuloRetries::Next::Retry);
  EXPECT_EQ(retries.plan().of(0).registerMargin, 4);
  EXPECT_EQ(retries.plan().of(1).registerMargin, 8);  // already further on
  ASSERT_EQ(retries.escalate(mf, outOfVectorsIn(-1), bothScheduled()), ModuloRetries::Next::Retry);
  EXPECT_EQ(retries.plan().of(0).registerMargin, 8);
  EXPECT_EQ(retries.plan().of(1).registerMargin, 8);
}

TEST(ModuloRetries, LoopsLoseTheirOverlapOnlyTogetherAndOnlyWhereTheDriverAllows) {
  const MFunction mf = twoLoops();
  ModuloResult noneUsed;
  noneUsed.loops = 2;
  noneUsed.perLoop[0] = noneUsed.perLoop[1] = ModuloLoopResult{0, 0};
  for (bool flatAllowed : {true, false}) {
    ModuloRetries retries(flatAllowed);
    // Margins 4 and 8 for loop 0; then, with neither induction variables nor copies to drop, only
    // the common step is left.
    ASSERT_EQ(retries.escalate(mf, outOfVectorsIn(0), noneUsed), ModuloRetries::Next::Retry);
    ASSERT_EQ(retries.escalate(mf, outOfVectorsIn(0), noneUsed), ModuloRetries::Next::Retry);
    ASSERT_EQ(retries.escalate(mf, outOfVectorsIn(0), noneUsed), ModuloRetries::Next::Retry);
    EXPECT_EQ(retries.plan().of(1).registerMargin, 4);
    ASSERT_EQ(retries.escalate(mf, outOfVectorsIn(0), noneUsed), ModuloRetries::Next::Retry);
    EXPECT_EQ(retries.plan().of(1).registerMargin, 8);
    EXPECT_TRUE(retries.plan().of(0).overlap);
    const ModuloRetries::Next last = retries.escalate(mf, outOfVectorsIn(0), noneUsed);
    if (!flatAllowed) {
      EXPECT_EQ(last, ModuloRetries::Next::UnrollLess);
      continue;
    }
    ASSERT_EQ(last, ModuloRetries::Next::Retry);
    EXPECT_FALSE(retries.plan().of(0).overlap);
    EXPECT_FALSE(retries.plan().of(1).overlap);
    EXPECT_EQ(retries.escalate(mf, outOfVectorsIn(2), noneUsed), ModuloRetries::Next::GiveUp);
  }
}

}  // namespace
}  // namespace tpc::cc
