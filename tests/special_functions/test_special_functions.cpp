// Accuracy of the special-function library (intrinsics/include/tpc-special.h), measured the way a user runs
// a kernel: each function is applied to an input tensor by a TPC-C kernel compiled with `tpc-clang -O2` and
// run on `tpc-sim --strict-hazards`.
//
// Reference: the host's long double function, rounded once to f32 (bf16 for the bf16 forms), with the
// core's flush-to-zero applied to the inputs and to the rounded reference (denormals become signed zeros)
// and NaN made canonical. Error: the distance in units in the last place between the result and that
// rounded reference (the number of floats between them; 0 = correctly rounded). Special inputs (zeros,
// denormals, infinities, NaNs and each function's Annex F cases) and every NaN reference must match bit for
// bit. The fast sin/cos are measured in absolute error instead (their remainder is accurate to about
// |x| 2^-50 in absolute terms, so relative error is meaningless next to the zeros of the result).
//
// Every bound below is the "documented bound" of docs/special-functions.md; keep the two in step. Each test
// prints its measured maximum ("measured: ...") for that table.
#include "special_test.h"

namespace {

using namespace special;

// ------------------------------------------------------------------------------------------ f32 unary

struct Unary {
  const char* fn;
  Ref1 ref;
  int64_t bound;            // max ulp over the domain
  double lo = -INFINITY, hi = INFINITY;  // the domain (inclusive); outside it only special inputs are checked
  Inputs extra = {};        // function-specific inputs (checked exactly when special)
};

// Checks `u` on a dense sweep over [sweepLo, sweepHi], u.extra and `more`, plus either random bit patterns of
// every kind and the special values (allFloats: specials must then match exactly) or random values inside
// the domain (the fast forms, which leave special values out).
void checkUnary(SpecialFunctionTest& t, const Unary& u, double sweepLo, double sweepHi, const Inputs& more,
                bool allFloats) {
  std::mt19937 rng(12345);
  Inputs in;
  addSweep(in, sweepLo, sweepHi, 40000);
  if (allFloats) {
    addRandomBits(in, rng, 30000);
    in.insert(in.end(), kSpecials.begin(), kSpecials.end());
  } else {
    addRandomIn(in, rng, u.lo, u.hi, 30000);
  }
  in.insert(in.end(), u.extra.begin(), u.extra.end());
  in.insert(in.end(), more.begin(), more.end());
  std::vector<uint32_t> out = t.apply(u.fn, in, nullptr, false);
  ASSERT_EQ(out.size(), in.size());
  Worst w;
  int exactFailures = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const long double x = inputValue(in[i]);
    const uint32_t want = toF32(u.ref(x));
    const bool special = allFloats && (isSpecialInput(in[i]) || want == kNan);
    if (special && out[i] != want && ++exactFailures <= 10)
      ADD_FAILURE() << u.fn << "(" << describe(in[i]) << ") = " << describe(out[i]) << ", want exactly "
                    << describe(want);
    if (x < u.lo || x > u.hi || std::isnan(x)) continue;
    int64_t d = ulpDistance(out[i], want);
    ++w.count;
    if (d > w.ulp) w = Worst{d, in[i], 0, out[i], want, w.count};
  }
  EXPECT_LE(w.ulp, u.bound) << u.fn << " at " << w.where();
  std::ostringstream range;
  if (std::isinf(u.lo) && std::isinf(u.hi)) range << "all floats";
  else range << "[" << u.lo << ", " << u.hi << "]";
  report(u.fn, range.str(), w, u.bound);
}

long double refExp(long double x) { return std::exp(x); }
long double refPow2(long double x) { return std::exp2(x); }
long double refLog(long double x) { return std::log(x); }
long double refLog2(long double x) { return std::log2(x); }
long double refSin(long double x) { return std::sin(x); }
long double refCos(long double x) { return std::cos(x); }
long double refTanh(long double x) { return std::tanh(x); }
long double refSigmoid(long double x) { return 1.0L / (1.0L + std::exp(-x)); }
long double refRecip(long double x) { return 1.0L / x; }
long double refSqrt(long double x) { return std::sqrt(x); }
long double refRsqrt(long double x) { return 1.0L / std::sqrt(x); }
long double refDiv(long double x, long double y) { return x / y; }
long double refPow(long double x, long double y) { return std::pow(x, y); }

Inputs floats(std::initializer_list<float> v) {
  Inputs r;
  for (float f : v) r.push_back(bitsOf(f));
  return r;
}

