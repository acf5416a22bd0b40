// Accuracy of the built-in lookup tables (docs/special-functions.md, "Lookup tables"), each over its whole
// domain, evaluated the way the vendor's special functions evaluate them: the interval and its start from
// v_f32_get_lut_entry_and_interval_start_b, c0 from v_f32_lookup_1c, c1 and c2 from v_f32_lookup_2c, and
// c0 + (c1 + c2 v) v with two fused multiply-adds, in a kernel compiled by tpc-clang and run on tpc-sim.
//
// Inputs: every float of the domain at a stride that gives about two million of them, and the two floats
// on either side of every interval boundary. Reference: the function in long double, rounded once to f32.
// Error: units in the last place of the reference; for log2, whose values pass through zero at x = 1, the
// error is counted in units of 2^-24 (its ulp at 0.5) where |log2 x| < 0.5. Each test prints its measured
// maximum; the bounds are the table's in docs/special-functions.md.
#include "special_test.h"

namespace {

using namespace special;

// c0 + (c1 + c2 v) v of table FID at x, with the variant's interval for SHIFT; ENTRY_OFFSET selects a
// second function the table holds past its first (the sin_cos table's cos, the log2 table's log2).
const char* const kLookupPrelude = R"(
#define LUT_EVAL(x, SHIFT, VARIANT, FID, ENTRY_OFFSET) ({                                             \
    uint64_float64_pair_t es = v_f32_get_lut_entry_and_interval_start_b(x, SHIFT, (VARIANT) << 13); \
    uint64 entry = es.v1 + (ENTRY_OFFSET);                                                           \
    float64 v = x - es.v2;                                                                           \
    float64 c0 = v_f32_lookup_1c(entry, FID, SW_BV32, 0.0f);                                         \
    float64_pair_t c12 = v_f32_lookup_2c(entry, FID, SW_BV32, (float64_pair_t){0});                  \
    float64 r = v_f32_mac_b(c12.v2, v, c12.v1);                                                      \
    v_f32_mac_b(r, v, c0); })
float64 lut_rcp(float64 x) { return LUT_EVAL(x, 16, e_func_variant_default, e_fp32_rcp, 0); }
float64 lut_sqrt(float64 x) { return LUT_EVAL(x, 17, e_func_variant_sqrt_rsqrt, e_fp32_sqrt, 0); }
float64 lut_rsqrt(float64 x) { return LUT_EVAL(x, 16, e_func_variant_sqrt_rsqrt, e_fp32_rsqrt, 0); }
float64 lut_pow2(float64 x) { return LUT_EVAL(x, 17, e_func_variant_default, e_fp32_pow2, 0); }
float64 lut_log2_ratio(float64 x) { return LUT_EVAL(x, 16, e_func_variant_default, e_fp32_log2, 0); }
float64 lut_log2(float64 x) { return LUT_EVAL(x, 16, e_func_variant_default, e_fp32_log2, 128); }
float64 lut_sin_over_x(float64 x) { return LUT_EVAL(x, 17, e_func_variant_sin_cos, e_fp32_sin_cos, 0); }
float64 lut_cos(float64 x) { return LUT_EVAL(x, 17, e_func_variant_sin_cos, e_fp32_sin_cos, 64); }
float64 lut_tanh(float64 x) { return LUT_EVAL(x, 17, e_func_variant_tanh, e_fp32_tanh, 0); }
)";

struct TableFunction {
  const char* call;
  const char* what;
  long double (*ref)(long double);
  double lo, hi;  // [lo, hi)
  int keptBits;   // interval boundaries: every 2^-keptBits of a binade
  int64_t bound;  // max ulp
  bool absoluteNearZero = false;
};

long double rcpRef(long double x) { return 1.0L / x; }
long double sqrtRef(long double x) { return std::sqrt(x); }
long double rsqrtRef(long double x) { return 1.0L / std::sqrt(x); }
long double pow2Ref(long double x) { return std::exp2(x - 1.0L); }
long double log2RatioRef(long double x) { return x == 1 ? 1.0L / std::log(2.0L) : std::log1p(x - 1.0L) / ((x - 1.0L) * std::log(2.0L)); }
long double log2Ref(long double x) { return std::log2(x); }
long double sinOverXRef(long double x) { return x == 0 ? 1.0L : std::sin(x) / x; }
long double cosRef(long double x) { return std::cos(x); }
long double tanhTableRef(long double x) { return x < 1 ? (x == 0 ? 1.0L : std::tanh(x) / x) : std::tanh(x); }

