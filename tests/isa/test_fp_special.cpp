// Helpers of the special-function library (semantics/fp_special.h): fclass reports one bit per class of
// the raw bits; calc_fp_special gives C99 Annex F results for special inputs and declines ordinary ones;
// form_fp_num assembles a float from exponent, sign and mantissa sources.
#include "semantics/fp_special.h"

#include "isa_test_util.h"

using namespace tpc;
using namespace isa_test;
using Fn = tpc::isa::FpSpecialFunc;

TEST(Fclass, OneBitPerClassInEveryFormat) {
  // Bit order: -inf, -normal, -denormal, -0, +0, +denormal, +normal, +inf, signaling NaN, quiet NaN.
  struct Row {
    sem::FloatFormat f;
    std::array<uint32_t, 10> bits;  // one example per class, in bit order
  };
  const Row rows[] = {
      {sem::kF32, {0xff800000, 0xbf800000, 0x80000001, 0x80000000, 0x00000000, 0x00000001, 0x3f800000, 0x7f800000,
                   0x7f800001, 0x7fc00000}},
      {sem::kBF16, {0xff80, 0xbf80, 0x8001, 0x8000, 0x0000, 0x0001, 0x3f80, 0x7f80, 0x7f81, 0x7fc0}},
      {sem::kF16, {0xfc00, 0xbc00, 0x8001, 0x8000, 0x0000, 0x0001, 0x3c00, 0x7c00, 0x7c01, 0x7e00}},
  };
  for (const Row& r : rows)
    for (int cls = 0; cls < 10; ++cls)
      EXPECT_EQ(sem::fclassBits(r.bits[cls], r.f), 1u << cls) << std::hex << "0x" << r.bits[cls] << " class " << std::dec << cls;
  // Boundaries of each class in f32.
  EXPECT_EQ(sem::fclassBits(0x807fffff, sem::kF32), 1u << 2);  // largest -denormal
  EXPECT_EQ(sem::fclassBits(0x00800000, sem::kF32), 1u << 6);  // smallest normal
  EXPECT_EQ(sem::fclassBits(0x7f7fffff, sem::kF32), 1u << 6);  // largest normal
  EXPECT_EQ(sem::fclassBits(0xff7fffff, sem::kF32), 1u << 1);
  EXPECT_EQ(sem::fclassBits(0xffc00000, sem::kF32), 1u << 9);  // negative quiet NaN
  EXPECT_EQ(sem::fclassBits(0x7fbfffff, sem::kF32), 1u << 8);  // signaling: quiet bit clear
  EXPECT_EQ(sem::fclassBits(0xff800001, sem::kF32), 1u << 8);
  EXPECT_EQ(sem::fclassBits(0x03ff, sem::kF16), 1u << 5);
  EXPECT_EQ(sem::fclassBits(0x0400, sem::kF16), 1u << 6);
  EXPECT_EQ(sem::fclassBits(0x7dff, sem::kF16), 1u << 8);
}

namespace {

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

// calc_fp_special takes the inputs' classes, as a kernel passes it fclass results.
uint32_t classOf(float x) { return sem::fclassBits(bitsOf(x), sem::kF32); }

struct SpecialCase {
  Fn fn;
  float a, b;
  uint32_t want;  // result bits
  const char* why;
};

}  // namespace