const double kFltMin = 1.17549435e-38, kFltMax = 3.40282347e+38;
const double kTrigDomain = 131072.0;  // 2^17

// ------------------------------------------------------------------------------- accurate f32 forms

TEST_F(SpecialFunctionTest, Exp) {
  Unary u{"v_exp_f32", refExp, 1};
  u.extra = floats({88.7228317f, 88.7228394f, 88.8f, 100.0f, 1000.0f, -87.3365402f, -87.3365479f, -103.9f, -104.0f,
                    -150.0f, -1000.0f, 1.0f, -1.0f, 0.5f});
  checkUnary(*this, u, -104.0, 89.0, {}, true);
}

TEST_F(SpecialFunctionTest, ExpOtherNames) {
  for (const char* fn : {"exp_f32", "v_exp_cephes_f32"}) {
    Unary u{fn, refExp, 1};
    checkUnary(*this, u, -104.0, 89.0, {}, true);
  }
}

TEST_F(SpecialFunctionTest, Pow2) {
  Unary u{"v_pow2_f32", refPow2, 1};
  u.extra = floats({127.999992f, 128.0f, -126.0f, -126.000008f, -149.0f, -150.0f, 1000.0f, -1000.0f, 3.0f, -3.0f});
  checkUnary(*this, u, -152.0, 129.0, {}, true);
}

TEST_F(SpecialFunctionTest, Log) {
  for (const char* fn : {"v_log_f32", "log_f32"}) {
    Unary u{fn, refLog, 1};
    u.extra = floats({1.0f, -1.0f, 2.0f, 0.999999940f, 1.00000012f, 0.707106769f, 1.41421354f, 1.17549435e-38f,
                      3.40282347e+38f, -3.40282347e+38f});
    Inputs more;
    addSweep(more, 0.9, 1.1, 20000);
    checkUnary(*this, u, 0.0, 4.0, more, true);
  }
}

TEST_F(SpecialFunctionTest, Log2) {
  Unary u{"v_log2_f32", refLog2, 1};
  u.extra = floats({1.0f, -1.0f, 2.0f, 8.0f, 0.5f, 0.999999940f, 1.00000012f, 1.17549435e-38f, 3.40282347e+38f});
  Inputs more;
  addSweep(more, 0.9, 1.1, 20000);
  checkUnary(*this, u, 0.0, 4.0, more, true);
}

// sin and cos: the bound holds for |x| < 2^17; beyond, results are finite values in [-1, 1].
void checkTrigOutside(SpecialFunctionTest& t, const char* fn) {
  std::mt19937 rng(777);
  Inputs in;
  addRandomIn(in, rng, kTrigDomain, kFltMax, 20000);
  addRandomIn(in, rng, -kFltMax, -kFltMax / 2, 2000);
  in.push_back(bitsOf(3.40282347e+38f));
  in.push_back(bitsOf(-3.40282347e+38f));
  std::vector<uint32_t> out = t.apply(fn, in, nullptr, false);
  ASSERT_EQ(out.size(), in.size());
  int failures = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    float r = floatOf(out[i]);
    if (!(std::fabs(r) <= 1.0f) && ++failures <= 10)
      ADD_FAILURE() << fn << "(" << describe(in[i]) << ") = " << describe(out[i]) << " is not in [-1, 1]";
  }
}

TEST_F(SpecialFunctionTest, Sin) {
  Unary u{"v_sin_f32", refSin, 2, -kTrigDomain, kTrigDomain};
  u.extra = floats({252.898209f, 505.796417f, 1011.59283f, 2023.18567f, 52516.4336f, 105032.867f, 62154.8242f,
                    3.14159274f, 1.57079637f, 1e-30f, -1e-30f});
  std::mt19937 rng(99);
  Inputs more;
  addRandomIn(more, rng, -kTrigDomain, kTrigDomain, 30000);
  addNearPiOver2(more, rng, 83000, 6000);
  checkUnary(*this, u, -10.0, 10.0, more, true);
  checkTrigOutside(*this, "v_sin_f32");
}

TEST_F(SpecialFunctionTest, Cos) {
  Unary u{"v_cos_f32", refCos, 2, -kTrigDomain, kTrigDomain};
  u.extra = floats({252.898209f, 505.796417f, 1011.59283f, 2023.18567f, 52516.4336f, 105032.867f, 62154.8242f,
                    3.14159274f, 1.57079637f, 1e-30f, -1e-30f});
  std::mt19937 rng(98);
  Inputs more;
  addRandomIn(more, rng, -kTrigDomain, kTrigDomain, 30000);
  addNearPiOver2(more, rng, 83000, 6000);
  checkUnary(*this, u, -10.0, 10.0, more, true);
  checkTrigOutside(*this, "v_cos_f32");
}

