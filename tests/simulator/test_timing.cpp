// The cycle model: register latencies from the ISA table (stall counts and cycle counts computed by hand),
// --strict-hazards faults, write-after-write ordering, hardware loops and branches with the taken-branch
// penalty (3 cycles on gaudi2).
#include "sim_test_util.h"

namespace simtest {
namespace {

LaunchOptions strictOptions(bool strict) {
  LaunchOptions o;
  o.strictHazards = strict;
  return o;
}

TEST(Timing, LatenciesComeFromTheIsaTable) {
  using tpc::isa::InsnId;
  EXPECT_EQ(tpc::isa::insnInfo(InsnId::SpuAdd).latency, 4);
  EXPECT_EQ(tpc::isa::insnInfo(InsnId::VpuMul).latency, 6);
  EXPECT_EQ(tpc::isa::insnInfo(InsnId::LdTnsr).latency, 4);
  EXPECT_EQ(tpc::isa::insnInfo(InsnId::SpuIMov).latency, 2);
  EXPECT_EQ(tpc::isa::insnInfo(InsnId::SpuUdiv).latency, 8);
  EXPECT_EQ(gaudi2()->branchPenalty, 3);
}

const std::string kScalarRaw = lines({
    "nop ; add.i32 s1, s0, 1 ; nop ; nop",  // 0x00: issues at 0, s1 readable at 4
    "nop ; add.i32 s2, s1, 1 ; nop ; nop",  // 0x40: wants 1, waits 3 cycles, issues at 4
    "nop ; halt ; nop ; nop",               // 0x80: issues at 5
});

TEST(Timing, ReadingTooEarlyStalls) {
  SimRun run(kScalarRaw);
  run.run({10});
  EXPECT_NO_FAULT(run);
  EXPECT_EQ(run.sreg(2), 12u);
  EXPECT_EQ(run.stats().stalls, 3u);
  EXPECT_EQ(run.stats().cycles, 6u);
  EXPECT_EQ(run.stats().bundles, 3u);
}

TEST(Timing, ReadingTooEarlyFaultsUnderStrictHazards) {
  SimRun run(kScalarRaw, strictOptions(true));
  run.run({10});
  ASSERT_TRUE(run.result.fault);
  EXPECT_EQ(run.result.fault->core, 0);
  EXPECT_EQ(run.result.fault->address, 0x40u);
  EXPECT_TRUE(contains(run.result.fault->message, "s1")) << run.result.fault->message;
  EXPECT_TRUE(contains(run.result.fault->message, "3 cycle")) << run.result.fault->message;
  EXPECT_TRUE(contains(run.faultText(), "core 0")) << run.faultText();
  EXPECT_TRUE(contains(run.faultText(), "0x40")) << run.faultText();
  EXPECT_EQ(run.sreg(2), 0u);  // the faulting bundle did not run
}

TEST(Timing, ExactlyEnoughNopsPassUnderStrictHazards) {
  SimRun run(lines({
              "nop ; add.i32 s1, s0, 1 ; nop ; nop",  // 0: s1 at 4
              "nop ; nop ; nop ; nop",
              "nop ; nop ; nop ; nop",
              "nop ; nop ; nop ; nop",
              "nop ; add.i32 s2, s1, 1 ; nop ; nop",  // 4: exactly at the latency; s2 at 8
              "nop ; nop ; nop ; nop",
              "nop ; nop ; nop ; nop",
              "nop ; nop ; nop ; nop",
              "nop ; i_mov.i32 i3, s2 dmask=0b00001 ; nop ; nop",  // 8: i3 at 10
              "nop ; nop ; nop ; nop",
              "nop ; mov_irf_dim.i32 s3, i3 dim=0 ; nop ; nop",    // 10: s3 at 12
              "nop ; mov.i32 s4, s3 ; nop ; nop",                  // 11: one cycle too early
              "nop ; halt ; nop ; nop",
          }),
          strictOptions(true));
  run.run({10});
  ASSERT_TRUE(run.result.fault);
  EXPECT_EQ(run.result.fault->address, 11u * 64u);
  EXPECT_TRUE(contains(run.result.fault->message, "s3")) << run.result.fault->message;
  EXPECT_TRUE(contains(run.result.fault->message, "1 cycle")) << run.result.fault->message;
  EXPECT_EQ(run.sreg(3), 12u);
  EXPECT_EQ(run.stats().bundles, 11u);
}

TEST(Timing, VectorChainStallsByLatency) {
  // ld_tnsr (4) -> mul (6) -> st_tnsr.
  SimRun run(lines({
      "ld_tnsr.f32 v0, i2 tnsr=0 ; nop ; nop ; nop",           // 0: v0 at 4
      "nop ; nop ; mul.f32 v1, v0, v0 ; nop",                   // wants 1, issues 4 (3 stalls), v1 at 10
      "nop ; nop ; nop ; st_tnsr.f32 i2, v1 tnsr=1",            // wants 5, issues 10 (5 stalls)
      "nop ; halt ; nop ; nop",                                 // 11
  }));
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i) x[i] = static_cast<float>(i) - 20.5f;
  run.addTensor(DType::F32, sizes5({64}), x);
  run.addTensor(DType::F32, sizes5({64}), std::vector<float>(64, 0.0f));
  run.run();
  EXPECT_NO_FAULT(run);
  EXPECT_EQ(run.stats().stalls, 8u);
  EXPECT_EQ(run.stats().cycles, 12u);
  EXPECT_TRUE(lanesEqual(run.tensor<float>(1), mapLanes<float>(64, [&](size_t i) { return x[i] * x[i]; })));
}

const std::string kWaw = lines({
    "nop ; nop ; mul.f32 v1, v0, v0 ; nop",         // 0x00: v1 = 0 lands at 6
    "nop ; nop ; add.f32 v1, v0, 1.0 ; nop",        // 0x40: must land after 6: issues at 3 (2 stalls), lands 7
    "nop ; nop ; nop ; st_tnsr.f32 i2, v1 tnsr=0",  // wants 4, issues at 7 (3 stalls)
    "nop ; halt ; nop ; nop",                       // 8
});

TEST(Timing, WriteAfterWriteKeepsProgramOrder) {
  SimRun run(kWaw);
  run.addTensor(DType::F32, sizes5({64}), std::vector<float>(64, -5.0f));
  run.run();
  EXPECT_NO_FAULT(run);
  EXPECT_TRUE(lanesEqual(run.tensor<float>(0), std::vector<float>(64, 1.0f)));  // the later write wins
  EXPECT_EQ(run.stats().stalls, 5u);
  EXPECT_EQ(run.stats().cycles, 9u);
}

TEST(Timing, WriteAfterWriteFaultsUnderStrictHazards) {
  SimRun run(kWaw, strictOptions(true));
  run.addTensor(DType::F32, sizes5({64}), std::vector<float>(64, -5.0f));
  run.run();
  ASSERT_TRUE(run.result.fault);
  EXPECT_EQ(run.result.fault->address, 0x40u);
  EXPECT_TRUE(contains(run.result.fault->message, "hazard")) << run.result.fault->message;
}

TEST(Timing, LongerLatencyOverwriteNeedsNoWait) {
  SimRun run(lines({
              "nop ; nop ; add.f32 v1, v0, 2.0 ; nop",  // lands at 4
              "nop ; nop ; mul.f32 v1, v0, v0 ; nop",   // lands at 7: after the add, no wait
              "nop ; halt ; nop ; nop",
          }),
          strictOptions(true));
  run.run();
  EXPECT_NO_FAULT(run);
  EXPECT_EQ(run.stats().stalls, 0u);
  EXPECT_EQ(run.stats().cycles, 3u);
  EXPECT_TRUE(lanesEqual(run.vreg<float>(1), std::vector<float>(64, 0.0f)));
}

TEST(Loops, NestedLoopsCountAndCycles) {
  SimRun run(lines({
              "nop ; loop.i32 s10, s0, s1, 1 cmp=lt end=outer_end ; nop ; nop",  // 3 iterations
              "nop ; add.i32 s6, s6, 1 ; nop ; nop",
              "nop ; loop.i32 s11, s0, s2, 1 cmp=lt end=inner_end ; nop ; nop",  // 4 iterations
              "nop ; add.i32 s5, s5, 1 ; nop ; nop",
              "nop ; nop ; nop ; nop",
              "nop ; nop ; nop ; nop",
              "inner_end:",
              "nop ; nop ; nop ; nop",
              "outer_end:",
              "nop ; nop ; nop ; nop",
              "nop ; halt ; nop ; nop",
          }),
          strictOptions(true));
  run.run({0, 3, 4});
  EXPECT_NO_FAULT(run);
  EXPECT_EQ(run.sreg(5), 12u);
  EXPECT_EQ(run.sreg(6), 3u);
  EXPECT_EQ(run.sreg(10), 3u);  // the iterator ends at the first value that fails the condition
  EXPECT_EQ(run.sreg(11), 4u);
  // 1 + 3 * (2 + 4 * 4 + 1) + 1 bundles, one cycle each: loops cost nothing.
  EXPECT_EQ(run.stats().bundles, 59u);
  EXPECT_EQ(run.stats().cycles, 59u);
  EXPECT_EQ(run.stats().stalls, 0u);
  EXPECT_EQ(run.stats().branchCycles, 0u);
}

TEST(Loops, InnerAndOuterLoopEndAtTheSameBundle) {
  SimRun run(lines({
              "nop ; loop.i32 s10, s0, s1, 1 cmp=lt end=both_end ; nop ; nop",  // 3 iterations
              "nop ; add.i32 s6, s6, 1 ; nop ; nop",
              "nop ; loop.i32 s11, s0, s2, 1 cmp=lt end=both_end ; nop ; nop",  // 2 iterations
              "nop ; add.i32 s5, s5, 1 ; nop ; nop",
              "nop ; nop ; nop ; nop",
              "nop ; nop ; nop ; nop",
              "both_end:",
              "nop ; nop ; nop ; nop",
              "nop ; halt ; nop ; nop",
          }),
          strictOptions(true));
  run.run({0, 3, 2});
  EXPECT_NO_FAULT(run);
  EXPECT_EQ(run.sreg(5), 6u);
  EXPECT_EQ(run.sreg(6), 3u);
  EXPECT_EQ(run.stats().bundles, 1u + 3u * (2u + 2u * 4u) + 1u);
  EXPECT_EQ(run.stats().cycles, run.stats().bundles);
}

TEST(Loops, ZeroTripLoopSkipsItsBody) {
  SimRun run(lines({
              "nop ; loop.i32 s10, s0, s1, 1 cmp=lt end=body_end ; nop ; nop",
              "nop ; add.i32 s5, s5, 1 ; nop ; nop",
              "body_end:",
              "nop ; add.i32 s6, s6, 1 ; nop ; nop",
              "nop ; halt ; nop ; nop",
          }),
          strictOptions(true));
  run.run({5, 5});
  EXPECT_NO_FAULT(run);
  EXPECT_EQ(run.sreg(5), 0u);
  EXPECT_EQ(run.sreg(6), 0u);
  EXPECT_EQ(run.sreg(10), 5u);
  EXPECT_EQ(run.stats().bundles, 2u);
  EXPECT_EQ(run.stats().cycles, 2u);
}

TEST(Loops, DownCountingLoopReadsItsIterator) {
  // Iterator 10, 7, 4, 1 (continue while > 0, step -3); the body sums it.
  SimRun run(lines({
              "nop ; loop.i32 s10, s0, s1, s2 cmp=gt end=body_end ; nop ; nop",
              "nop ; add.i32 s5, s5, s10 ; nop ; nop",
              "nop ; nop ; nop ; nop",
              "nop ; nop ; nop ; nop",
              "body_end:",
              "nop ; nop ; nop ; nop",
              "nop ; halt ; nop ; nop",
          }),
          strictOptions(true));
  run.run({10, 0, static_cast<uint32_t>(-3)});
  EXPECT_NO_FAULT(run);
  EXPECT_EQ(run.sreg(5), 22u);
  EXPECT_EQ(static_cast<int32_t>(run.sreg(10)), -2);
  EXPECT_EQ(run.stats().bundles, 18u);
  EXPECT_EQ(run.stats().cycles, 18u);
}

TEST(Loops, NotEqualConditionAndImmediateStep) {
  SimRun run(lines({
              "nop ; loop.i32 s10, s0, s1, 2 cmp=ne end=body_end ; nop ; nop",  // 0, 2, 4, 6
              "body_end:",
              "nop ; mov.i32 s5, s10 ; nop ; nop",
              "nop ; halt ; nop ; nop",
          }),
          strictOptions(true));
  run.run({0, 8});
  EXPECT_NO_FAULT(run);
  EXPECT_EQ(run.sreg(5), 6u);
  EXPECT_EQ(run.stats().bundles, 1u + 4u + 1u);
}

TEST(Loops, JumpOutOfALoopBodyEndsTheLoop) {
  SimRun run(lines({
      "nop ; loop.i32 s10, s0, s1, 1 cmp=lt end=body_end ; nop ; nop",  // up to 100 iterations
      "nop ; add.i32 s5, s5, 1 ; nop ; nop",
      "nop ; nop ; nop ; nop",
      "nop ; nop ; nop ; nop",
      "nop ; nop ; nop ; nop",
      "nop ; cmp_geq.i32 sp1, s5, 3 ; nop ; nop",
      "nop ; nop ; nop ; nop",
      "nop ; nop ; nop ; nop",
      "nop ; nop ; nop ; nop",
      "nop ; @sp1 jmpr after ; nop ; nop",  // break out in the third iteration
      "body_end:",
      "nop ; nop ; nop ; nop",
      "nop ; add.i32 s6, s6, 1 ; nop ; nop",
      "after:",
      // A second loop after the break runs normally: the first one no longer counts.
      "nop ; loop.i32 s11, s0, s2, 1 cmp=lt end=second_end ; nop ; nop",
      "nop ; add.i32 s7, s7, 1 ; nop ; nop",
      "nop ; nop ; nop ; nop",
      "nop ; nop ; nop ; nop",
      "second_end:",
      "nop ; nop ; nop ; nop",
      "nop ; halt ; nop ; nop",
  }), strictOptions(true));
  run.run({0, 100, 2});
  EXPECT_NO_FAULT(run);
  EXPECT_EQ(run.sreg(5), 3u);
  EXPECT_EQ(run.sreg(6), 0u);
  EXPECT_EQ(run.sreg(7), 2u);
  EXPECT_EQ(run.sreg(10), 2u);
  // 1 + 2 full passes of 10 + 9 bundles up to the jump, then 1 + 2 * 4 + 1.
  EXPECT_EQ(run.stats().bundles, 1u + 2u * 10u + 9u + 1u + 8u + 1u);
  EXPECT_EQ(run.stats().cycles, run.stats().bundles + 3u);
}

TEST(Loops, NestingDeeperThanTheLoopStackFaults) {
  std::string text;
  for (int k = 0; k < 9; ++k) text += "nop ; loop.i32 s" + std::to_string(10 + k) + ", s0, s1, 1 cmp=lt end=e ; nop ; nop\n";
  text += "e:\nnop ; nop ; nop ; nop\nnop ; halt ; nop ; nop\n";
  SimRun run(text);
  run.run({0, 1});
  ASSERT_TRUE(run.result.fault);
  EXPECT_EQ(run.result.fault->address, 8u * 64u);
  EXPECT_TRUE(contains(run.result.fault->message, "nested")) << run.result.fault->message;
  // Eight levels are fine.
  text.clear();
  for (int k = 0; k < 8; ++k) text += "nop ; loop.i32 s" + std::to_string(10 + k) + ", s0, s1, 1 cmp=lt end=e ; nop ; nop\n";
  text += "e:\nnop ; nop ; nop ; nop\nnop ; halt ; nop ; nop\n";
  SimRun ok(text);
  ok.run({0, 2});
  EXPECT_NO_FAULT(ok);
  EXPECT_EQ(ok.stats().bundles, 1u + 2u * (1u + 2u * (1u + 2u * (1u + 2u * (1u + 2u * (1u + 2u * (1u + 2u * (1u + 2u)))))))
                                    + 1u);
}

const std::string kBranchLoop = lines({
    "top:",
    "nop ; add.i32 s5, s5, 1 ; nop ; nop",         // 0x000
    "nop ; nop ; nop ; nop",
    "nop ; nop ; nop ; nop",
    "nop ; nop ; nop ; nop",
    "nop ; cmp_less.i32 sp1, s5, s0 ; nop ; nop",  // 0x100
    "nop ; nop ; nop ; nop",
    "nop ; nop ; nop ; nop",
    "nop ; nop ; nop ; nop",
    "nop ; @sp1 jmpr top ; nop ; nop",             // 0x200
    "nop ; halt ; nop ; nop",
});

TEST(Branches, TakenBranchCostsThePenalty) {
  SimRun run(kBranchLoop, strictOptions(true));
  run.run({3});
  EXPECT_NO_FAULT(run);
  EXPECT_EQ(run.sreg(5), 3u);
  // Three passes of 9 bundles and the halt; two taken branches of 3 cycles each.
  EXPECT_EQ(run.stats().bundles, 28u);
  EXPECT_EQ(run.stats().branchCycles, 6u);
  EXPECT_EQ(run.stats().cycles, 34u);
  EXPECT_EQ(run.stats().stalls, 0u);
}

TEST(Branches, NotTakenBranchCostsNothing) {
  SimRun run(kBranchLoop, strictOptions(true));
  run.run({1});
  EXPECT_NO_FAULT(run);
  EXPECT_EQ(run.sreg(5), 1u);
  EXPECT_EQ(run.stats().bundles, 10u);
  EXPECT_EQ(run.stats().branchCycles, 0u);
  EXPECT_EQ(run.stats().cycles, 10u);
}

TEST(Branches, ForwardJumpSkipsBundles) {
  SimRun run(lines({
      "nop ; jmpr skip ; nop ; nop",          // 0: issues at 0, next bundle at 1 + 3
      "nop ; add.i32 s5, s5, 1 ; nop ; nop",  // skipped
      "nop ; add.i32 s5, s5, 1 ; nop ; nop",  // skipped
      "skip:",
      "nop ; halt ; nop ; nop",               // issues at 4
  }));
  run.run();
  EXPECT_NO_FAULT(run);
  EXPECT_EQ(run.sreg(5), 0u);
  EXPECT_EQ(run.stats().bundles, 2u);
  EXPECT_EQ(run.stats().cycles, 5u);
  EXPECT_EQ(run.stats().branchCycles, 3u);
}

TEST(Branches, PenaltyFollowsTheArchitecture) {
  for (const auto& arch : tpc::isa::allArchs()) {
    LaunchOptions o;
    o.arch = &arch;
    SimRun run(lines({"nop ; jmpr end ; nop ; nop", "end:", "nop ; halt ; nop ; nop"}), o);
    run.run();
    EXPECT_EQ(run.stats().cycles, 2u + static_cast<uint64_t>(arch.branchPenalty)) << arch.name;
  }
}

}  // namespace
}  // namespace simtest
