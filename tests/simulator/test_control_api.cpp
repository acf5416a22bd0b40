// The control API of one Core (what the debugger uses): step one bundle at a time, breakpoints that stop
// before their bundle, watchpoints on registers and local memory that stop after the changing bundle,
// and registers and memories written before the run.
#include "sim_test_util.h"

namespace simtest {
namespace {

using tpc::sim::Watch;

TEST(ControlApi, StepOneBundleAtATime) {
  SingleCore sc(lines({
      "nop ; add.i32 s1, s0, 1 ; nop ; nop",   // 0x000: issues at 0
      "nop ; add.i32 s2, s1, 1 ; nop ; nop",   // 0x040: waits for s1 until 4
      "nop ; jmpr 0x100 ; nop ; nop",          // 0x080: issues at 5, next bundle at 6 + 3
      "nop ; add.i32 s5, s5, 1 ; nop ; nop",   // 0x0c0: skipped
      "nop ; halt ; nop ; nop",                // 0x100: issues at 9
  }));
  Core& c = sc.start({{0, 0, 0, 0, 0}, {1, 1, 1, 1, 1}}, {10});
  EXPECT_EQ(c.pc(), 0u);
  EXPECT_EQ(c.cycle(), 0u);
  EXPECT_EQ(c.step(), StopReason::StepDone);
  EXPECT_EQ(c.pc(), 1u);
  EXPECT_EQ(c.pcAddress(), 0x40u);
  EXPECT_EQ(c.cycle(), 1u);
  EXPECT_EQ(c.r.s[1], 11u);
  EXPECT_EQ(c.step(), StopReason::StepDone);
  EXPECT_EQ(c.pc(), 2u);
  EXPECT_EQ(c.cycle(), 5u);
  EXPECT_EQ(c.stats().stalls, 3u);
  EXPECT_EQ(c.r.s[2], 12u);
  EXPECT_EQ(c.step(), StopReason::StepDone);
  EXPECT_EQ(c.pc(), 4u);
  EXPECT_EQ(c.cycle(), 9u);
  EXPECT_EQ(c.stats().branchCycles, 3u);
  EXPECT_FALSE(c.halted());
  EXPECT_EQ(c.step(), StopReason::Halted);
  EXPECT_TRUE(c.halted());
  EXPECT_EQ(c.cycle(), 10u);
  EXPECT_EQ(c.stats().bundles, 4u);
  EXPECT_EQ(c.stats().cycles, 10u);
  // Nothing more runs after the halt.
  EXPECT_EQ(c.step(), StopReason::Halted);
  EXPECT_EQ(c.run(), StopReason::Halted);
  EXPECT_EQ(c.stats().bundles, 4u);
  EXPECT_EQ(c.r.s[5], 0u);

  // reset() starts over with the same results.
  c.reset({{0, 0, 0, 0, 0}, {1, 1, 1, 1, 1}}, std::vector<uint32_t>{20});
  EXPECT_EQ(c.pc(), 0u);
  EXPECT_EQ(c.cycle(), 0u);
  EXPECT_FALSE(c.halted());
  EXPECT_EQ(c.run(), StopReason::Halted);
  EXPECT_EQ(c.r.s[2], 22u);
  EXPECT_EQ(c.stats().cycles, 10u);
}

const std::string kStraightLine = lines({
    "nop ; mov.i32 s1, 1 ; nop ; nop",  // 0x000
    "nop ; mov.i32 s2, 2 ; nop ; nop",  // 0x040
    "nop ; mov.i32 s3, 3 ; nop ; nop",  // 0x080
    "nop ; mov.i32 s4, 4 ; nop ; nop",  // 0x0c0
    "nop ; halt ; nop ; nop",           // 0x100
});

TEST(ControlApi, BreakpointStopsBeforeItsBundleAndResumingRunsIt) {
  SingleCore sc(kStraightLine);
  Core& c = sc.start();
  c.setBreakpoint(0x80, true);
  EXPECT_EQ(c.run(), StopReason::Breakpoint);
  EXPECT_EQ(c.pc(), 2u);
  EXPECT_EQ(c.r.s[2], 2u);
  EXPECT_EQ(c.r.s[3], 0u);  // not yet run
  EXPECT_EQ(c.stats().bundles, 2u);
  EXPECT_EQ(c.run(), StopReason::Halted);
  EXPECT_EQ(c.r.s[3], 3u);
  EXPECT_EQ(c.r.s[4], 4u);
  EXPECT_EQ(c.stats().bundles, 5u);
}

TEST(ControlApi, BreakpointAtTheEntryStopsBeforeTheFirstBundle) {
  SingleCore sc(kStraightLine);
  Core& c = sc.start();
  c.setBreakpoint(0x0, true);
  c.setBreakpoint(0xc0, true);
  EXPECT_EQ(c.run(), StopReason::Breakpoint);
  EXPECT_EQ(c.pc(), 0u);
  EXPECT_EQ(c.stats().bundles, 0u);
  EXPECT_EQ(c.r.s[1], 0u);
  EXPECT_EQ(c.run(), StopReason::Breakpoint);
  EXPECT_EQ(c.pc(), 3u);
  EXPECT_EQ(c.r.s[3], 3u);
  EXPECT_EQ(c.run(), StopReason::Halted);
}

TEST(ControlApi, StepRunsTheBundleAtABreakpoint) {
  SingleCore sc(kStraightLine);
  Core& c = sc.start();
  c.setBreakpoint(0x40, true);
  EXPECT_EQ(c.step(), StopReason::StepDone);  // bundle 0
  EXPECT_EQ(c.step(), StopReason::StepDone);  // bundle 1, at the breakpoint
  EXPECT_EQ(c.pc(), 2u);
  EXPECT_EQ(c.r.s[2], 2u);
  EXPECT_EQ(c.run(), StopReason::Halted);
}

TEST(ControlApi, DisabledAndClearedBreakpointsDoNotStop) {
  SingleCore sc(kStraightLine);
  Core& c = sc.start();
  c.setBreakpoint(0x40, true);
  c.setBreakpoint(0x80, true);
  c.setBreakpoint(0x40, false);
  EXPECT_EQ(c.run(), StopReason::Breakpoint);
  EXPECT_EQ(c.pc(), 2u);
  c.clearBreakpoints();
  EXPECT_EQ(c.run(), StopReason::Halted);
  c.setBreakpoint(0x1000, true);  // outside the code: ignored
  c.reset({{0, 0, 0, 0, 0}, {1, 1, 1, 1, 1}}, {});
  EXPECT_EQ(c.run(), StopReason::Halted);
}

TEST(ControlApi, BreakpointInALoopBodyHitsEveryIteration) {
  SingleCore sc(lines({
      "nop ; loop.i32 s10, s0, s1, 1 cmp=lt end=body_end ; nop ; nop",  // 4 iterations
      "nop ; nop ; nop ; nop",                                           // 0x040
      "body_end:",
      "nop ; add.i32 s5, s5, 1 ; nop ; nop",                             // 0x080
      "nop ; halt ; nop ; nop",
  }));
  Core& c = sc.start({{0, 0, 0, 0, 0}, {1, 1, 1, 1, 1}}, {0, 4});
  c.setBreakpoint(0x80, true);
  int hits = 0;
  StopReason why;
  while ((why = c.run()) == StopReason::Breakpoint) {
    EXPECT_EQ(c.pc(), 2u);
    EXPECT_EQ(c.r.s[10], static_cast<uint32_t>(hits));  // the iterator of this pass
    ++hits;
    ASSERT_LE(hits, 10);
  }
  EXPECT_EQ(why, StopReason::Halted);
  EXPECT_EQ(hits, 4);
  EXPECT_EQ(c.r.s[5], 4u);
}

const std::string kWatched = lines({
    "nop ; mov.i32 s5, 7 ; mov.f32 v0, 1.0 ; nop",       // 0x000: changes s5 right away
    "nop ; mov.i32 s6, 1 ; nop ; nop",                   // 0x040
    "nop ; mov.i32 s5, 7 ; nop ; nop",                   // 0x080: same value: not a change
    "nop ; mov.i32 s5, 8 ; nop ; nop",                   // 0x0c0
    "nop ; nop ; nop ; nop",                             // 0x100
    "nop ; nop ; nop ; st_l_v.f32 0x200, v1",            // 0x140: stores zeros over zeros
    "nop ; nop ; nop ; st_l_v.f32 0x100, v0",            // 0x180: changes vector local memory
    "nop ; halt ; nop ; nop",                            // 0x1c0
});

TEST(ControlApi, WatchpointsStopAfterTheChangingBundle) {
  SingleCore sc(kWatched);
  Core& c = sc.start();
  Watch ws{Watch::Space::Register, tpc::isa::RegFile::S, 5, 0, 0, {}};
  Watch wv{Watch::Space::VectorLocal, tpc::isa::RegFile::None, 0, 0x100, 256, {}};
  int ns = c.addWatch(ws), nv = c.addWatch(wv);
  EXPECT_NE(ns, nv);
  EXPECT_EQ(c.run(), StopReason::Watchpoint);
  EXPECT_EQ(c.pc(), 1u);  // after the first bundle
  EXPECT_EQ(c.lastWatchHit(), ns);
  EXPECT_EQ(c.r.s[5], 7u);
  EXPECT_EQ(c.run(), StopReason::Watchpoint);
  EXPECT_EQ(c.pc(), 4u);
  EXPECT_EQ(c.lastWatchHit(), ns);
  EXPECT_EQ(c.r.s[5], 8u);
  EXPECT_EQ(c.run(), StopReason::Watchpoint);
  EXPECT_EQ(c.pc(), 7u);
  EXPECT_EQ(c.lastWatchHit(), nv);
  float first;
  std::memcpy(&first, c.vectorLocal().data() + 0x100, 4);
  EXPECT_EQ(first, 1.0f);
  EXPECT_EQ(c.run(), StopReason::Halted);
}

TEST(ControlApi, RemovedWatchAndWatchSetUpBeforeResetStillWork) {
  SingleCore sc(kWatched);
  Core& c = sc.start();
  int ns = c.addWatch(Watch{Watch::Space::Register, tpc::isa::RegFile::S, 5, 0, 0, {}});
  int nv = c.addWatch(Watch{Watch::Space::VectorLocal, tpc::isa::RegFile::None, 0, 0x1f0, 16, {}});
  c.removeWatch(ns);
  EXPECT_EQ(c.run(), StopReason::Watchpoint);
  EXPECT_EQ(c.pc(), 7u);
  EXPECT_EQ(c.lastWatchHit(), nv);
  // After a reset the watches stay, and compare against the state the reset leaves.
  c.reset({{0, 0, 0, 0, 0}, {1, 1, 1, 1, 1}}, {});
  EXPECT_EQ(c.vectorLocal()[0x1f0], 0);
  EXPECT_EQ(c.run(), StopReason::Watchpoint);
  EXPECT_EQ(c.pc(), 7u);
  c.removeWatch(nv);
  EXPECT_EQ(c.run(), StopReason::Halted);
}

TEST(ControlApi, WatchOnAVectorRegisterAndAPredicate) {
  SingleCore sc(lines({
      "nop ; nop ; nop ; nop",
      "nop ; nop ; cmp_eq.f32 vp2, v3, 0.0 ; nop",  // 0x040: all 64 lanes true
      "nop ; nop ; nop ; nop",
      "nop ; nop ; add.f32 v3, v3, 1.0 ; nop",      // 0x0c0
      "nop ; halt ; nop ; nop",
  }));
  Core& c = sc.start();
  int nv = c.addWatch(Watch{Watch::Space::Register, tpc::isa::RegFile::V, 3, 0, 0, {}});
  int np = c.addWatch(Watch{Watch::Space::Register, tpc::isa::RegFile::VP, 2, 0, 0, {}});
  EXPECT_EQ(c.run(), StopReason::Watchpoint);
  EXPECT_EQ(c.pc(), 2u);
  EXPECT_EQ(c.lastWatchHit(), np);
  EXPECT_EQ(c.run(), StopReason::Watchpoint);
  EXPECT_EQ(c.pc(), 4u);
  EXPECT_EQ(c.lastWatchHit(), nv);
  EXPECT_EQ(c.run(), StopReason::Halted);
}

TEST(ControlApi, RegistersAndMemoryWrittenBeforeTheRun) {
  SingleCore sc(lines({
      "nop ; add.i32 s1, s0, 1 ; nop ; nop",
      "ld_l_v.f32 v1, 0x0 ; nop ; nop ; nop",
      "ld_l.i32 s3, 0x8 ; nop ; nop ; nop",
      "nop ; nop ; add.f32 v2, v0, v1 ; nop",
      "nop ; nop ; nop ; st_tnsr.f32 i5, v2 tnsr=0",
      "nop ; halt ; nop ; nop",
  }));
  tpc::sim::TensorDesc t = tpc::sim::TensorDesc::dense(DType::F32, {64, 4, 1, 1, 1});
  sc.bindTensor(0, t, toBytes(std::vector<float>(256, 0.0f)));
  Core& c = sc.start({{0, 0, 0, 0, 0}, {1, 1, 1, 1, 1}}, {10});
  c.r.s[0] = 41;
  for (int i = 0; i < 64; ++i) c.r.v[0].lanes<float>()[i] = 2.0f;
  c.r.i[5] = {0, 3, 0, 0, 0};
  std::vector<float> threes(64, 3.0f);
  std::memcpy(c.vectorLocal().data(), threes.data(), 256);
  uint32_t word = 0x12345678;
  std::memcpy(c.scalarLocal().data() + 8, &word, 4);
  EXPECT_EQ(c.run(), StopReason::Halted) << (c.fault() ? c.fault()->describe() : "");
  EXPECT_EQ(c.r.s[1], 42u);
  EXPECT_EQ(c.r.s[3], 0x12345678u);
  std::vector<float> want(256, 0.0f);
  std::fill(want.begin() + 3 * 64, want.end(), 5.0f);
  EXPECT_TRUE(lanesEqual(sc.tensorElements<float>(0, 256), want));
}

TEST(ControlApi, TraceHasOneLinePerBundle) {
  SingleCore sc(kStraightLine);
  Core& c = sc.start();
  std::string trace;
  c.setTrace(&trace);
  EXPECT_EQ(c.run(), StopReason::Halted);
  size_t lines = static_cast<size_t>(std::count(trace.begin(), trace.end(), '\n'));
  EXPECT_EQ(lines, 5u);
  EXPECT_TRUE(contains(trace, "core 0 cycle 2 0x0080: nop ; mov.i32 s3, 3 ; nop ; nop")) << trace;
}

}  // namespace
}  // namespace simtest