TEST_F(SpecialFunctionTest, Tanh) {
  Unary u{"v_tanh_f32", refTanh, 1};
  u.extra = floats({0.75f, 0.749999940f, 9.0f, 9.1f, 100.0f, -100.0f, 1e-20f, -1e-20f});
  checkUnary(*this, u, -10.0, 10.0, {}, true);
}

TEST_F(SpecialFunctionTest, Sigmoid) {
  Unary u{"v_sigmoid_f32", refSigmoid, 2};
  u.extra = floats({-87.3f, -88.0f, -103.0f, -200.0f, 17.0f, 17.5f, 100.0f, 1e-20f, -1e-20f});
  checkUnary(*this, u, -90.0, 30.0, {}, true);
}

TEST_F(SpecialFunctionTest, Reciprocal) {
  Unary u{"v_reciprocal_f32", refRecip, 1};
  u.extra = floats({8.50705917e+37f, 8.50706e+37f, 1.70141173e+38f, 3.40282347e+38f, -3.40282347e+38f, 1.17549435e-38f,
                    -1.17549435e-38f, 3.0f, -3.0f});
  checkUnary(*this, u, -10.0, 10.0, {}, true);
}

TEST_F(SpecialFunctionTest, Sqrt) {
  Unary u{"v_sqrt_f32", refSqrt, 1};
  u.extra = floats({4.0f, 2.0f, -1.0f, -3.40282347e+38f, 3.40282347e+38f, 1.17549435e-38f});
  checkUnary(*this, u, 0.0, 100.0, {}, true);
}

TEST_F(SpecialFunctionTest, Rsqrt) {
  Unary u{"v_rsqrt_f32", refRsqrt, 1};
  u.extra = floats({4.0f, 0.25f, -1.0f, 3.40282347e+38f, 1.17549435e-38f});
  checkUnary(*this, u, 0.0, 100.0, {}, true);
}

// ------------------------------------------------------------------------------------------ binary

// Checks a binary function on random pairs `xs`, `ys` plus the grid of `grid` x `grid` (all checked exactly
// when an operand is special or the reference is NaN). Pairs where `inDomain` is false are only checked
// exactly (special) or not at all.
template <class Pred>
void checkBinary(SpecialFunctionTest& t, const char* fn, Ref2 ref, int64_t bound, Inputs xs, Inputs ys,
                 const Inputs& grid, const std::string& range, Pred inDomain, bool exactSpecials) {
  for (uint32_t a : grid)
    for (uint32_t b : grid) {
      xs.push_back(a);
      ys.push_back(b);
    }
  std::vector<uint32_t> out = t.apply(fn, xs, &ys, false);
  ASSERT_EQ(out.size(), xs.size());
  Worst w;
  w.binary = true;
  int exactFailures = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const long double x = inputValue(xs[i]), y = inputValue(ys[i]);
    const uint32_t want = toF32(ref(x, y));
    const bool special = exactSpecials && (isSpecialInput(xs[i]) || isSpecialInput(ys[i]) || want == kNan);
    if (special && out[i] != want && ++exactFailures <= 10)
      ADD_FAILURE() << fn << "(" << describe(xs[i]) << ", " << describe(ys[i]) << ") = " << describe(out[i])
                    << ", want exactly " << describe(want);
    if (!inDomain(x, y)) continue;
    int64_t d = ulpDistance(out[i], want);
    ++w.count;
    if (d > w.ulp) {
      w.ulp = d;
      w.x = xs[i];
      w.y = ys[i];
      w.got = out[i];
      w.want = want;
    }
  }
  EXPECT_LE(w.ulp, bound) << fn << " at " << w.where();
  report(fn, range, w, bound);
}

const Inputs kBinaryGrid = [] {
  Inputs g = kSpecials;
  for (float f : {1.0f, -1.0f, 2.0f, -2.0f, 0.5f, -0.5f, 3.0f, -3.0f, 1.5f, -1.5f, 0.999999940f, 1.00000012f,
                  8388609.0f, -8388609.0f, 16777216.0f, 3.40282347e+38f, -3.40282347e+38f, 1.17549435e-38f})
    g.push_back(bitsOf(f));
  return g;
}();

