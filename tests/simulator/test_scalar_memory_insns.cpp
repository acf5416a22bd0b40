// SPU instructions (scalar arithmetic, comparisons, predicate logic, conversion, udiv/urem), index-register
// operations with dimension masks, local memories and global memory through gen_addr, executed through
// the simulator and compared with values computed here.
#include "sim_test_util.h"
#include "tpc/sim/kernel_binding.h"

namespace simtest {
namespace {

TEST(ScalarInsns, ArithmeticLogicCompareConvert) {
  const uint32_t s0 = 100, s1 = static_cast<uint32_t>(-7), s2 = bitsOf(1.5f), s3 = bitsOf(-2.25f), s4 = 0xdeadbeefu,
                 s5 = 17, s6 = 0, s7 = 0x00018000u;
  auto run = std::make_unique<SimRun>(lines({
      "nop ; add.i32 s10, s0, s1 ; nop ; nop",
      "nop ; sub.i32 s11, s1, s0 ; nop ; nop",
      "nop ; mul.i32 s12, s0, s1 ; nop ; nop",
      "nop ; max.i32 s13, s0, s1 ; nop ; nop",
      "nop ; min.u32 s14, s0, s1 ; nop ; nop",
      "nop ; add.f32 s15, s2, s3 ; nop ; nop",
      "nop ; mul.f32 s16, s2, s3 ; nop ; nop",
      "nop ; and.u32 s17, s4, 0xffff ; nop ; nop",
      "nop ; or.u32 s18, s4, s5 ; nop ; nop",
      "nop ; xor.u32 s19, s4, s4 ; nop ; nop",
      "nop ; shl.i32 s20, s5, 3 ; nop ; nop",
      "nop ; shr.i32 s21, s1, 1 ; nop ; nop",
      "nop ; shr.u32 s22, s1, 28 ; nop ; nop",
      "nop ; abs.i32 s23, s1 ; nop ; nop",
      "nop ; neg.f32 s24, s2 ; nop ; nop",
      "nop ; not.u32 s25, s4 ; nop ; nop",
      "nop ; udiv.u32 s26, s4, s5 ; nop ; nop",
      "nop ; urem.u32 s27, s4, s5 ; nop ; nop",
      "nop ; udiv.u32 s28, s4, s6 ; nop ; nop",
      "nop ; urem.u32 s29, s4, s6 ; nop ; nop",
      "nop ; udiv.u16 s30, s7, 7 ; nop ; nop",
      "nop ; convert.f32.i32 s31, s3 rm=rd ; nop ; nop",
      "nop ; mov.i8 s32, s4 ; nop ; nop",
      "nop ; mac.i32 s33, s0, s5 ; nop ; nop",
      "nop ; add.i16 s34, s7, s7 sat ; nop ; nop",
      "nop ; sub.u8 s35, s5, 20 sat ; nop ; nop",
      "nop ; cmp_less.i32 sp1, s1, s0 ; nop ; nop",
      "nop ; cmp_less.u32 sp2, s1, s0 ; nop ; nop",
      "nop ; cmp_eq.f32 sp3, s2, 1.5 ; nop ; nop",
      "nop ; cmp_geq.f32 sp4, s3, s2 ; nop ; nop",
      "nop ; sp_or sp5, sp2, sp3 ; nop ; nop",
      "nop ; sp_not sp6, sp1 ; nop ; nop",
      "nop ; mov_sp sp7, s5 ; nop ; nop",
      "nop ; sp_xor sp8, sp1, sp3 ; nop ; nop",
      "nop ; halt ; nop ; nop",
  }));
  run->run({s0, s1, s2, s3, s4, s5, s6, s7});
  EXPECT_NO_FAULT(*run);
  Core& c = run->core();
  EXPECT_EQ(c.r.s[10], 93u);
  EXPECT_EQ(static_cast<int32_t>(c.r.s[11]), -107);
  EXPECT_EQ(static_cast<int32_t>(c.r.s[12]), -700);
  EXPECT_EQ(c.r.s[13], 100u);
  EXPECT_EQ(c.r.s[14], 100u);  // unsigned: 0xfffffff9 is the larger
  EXPECT_EQ(floatOf(c.r.s[15]), -0.75f);
  EXPECT_EQ(floatOf(c.r.s[16]), -3.375f);
  EXPECT_EQ(c.r.s[17], 0xbeefu);
  EXPECT_EQ(c.r.s[18], 0xdeadbeefu | 17u);
  EXPECT_EQ(c.r.s[19], 0u);
  EXPECT_EQ(c.r.s[20], 136u);
  EXPECT_EQ(static_cast<int32_t>(c.r.s[21]), -4);  // arithmetic shift rounds toward -inf
  EXPECT_EQ(c.r.s[22], 0xfu);
  EXPECT_EQ(c.r.s[23], 7u);
  EXPECT_EQ(floatOf(c.r.s[24]), -1.5f);
  EXPECT_EQ(c.r.s[25], ~0xdeadbeefu);
  EXPECT_EQ(c.r.s[26], 0xdeadbeefu / 17u);
  EXPECT_EQ(c.r.s[27], 0xdeadbeefu % 17u);
  EXPECT_EQ(c.r.s[28], 0xffffffffu);  // division by zero: all ones
  EXPECT_EQ(c.r.s[29], 0xdeadbeefu);  // remainder by zero: the dividend
  EXPECT_EQ(c.r.s[30], 0x8000u / 7u);  // u16 operand: the low half, zero-extended
  EXPECT_EQ(static_cast<int32_t>(c.r.s[31]), -3);
  EXPECT_EQ(c.r.s[32], 0xffffffefu);  // i8 value sign-extended
  EXPECT_EQ(c.r.s[33], 1700u);        // 0 + 100 * 17
  EXPECT_EQ(c.r.s[34], 0xffff8000u);  // -32768 + -32768 saturates, sign-extended
  EXPECT_EQ(c.r.s[35], 0u);           // 17 - 20 saturates at 0
  EXPECT_EQ(c.r.sp[1], 1);
  EXPECT_EQ(c.r.sp[2], 0);
  EXPECT_EQ(c.r.sp[3], 1);
  EXPECT_EQ(c.r.sp[4], 0);
  EXPECT_EQ(c.r.sp[5], 1);
  EXPECT_EQ(c.r.sp[6], 0);
  EXPECT_EQ(c.r.sp[7], 1);
  EXPECT_EQ(c.r.sp[8], 0);
}

TEST(ScalarInsns, IndexRegistersWithDimensionMasks) {
  auto run = std::make_unique<SimRun>(lines({
      "nop ; i_add.i32 i2, i1, i1 dmask=0b10101 ; nop ; nop",
      "nop ; i_sub.i32 i3, 100, i1 dmask=0b01110 ; nop ; nop",
      "nop ; i_mul.i32 i4, i1, i1 dmask=0b11111 ; nop ; nop",
      "nop ; i_max.i32 i5, s0, i1 dmask=0b11111 ; nop ; nop",
      "nop ; i_min.i32 i6, s0, i1 dmask=0b11011 ; nop ; nop",
      "nop ; i_mov.i32 i7, i1 dmask=0b00110 ; nop ; nop",
      "nop ; i_xor.i32 i8, s1, i1 dmask=0b11111 ; nop ; nop",
      "nop ; i_and.i32 i9, s1, i1 dmask=0b11111 ; nop ; nop",
      "nop ; i_or.i32 i10, s1, i1 dmask=0b11111 ; nop ; nop",
      "nop ; i_mov.i32 i11, -1 dmask=0b11111 ; nop ; nop",
      "nop ; i_add.i32 i11, 5, i11 dmask=0b00001 ; nop ; nop",
      "nop ; mov_irf_dim.i32 s10, i1 dim=3 ; nop ; nop",
      "nop ; mov_irf_dim.i32 s11, i4 dim=4 ; nop ; nop",
      "nop ; mov_irf_dim.i32 s12, i0 dim=2 ; nop ; nop",
      "nop ; halt ; nop ; nop",
  }));
  run->run({7, 3}, {5, 6, 7, 8, 9});
  EXPECT_NO_FAULT(*run);
  Core& c = run->core();
  using I = tpc::sim::IReg;
  EXPECT_EQ(c.r.i[0], (I{0, 0, 0, 0, 0}));  // index-space offset
  EXPECT_EQ(c.r.i[1], (I{5, 6, 7, 8, 9}));  // index-space size
  EXPECT_EQ(c.r.i[2], (I{10, 0, 14, 0, 18}));
  EXPECT_EQ(c.r.i[3], (I{0, 94, 93, 92, 0}));
  EXPECT_EQ(c.r.i[4], (I{25, 36, 49, 64, 81}));
  EXPECT_EQ(c.r.i[5], (I{7, 7, 7, 8, 9}));
  EXPECT_EQ(c.r.i[6], (I{5, 6, 0, 7, 7}));
  EXPECT_EQ(c.r.i[7], (I{0, 6, 7, 0, 0}));
  EXPECT_EQ(c.r.i[8], (I{3 ^ 5, 3 ^ 6, 3 ^ 7, 3 ^ 8, 3 ^ 9}));
  EXPECT_EQ(c.r.i[9], (I{3 & 5, 3 & 6, 3 & 7, 3 & 8, 3 & 9}));
  EXPECT_EQ(c.r.i[10], (I{3 | 5, 3 | 6, 3 | 7, 3 | 8, 3 | 9}));
  EXPECT_EQ(c.r.i[11], (I{4, -1, -1, -1, -1}));
  EXPECT_EQ(c.r.s[10], 8u);
  EXPECT_EQ(c.r.s[11], 81u);
  EXPECT_EQ(c.r.s[12], 0u);
}

TEST(MemoryInsns, ScalarLocalMemory) {
  auto run = std::make_unique<SimRun>(lines({
      "nop ; nop ; nop ; st_l.i32 0x10, s0",
      "nop ; nop ; nop ; st_l.i8 0x21, s1",
      "nop ; nop ; nop ; st_l.u16 s2, s3",
      "nop ; nop ; nop ; st_l.f32 0x3fc, s4",
      "ld_l.i32 s10, 0x10 ; nop ; nop ; nop",
      "ld_l.i8 s11, 0x21 ; nop ; nop ; nop",
      "ld_l.u8 s12, 0x21 ; nop ; nop ; nop",
      "ld_l.u16 s13, s2 ; nop ; nop ; nop",
      "ld_l.i16 s14, s2 ; nop ; nop ; nop",
      "ld_l.i32 s15, 0x20 ; nop ; nop ; nop",
      "ld_l.u8 s16, 0x13 ; nop ; nop ; nop",
      "ld_l.f32 s17, 0x3fc ; nop ; nop ; nop",
      "nop ; halt ; nop ; nop",
  }));
  run->run({0x11223344u, 0xffffff80u, 0x40u, 0xabcdu, bitsOf(-3.5f)});
  EXPECT_NO_FAULT(*run);
  Core& c = run->core();
  EXPECT_EQ(c.r.s[10], 0x11223344u);
  EXPECT_EQ(c.r.s[11], 0xffffff80u);  // i8 sign-extended
  EXPECT_EQ(c.r.s[12], 0x80u);        // u8 zero-extended
  EXPECT_EQ(c.r.s[13], 0xabcdu);
  EXPECT_EQ(c.r.s[14], 0xffffabcdu);
  EXPECT_EQ(c.r.s[15], 0x8000u);  // byte 0x21 alone in the word at 0x20
  EXPECT_EQ(c.r.s[16], 0x11u);    // little-endian
  EXPECT_EQ(floatOf(c.r.s[17]), -3.5f);
  auto slm = c.scalarLocal();
  EXPECT_EQ(slm[0x10], 0x44);
  EXPECT_EQ(slm[0x13], 0x11);
  EXPECT_EQ(slm[0x40], 0xcd);
  EXPECT_EQ(slm[0x41], 0xab);
}

TEST(MemoryInsns, VectorLocalMemory) {
  Rng rng(11);
  std::vector<float> a = rng.floats(64, -5, 5);
  std::vector<int32_t> m = rng.ints<int32_t>(64, -2, 2);
  auto run = runVector({vin(DType::F32, a), vin(DType::I32, m)},
                       lines({"nop ; nop ; nop ; st_l_v.f32 0x100, v0",
                              "nop ; nop ; cmp_grt.i32 vp1, v1, 0 ; nop",
                              "nop ; nop ; nop ; @vp1 st_l_v.i32 0x200, v0",
                              "nop ; nop ; nop ; st_l_v.f32 s4, v0",
                              "ld_l_v.f32 v5, 0x100 ; nop ; nop ; nop",
                              "ld_l_v.i32 v6, 0x200 ; nop ; nop ; nop",
                              "ld_l_v.f32 v7, s4 ; nop ; nop ; nop",
                              "nop ; nop ; mov.f32 v8, 9.0 ; nop",
                              "@!vp1 ld_l_v.f32 v8, 0x100 ; nop ; nop ; nop"}),
                       {0, 0, 0, 0, 80 * 1024 - 256});
  EXPECT_TRUE(lanesEqual(run->vreg<float>(5), a));
  EXPECT_TRUE(lanesEqual(run->vreg<float>(7), a));
  std::vector<int32_t> ai = fromBytes<int32_t>(toBytes(a));
  EXPECT_TRUE(lanesEqual(run->vreg<int32_t>(6), mapLanes<int32_t>(64, [&](size_t i) { return m[i] > 0 ? ai[i] : 0; })));
  EXPECT_TRUE(lanesEqual(run->vreg<float>(8), mapLanes<float>(64, [&](size_t i) { return m[i] > 0 ? 9.0f : a[i]; })));
  auto vlm = run->core().vectorLocal();
  ASSERT_EQ(vlm.size(), 80u * 1024u);
  EXPECT_EQ(std::memcmp(vlm.data() + 0x100, a.data(), 256), 0);
  EXPECT_EQ(std::memcmp(vlm.data() + vlm.size() - 256, a.data(), 256), 0);
}

TEST(MemoryInsns, GenAddrAndGlobalAccess) {
  Rng rng(12);
  std::vector<float> t0 = rng.floats(64 * 3, -100, 100);
  auto run = std::make_unique<SimRun>(lines({
      "nop ; i_mov.i32 i3, 5 dmask=0b00001 ; nop ; nop",
      "nop ; i_mov.i32 i3, 2 dmask=0b00010 ; nop ; nop",
      "nop ; i_mov.i32 i4, 1 dmask=0b00010 ; nop ; nop",
      "gen_addr ad0, i3 tnsr=0 ; nop ; nop ; nop",
      "gen_addr ad1, i2 tnsr=0 ; nop ; nop ; nop",
      "gen_addr ad2, i4 tnsr=0 ; nop ; nop ; nop",
      "gen_addr ad3, i3 tnsr=1 ; nop ; nop ; nop",
      "gen_addr ad4, i2 tnsr=1 ; nop ; nop ; nop",
      "prefetch ad2 ; nop ; nop ; nop",
      "ld_g.f32 s10, ad0 ; nop ; nop ; nop",
      "nop ; nop ; nop ; st_g.f32 ad3, s0",
      "ld_g_v.f32 v4, ad2 ; nop ; nop ; nop",
      "nop ; nop ; nop ; st_g_v.f32 ad4, v4",
      "ld_g.i32 s11, ad3 ; nop ; nop ; nop",
      "nop ; halt ; nop ; nop",
  }));
  run->addTensor(DType::F32, sizes5({64, 3}), t0);
  run->addTensor(DType::F32, sizes5({64, 3}), std::vector<float>(64 * 3, 0.0f));
  run->run({bitsOf(42.5f)});
  EXPECT_NO_FAULT(*run);
  Core& c = run->core();
  EXPECT_EQ(c.r.ad[0] - c.r.ad[1], (2u * 64u + 5u) * 4u);
  EXPECT_EQ(c.r.ad[2] - c.r.ad[1], 64u * 4u);
  EXPECT_EQ(floatOf(c.r.s[10]), t0[2 * 64 + 5]);
  EXPECT_EQ(floatOf(c.r.s[11]), 42.5f);  // read back what st_g wrote
  std::vector<float> want(64 * 3, 0.0f);
  for (int i = 0; i < 64; ++i) want[i] = t0[64 + i];  // row 1 of t0 into row 0 of t1
  want[2 * 64 + 5] = 42.5f;
  EXPECT_TRUE(lanesEqual(run->tensor<float>(1), want));
  EXPECT_TRUE(lanesEqual(run->tensor<float>(0), t0));
  EXPECT_EQ(run->stats().loadBytes, 4u + 256u + 4u);
  EXPECT_EQ(run->stats().storeBytes, 4u + 256u);
}

// tpc-sim writes back the tensors a kernel may store to: st_tnsr targets, and tensors whose gen_addr
// address reaches a global store. A tensor only read through gen_addr and ld_g stays an input.
TEST(GlobalMemory, TensorsStoredToFollowAddressRegisters) {
  auto program = loadProgram(lines({
      "gen_addr ad0, i2 tnsr=0 ; nop ; nop ; nop",
      "gen_addr ad1, i2 tnsr=1 ; nop ; nop ; nop",
      "gen_addr ad2, i2 tnsr=2 ; nop ; nop ; nop",
      "ld_g.f32 s1, ad0 ; nop ; nop ; nop",
      "nop ; nop ; nop ; st_g.f32 ad1, s1",
      "ld_g.f32 s2, ad2 ; nop ; nop ; nop",
      "nop ; nop ; nop ; st_tnsr.f32 i2, v0 tnsr=3",
      "nop ; halt ; nop ; nop",
  }));
  EXPECT_EQ(tpc::sim::tensorsStoredTo(*program, 5), (std::vector<bool>{false, true, false, true, false}));
}

}  // namespace
}  // namespace simtest
