// Predication (scalar predicates true, false and negated; vector predicates keep the income lanes; SP0
// always true) and the VLIW rule that every slot of a bundle reads the state from before the bundle.
#include "sim_test_util.h"

namespace simtest {
namespace {

std::vector<uint32_t> scalarsWith(std::initializer_list<std::pair<int, uint32_t>> values) {
  std::vector<uint32_t> s(36, 0);
  for (auto [k, v] : values) s[static_cast<size_t>(k)] = v;
  return s;
}

TEST(Predicates, ScalarPredicateTrueFalseNegated) {
  auto run = std::make_unique<SimRun>(lines({
      "nop ; cmp_eq.i32 sp1, s0, 1 ; nop ; nop",
      "nop ; cmp_eq.i32 sp2, s0, 2 ; nop ; nop",
      "nop ; @sp1 add.i32 s10, s1, 10 ; nop ; nop",
      "nop ; @sp2 add.i32 s11, s1, 10 ; nop ; nop",
      "nop ; @!sp1 add.i32 s12, s1, 10 ; nop ; nop",
      "nop ; @!sp2 add.i32 s13, s1, 10 ; nop ; nop",
      "nop ; @!sp0 add.i32 s14, s1, 10 ; nop ; nop",
      "@sp2 ld_l.i32 s15, 0 ; nop ; nop ; nop",
      "nop ; nop ; @sp2 mov.f32 v1, 1.0 ; nop",
      "nop ; nop ; @sp1 mov.f32 v2, 2.0 ; nop",
      "nop ; nop ; nop ; @sp2 st_l.i32 0x10, s1",
      "nop ; nop ; nop ; @!sp2 st_l.i32 0x14, s1",
      "nop ; @sp2 halt ; nop ; nop",
      "nop ; @!sp2 jmpr end ; nop ; nop",
      "nop ; add.i32 s16, s1, 1 ; nop ; nop",
      "end:",
      "nop ; halt ; nop ; nop",
  }));
  run->run(scalarsWith({{0, 1}, {1, 2}, {11, 0x55}, {12, 0x66}, {14, 0x77}, {15, 0x88}, {16, 0x99}}));
  EXPECT_NO_FAULT(*run);
  Core& c = run->core();
  EXPECT_EQ(c.r.sp[1], 1);
  EXPECT_EQ(c.r.sp[2], 0);
  EXPECT_EQ(c.r.s[10], 12u);    // executed
  EXPECT_EQ(c.r.s[11], 0x55u);  // predicated off: unchanged
  EXPECT_EQ(c.r.s[12], 0x66u);
  EXPECT_EQ(c.r.s[13], 12u);
  EXPECT_EQ(c.r.s[14], 0x77u);  // @!sp0 never runs
  EXPECT_EQ(c.r.s[15], 0x88u);
  EXPECT_EQ(c.r.s[16], 0x99u);  // jumped over
  EXPECT_TRUE(lanesEqual(run->vreg<float>(1), std::vector<float>(64, 0.0f)));
  EXPECT_TRUE(lanesEqual(run->vreg<float>(2), std::vector<float>(64, 2.0f)));
  auto slm = c.scalarLocal();
  EXPECT_EQ(slm[0x10], 0);
  EXPECT_EQ(slm[0x14], 2);
  // Predicated-off instructions still issue: they count in the slot statistics.
  EXPECT_EQ(run->stats().bundles, 15u);  // every bundle but the one jumped over
}

TEST(Predicates, Sp0IsAlwaysTrue) {
  // SP0 reads true even after an instruction names it as a destination with a false result.
  auto run = std::make_unique<SimRun>(lines({
      "nop ; mov_sp sp3, sp0 ; nop ; nop",
      "nop ; cmp_eq.i32 sp0, s0, 5 ; nop ; nop",
      "nop ; nop ; nop ; nop",
      "nop ; nop ; nop ; nop",
      "nop ; nop ; nop ; nop",
      "nop ; @sp0 add.i32 s10, s0, 1 ; nop ; nop",
      "nop ; mov_sp sp4, sp0 ; nop ; nop",
      "nop ; @!sp0 add.i32 s11, s0, 1 ; nop ; nop",
      "nop ; sp_and sp5, sp0, sp0 ; nop ; nop",
      "nop ; halt ; nop ; nop",
  }));
  run->run({1});
  EXPECT_NO_FAULT(*run);
  Core& c = run->core();
  EXPECT_EQ(c.r.sp[3], 1);
  EXPECT_EQ(c.r.s[10], 2u);
  EXPECT_EQ(c.r.sp[4], 1);
  EXPECT_EQ(c.r.s[11], 0u);
  EXPECT_EQ(c.r.sp[5], 1);
  EXPECT_EQ(c.r.sp[0], 1);
}

TEST(Predicates, VectorPredicateKeepsIncomeLanes) {
  Rng rng(21);
  std::vector<float> a = rng.floats(64, -10, 10), b = rng.floats(64, -10, 10), income = rng.floats(64, 50, 60);
  std::vector<uint16_t> h(128);
  for (auto& x : h) x = static_cast<uint16_t>(rng.integer(0, 65535));
  auto run = runVector({vin(DType::F32, a), vin(DType::F32, b), vin(DType::F32, income), vin(DType::U16, h)},
                       lines({"nop ; nop ; cmp_grt.f32 vp1, v0, v1 ; nop",
                              "nop ; nop ; mov.f32 v10, v2 ; nop",
                              "nop ; nop ; @vp1 add.f32 v10, v0, v1 ; nop",
                              "nop ; nop ; mov.f32 v11, v2 ; nop",
                              "nop ; nop ; @!vp1 mul.f32 v11, v0, v1 ; nop",
                              "nop ; nop ; mov.f32 v12, v2 ; nop",
                              "@vp1 ld_tnsr.f32 v12, i2 tnsr=1 ; nop ; nop ; nop",
                              "nop ; nop ; mov.f32 v13, v2 ; nop",
                              "nop ; nop ; @vp1 mac.f32 v13, v0, 2.0 ; nop",
                              // A u16 compare predicates 128 lanes; a predicated u16 move keeps the others.
                              "nop ; nop ; cmp_less.u16 vp2, v3, 0x8000 ; nop",
                              "nop ; nop ; mov.u16 v14, 7 ; nop",
                              "nop ; nop ; @vp2 mov.u16 v14, v3 ; nop",
                              "nop ; nop ; mov_vp vp3, vp1 ; nop",
                              "nop ; nop ; @vp2 mov_vp vp4, 1 ; nop"}));
  EXPECT_TRUE(lanesEqual(run->vreg<float>(10), mapLanes<float>(64, [&](size_t i) { return a[i] > b[i] ? a[i] + b[i] : income[i]; })));
  EXPECT_TRUE(lanesEqual(run->vreg<float>(11), mapLanes<float>(64, [&](size_t i) { return a[i] > b[i] ? income[i] : a[i] * b[i]; })));
  EXPECT_TRUE(lanesEqual(run->vreg<float>(12), mapLanes<float>(64, [&](size_t i) { return a[i] > b[i] ? b[i] : income[i]; })));
  EXPECT_TRUE(lanesEqual(run->vreg<float>(13), mapLanes<float>(64, [&](size_t i) {
    if (!(a[i] > b[i])) return income[i];
    float p = a[i] * 2.0f;
    return income[i] + p;
  })));
  EXPECT_TRUE(lanesEqual(run->vreg<uint16_t>(14), mapLanes<uint16_t>(128, [&](size_t i) {
    return h[i] < 0x8000 ? h[i] : static_cast<uint16_t>(7);
  })));
  Core& c = run->core();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(c.r.vp[3].bit(i), a[i] > b[i]) << i;
  for (int i = 0; i < 128; ++i) EXPECT_EQ(c.r.vp[4].bit(i), h[i] < 0x8000) << i;
}

TEST(Predicates, VectorPredicatedTensorStoreWritesOnlyEnabledLanes) {
  Rng rng(22);
  std::vector<int32_t> v = rng.ints<int32_t>(64, -100, 100), old = rng.ints<int32_t>(64, 1000, 2000);
  auto run = std::make_unique<SimRun>(lines({
      "ld_tnsr.i32 v0, i2 tnsr=0 ; nop ; nop ; nop",
      "nop ; nop ; cmp_geq.i32 vp1, v0, 0 ; nop",
      "nop ; nop ; nop ; @vp1 st_tnsr.i32 i2, v0 tnsr=1",
      "nop ; nop ; nop ; @sp1 st_tnsr.i32 i2, v0 tnsr=2",
      "nop ; halt ; nop ; nop",
  }));
  run->addTensor(DType::I32, sizes5({64}), v);
  run->addTensor(DType::I32, sizes5({64}), old);
  run->addTensor(DType::I32, sizes5({64}), old);
  run->run();
  EXPECT_NO_FAULT(*run);
  EXPECT_TRUE(lanesEqual(run->tensor<int32_t>(1), mapLanes<int32_t>(64, [&](size_t i) { return v[i] >= 0 ? v[i] : old[i]; })));
  EXPECT_TRUE(lanesEqual(run->tensor<int32_t>(2), old));  // sp1 is false: nothing stored
}

TEST(BundleSemantics, SlotsReadTheStateFromBeforeTheBundle) {
  Rng rng(23);
  std::vector<float> t = rng.floats(128, -10, 10);  // two rows of 64
  auto run = std::make_unique<SimRun>(lines({
      "nop ; i_mov.i32 i3, 1 dmask=0b00010 ; nop ; nop",
      "ld_tnsr.f32 v0, i2 tnsr=0 ; nop ; nop ; nop",
      "nop ; nop ; mov.f32 v3, 3.0 ; nop",
      "nop ; nop ; mov.f32 v4, 4.0 ; nop",
      "nop ; nop ; mov.f32 v5, -1.0 ; nop",
      "nop ; nop ; nop ; st_l.i32 0, s0",
      "nop ; nop ; nop ; nop",
      "nop ; nop ; nop ; nop",
      "nop ; nop ; nop ; nop",
      // The VPU reads v0 while the load slot of the same bundle overwrites it: the add sees row 0.
      "ld_tnsr.f32 v0, i3 tnsr=0 ; nop ; add.f32 v1, v0, v0 ; nop",
      // A swap through two slots.
      "mov.f32 v3, v4 ; nop ; mov.f32 v4, v3 ; nop",
      // The store slot stores the old v5 while the VPU writes a new one.
      "nop ; nop ; add.f32 v5, v0, 1.0 ; st_tnsr.f32 i2, v5 tnsr=1",
      // The SPU reads s1 while the load slot loads it; it reads i3 while it changes it in the store.
      "ld_l.i32 s1, 0 ; add.i32 s2, s1, 1 ; nop ; nop",
      "nop ; i_add.i32 i3, i3, i3 dmask=0b00010 ; nop ; st_tnsr.f32 i3, v3 tnsr=2",
      // The VPU's predicate sp1 is false before the bundle; the SPU sets it in the same bundle.
      "nop ; cmp_eq.i32 sp1, s0, s0 ; @sp1 mov.f32 v7, 7.0 ; nop",
      "nop ; nop ; nop ; nop",
      "nop ; nop ; nop ; nop",
      "nop ; nop ; nop ; nop",
      "nop ; nop ; mov.f32 v6, v0 ; nop",
      "nop ; halt ; nop ; nop",
  }));
  run->addTensor(DType::F32, sizes5({64, 2}), t);
  run->addTensor(DType::F32, sizes5({64}), std::vector<float>(64, 0.0f));
  run->addTensor(DType::F32, sizes5({64, 3}), std::vector<float>(192, 0.0f));
  run->run({777, 5});
  EXPECT_NO_FAULT(*run);
  std::vector<float> row0(t.begin(), t.begin() + 64), row1(t.begin() + 64, t.end());
  EXPECT_TRUE(lanesEqual(run->vreg<float>(1), mapLanes<float>(64, [&](size_t i) { return row0[i] + row0[i]; })));
  EXPECT_TRUE(lanesEqual(run->vreg<float>(6), row1));
  EXPECT_TRUE(lanesEqual(run->vreg<float>(3), std::vector<float>(64, 4.0f)));
  EXPECT_TRUE(lanesEqual(run->vreg<float>(4), std::vector<float>(64, 3.0f)));
  EXPECT_TRUE(lanesEqual(run->tensor<float>(1), std::vector<float>(64, -1.0f)));
  EXPECT_TRUE(lanesEqual(run->vreg<float>(5), mapLanes<float>(64, [&](size_t i) { return row1[i] + 1.0f; })));
  EXPECT_EQ(run->sreg(1), 777u);
  EXPECT_EQ(run->sreg(2), 6u);  // old s1 (5) + 1
  // The store used i3 = (0,1) from before the bundle; i3 is (0,2) afterwards.
  std::vector<float> t2(192, 0.0f);
  for (int i = 0; i < 64; ++i) t2[64 + i] = 4.0f;
  EXPECT_TRUE(lanesEqual(run->tensor<float>(2), t2));
  EXPECT_EQ(run->core().r.i[3], (tpc::sim::IReg{0, 2, 0, 0, 0}));
  EXPECT_TRUE(lanesEqual(run->vreg<float>(7), std::vector<float>(64, 0.0f)));
  EXPECT_EQ(run->core().r.sp[1], 1);
}

}  // namespace
}  // namespace simtest
