// The split of the 5-D index space over the cores, and a kernel that visits every point of its own box:
// an rmw add of 1 per point into a counter tensor leaves all ones for any core count, and outputs and
// per-core statistics do not depend on the number of host threads.
#include <map>

#include "sim_test_util.h"

namespace simtest {
namespace {

using tpc::sim::IndexBox;
using tpc::sim::splitIndexSpace;

// Every point of the space is in exactly one box; boxes stay inside the space.
void checkCover(const Dims5& space, int cores, int preferred = -1) {
  SCOPED_TRACE("space [" + std::to_string(space[0]) + "," + std::to_string(space[1]) + "," +
               std::to_string(space[2]) + "," + std::to_string(space[3]) + "," + std::to_string(space[4]) +
               "] on " + std::to_string(cores) + " cores");
  std::vector<IndexBox> boxes = splitIndexSpace(space, cores, preferred);
  ASSERT_EQ(boxes.size(), static_cast<size_t>(std::max(cores, 1)));
  int64_t volume = 1;
  for (int64_t s : space) volume *= s;
  std::vector<int> visits(static_cast<size_t>(volume), 0);
  int nonEmpty = 0;
  for (const IndexBox& b : boxes) {
    if (b.volume() == 0) continue;
    ++nonEmpty;
    for (int d = 0; d < 5; ++d) {
      ASSERT_GE(b.offset[d], 0);
      ASSERT_GE(b.size[d], 1);
      ASSERT_LE(b.offset[d] + b.size[d], space[d]);
    }
    for (int64_t u = 0; u < b.size[4]; ++u)
      for (int64_t w = 0; w < b.size[3]; ++w)
        for (int64_t z = 0; z < b.size[2]; ++z)
          for (int64_t y = 0; y < b.size[1]; ++y)
            for (int64_t x = 0; x < b.size[0]; ++x) {
              int64_t p[5] = {b.offset[0] + x, b.offset[1] + y, b.offset[2] + z, b.offset[3] + w, b.offset[4] + u};
              int64_t idx = p[0] + space[0] * (p[1] + space[1] * (p[2] + space[2] * (p[3] + space[3] * p[4])));
              ++visits[static_cast<size_t>(idx)];
            }
  }
  for (size_t i = 0; i < visits.size(); ++i) ASSERT_EQ(visits[i], 1) << "point " << i;
  EXPECT_GE(nonEmpty, 1);
  EXPECT_LE(nonEmpty, std::max(cores, 1));
  // Deterministic.
  std::vector<IndexBox> again = splitIndexSpace(space, cores, preferred);
  for (size_t k = 0; k < boxes.size(); ++k) {
    EXPECT_EQ(again[k].offset, boxes[k].offset);
    EXPECT_EQ(again[k].size, boxes[k].size);
  }
}

TEST(IndexSpace, SplitCoversEveryIndexExactlyOnce) {
  const std::vector<Dims5> spaces = {
      {1, 1, 1, 1, 1}, {7, 1, 1, 1, 1},  {100, 1, 1, 1, 1}, {3, 5, 1, 1, 1},   {2, 3, 4, 5, 6},
      {1, 1, 1, 1, 97}, {13, 1, 7, 1, 2}, {5, 5, 5, 1, 1},   {64, 3, 1, 1, 1},  {1, 2, 1, 2, 1},
      {11, 13, 1, 1, 1}, {4, 4, 4, 4, 4}};
  for (const Dims5& space : spaces)
    for (int cores : {1, 2, 3, 5, 7, 8, 24, 64, 100, 1000}) checkCover(space, cores);
}

TEST(IndexSpace, PreferredDimensionIsSplitFirst) {
  for (int preferred = 0; preferred < 5; ++preferred)
    for (const Dims5& space : std::vector<Dims5>{{64, 64, 1, 1, 1}, {3, 5, 7, 2, 2}, {100, 2, 1, 1, 1}, {4, 4, 4, 4, 4}})
      for (int cores : {1, 5, 24, 1000}) checkCover(space, cores, preferred);
  // 64 vectors by 64 rows on 24 cores, rows preferred: every box holds whole rows of dimension 0.
  for (const IndexBox& b : splitIndexSpace({64, 64, 1, 1, 1}, 24, 1)) {
    EXPECT_EQ(b.offset[0], 0);
    EXPECT_EQ(b.size[0], 64);
    EXPECT_LE(b.size[1], 3);
  }
  // Fewer rows than cores: the rows first, then dimension 0 for the remaining cores.
  int nonEmpty = 0;
  for (const IndexBox& b : splitIndexSpace({100, 2, 1, 1, 1}, 24, 1)) {
    nonEmpty += b.volume() > 0;
    EXPECT_LE(b.size[1], 1);
  }
  EXPECT_EQ(nonEmpty, 24);
}

TEST(IndexSpace, OneDimensionalSplitIsBalanced) {
  for (int64_t n : {1, 5, 23, 24, 25, 100, 1001})
    for (int cores : {1, 2, 3, 24, 64}) {
      auto boxes = splitIndexSpace({n, 1, 1, 1, 1}, cores);
      int64_t lo = INT64_MAX, hi = 0;
      int nonEmpty = 0;
      for (const auto& b : boxes)
        if (b.volume()) lo = std::min(lo, b.volume()), hi = std::max(hi, b.volume()), ++nonEmpty;
      EXPECT_EQ(nonEmpty, std::min<int64_t>(n, cores)) << n << " on " << cores;
      EXPECT_LE(hi - lo, 1) << n << " on " << cores;
    }
}

TEST(IndexSpace, SpaceSmallerThanCoreCountLeavesIdleCores) {
  auto boxes = splitIndexSpace({2, 1, 1, 1, 1}, 24);
  ASSERT_EQ(boxes.size(), 24u);
  int nonEmpty = 0;
  for (const auto& b : boxes) nonEmpty += b.volume() > 0;
  EXPECT_EQ(nonEmpty, 2);
  // An empty space gives only empty boxes.
  for (const auto& b : splitIndexSpace({0, 3, 1, 1, 1}, 4)) EXPECT_EQ(b.volume(), 0);
}

// Visits every point of the core's box in all five dimensions (dimension 0 in vectors of 64 i32 lanes)
// and adds 1 to the counter tensor there. All five hardware loops end at the same bundle.
const std::string kCounterKernel = lines({
    "nop ; mov_irf_dim.i32 s0, i0 dim=0 ; nop ; nop",
    "nop ; mov_irf_dim.i32 s1, i0 dim=1 ; nop ; nop",
    "nop ; mov_irf_dim.i32 s2, i0 dim=2 ; nop ; nop",
    "nop ; mov_irf_dim.i32 s3, i0 dim=3 ; nop ; nop",
    "nop ; mov_irf_dim.i32 s4, i0 dim=4 ; nop ; nop",
    "nop ; mov_irf_dim.i32 s5, i1 dim=0 ; nop ; nop",
    "nop ; mov_irf_dim.i32 s6, i1 dim=1 ; nop ; nop",
    "nop ; mov_irf_dim.i32 s7, i1 dim=2 ; nop ; nop",
    "nop ; mov_irf_dim.i32 s8, i1 dim=3 ; nop ; nop",
    "nop ; mov_irf_dim.i32 s9, i1 dim=4 ; nop ; nop",
    "nop ; add.i32 s5, s0, s5 ; nop ; nop",
    "nop ; add.i32 s6, s1, s6 ; nop ; nop",
    "nop ; add.i32 s7, s2, s7 ; nop ; nop",
    "nop ; add.i32 s8, s3, s8 ; nop ; nop",
    "nop ; add.i32 s9, s4, s9 ; nop ; nop",
    "nop ; shl.i32 s0, s0, 6 ; nop ; nop",
    "nop ; shl.i32 s5, s5, 6 ; nop ; nop",
    "nop ; nop ; mov.i32 v1, 1 ; nop",
    "nop ; loop.i32 s14, s4, s9, 1 cmp=lt end=body_end ; nop ; nop",
    "nop ; i_mov.i32 i2, s14 dmask=0b10000 ; nop ; nop",
    "nop ; loop.i32 s13, s3, s8, 1 cmp=lt end=body_end ; nop ; nop",
    "nop ; i_mov.i32 i2, s13 dmask=0b01000 ; nop ; nop",
    "nop ; loop.i32 s12, s2, s7, 1 cmp=lt end=body_end ; nop ; nop",
    "nop ; i_mov.i32 i2, s12 dmask=0b00100 ; nop ; nop",
    "nop ; loop.i32 s11, s1, s6, 1 cmp=lt end=body_end ; nop ; nop",
    "nop ; i_mov.i32 i2, s11 dmask=0b00010 ; nop ; nop",
    "nop ; loop.i32 s10, s0, s5, 64 cmp=lt end=body_end ; nop ; nop",
    "nop ; i_mov.i32 i2, s10 dmask=0b00001 ; nop ; nop",
    "body_end:",
    "nop ; nop ; nop ; st_tnsr.i32 i2, v1 tnsr=0 rmw=add",
    "nop ; halt ; nop ; nop",
});

struct CounterRun {
  std::vector<int32_t> counts;
  LaunchResult result;
};

CounterRun runCounter(const Program& program, const Dims5& space, int cores, int threads) {
  // Dimension 0 of the tensor is ragged: the last vector column is partly outside.
  std::array<int64_t, 5> sizes{space[0] * 64 - 13, space[1], space[2], space[3], space[4]};
  int64_t n = sizes[0] * sizes[1] * sizes[2] * sizes[3] * sizes[4];
  LaunchOptions opt;
  opt.arch = gaudi2();
  opt.cores = cores;
  opt.threads = threads;
  Launch launch(program, opt);
  launch.addTensor(DType::I32, sizes, std::vector<uint8_t>(static_cast<size_t>(n) * 4, 0));
  launch.setIndexSpace(space);
  CounterRun r;
  r.result = launch.run();
  r.counts = fromBytes<int32_t>(launch.tensorData(0));
  return r;
}

TEST(IndexSpace, EveryPointRunsExactlyOnceForAnyCoreCount) {
  auto program = loadProgram(kCounterKernel);
  for (const Dims5& space : {Dims5{3, 5, 2, 3, 2}, Dims5{1, 1, 1, 1, 1}, Dims5{7, 1, 1, 1, 3}, Dims5{2, 2, 2, 2, 2}}) {
    for (int cores : {1, 2, 5, 24, 64}) {
      SCOPED_TRACE(std::to_string(cores) + " cores, space volume " +
                   std::to_string(space[0] * space[1] * space[2] * space[3] * space[4]));
      CounterRun r = runCounter(*program, space, cores, 2);
      ASSERT_FALSE(r.result.fault) << r.result.fault->describe();
      ASSERT_FALSE(r.counts.empty());
      for (size_t i = 0; i < r.counts.size(); ++i) ASSERT_EQ(r.counts[i], 1) << "element " << i;
      // Cores with an empty box do not run at all.
      for (size_t c = 0; c < r.result.cores.size(); ++c)
        if (r.result.boxes[c].volume() == 0) {
          EXPECT_EQ(r.result.cores[c].bundles, 0u);
        }
    }
  }
}

TEST(IndexSpace, ResultsDoNotDependOnHostThreads) {
  auto program = loadProgram(kCounterKernel);
  const Dims5 space{3, 5, 2, 3, 2};
  CounterRun base = runCounter(*program, space, 24, 1);
  ASSERT_FALSE(base.result.fault);
  for (int threads : {2, 4}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    CounterRun r = runCounter(*program, space, 24, threads);
    ASSERT_FALSE(r.result.fault);
    EXPECT_EQ(r.counts, base.counts);
    ASSERT_EQ(r.result.cores.size(), base.result.cores.size());
    for (size_t c = 0; c < r.result.cores.size(); ++c) {
      const CoreStats &a = r.result.cores[c], &b = base.result.cores[c];
      EXPECT_EQ(a.cycles, b.cycles) << c;
      EXPECT_EQ(a.bundles, b.bundles) << c;
      EXPECT_EQ(a.stalls, b.stalls) << c;
      EXPECT_EQ(a.branchCycles, b.branchCycles) << c;
      EXPECT_EQ(a.slotBusy, b.slotBusy) << c;
      EXPECT_EQ(a.loadBytes, b.loadBytes) << c;
      EXPECT_EQ(a.storeBytes, b.storeBytes) << c;
      EXPECT_EQ(a.vectorLaneOps, b.vectorLaneOps) << c;
      EXPECT_EQ(r.result.boxes[c].offset, base.result.boxes[c].offset);
      EXPECT_EQ(r.result.boxes[c].size, base.result.boxes[c].size);
    }
    EXPECT_EQ(r.result.maxCycles(), base.result.maxCycles());
    EXPECT_EQ(r.result.totalBundles(), base.result.totalBundles());
  }
}

// Every point adds its own vector into the same output (rmw=add), with values whose f32 sum depends on the
// order: the cores do it in core order, each in point order, the same in every run and on any number of
// host threads (unordered, the adds of two threads could also race and lose one another).
TEST(IndexSpace, ReadModifyWriteStoresOfAllCoresHappenInCoreOrder) {
  auto program = loadProgram(lines({
      "nop ; mov_irf_dim.i32 s0, i0 dim=0 ; nop ; nop",
      "nop ; mov_irf_dim.i32 s1, i1 dim=0 ; nop ; nop",
      "nop ; add.i32 s1, s0, s1 ; nop ; nop",
      "nop ; shl.i32 s0, s0, 6 ; nop ; nop",
      "nop ; shl.i32 s1, s1, 6 ; nop ; nop",
      "nop ; loop.i32 s10, s0, s1, 64 cmp=lt end=body_end ; nop ; nop",
      "nop ; i_mov.i32 i3, s10 dmask=0b00001 ; nop ; nop",
      "ld_tnsr.f32 v0, i3 tnsr=0 ; nop ; nop ; nop",
      "body_end:",
      "nop ; nop ; nop ; st_tnsr.f32 i2, v0 tnsr=1 rmw=add",
      "nop ; halt ; nop ; nop",
  }));
  const int points = 96;
  std::vector<float> x(static_cast<size_t>(points) * 64);
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t k = i / 64;
    x[i] = (k % 3 == 0 ? 1e8f : k % 3 == 1 ? 3.0f : -1e8f) + static_cast<float>(i % 7) * 0.37f;
  }
  std::vector<float> want(64, 0.0f);
  for (size_t i = 0; i < x.size(); ++i) want[i % 64] += x[i];
  for (int run = 0; run < 20; ++run) {
    LaunchOptions opt;
    opt.arch = gaudi2();
    opt.cores = 24;
    opt.threads = 4;
    Launch launch(*program, opt);
    launch.addTensor(DType::F32, sizes5({points * 64}), toBytes(x));
    launch.addTensor(DType::F32, sizes5({64}), toBytes(std::vector<float>(64, 0.0f)));
    launch.setIndexSpace({points, 1, 1, 1, 1});
    LaunchResult r = launch.run();
    ASSERT_FALSE(r.fault) << r.fault->describe();
    ASSERT_TRUE(lanesEqual(fromBytes<float>(launch.tensorData(1)), want)) << "run " << run;
  }
}

TEST(IndexSpace, CoresSeeTheirBoxInI0AndI1) {
  // Each core writes its I0/I1 to its own row of an output: row = core's offset in dimension 1.
  auto program = loadProgram(lines({
      "nop ; mov_irf_dim.i32 s0, i0 dim=1 ; nop ; nop",
      "nop ; mov_irf_dim.i32 s1, i1 dim=1 ; nop ; nop",
      "nop ; i_mov.i32 i2, i0 dmask=0b00010 ; nop ; nop",
      "nop ; nop ; mov.i32 v0, s0 ; nop",
      "nop ; nop ; mov.i32 v1, s1 ; nop",
      "nop ; nop ; nop ; st_tnsr.i32 i2, v0 tnsr=0",
      "nop ; nop ; nop ; st_tnsr.i32 i2, v1 tnsr=1",
      "nop ; halt ; nop ; nop",
  }));
  LaunchOptions opt;
  opt.arch = gaudi2();
  opt.cores = 4;
  opt.threads = 2;
  Launch launch(*program, opt);
  launch.addTensor(DType::I32, sizes5({64, 10}), std::vector<uint8_t>(64 * 10 * 4, 0xff));
  launch.addTensor(DType::I32, sizes5({64, 10}), std::vector<uint8_t>(64 * 10 * 4, 0xff));
  launch.setIndexSpace({1, 10, 1, 1, 1});
  LaunchResult r = launch.run();
  ASSERT_FALSE(r.fault) << r.fault->describe();
  auto offs = fromBytes<int32_t>(launch.tensorData(0)), sizes = fromBytes<int32_t>(launch.tensorData(1));
  for (size_t c = 0; c < 4; ++c) {
    const auto& b = r.boxes[c];
    ASSERT_GT(b.volume(), 0);
    EXPECT_EQ(offs[static_cast<size_t>(b.offset[1]) * 64], b.offset[1]);
    EXPECT_EQ(sizes[static_cast<size_t>(b.offset[1]) * 64 + 63], b.size[1]);
  }
}

}  // namespace
}  // namespace simtest