TEST_F(SpecialFunctionTest, Div) {
  std::mt19937 rng(4242);
  Inputs xs, ys;
  addRandomBits(xs, rng, 40000);
  addRandomBits(ys, rng, 40000);
  std::uniform_real_distribution<double> uni(-100.0, 100.0);
  for (int i = 0; i < 30000; ++i) {
    xs.push_back(bitsOf(static_cast<float>(uni(rng))));
    ys.push_back(bitsOf(static_cast<float>(uni(rng))));
  }
  checkBinary(*this, "v_div_f32", refDiv, 1, xs, ys, kBinaryGrid, "all floats",
              [](long double, long double) { return true; }, true);
}

TEST_F(SpecialFunctionTest, Pow) {
  std::mt19937 rng(4343);
  Inputs xs, ys;
  std::uniform_real_distribution<double> ux(0.0, 10.0), ux1(0.5, 2.0), uy(-40.0, 40.0), uy1(-3.0, 3.0),
      uz(-150.0, 128.0), ub(1.0001, 100.0);
  for (int i = 0; i < 30000; ++i) {
    double x = i % 3 ? ux(rng) : ux1(rng), y = i % 2 ? uy(rng) : uy1(rng);
    if (i % 7 == 0) {
      x = -x;
      y = std::trunc(y);
    }
    xs.push_back(bitsOf(static_cast<float>(x)));
    ys.push_back(bitsOf(static_cast<float>(y)));
  }
  for (int i = 0; i < 20000; ++i) {  // results near the overflow and underflow thresholds
    double x = ub(rng), y = uz(rng) / std::log2(x);
    xs.push_back(bitsOf(static_cast<float>(i % 2 ? x : 1.0 / x)));
    ys.push_back(bitsOf(static_cast<float>(i % 2 ? y : -y)));
  }
  addRandomBits(xs, rng, 20000);
  for (int i = 0; i < 20000; ++i) ys.push_back(bitsOf(static_cast<float>(uy1(rng))));
  addRandomBits(xs, rng, 20000);
  addRandomBits(ys, rng, 20000);
  Inputs grid = kBinaryGrid;
  for (float f : {0.25f, 4.0f, 10.0f, -10.0f, 0.1f, 4194305.0f, 4194304.5f, 1e10f, -1e10f, 128.0f, -149.0f})
    grid.push_back(bitsOf(f));
  checkBinary(*this, "v_pow_f32", refPow, 2, xs, ys, grid, "all floats",
              [](long double, long double) { return true; }, true);
}

// ------------------------------------------------------------------------------------------ fast forms

TEST_F(SpecialFunctionTest, FastExpLog) {
  const Unary cases[] = {
      {"v_exp_fast_f32", refExp, 1, -86.9, 88.3},
      {"v_exp_cephes_fast_f32", refExp, 1, -86.9, 88.3},
      {"v_pow2_fast_f32", refPow2, 1, -125.5, 127.4},
      {"v_log_fast_f32", refLog, 1, kFltMin, kFltMax},
      {"v_log2_fast_f32", refLog2, 1, kFltMin, kFltMax},
  };
  for (const Unary& u : cases) {
    double sweepLo = std::max(u.lo, -100.0), sweepHi = std::min(u.hi, 100.0);
    checkUnary(*this, u, sweepLo, sweepHi, {}, false);
  }
}

TEST_F(SpecialFunctionTest, FastRecipSqrt) {
  const Unary cases[] = {
      {"v_reciprocal_fast_f32", refRecip, 1, kFltMin, 8.5e37},
      {"v_reciprocal_fast_f32", refRecip, 1, -8.5e37, -kFltMin},
      {"v_sqrt_fast_f32", refSqrt, 1, kFltMin, kFltMax},
      {"v_rsqrt_fast_f32", refRsqrt, 1, kFltMin, kFltMax},
  };
  for (const Unary& u : cases) {
    double sweepLo = std::max(u.lo, -100.0), sweepHi = std::min(u.hi, 100.0);
    checkUnary(*this, u, sweepLo, sweepHi, {}, false);
  }
}

