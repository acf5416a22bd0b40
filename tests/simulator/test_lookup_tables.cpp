// Lookup-table helpers against the definition in docs/isa.md, computed here from the bits: the interval of
// a value is its sign, exponent and top `shift` mantissa bits; the table holds f and f' at the interval's
// start, rounded to f32. And what the tables are for: c0 + c1 * (x - start) approximates f closely.
#include <cmath>

#include "sim_test_util.h"
#include "tpc/isa/asm_text.h"

namespace {

using namespace simtest;
using tpc::DType;

uint32_t entryOf(uint32_t x, unsigned shift) {
  uint32_t e = (x >> 23) & 0xff, m = e ? (x & 0x7fffff) : 0;
  return ((x >> 31) << (8 + shift)) | (e << shift) | (m >> (23 - shift));
}

TEST(LookupTables, EntryStartValueAndSlope) {
  Rng rng(21);
  std::vector<float> x = rng.floats(64, 0.25f, 8.0f);
  x[0] = 1.0f, x[1] = 1.9999999f, x[2] = 0.5f, x[3] = 3.0f;
  auto r = runVector({vin(DType::F32, x)},
                     lines({"nop ; nop ; lut_entry.f32 v10, v0 shift=6 ; nop",
                            "nop ; nop ; lut_start.f32 v11, v0 shift=6 ; nop",
                            "nop ; nop ; nop ; nop", "nop ; nop ; nop ; nop", "nop ; nop ; nop ; nop",
                            "lookup.f32 v12, v10 shift=6 lut=recip ; nop ; nop ; nop",
                            "lookup_slope.f32 v13, v10 shift=6 lut=recip ; nop ; nop ; nop",
                            "lookup.f32 v14, v10 shift=6 lut=log2 ; nop ; nop ; nop",
                            "lookup_slope.f32 v15, v10 shift=6 lut=log2 ; nop ; nop ; nop"}));
  std::vector<uint32_t> entry(64), start(64);
  std::vector<float> recip(64), recipSlope(64), lg(64), lgSlope(64);
  for (int i = 0; i < 64; ++i) {
    uint32_t b = bitsOf(x[i]);
    entry[i] = entryOf(b, 6);
    start[i] = b & ~((1u << 17) - 1u);
    double s = floatOf(start[i]);
    recip[i] = static_cast<float>(1.0 / s);
    recipSlope[i] = static_cast<float>(-1.0 / (s * s));
    lg[i] = static_cast<float>(std::log2(s));
    lgSlope[i] = static_cast<float>(1.0 / (s * std::log(2.0)));
  }
  EXPECT_TRUE(lanesEqual(r->vreg<uint32_t>(10), entry));
  EXPECT_TRUE(lanesEqual(r->vreg<uint32_t>(11), start));
  EXPECT_TRUE(lanesEqual(r->vreg<float>(12), recip));
  EXPECT_TRUE(lanesEqual(r->vreg<float>(13), recipSlope));
  EXPECT_TRUE(lanesEqual(r->vreg<float>(14), lg));
  EXPECT_TRUE(lanesEqual(r->vreg<float>(15), lgSlope));
  // The tables' purpose: within an interval of relative width 2^-6, the linear term is close.
  auto c0 = r->vreg<float>(12), c1 = r->vreg<float>(13), st = r->vreg<float>(11);
  for (int i = 0; i < 64; ++i) {
    double approx = c0[i] + c1[i] * (static_cast<double>(x[i]) - st[i]);
    EXPECT_NEAR(approx * x[i], 1.0, 1.0 / 4096) << "lane " << i << " x " << x[i];
  }
}

TEST(LookupTables, DenormalsAndSignsAndRangeChecks) {
  std::vector<uint32_t> x(64, 0x3f800000u);
  x[0] = 0x00000123u;  // denormal: interval of zero
  x[1] = 0xbfc00000u;  // -1.5
  auto r = runVector({vin(DType::F32, x)}, lines({"nop ; nop ; lut_entry.f32 v10, v0 shift=4 ; nop",
                                                  "nop ; nop ; lut_start.f32 v11, v0 shift=4 ; nop"}));
  EXPECT_EQ(r->vreg<uint32_t>(10)[0], 0u);
  EXPECT_EQ(r->vreg<uint32_t>(11)[0], 0u);
  EXPECT_EQ(r->vreg<uint32_t>(10)[1], (1u << 12) | (127u << 4) | 8u);
  EXPECT_EQ(r->vreg<uint32_t>(11)[1], 0xbfc00000u);
  // Out-of-range switches are invalid encodings.
  tpc::isa::SlotInsn bad;
  std::string why;
  EXPECT_FALSE(tpc::isa::parseSlot(tpc::isa::Slot::Vpu, "lut_entry.f32 v1, v2 shift=17", &bad, &why));
  EXPECT_TRUE(contains(why, "shift"));
  EXPECT_FALSE(tpc::isa::parseSlot(tpc::isa::Slot::Load, "lookup.f32 v1, v2 lut=9", &bad, &why));
}

}  // namespace