TEST(CalcFpSpecial, SpecialInputsGiveAnnexFResults) {
  const SpecialCase cases[] = {
      {Fn::Recip, 0.0f, 0, 0x7f800000, "1/+0 = +inf"},
      {Fn::Recip, -0.0f, 0, 0xff800000, "1/-0 = -inf"},
      {Fn::Recip, kInf, 0, 0x00000000, "1/inf = +0"},
      {Fn::Recip, -kInf, 0, 0x80000000, "1/-inf = -0"},
      {Fn::Recip, kNaN, 0, 0x7fc00000, "NaN"},
      {Fn::Rsqrt, -1.0f, 0, 0x7fc00000, "rsqrt of a negative number: canonical NaN"},
      {Fn::Rsqrt, -kInf, 0, 0x7fc00000, "rsqrt(-inf)"},
      {Fn::Rsqrt, 0.0f, 0, 0x7f800000, "rsqrt(+0) = +inf"},
      {Fn::Rsqrt, -0.0f, 0, 0xff800000, "rsqrt(-0) = 1/sqrt(-0) = 1/-0 = -inf"},
      {Fn::Rsqrt, kInf, 0, 0x00000000, "rsqrt(inf) = +0"},
      {Fn::Sqrt, -0.0f, 0, 0x80000000, "sqrt(-0) = -0"},
      {Fn::Sqrt, -2.0f, 0, 0x7fc00000, "sqrt of a negative number"},
      {Fn::Sqrt, kInf, 0, 0x7f800000, "sqrt(inf)"},
      {Fn::Log, 0.0f, 0, 0xff800000, "log(+0) = -inf"},
      {Fn::Log, -0.0f, 0, 0xff800000, "log(-0) = -inf"},
      {Fn::Log, -1.0f, 0, 0x7fc00000, "log of a negative number"},
      {Fn::Log, kInf, 0, 0x7f800000, "log(inf) = inf"},
      {Fn::Log, -kInf, 0, 0x7fc00000, "log(-inf)"},
      {Fn::Exp, -kInf, 0, 0x00000000, "exp(-inf) = +0"},
      {Fn::Exp, kInf, 0, 0x7f800000, "exp(inf) = inf"},
      {Fn::Exp, kNaN, 0, 0x7fc00000, "exp(NaN)"},
      {Fn::Tanh, 0.0f, 0, 0x00000000, "tanh(+0)"},
      {Fn::Tanh, -0.0f, 0, 0x80000000, "tanh(-0) = -0"},
      {Fn::Tanh, kInf, 0, 0x3f800000, "tanh(inf) = 1"},
      {Fn::Tanh, -kInf, 0, 0xbf800000, "tanh(-inf) = -1"},
      {Fn::Div, 1.0f, 0.0f, 0x7f800000, "1/+0"},
      {Fn::Div, -1.0f, 0.0f, 0xff800000, "-1/+0"},
      {Fn::Div, 1.0f, -0.0f, 0xff800000, "1/-0"},
      {Fn::Div, 0.0f, 0.0f, 0x7fc00000, "0/0"},
      {Fn::Div, kInf, kInf, 0x7fc00000, "inf/inf"},
      {Fn::Div, 1.0f, kInf, 0x00000000, "1/inf"},
      {Fn::Div, -1.0f, kInf, 0x80000000, "-1/inf"},
      {Fn::Div, 0.0f, 5.0f, 0x00000000, "0/5"},
      {Fn::Div, -0.0f, 5.0f, 0x80000000, "-0/5"},
      {Fn::Div, kInf, -0.0f, 0xff800000, "inf/-0"},
      {Fn::Div, kNaN, 1.0f, 0x7fc00000, "NaN/1"},
      {Fn::Pow, 0.0f, -1.0f, 0x7f800000, "pow(+0, -1) = +inf"},
      {Fn::Pow, -0.0f, 2.0f, 0x00000000, "pow(-0, 2) = +0"},
      {Fn::Pow, 2.0f, 0.0f, 0x3f800000, "pow(x, 0) = 1"},
      {Fn::Pow, kNaN, 0.0f, 0x3f800000, "pow(NaN, 0) = 1"},
      {Fn::Pow, 2.0f, kNaN, 0x7fc00000, "pow(2, NaN)"},
      {Fn::Pow, kInf, -2.0f, 0x00000000, "pow(inf, -2) = +0"},
      {Fn::Pow, kInf, 0.5f, 0x7f800000, "pow(inf, 0.5) = inf"},
      {Fn::Rsqrt, 1e-40f, 0, 0x7f800000, "a denormal is a zero: rsqrt = +inf"},
  };
  for (const SpecialCase& c : cases) {
    float r = 12345.0f;
    EXPECT_TRUE(sem::calcFpSpecial(c.fn, classOf(c.a), classOf(c.b), &r)) << c.why;
    EXPECT_EQ(bitsOf(r), c.want) << c.why;
  }
}