// The floats of [lo, hi) at a stride that gives about `count`, and the floats next to each interval
// boundary (every 2^(e - keptBits) in binade 2^e; fixed-point domains below 1 use the top binade's step).
Inputs domainInputs(const TableFunction& f, size_t count) {
  Inputs in;
  const uint32_t first = bitsOf(static_cast<float>(f.lo)), last = bitsOf(static_cast<float>(f.hi));
  const uint32_t stride = std::max<uint32_t>(1, (last - first) / static_cast<uint32_t>(count));
  for (uint32_t b = first; b < last; b += stride) in.push_back(b);
  for (double e = std::floor(std::log2(std::max(f.lo, 1e-30))); std::ldexp(1.0, static_cast<int>(e)) < f.hi; ++e) {
    const double step = std::ldexp(1.0, static_cast<int>(e) - f.keptBits);
    for (double x = std::ldexp(1.0, static_cast<int>(e)); x < std::ldexp(1.0, static_cast<int>(e) + 1) && x < f.hi; x += step)
      for (int d = -2; d <= 1; ++d) {
        uint32_t b = bitsOf(static_cast<float>(x)) + static_cast<uint32_t>(d);
        if (floatOf(b) >= f.lo && floatOf(b) < f.hi) in.push_back(b);
      }
  }
  return in;
}

void checkTable(SpecialFunctionTest& t, const TableFunction& f) {
  Inputs in = domainInputs(f, 2000000);
  std::vector<uint32_t> out = t.apply(f.call, in, nullptr, false);
  ASSERT_EQ(out.size(), in.size());
  Worst w;
  for (size_t i = 0; i < in.size(); ++i) {
    const long double ref = f.ref(floatOf(in[i]));
    const uint32_t want = toF32(ref);
    int64_t d = ulpDistance(out[i], want);
    if (f.absoluteNearZero && std::fabs(ref) < 0.5L && d != kNoMatch) {
      const long double err = std::fabs(static_cast<long double>(floatOf(out[i])) - ref);
      d = static_cast<int64_t>(std::ceil(err * 16777216.0L - 0.5L));  // units of 2^-24, the ulp at 0.5
    }
    ++w.count;
    if (d > w.ulp) w = Worst{d, in[i], 0, out[i], want, w.count};
  }
  EXPECT_LE(w.ulp, f.bound) << f.call << " at " << w.where();
  std::ostringstream range;
  range << f.what << " on [" << f.lo << ", " << f.hi << ")";
  report(f.call, range.str(), w, f.bound);
}

class LookupTableTest : public SpecialFunctionTest {
 public:
  void SetUp() override {
    SpecialFunctionTest::SetUp();
    prelude = kLookupPrelude;
  }
};

TEST_F(LookupTableTest, Reciprocal) { checkTable(*this, {"lut_rcp", "1/x", rcpRef, 1.0, 2.0, 7, 1}); }
TEST_F(LookupTableTest, SquareRoot) { checkTable(*this, {"lut_sqrt", "sqrt(x)", sqrtRef, 1.0, 4.0, 6, 1}); }
TEST_F(LookupTableTest, ReciprocalSquareRoot) { checkTable(*this, {"lut_rsqrt", "1/sqrt(x)", rsqrtRef, 1.0, 4.0, 7, 1}); }
TEST_F(LookupTableTest, Power2) { checkTable(*this, {"lut_pow2", "2^(x-1)", pow2Ref, 1.0, 2.0, 6, 1}); }
TEST_F(LookupTableTest, Log2Ratio) { checkTable(*this, {"lut_log2_ratio", "log2(x)/(x-1)", log2RatioRef, 1.0, 2.0, 7, 1}); }
TEST_F(LookupTableTest, Log2) { checkTable(*this, {"lut_log2", "log2(x)", log2Ref, 1.0, 2.0, 7, 1, true}); }
TEST_F(LookupTableTest, SineOverX) { checkTable(*this, {"lut_sin_over_x", "sin(x)/x", sinOverXRef, 0.0, 1.0, 6, 1}); }
TEST_F(LookupTableTest, Cosine) { checkTable(*this, {"lut_cos", "cos(x)", cosRef, 0.0, 1.0, 6, 1}); }
TEST_F(LookupTableTest, Tanh) {
  checkTable(*this, {"lut_tanh", "tanh(x)/x below 1, tanh(x) above", tanhTableRef, 0.0, 16.0, 6, 2});
}

}  // namespace