TEST_F(SpecialFunctionTest, FastTanh) {
  for (const char* fn : {"v_tanh_fast_f32", "tanh_abs_in"}) {
    Unary u{fn, refTanh, 1, -kFltMax, kFltMax};
    if (std::string(fn) == "tanh_abs_in") {
      // v_tanh_fast_abs_in_f32 takes |x| as a second argument.
      std::mt19937 rng(5);
      Inputs in;
      addSweep(in, -10.0, 10.0, 40000);
      addRandomIn(in, rng, -kFltMax, kFltMax, 30000);
      Inputs abs = in;
      for (uint32_t& b : abs) b &= 0x7fffffffu;
      Inputs grid;
      checkBinary(*this, "v_tanh_fast_abs_in_f32", [](long double x, long double) { return std::tanh(x); }, 1, in, abs,
                  grid, "finite floats", [](long double, long double) { return true; }, false);
      continue;
    }
    checkUnary(*this, u, -10.0, 10.0, {}, false);
  }
}

TEST_F(SpecialFunctionTest, FastDiv) {
  std::mt19937 rng(77);
  Inputs xs, ys;
  addRandomIn(xs, rng, -1e18, 1e18, 60000);
  addRandomIn(ys, rng, -1e18, 1e18, 60000);
  auto normal = [](long double x, long double y) {
    long double q = std::fabs(x / y);
    return x != 0 && y != 0 && q >= kFltMin && q <= kFltMax;
  };
  checkBinary(*this, "v_div_fast_f32", refDiv, 2, xs, ys, {}, "normal x, y, x/y; |y| < 1e18", normal, false);
}

TEST_F(SpecialFunctionTest, FastPow) {
  // Plain-float y log2(x): the error grows with |y log2 x|; bounded here for |y log2 x| <= 126.
  std::mt19937 rng(78);
  Inputs xs, ys;
  std::uniform_real_distribution<double> ux(0.01, 100.0), uz(-126.0, 126.0);
  for (int i = 0; i < 60000; ++i) {
    double x = ux(rng), y = uz(rng) / std::log2(x);
    if (std::fabs(std::log2(x)) < 1e-3) y = 1.0;
    xs.push_back(bitsOf(static_cast<float>(x)));
    ys.push_back(bitsOf(static_cast<float>(y)));
  }
  auto inRange = [](long double x, long double y) { return std::fabs(y * std::log2(x)) <= 126; };
  checkBinary(*this, "v_pow_fast_f32", refPow, 160, xs, ys, {}, "x in [0.01, 100], |y log2 x| <= 126", inRange, false);
}

// The fast sin/cos in absolute error: at most 2^-23 for |x| < 2^17.
TEST_F(SpecialFunctionTest, FastSinCos) {
  const std::pair<const char*, Ref1> fns[] = {{"v_sin_fast_f32", refSin}, {"v_cos_fast_f32", refCos}};
  for (const auto& [fn, ref] : fns) {
    std::mt19937 rng(31);
    Inputs in;
    addSweep(in, -10.0, 10.0, 40000);
    addRandomIn(in, rng, -kTrigDomain, kTrigDomain, 30000);
    addNearPiOver2(in, rng, 83000, 4000);
    std::vector<uint32_t> out = apply(fn, in, nullptr, false);
    ASSERT_EQ(out.size(), in.size());
    double worst = 0;
    uint32_t where = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      long double x = inputValue(in[i]);
      if (std::fabs(x) >= kTrigDomain) continue;
      double e = static_cast<double>(std::fabs(static_cast<long double>(floatOf(out[i])) - ref(x)));
      if (!(e <= worst)) {
        worst = e;
        where = in[i];
      }
    }
    EXPECT_LE(worst, std::ldexp(1.0, -23)) << fn << " at x = " << describe(where);
    std::printf("measured: %-28s %-34s max abs error %.3g (2^%.1f) (bound 2^-23) over %zu inputs\n", fn,
                "|x| < 2^17", worst, std::log2(worst), in.size());
  }
}

// ------------------------------------------------------------------------------------------ bf16 forms

