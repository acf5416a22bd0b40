// Lookup tables in the vendor's convention (docs/isa.md, "Lookup tables"): the interval numbers and starts
// of lut_entry/lut_start for each variant, worked out by hand from the definition; that the built-in tables'
// polynomials c0 + c1 v + c2 v^2 follow their functions; user tables read from global memory at the LUT
// pointer in the vendor's layout; and the encodings that are rejected.
#include <cmath>

#include "sim_test_util.h"
#include "tpc/isa/asm_text.h"

namespace {

using namespace simtest;
using tpc::DType;

struct IntervalCase {
  const char* variant;
  int shift;
  float x;
  uint32_t entry;
  float start;
};

TEST(LookupTables, IntervalsOfEachVariant) {
  const IntervalCase cases[] = {
      // default: the top 23 - shift mantissa bits; the start clears the rest (sign and exponent kept).
      {"default", 17, 1.5f, 32, 1.5f},
      {"default", 16, 1.7f, 89, 1.6953125f},  // 0.7 * 128 = 89.6
      {"default", 17, -2.25f, 8, -2.25f},     // mantissa 0.125: 8 of 64
      // sqrt_rsqrt: the exponent's lowest bit above them.
      {"sqrt_rsqrt", 17, 3.0f, 64 + 32, 3.0f},
      {"sqrt_rsqrt", 17, 1.25f, 16, 1.25f},
      {"sqrt_rsqrt", 17, 0.375f, 32, 0.375f},       // 1.5 * 2^-2: exponent -2 is even
      {"sqrt_rsqrt", 17, 0.75f, 64 + 32, 0.75f},    // 1.5 * 2^-1: odd
      // sin_cos: |x| in 64ths.
      {"sin_cos", 17, 0.7f, 44, 0.6875f},
      {"sin_cos", 17, -0.5f, 32, 0.5f},
      {"sin_cos", 17, 0.0f, 0, 0.0f},
      // tanh: below 2^-7 in 2^-13ths, then binades -7 .. 3 as bands 1 .. 11, then |x| >= 16.
      {"tanh", 17, 0.003f, 24, 24.0f / 8192},
      {"tanh", 17, 0.3f, 6 * 64 + 12, 0.296875f},   // 1.2 * 2^-2: band -2 + 8 = 6, 0.2 * 64 = 12.8
      {"tanh", 17, -5.0f, 10 * 64 + 16, 5.0f},      // 1.25 * 2^2
      {"tanh", 17, 20.0f, 12 * 64, 20.0f},
      {"tanh", 17, 0.0078125f, 64, 0.0078125f},     // 2^-7 opens band 1
  };
  for (const IntervalCase& c : cases) {
    SCOPED_TRACE(std::string(c.variant) + " x=" + std::to_string(c.x) + " shift=" + std::to_string(c.shift));
    std::vector<float> x(64, c.x);
    std::string sw = " shift=" + std::to_string(c.shift) + " variant=" + c.variant;
    auto r = runVector({vin(DType::F32, x)}, lines({"nop ; nop ; lut_entry.f32 v10, v0" + sw + " ; nop",
                                                    "nop ; nop ; lut_start.f32 v11, v0" + sw + " ; nop"}));
    EXPECT_EQ(r->vreg<uint32_t>(10)[5], c.entry);
    EXPECT_EQ(r->vreg<float>(11)[5], c.start);
  }
}

// What each built-in table approximates over which inputs (x normalized as the kernels normalize it).
struct TableCase {
  const char* fid;
  const char* variant;
  int shift;
  float lo, hi;
  double (*f)(double x, uint32_t entry);
};

double rcp(double x, uint32_t) { return 1 / x; }
double sqrtOf(double x, uint32_t) { return std::sqrt(x); }
double rsqrtOf(double x, uint32_t) { return 1 / std::sqrt(x); }
double pow2(double x, uint32_t) { return std::exp2(x - 1); }
double log2Part(double x, uint32_t entry) {
  if (entry >= 128) return std::log2(x);
  return x == 1 ? 1 / std::log(2.0) : std::log1p(x - 1) / std::log(2.0) / (x - 1);  // log2(x) / (x - 1)
}
double sinCos(double x, uint32_t entry) { return entry >= 64 ? std::cos(x) : std::sin(x) / x; }
double tanhPart(double x, uint32_t) { return x < 1 ? std::tanh(x) / x : std::tanh(x); }

TEST(LookupTables, BuiltInTablesFollowTheirFunctions) {
  const TableCase cases[] = {
      {"129", "default", 16, 1.0f, 2.0f, rcp},          {"128", "sqrt_rsqrt", 17, 1.0f, 4.0f, sqrtOf},
      {"1", "sqrt_rsqrt", 16, 1.0f, 4.0f, rsqrtOf},      {"256", "default", 17, 1.0f, 2.0f, pow2},
      {"2", "default", 16, 1.0f, 2.0f, log2Part},        {"130", "sin_cos", 17, 0.001f, 0.79f, sinCos},
      {"0", "tanh", 17, 0.0001f, 8.0f, tanhPart},
  };
  for (const TableCase& c : cases) {
    SCOPED_TRACE(std::string("fid ") + c.fid);
    Rng rng(7);
    std::vector<float> x = rng.floats(64, c.lo, c.hi);
    x[0] = c.lo;
    std::string sw = " shift=" + std::to_string(c.shift) + " variant=" + c.variant;
    std::string table = std::string(" fid=") + c.fid;
    auto r = runVector({vin(DType::F32, x)},
                       lines({"nop ; nop ; lut_entry.f32 v10, v0" + sw + " ; nop",
                              "nop ; nop ; lut_start.f32 v11, v0" + sw + " ; nop",
                              "lookup.f32 v12, v10" + table + " coef=c0 ; nop ; nop ; nop",
                              "lookup.f32 v13, v10" + table + " coef=c1 ; nop ; nop ; nop",
                              "lookup.f32 v14, v10" + table + " coef=c2 ; nop ; nop ; nop",
                              "lookup.f32 v15, v10" + table + " ; nop ; nop ; nop"}));
    auto entry = r->vreg<uint32_t>(10);
    auto start = r->vreg<float>(11), c0 = r->vreg<float>(12), c1 = r->vreg<float>(13), c2 = r->vreg<float>(14);
    EXPECT_TRUE(lanesEqual(r->vreg<float>(15), c0)) << "a built-in table's value is its c0";
    for (int i = 0; i < 64; ++i) {
      // The sin_cos table's second half (cos) is entry + 64, as the kernels look it up.
      for (uint32_t half : {0u, std::string(c.fid) == "130" ? 64u : 0u}) {
        if (half && i % 2) continue;
        double v = static_cast<double>(x[i]) - start[i];
        double want = c.f(x[i], entry[i] + half);
        double got = c0[i] + (c1[i] + c2[i] * v) * v;
        if (half) {
          auto rr = runVector({vin(DType::F32, std::vector<uint32_t>(64, entry[i] + half))},
                              lines({"lookup.f32 v12, v0" + table + " coef=c0 ; nop ; nop ; nop",
                                     "lookup.f32 v13, v0" + table + " coef=c1 ; nop ; nop ; nop",
                                     "lookup.f32 v14, v0" + table + " coef=c2 ; nop ; nop ; nop"}));
          got = rr->vreg<float>(12)[0] + (rr->vreg<float>(13)[0] + rr->vreg<float>(14)[0] * v) * v;
        }
        EXPECT_NEAR(got, want, std::fabs(want) * 1e-6) << "lane " << i << " x " << x[i] << " entry " << entry[i] + half;
      }
    }
  }
}

TEST(LookupTables, UserTablesAtTheLutPointer) {
  // Table 0: one value per entry; table 1 (at 256 bytes): c0 c1 c2 of ten entries per 128 bytes.
  std::vector<float> lut(64 + 128, -1.0f);
  for (int e = 0; e < 32; ++e) {
    lut[static_cast<size_t>(e)] = 100.0f + static_cast<float>(e);
    for (int k = 0; k < 3; ++k) lut[static_cast<size_t>(64 + (e / 10) * 32 + (e % 10) * 3 + k)] = static_cast<float>(e) + 0.25f * static_cast<float>(k + 1);
  }
  std::vector<uint32_t> entries(64);
  for (int i = 0; i < 64; ++i) entries[static_cast<size_t>(i)] = static_cast<uint32_t>((i * 7) % 32);
  SimRun r(lines({"ld_tnsr.u32 v0, i2 tnsr=0 ; nop ; nop ; nop", "gen_addr ad1, i2 tnsr=1 ; nop ; nop ; nop",
                  "set_lut ad1 ; nop ; nop ; nop", "lookup.f32 v10, v0 fid=3 ptr ; nop ; nop ; nop",
                  "lookup.f32 v11, v0 fid=7 coef=c0 ptr ; nop ; nop ; nop",
                  "lookup.f32 v12, v0 fid=7 coef=c1 ptr ; nop ; nop ; nop",
                  "lookup.f32 v13, v0 fid=7 coef=c2 ptr ; nop ; nop ; nop", "nop ; halt ; nop ; nop"}));
  r.addTensor(DType::U32, sizes5({64}), entries);
  r.addTensor(DType::F32, sizes5({static_cast<int64_t>(lut.size())}), lut);
  r.run();
  EXPECT_NO_FAULT(r);
  for (int i = 0; i < 64; ++i) {
    const float e = static_cast<float>(entries[static_cast<size_t>(i)]);
    EXPECT_EQ(r.vreg<float>(10)[i], 100.0f + e);
    EXPECT_EQ(r.vreg<float>(11)[i], e + 0.25f);
    EXPECT_EQ(r.vreg<float>(12)[i], e + 0.5f);
    EXPECT_EQ(r.vreg<float>(13)[i], e + 0.75f);
  }
}

TEST(LookupTables, UserTableReadsPastTheTensorFault) {
  SimRun r(lines({"gen_addr ad1, i2 tnsr=0 ; nop ; mov.i32 v0, 200 ; nop", "set_lut ad1 ; nop ; nop ; nop",
                  "lookup.f32 v10, v0 fid=3 ptr ; nop ; nop ; nop", "nop ; halt ; nop ; nop"}));
  r.addTensor(DType::F32, sizes5({64}), std::vector<float>(64, 1.0f));
  r.run();
  ASSERT_TRUE(r.result.fault.has_value());
}

TEST(LookupTables, RejectedEncodings) {
  tpc::isa::SlotInsn bad;
  std::string why;
  EXPECT_FALSE(tpc::isa::parseSlot(tpc::isa::Slot::Vpu, "lut_entry.f32 v1, v2 shift=24", &bad, &why));
  EXPECT_TRUE(contains(why, "shift")) << why;
  EXPECT_FALSE(tpc::isa::parseSlot(tpc::isa::Slot::Load, "lookup.f32 v1, v2 fid=5", &bad, &why));
  EXPECT_TRUE(contains(why, "not a built-in table")) << why;
  EXPECT_FALSE(tpc::isa::parseSlot(tpc::isa::Slot::Load, "lookup.f32 v1, v2 fid=4 ptr", &bad, &why));
  EXPECT_TRUE(contains(why, "user table")) << why;
  EXPECT_TRUE(tpc::isa::parseSlot(tpc::isa::Slot::Load, "lookup.f32 v1, v2 fid=130 coef=c2", &bad, &why)) << why;
}

}  // namespace