TEST(CalcFpSpecial, OrdinaryInputsAreDeclined) {
  const std::pair<Fn, std::pair<float, float>> cases[] = {
      {Fn::Recip, {2.0f, 0}},   {Fn::Recip, {-3.0f, 0}}, {Fn::Rsqrt, {4.0f, 0}}, {Fn::Sqrt, {2.0f, 0}},
      {Fn::Log, {1.0f, 0}},     {Fn::Log, {0.5f, 0}},    {Fn::Exp, {0.0f, 0}},   {Fn::Exp, {100.0f, 0}},
      {Fn::Exp, {-100.0f, 0}},  {Fn::Tanh, {0.5f, 0}},   {Fn::Div, {6.0f, 3.0f}}, {Fn::Div, {-1.0f, 1e-30f}},
      {Fn::Pow, {2.0f, 3.0f}},  {Fn::Pow, {2.0f, -0.5f}},
      // What the classes cannot decide: 1^NaN, a negative base, x^inf.
      {Fn::Pow, {-2.0f, 3.0f}}, {Fn::Pow, {-8.0f, 1.0f / 3.0f}}, {Fn::Pow, {2.0f, kInf}}, {Fn::Pow, {0.5f, -kInf}},
  };
  for (const auto& [fn, ab] : cases) {
    float r = 12345.0f;
    EXPECT_FALSE(sem::calcFpSpecial(fn, classOf(ab.first), classOf(ab.second), &r)) << static_cast<int>(fn) << " " << ab.first;
    EXPECT_EQ(r, 12345.0f) << "the result must be left alone";
  }
}

TEST(FormFpNum, AssemblesExponentSignAndMantissa) {
  const auto F = sem::kF32;
  // Exponent of 2.0 (field 128), sign of -1.0, mantissa of 1.5 (0x400000): -3.0.
  EXPECT_EQ(sem::formFpNum(0x40000000, 0xbf800000, 0x3fc00000, 0, F), 0xc0400000u);
  EXPECT_EQ(sem::formFpNum(0x40000000, 0xbf800000, 0x3fc00000, 2, F), 0x40400000u) << "force sign 0";
  EXPECT_EQ(sem::formFpNum(0x40000000, 0x3f800000, 0x3fc00000, 4, F), 0xc0400000u) << "force sign 1";
  EXPECT_EQ(sem::formFpNum(0x40000000, 0x3f800000, 0x3fc00000, 0, F), 0x40400000u);
  // Exponent as an integer (bit 3), plus the bias (bit 0): 1.5 * 2^3 = 12.
  EXPECT_EQ(sem::formFpNum(3, 0x3f800000, 0x3fc00000, 8 | 1, F), 0x41400000u);
  EXPECT_EQ(sem::formFpNum(130, 0x3f800000, 0x3fc00000, 8, F), 0x41400000u) << "already biased";
  EXPECT_EQ(sem::formFpNum(static_cast<uint32_t>(-3), 0x3f800000, 0x3fc00000, 8 | 1, F), 0x3e400000u) << "1.5 * 2^-3";
  EXPECT_EQ(sem::formFpNum(static_cast<uint32_t>(-200), 0x3f800000, 0x3fc00000, 8 | 1, F), 0x00400000u)
      << "exponent clamps at 0";
  EXPECT_EQ(sem::formFpNum(200, 0x3f800000, 0x3f800000, 8 | 1, F), 0x7f800000u) << "exponent clamps at 255";
  // Bias added to an exponent field: 0.5 has field 126, +127 = 253.
  EXPECT_EQ(sem::formFpNum(0x3f000000, 0x3f800000, 0x3f800000, 1, F), 0x7e800000u);
  // Only the mantissa bits of mantSrc and the sign bit of signSrc are used.
  EXPECT_EQ(sem::formFpNum(0x3f800000, 0x7fffffff, 0xffffffff, 0, F), 0x3fffffffu);
  // bf16: -3.0 = 0xc040; 12.0 = 0x4140.
  EXPECT_EQ(sem::formFpNum(0x4000, 0xbf80, 0x3fc0, 0, sem::kBF16), 0xc040u);
  EXPECT_EQ(sem::formFpNum(3, 0x3f80, 0x3fc0, 8 | 1, sem::kBF16), 0x4140u);
  // f16: -3.0 = 0xc200; 12.0 = 0x4a00; an exponent of 20 + 15 clamps to 31.
  EXPECT_EQ(sem::formFpNum(0x4000, 0xbc00, 0x3e00, 0, sem::kF16), 0xc200u);
  EXPECT_EQ(sem::formFpNum(3, 0x3c00, 0x3e00, 8 | 1, sem::kF16), 0x4a00u);
  EXPECT_EQ(sem::formFpNum(20, 0x3c00, 0x3e00, 8 | 1, sem::kF16), 0x7e00u);
}