// Every bf16 input (|x| < 2^17 for sin and cos): the result is within `bound` bf16 ulps of the correctly
// rounded bf16 result, and special inputs give exactly the special result.
TEST_F(SpecialFunctionTest, BF16Unary) {
  const struct {
    const char* fn;
    Ref1 ref;
    double limit;
  } cases[] = {{"v_exp_bf16", refExp, INFINITY},        {"v_log_bf16", refLog, INFINITY},
               {"v_log2_bf16", refLog2, INFINITY},      {"v_pow2_bf16", refPow2, INFINITY},
               {"v_sin_bf16", refSin, kTrigDomain},     {"v_cos_bf16", refCos, kTrigDomain},
               {"v_tanh_bf16", refTanh, INFINITY},      {"v_sigmoid_bf16", refSigmoid, INFINITY},
               {"v_reciprocal_bf16", refRecip, INFINITY}, {"v_sqrt_bf16", refSqrt, INFINITY},
               {"v_rsqrt_bf16", refRsqrt, INFINITY},
               // The newer reference names.
               {"exp_bf16", refExp, INFINITY},          {"log_bf16", refLog, INFINITY},
               {"sigmoid_bf16", refSigmoid, INFINITY}};
  Inputs all;
  for (uint32_t h = 0; h < 0x10000u; ++h) all.push_back(h);
  for (const auto& c : cases) {
    std::vector<uint32_t> out = apply(c.fn, all, nullptr, true);
    ASSERT_EQ(out.size(), all.size());
    Worst w;
    int failures = 0;
    for (uint32_t h : all) {
      long double x = inputValue16(static_cast<uint16_t>(h));
      uint16_t want = toBF16(c.ref(x)), got = static_cast<uint16_t>(out[h]);
      bool special = isSpecialInput(h << 16) || want == kNanBF16;
      if (special && got != want && ++failures <= 10)
        ADD_FAILURE() << c.fn << "(" << describe(h << 16) << ") = " << hex(got) << ", want exactly " << hex(want);
      if (std::fabs(x) >= c.limit) continue;
      int64_t d = ulpDistance16(got, want);
      ++w.count;
      if (d > w.ulp) w = Worst{d, h << 16, 0, uint32_t{got} << 16, uint32_t{want} << 16, w.count};
    }
    EXPECT_LE(w.ulp, 1) << c.fn << " at " << w.where();
    report(c.fn, std::isinf(c.limit) ? "all bf16" : "all bf16, |x| < 2^17", w, 1);
  }
}

TEST_F(SpecialFunctionTest, BF16Binary) {
  const std::pair<const char*, Ref2> fns[] = {{"v_div_bf16", refDiv}, {"v_pow_bf16", refPow}};
  for (const auto& [fn, ref] : fns) {
    std::mt19937 rng(8);
    Inputs xs, ys;
    for (int i = 0; i < 60000; ++i) {
      xs.push_back(rng() & 0xffffu);
      float small = static_cast<float>(std::uniform_real_distribution<double>(-8, 8)(rng));
      ys.push_back(i % 2 ? (rng() & 0xffffu) : (bitsOf(small) >> 16));
    }
    for (uint32_t a : kBinaryGrid)
      for (uint32_t b : kBinaryGrid) {
        xs.push_back(a >> 16);
        ys.push_back(b >> 16);
      }
    std::vector<uint32_t> out = apply(fn, xs, &ys, true);
    ASSERT_EQ(out.size(), xs.size());
    Worst w;
    w.binary = true;
    int failures = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      uint16_t hx = static_cast<uint16_t>(xs[i]), hy = static_cast<uint16_t>(ys[i]);
      uint16_t want = toBF16(ref(inputValue16(hx), inputValue16(hy))), got = static_cast<uint16_t>(out[i]);
      bool special = isSpecialInput(uint32_t{hx} << 16) || isSpecialInput(uint32_t{hy} << 16) || want == kNanBF16;
      if (special && got != want && ++failures <= 10)
        ADD_FAILURE() << fn << "(" << describe(uint32_t{hx} << 16) << ", " << describe(uint32_t{hy} << 16) << ") = "
                      << hex(got) << ", want exactly " << hex(want);
      int64_t d = ulpDistance16(got, want);
      ++w.count;
      if (d > w.ulp) {
        w.ulp = d;
        w.x = uint32_t{hx} << 16;
        w.y = uint32_t{hy} << 16;
        w.got = uint32_t{got} << 16;
        w.want = uint32_t{want} << 16;
      }
    }
    EXPECT_LE(w.ulp, 1) << fn << " at " << w.where();
    report(fn, "bf16 pairs", w, 1);
  }
}

// The header compiles in C++ mode and for every architecture, and a kernel that does not use it compiles as
// fast as before (the functions are static inline: only the ones a kernel calls are compiled).
TEST_F(SpecialFunctionTest, CompilesEverywhere) {
  {
    std::ofstream src(path("k.c"));
    src << kernel("v_pow_f32", true, false);
  }
  std::string out;
  for (const char* flags : {"-x c++", "--march gaudi", "--march gaudi3", "-O0"})
    EXPECT_EQ(run(std::string(TPC_TOOL_DIR) + "/tpc-clang " + flags + " -c k.c -o k.o", &out), 0)
        << flags << "\n" << out;
}

}  // namespace
