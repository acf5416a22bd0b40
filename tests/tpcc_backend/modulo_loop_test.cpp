// The hardware loop modulo scheduling leaves behind (modsched.cpp), on machine IR built by hand: a loop
// that loads, adds and stores along a coordinate induction variable overlaps its iterations, and its kernel
// runs the trip count less the prologue's iterations by starting its iterator at that number, with the
// trip count itself as the end (one instruction, the start, instead of a subtraction and a zero).
#include <gtest/gtest.h>

#include "mir_builders.h"
#include "tpc/cc/passes.h"

namespace tpc::cc {
namespace {

using isa::InsnId;
using test::op;

struct StreamingLoop {
  MFunction mf;
  Reg tripCount;
};

// Three blocks: block 0 the preheader (`loop` over block 1, its trip count a kernel parameter), block 1
// the body (to fill in; its iterator returned), block 2 the end.
Reg loopOverBlock1(MFunction& mf, Reg tripCount) {
  mf.blocks.resize(3);
  const Reg zero = mf.newVirtual(RegFile::S), iter = mf.newVirtual(RegFile::S);
  MInst setZero = op(InsnId::SpuMov, zero, MOperand::ofImm(0));
  setZero.dtype = DType::I32;
  MBlock& pre = mf.blocks[0];
  pre.insts = {setZero};
  pre.loopBody = 1;
  pre.next = 1;
  pre.loopCount = tripCount;
  pre.loopZero = zero;
  pre.loopIter = iter;
  mf.blocks[1].bodyIter = iter;
  mf.blocks[1].next = 2;
  return iter;
}

// The body: x = load(c); store(c, x + x); c += step.
StreamingLoop streamingLoop() {
  StreamingLoop s;
  MFunction& mf = s.mf;
  s.tripCount = Reg{RegFile::S, 2, true};  // a kernel parameter
  loopOverBlock1(mf, s.tripCount);
  const Reg c = mf.newVirtual(RegFile::I), next = mf.newVirtual(RegFile::I), step = mf.newVirtual(RegFile::I);
  const Reg x = mf.newVirtual(RegFile::V), y = mf.newVirtual(RegFile::V);
  MBlock& body = mf.blocks[1];
  MInst store = op(InsnId::StTnsr, Reg{}, MOperand::ofReg(c), MOperand::ofReg(y));
  MInst advance = op(InsnId::SpuIAdd, next, MOperand::ofReg(step), MOperand::ofReg(c));
  advance.dtype = DType::I32;
  advance.src[2] = MOperand{};
  MInst carry = op(InsnId::SpuIMov, c, MOperand::ofReg(next));
  carry.dtype = DType::I32;
  carry.copy = true;
  body.insts = {op(InsnId::LdTnsr, x, MOperand::ofReg(c)),
                op(InsnId::VpuAdd, y, MOperand::ofReg(x), MOperand::ofReg(x)), store, advance, carry};
  return s;
}

TEST(ModuloLoop, KernelCountsFromThePrologueIterationsToTheTripCount) {
  StreamingLoop s = streamingLoop();
  ASSERT_EQ(moduloScheduleLoops(s.mf), 1);
  int kernels = 0;
  for (const MBlock& b : s.mf.blocks) {
    if (b.loopBody < 0 || b.loopCount != s.tripCount) continue;
    const MBlock& kernel = s.mf.blocks[static_cast<size_t>(b.loopBody)];
    // The overlapped loop (its instructions keep their modulo cycles), not the original kept for short
    // trip counts.
    if (kernel.insts.empty() || kernel.insts.front().moduloCycle < 0) continue;
    // The kernel's preheader: its start is the number of iterations the prologue began.
    int startAt = -1;
    for (const MBlock& other : s.mf.blocks)
      for (const MInst& mi : other.insts)
        if (mi.dst == b.loopZero && mi.op == InsnId::SpuMov && mi.src[0].isImm())
          startAt = static_cast<int>(mi.src[0].imm);
    EXPECT_GE(startAt, 1) << "the kernel's iterator starts at the prologue's iteration count";
    ++kernels;
  }
  EXPECT_GE(kernels, 1) << "a kernel loop ending at the trip count itself";
  for (const MBlock& b : s.mf.blocks)
    for (const MInst& mi : b.insts) EXPECT_NE(mi.op, InsnId::SpuSub) << "no trip count less the prologue";
}

// A coordinate walked by subtracting a step the loop picks each iteration (the kernels' row walk), read
// by a load at the start of a long chain and by the store at its end: the store gets a coordinate of its
// own, updated by the same step, so that the next iteration's load need not wait for this one's store.
TEST(ModuloLoop, AStoreFollowsACoordinateSteppedBySubtractionOnItsOwnVariable) {
  MFunction mf;
  loopOverBlock1(mf, Reg{RegFile::S, 2, true});
  const Reg c = mf.newVirtual(RegFile::I), next = mf.newVirtual(RegFile::I), step = mf.newVirtual(RegFile::I);
  const Reg along = mf.newVirtual(RegFile::I);
  std::vector<MInst> body;
  Reg x = mf.newVirtual(RegFile::V);
  body.push_back(op(InsnId::LdTnsr, x, MOperand::ofReg(c)));
  for (int k = 0; k < 6; ++k) {  // a chain of 6 dependent adds
    const Reg y = mf.newVirtual(RegFile::V);
    body.push_back(op(InsnId::VpuAdd, y, MOperand::ofReg(x), MOperand::ofReg(x)));
    x = y;
  }
  body.push_back(op(InsnId::StTnsr, Reg{}, MOperand::ofReg(c), MOperand::ofReg(x)));
  MInst pick = op(InsnId::SpuIMov, step, MOperand::ofReg(along));  // the step, written in the loop
  pick.dtype = DType::I32;
  MInst advance = op(InsnId::SpuISub, next, MOperand::ofReg(c), MOperand::ofReg(step));
  advance.dtype = DType::I32;
  MInst carry = op(InsnId::SpuIMov, c, MOperand::ofReg(next));
  carry.dtype = DType::I32;
  carry.copy = true;
  body.insert(body.end(), {pick, advance, carry});
  mf.blocks[1].insts = body;

  ModuloResult result;
  ASSERT_EQ(moduloScheduleLoops(mf, ModuloPlan{}, &result), 1);
  EXPECT_GE(result.splits, 1) << "a second coordinate for the store";
  int subtractions = 0;
  for (const MBlock& b : mf.blocks)
    for (const MInst& mi : b.insts) subtractions += mi.op == InsnId::SpuISub && mi.moduloCycle >= 0;
  EXPECT_EQ(subtractions, 2) << "the kernel steps both coordinates";
}

// The retries after allocation runs out of registers (modulo_retries.cpp) blame a loop by its blocks and
// reschedule it alone: the blocks of its schedule carry its number, and a plan can leave it flat.
TEST(ModuloLoop, ItsBlocksCarryItsNumberAndAPlanForItAloneApplies) {
  StreamingLoop s = streamingLoop();
  ModuloResult result;
  ASSERT_EQ(moduloScheduleLoops(s.mf, ModuloPlan{}, &result), 1);
  EXPECT_EQ(result.perLoop.count(0), 1u);
  int tagged = 0;
  for (const MBlock& b : s.mf.blocks) {
    tagged += b.moduloLoop == 0;
    EXPECT_TRUE(b.moduloLoop == 0 || b.moduloLoop == -1);
    if (!b.insts.empty() && b.insts.front().moduloCycle >= 0) {
      EXPECT_EQ(b.moduloLoop, 0) << "the kernel's block";
    }
  }
  EXPECT_GE(tagged, 3) << "prologue, kernel and epilogue";

  StreamingLoop flat = streamingLoop();
  ModuloPlan plan;
  plan.perLoop[0].overlap = false;
  EXPECT_EQ(moduloScheduleLoops(flat.mf, plan), 0);
  plan.perLoop.clear();
  plan.perLoop[1].overlap = false;  // another loop's: this one is still scheduled
  EXPECT_EQ(moduloScheduleLoops(flat.mf, plan), 1);
}

}  // namespace
}  // namespace tpc::cc
