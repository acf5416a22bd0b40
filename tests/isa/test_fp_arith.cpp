// Floating-point lane semantics (semantics/arith.h, compare.h): IEEE round-half-to-even results with the
// core's rules on top (denormal inputs and results flush to signed zero, NaNs come out canonical, MAC is not
// fused). Known answers are derived by hand in the comments; the sweeps compare against the long double
// reference of isa_test_util.h.
#include "semantics/arith.h"
#include "semantics/compare.h"

#include "isa_test_util.h"

using namespace tpc;
using namespace isa_test;
using sem::CmpOp;

namespace {

// f32 lanes are floats; these take and return bit patterns so expectations are exact.
uint32_t addF(uint32_t a, uint32_t b) { return bitsOf(sem::add<DType::F32>(floatOf(a), floatOf(b), false)); }
uint32_t subF(uint32_t a, uint32_t b) { return bitsOf(sem::sub<DType::F32>(floatOf(a), floatOf(b), false)); }
uint32_t mulF(uint32_t a, uint32_t b) { return bitsOf(sem::mul<DType::F32>(floatOf(a), floatOf(b))); }
uint32_t macF(uint32_t acc, uint32_t a, uint32_t b) {
  return bitsOf(sem::mac<DType::F32>(floatOf(acc), floatOf(a), floatOf(b), false));
}
uint32_t maxF(uint32_t a, uint32_t b) { return bitsOf(sem::fmax<DType::F32>(floatOf(a), floatOf(b))); }
uint32_t minF(uint32_t a, uint32_t b) { return bitsOf(sem::fmin<DType::F32>(floatOf(a), floatOf(b))); }

struct Bin {
  uint32_t a, b, want;
  const char* why;
};

}  // namespace

TEST(F32Arith, AddKnownAnswers) {
  const Bin cases[] = {
      {0x3f800000, 0x33800000, 0x3f800000, "1 + 2^-24: exact tie, even neighbour is 1"},
      {0x3f800001, 0x33800000, 0x3f800002, "(1 + ulp) + ulp/2: tie, rounds up to the even 1 + 2ulp"},
      {0x3f800000, 0x33c00000, 0x3f800001, "1 + 0.75 ulp rounds up"},
      {0x3f800000, 0x33000000, 0x3f800000, "1 + 0.25 ulp rounds down"},
      {0x3f800000, 0xb3000000, 0x3f800000, "1 - 2^-25: halfway between 1 - 2^-24 (odd) and 1 (even)"},
      {0x3f800000, 0xb3800000, 0x3f7fffff, "1 - 2^-24 is exact below 1"},
      {0x40490fdb, 0xc0490fdb, 0x00000000, "x - x is +0"},
      {0x7f7fffff, 0x7f7fffff, 0x7f800000, "max + max overflows to inf"},
      {0xff7fffff, 0xff7fffff, 0xff800000, "-max - max overflows to -inf"},
      {0x7f7fffff, 0x73000000, 0x7f800000, "max + half an ulp (2^103): tie, odd max rounds up to inf"},
      {0x7f7fffff, 0x72800000, 0x7f7fffff, "max + quarter ulp stays max"},
      {0x7f800000, 0xff800000, 0x7fc00000, "inf - inf: canonical NaN (x86 would give 0xffc00000)"},
      {0x7f800001, 0x3f800000, 0x7fc00000, "signaling NaN input: canonical NaN"},
      {0xffc12345, 0x00000000, 0x7fc00000, "negative NaN with payload: canonical NaN"},
      {0x7f800000, 0x3f800000, 0x7f800000, "inf + 1 = inf"},
      {0xff800000, 0x7f7fffff, 0xff800000, "-inf + max = -inf"},
      {0x00000001, 0x00000000, 0x00000000, "denormal input flushes"},
      {0x00400000, 0x00400000, 0x00000000, "2^-127 + 2^-127 would be 2^-126, but the inputs flush"},
      {0x007fffff, 0x00800000, 0x00800000, "denormal + min normal = min normal"},
      {0x80000001, 0x80000000, 0x80000000, "-denormal + -0 = -0"},
      {0x00c00000, 0x80800000, 0x00000000, "1.5*2^-126 - 2^-126 = 2^-127: denormal result flushes to +0"},
      {0x80c00000, 0x00800000, 0x80000000, "-(2^-127): flushes to -0"},
      {0x80000000, 0x80000000, 0x80000000, "-0 + -0 = -0"},
      {0x80000000, 0x00000000, 0x00000000, "-0 + +0 = +0"},
      {0xbf800000, 0x3f800000, 0x00000000, "-1 + 1 = +0"},
  };
  for (const Bin& c : cases) { EXPECT_EQ(addF(c.a, c.b), c.want) << c.why; }
}

TEST(F32Arith, SubKnownAnswers) {
  const Bin cases[] = {
      {0x80000000, 0x00000000, 0x80000000, "-0 - +0 = -0"},
      {0x00000000, 0x80000000, 0x00000000, "+0 - -0 = +0"},
      {0x80000000, 0x80000000, 0x00000000, "-0 - -0 = +0"},
      {0x3f800000, 0x3f800000, 0x00000000, "1 - 1 = +0"},
      {0x00800000, 0x00c00000, 0x80000000, "2^-126 - 1.5*2^-126 = -2^-127: flushes to -0"},
      {0x3f800001, 0xb3800000, 0x3f800002, "(1 + ulp) - (-ulp/2): tie to even, up"},
      {0xff7fffff, 0x7f7fffff, 0xff800000, "-max - max = -inf"},
      {0x7f800000, 0x7f800000, 0x7fc00000, "inf - inf = canonical NaN"},
      {0x00000005, 0x80000003, 0x00000000, "denormals flush: +0 - -0 = +0"},
      {0x40400000, 0x3f800000, 0x40000000, "3 - 1 = 2"},
  };
  for (const Bin& c : cases) { EXPECT_EQ(subF(c.a, c.b), c.want) << c.why; }
}

TEST(F32Arith, MulKnownAnswers) {
  const Bin cases[] = {
      {0x3f800001, 0x3f800001, 0x3f800002, "(1+2^-23)^2 = 1 + 2^-22 + 2^-46 rounds down"},
      {0x3f800800, 0x3f800800, 0x3f801000, "(1+2^-12)^2 = 1 + 2^-11 + 2^-24: tie, even neighbour below"},
      {0x3f800001, 0x3fc00000, 0x3fc00002, "(1+2^-23)*1.5 = 1.5 + 1.5ulp: tie, even neighbour above"},
      {0x7f000000, 0x40000000, 0x7f800000, "2^127 * 2 overflows"},
      {0xff000000, 0x40000000, 0xff800000, "-2^127 * 2 = -inf"},
      {0x00800000, 0x3f000000, 0x00000000, "2^-126 * 0.5 = 2^-127 flushes to +0"},
      {0x80800000, 0x3f000000, 0x80000000, "-2^-126 * 0.5 flushes to -0"},
      {0x0d800000, 0x0d800000, 0x00000000, "2^-100 * 2^-100 underflows to +0"},
      {0x00400000, 0x40000000, 0x00000000, "denormal 2^-127 * 2 would be 2^-126, but the input flushes"},
      {0x80400000, 0x40000000, 0x80000000, "-denormal * 2 = -0"},
      {0x00000000, 0x7f800000, 0x7fc00000, "0 * inf = canonical NaN"},
      {0x80000000, 0x40a00000, 0x80000000, "-0 * 5 = -0"},
      {0x80000000, 0xc0a00000, 0x00000000, "-0 * -5 = +0"},
      {0x7fc00001, 0x00000000, 0x7fc00000, "NaN * 0 = canonical NaN"},
      {0x3dcccccd, 0x41200000, 0x3f800000, "0.1f * 10 rounds to exactly 1"},
  };
  for (const Bin& c : cases) { EXPECT_EQ(mulF(c.a, c.b), c.want) << c.why; }
}

// MAC rounds the product to f32 (with flush) before the sum: not a fused multiply-add.
TEST(F32Arith, MacIsFused) {
  // (1+2^-12)^2 = 1 + 2^-11 + 2^-24 is kept whole; adding -(1 + 2^-11) gives 2^-24 (two roundings: +0).
  EXPECT_EQ(macF(0xbf801000, 0x3f800800, 0x3f800800), 0x33800000u);
  // The product 2^-100 * 2^-30 = 2^-130 is not rounded on its own, so it still counts: 2^-126 + 2^-130
  // (two roundings would flush it and leave 2^-126).
  EXPECT_EQ(macF(0x00800000, 0x0d800000, 0x30800000), 0x00880000u);
  EXPECT_EQ(macF(0x3f800000, 0x40000000, 0x40400000), 0x40e00000u);  // 1 + 2*3 = 7
  EXPECT_EQ(macF(0x3f800000, 0x7f800000, 0x00000000), 0x7fc00000u);  // 1 + inf*0 = NaN
  EXPECT_EQ(macF(0x7f7fffff, 0x7f7fffff, 0x3f800000), 0x7f800000u);  // max + max overflows
  EXPECT_EQ(macF(0x80000000, 0x80000000, 0x3f800000), 0x80000000u);  // -0 + (-0 * 1) = -0
}

TEST(F32Arith, MinMaxNaNAndSignedZeros) {
  const uint32_t one = 0x3f800000, mone = 0xbf800000, two = 0x40000000, mtwo = 0xc0000000;
  EXPECT_EQ(maxF(0x7fc00000, one), 0x7fc00000u);
  EXPECT_EQ(maxF(one, 0x7fc00000), 0x7fc00000u);
  EXPECT_EQ(minF(0xffc00001, one), 0x7fc00000u) << "NaN result is canonical";
  EXPECT_EQ(minF(one, 0x7f800001), 0x7fc00000u);
  EXPECT_EQ(maxF(0x80000000, 0x00000000), 0x00000000u) << "max(-0, +0) = +0";
  EXPECT_EQ(maxF(0x00000000, 0x80000000), 0x00000000u) << "max(+0, -0) = +0";
  EXPECT_EQ(minF(0x80000000, 0x00000000), 0x80000000u) << "min(-0, +0) = -0";
  EXPECT_EQ(minF(0x00000000, 0x80000000), 0x80000000u) << "min(+0, -0) = -0";
  EXPECT_EQ(maxF(mone, mtwo), mone);
  EXPECT_EQ(minF(mone, mtwo), mtwo);
  EXPECT_EQ(maxF(two, one), two);
  EXPECT_EQ(minF(0xff800000, one), 0xff800000u);
  EXPECT_EQ(maxF(0x7f800000, 0x7f7fffff), 0x7f800000u);
  EXPECT_EQ(maxF(0x00000001, 0x80000000), 0x00000000u) << "denormals flush: max(+0, -0)";
  EXPECT_EQ(minF(0x00000005, 0x80000001), 0x80000000u) << "denormals flush: min(+0, -0)";
  // bf16 and f16 lanes
  EXPECT_EQ(sem::fmax<DType::BF16>(0x8000, 0x0000), 0x0000);
  EXPECT_EQ(sem::fmin<DType::BF16>(0x0000, 0x8000), 0x8000);
  EXPECT_EQ(sem::fmin<DType::BF16>(0x7fc1, 0x3f80), 0x7fc0);
  EXPECT_EQ(sem::fmax<DType::F16>(0x3c00, 0x7d00), 0x7e00);
  EXPECT_EQ(sem::fmax<DType::F16>(0xbc00, 0xc000), 0xbc00);  // max(-1, -2) = -1
}

TEST(F32Arith, AbsAndNeg) {
  auto absF = [](uint32_t a) { return bitsOf(sem::abs<DType::F32>(floatOf(a))); };
  auto negF = [](uint32_t a) { return bitsOf(sem::neg<DType::F32>(floatOf(a))); };
  EXPECT_EQ(absF(0x80000000), 0x00000000u);
  EXPECT_EQ(absF(0xc0490fdb), 0x40490fdbu);
  EXPECT_EQ(absF(0xff800000), 0x7f800000u);
  EXPECT_EQ(absF(0xffc00001), 0x7fc00000u);
  EXPECT_EQ(absF(0x80000001), 0x00000000u);  // -denormal flushes
  EXPECT_EQ(negF(0x00000000), 0x80000000u);
  EXPECT_EQ(negF(0x80000000), 0x00000000u);
  EXPECT_EQ(negF(0x3f800000), 0xbf800000u);
  EXPECT_EQ(negF(0x00000001), 0x80000000u);  // denormal flushes to +0, then the sign flips
  EXPECT_EQ(negF(0x7f800001), 0x7fc00000u);
  EXPECT_EQ(sem::neg<DType::BF16>(0x3f80), 0xbf80);
  EXPECT_EQ(sem::abs<DType::F16>(0xfc00), 0x7c00);
}

TEST(FloatCompare, NaNSignedZeroAndDenormals) {
  auto cmp = [](CmpOp op, uint32_t a, uint32_t b) { return sem::compare<DType::F32>(op, floatOf(a), floatOf(b)); };
  const uint32_t nan = 0x7fc00000, one = 0x3f800000;
  for (auto [a, b] : {std::pair{nan, one}, std::pair{one, nan}, std::pair{nan, nan}, std::pair{0xffc00001u, 0xffc00001u}}) {
    EXPECT_FALSE(cmp(CmpOp::Eq, a, b));
    EXPECT_TRUE(cmp(CmpOp::Neq, a, b));
    EXPECT_FALSE(cmp(CmpOp::Less, a, b));
    EXPECT_FALSE(cmp(CmpOp::Leq, a, b));
    EXPECT_FALSE(cmp(CmpOp::Grt, a, b));
    EXPECT_FALSE(cmp(CmpOp::Geq, a, b));
  }
  EXPECT_TRUE(cmp(CmpOp::Eq, 0x80000000, 0x00000000));
  EXPECT_FALSE(cmp(CmpOp::Less, 0x80000000, 0x00000000));
  EXPECT_TRUE(cmp(CmpOp::Leq, 0x80000000, 0x00000000));
  EXPECT_TRUE(cmp(CmpOp::Eq, 0x00000001, 0x00000000)) << "a denormal compares as zero";
  EXPECT_FALSE(cmp(CmpOp::Grt, 0x00000001, 0x80000000));
  EXPECT_TRUE(cmp(CmpOp::Less, 0x3f800000, 0x7f800000));
  EXPECT_TRUE(cmp(CmpOp::Less, 0xff800000, 0xff7fffff));
  EXPECT_TRUE(cmp(CmpOp::Grt, 0x3f800001, 0x3f800000));
  EXPECT_TRUE(cmp(CmpOp::Geq, 0x3f800000, 0x3f800000));
  EXPECT_FALSE(sem::compare<DType::BF16>(CmpOp::Eq, 0x7fc1, 0x7fc1));
  EXPECT_TRUE(sem::compare<DType::BF16>(CmpOp::Neq, 0x7f81, 0x3f80));
  EXPECT_TRUE(sem::compare<DType::BF16>(CmpOp::Less, 0xbf80, 0x3f80));
  EXPECT_TRUE(sem::compare<DType::F16>(CmpOp::Eq, 0x8000, 0x0000));
  EXPECT_TRUE(sem::compare<DType::F16>(CmpOp::Grt, 0x7c00, 0x7bff));
  EXPECT_FALSE(sem::compare<DType::F16>(CmpOp::Geq, 0x7e00, 0x7c00));
}

// bf16: 8 significand bits; 1.0 = 0x3f80, ulp(1) = 2^-7.
TEST(Bf16Arith, KnownAnswers) {
  using sem::add;
  using sem::mul;
  using sem::sub;
  constexpr DType B = DType::BF16;
  EXPECT_EQ(add<B>(0x3f80, 0x3b80, false), 0x3f80) << "1 + 2^-8: tie, stays at even 1";
  EXPECT_EQ(add<B>(0x3f81, 0x3b80, false), 0x3f82) << "(1 + ulp) + ulp/2: tie, up to even";
  EXPECT_EQ(add<B>(0x3f80, 0x3bc0, false), 0x3f81) << "1 + 0.75 ulp rounds up";
  EXPECT_EQ(add<B>(0x3f80, 0x3b00, false), 0x3f80) << "1 + 0.25 ulp rounds down";
  EXPECT_EQ(add<B>(0x7f7f, 0x7f7f, false), 0x7f80) << "max + max = inf";
  EXPECT_EQ(add<B>(0x7f7f, 0x7b00, false), 0x7f80) << "max + 2^119 (half ulp): tie, odd max rounds to inf";
  EXPECT_EQ(add<B>(0x7f7f, 0x7a80, false), 0x7f7f) << "max + quarter ulp stays";
  EXPECT_EQ(add<B>(0xff7f, 0xff7f, false), 0xff80);
  EXPECT_EQ(add<B>(0x7f80, 0xff80, false), 0x7fc0) << "inf - inf: canonical bf16 NaN";
  EXPECT_EQ(add<B>(0x7f81, 0x3f80, false), 0x7fc0);
  EXPECT_EQ(add<B>(0xffc0, 0x3f80, false), 0x7fc0);
  EXPECT_EQ(add<B>(0x0001, 0x0000, false), 0x0000) << "denormal input";
  EXPECT_EQ(add<B>(0x0040, 0x0040, false), 0x0000) << "2^-127 + 2^-127: inputs flush";
  EXPECT_EQ(add<B>(0x8000, 0x8000, false), 0x8000) << "-0 + -0";
  EXPECT_EQ(sub<B>(0x00c0, 0x0080, false), 0x0000) << "2^-127 result flushes to +0";
  EXPECT_EQ(sub<B>(0x0080, 0x00c0, false), 0x8000) << "-2^-127 result flushes to -0";
  EXPECT_EQ(sub<B>(0x4049, 0x4049, false), 0x0000);
  EXPECT_EQ(mul<B>(0x3f81, 0x3f81), 0x3f82) << "(1+2^-7)^2 = 1 + 2^-6 + 2^-14";
  EXPECT_EQ(mul<B>(0x3f81, 0x3fc0), 0x3fc2) << "(1+2^-7)*1.5 = 1.5 + 1.5ulp: tie, up to even";
  EXPECT_EQ(mul<B>(0x3f81, 0x3f7f), 0x3f80) << "(1+2^-7)(1-2^-8) = 1 + 2^-8 - 2^-15: just below the tie";
  EXPECT_EQ(mul<B>(0x7f00, 0x4000), 0x7f80) << "2^127 * 2 = inf";
  EXPECT_EQ(mul<B>(0x0080, 0x3f00), 0x0000) << "2^-126 * 0.5 flushes";
  EXPECT_EQ(mul<B>(0x8080, 0x3f00), 0x8000);
  EXPECT_EQ(mul<B>(0x0000, 0x7f80), 0x7fc0) << "0 * inf";
  // 0x3f35 * 0x00b5 = (181/128 * 2^-1)(181/128 * 2^-126) = 2^-127 * 32761/16384 = 2^-126 * (1 - 7*2^-15):
  // below the smallest normal before rounding, but at 8 bits it rounds to 2^-126 itself, a normal result.
  EXPECT_EQ(mul<B>(0x3f35, 0x00b5), 0x0080);
  EXPECT_EQ(mul<B>(0xbf35, 0x00b5), 0x8080);
  // 0x3f34 * 0x00b5 = 2^-127 * 32580/16384: 8-bit rounding gives 255/128 * 2^-127, still below: flushes.
  EXPECT_EQ(mul<B>(0x3f34, 0x00b5), 0x0000);
  // 0x3eb5 * 0x00b5 is half as large (about 2^-127): flushes.
  EXPECT_EQ(mul<B>(0x3eb5, 0x00b5), 0x0000);
  // Same boundary through MAC: 2^-125 + (-(1 + 2^-7) * 2^-126) = 2^-126 * (1 - 2^-7) is exact and below.
  EXPECT_EQ(sem::mac<B>(0x0100, 0x8081, 0x3f80, false), 0x0000);
  // MAC: the product 1 * 3 = 3 and 1 + 3 = 4.
  EXPECT_EQ(sem::mac<B>(0x3f80, 0x3f80, 0x4040, false), 0x4080);
  EXPECT_EQ(sem::mac<B>(0x7f7f, 0x7f7f, 0x3f80, false), 0x7f80);
}

// f16: 11 significand bits; 1.0 = 0x3c00, ulp(1) = 2^-10, max 65504 = 0x7bff, min normal 2^-14 = 0x0400.
TEST(F16Arith, KnownAnswers) {
  using sem::add;
  using sem::mul;
  using sem::sub;
  constexpr DType H = DType::F16;
  EXPECT_EQ(add<H>(0x3c00, 0x1000, false), 0x3c00) << "1 + 2^-11: tie, stays at even 1";
  EXPECT_EQ(add<H>(0x3c01, 0x1000, false), 0x3c02) << "(1 + ulp) + ulp/2: tie, up";
  EXPECT_EQ(add<H>(0x3c00, 0x1200, false), 0x3c01) << "1 + 0.75 ulp rounds up";
  EXPECT_EQ(add<H>(0x7bff, 0x4c00, false), 0x7c00) << "65504 + 16 (half ulp): tie, odd max rounds to inf";
  EXPECT_EQ(add<H>(0x7bff, 0x4800, false), 0x7bff) << "65504 + 8 stays";
  EXPECT_EQ(add<H>(0xfbff, 0xfbff, false), 0xfc00);
  EXPECT_EQ(add<H>(0x7c00, 0xfc00, false), 0x7e00) << "inf - inf: canonical f16 NaN";
  EXPECT_EQ(add<H>(0x7c01, 0x0000, false), 0x7e00);
  EXPECT_EQ(add<H>(0x0001, 0x0000, false), 0x0000);
  EXPECT_EQ(add<H>(0x0200, 0x0200, false), 0x0000) << "2^-15 + 2^-15: inputs flush";
  EXPECT_EQ(add<H>(0x8000, 0x8000, false), 0x8000);
  EXPECT_EQ(sub<H>(0x0600, 0x0400, false), 0x0000) << "2^-15 result flushes";
  EXPECT_EQ(sub<H>(0x0400, 0x0600, false), 0x8000);
  EXPECT_EQ(sub<H>(0x4500, 0x3c00, false), 0x4400) << "5 - 1 = 4";
  EXPECT_EQ(mul<H>(0x3c01, 0x3c01), 0x3c02) << "(1+2^-10)^2 = 1 + 2^-9 + 2^-20";
  EXPECT_EQ(mul<H>(0x3c01, 0x3e00), 0x3e02) << "(1+2^-10)*1.5: tie, up to even";
  EXPECT_EQ(mul<H>(0x0400, 0x3800), 0x0000) << "2^-14 * 0.5 flushes";
  EXPECT_EQ(mul<H>(0x8400, 0x3800), 0x8000);
  EXPECT_EQ(mul<H>(0x7bff, 0x4000), 0x7c00);
  EXPECT_EQ(mul<H>(0x5bf8, 0x5bf8), 0x7bf0) << "255 * 255 = 65025: ulp 32 there, rounds down to 65024";
  EXPECT_EQ(sem::mac<H>(0x3c00, 0x4000, 0x4200, false), 0x4700) << "1 + 2*3 = 7";
}

namespace {

// Random operands: mostly finite values whose exponents are near each other (so sums are exact in long
// double and results are interesting), plus fully random bit patterns (specials, denormals, extremes).
struct OperandGen {
  std::mt19937 rng;
  int expBits, mantBits;
  explicit OperandGen(uint32_t seed, int e, int m) : rng(seed), expBits(e), mantBits(m) {}
  uint32_t bits() {
    uint32_t width = 1 + expBits + mantBits;
    return width == 32 ? rng() : (rng() & ((1u << width) - 1u));
  }
  // A value with the exponent field `e` (clamped to [0, max]) and random sign and mantissa.
  uint32_t withExp(int e) {
    int maxE = (1 << expBits) - 1;
    e = std::clamp(e, 0, maxE);
    return (rng() & 1u) << (expBits + mantBits) | static_cast<uint32_t>(e) << mantBits | (rng() & ((1u << mantBits) - 1u));
  }
  std::pair<uint32_t, uint32_t> pair() {
    if (rng() % 8 == 0) return {bits(), bits()};
    int maxE = (1 << expBits) - 1;
    int ea = 1 + static_cast<int>(rng() % (maxE - 1));
    int eb = ea + static_cast<int>(rng() % 61) - 30;
    return {withExp(ea), withExp(eb)};
  }
};

// 2Sum error of a + b in long double: zero iff the sum is exact.
bool sumIsExact(long double a, long double b) {
  if (!std::isfinite(a) || !std::isfinite(b)) return true;
  long double s = a + b;
  long double bb = s - a, aa = s - bb;
  return (a - aa) + (b - bb) == 0;
}

template <class Op>
void sweep(const char* name, OperandGen gen, const RefFormat& ref, int n, Op op) {
  FailureLog log;
  int checked = 0;
  for (int i = 0; i < n; ++i) {
    auto [a, b] = gen.pair();
    long double x = refValue(a, ref), y = refValue(b, ref);
    auto [got, exact, ok] = op(a, b, x, y);
    if (!ok) continue;
    ++checked;
    uint32_t want = refRound(exact, ref, RoundingMode::RHNE);
    if (got != want) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s(0x%x, 0x%x) = 0x%x, reference 0x%x", name, a, b, got, want);
      log.add(buf);
    }
  }
  EXPECT_EQ(log.count, 0) << name;
  EXPECT_GT(checked, n * 9 / 10) << name << ": too few operand pairs had an exact reference";
}

struct Res {
  uint32_t got;
  long double exact;
  bool ok;
};

}  // namespace

// Random sweeps against the long double reference (exact product or sum, then IEEE RHNE rounding with
// the flush rules written out in isa_test_util.h).
TEST(FloatArithSweep, F32AddSubMulMatchReference) {
  sweep("add.f32", OperandGen(1, 8, 23), kRefF32, 100000, [](uint32_t a, uint32_t b, long double x, long double y) {
    return Res{addF(a, b), x + y, sumIsExact(x, y)};
  });
  sweep("sub.f32", OperandGen(2, 8, 23), kRefF32, 100000, [](uint32_t a, uint32_t b, long double x, long double y) {
    return Res{subF(a, b), x - y, sumIsExact(x, -y)};
  });
  sweep("mul.f32", OperandGen(3, 8, 23), kRefF32, 100000, [](uint32_t a, uint32_t b, long double x, long double y) {
    return Res{mulF(a, b), x * y, true};  // 24 x 24 bits: exact in a 64-bit significand
  });
}

TEST(FloatArithSweep, Bf16AddSubMulMatchReference) {
  constexpr DType B = DType::BF16;
  sweep("add.bf16", OperandGen(4, 8, 7), kRefBF16, 100000, [](uint32_t a, uint32_t b, long double x, long double y) {
    return Res{sem::add<B>(static_cast<uint16_t>(a), static_cast<uint16_t>(b), false), x + y, sumIsExact(x, y)};
  });
  sweep("sub.bf16", OperandGen(5, 8, 7), kRefBF16, 100000, [](uint32_t a, uint32_t b, long double x, long double y) {
    return Res{sem::sub<B>(static_cast<uint16_t>(a), static_cast<uint16_t>(b), false), x - y, sumIsExact(x, -y)};
  });
  sweep("mul.bf16", OperandGen(6, 8, 7), kRefBF16, 100000, [](uint32_t a, uint32_t b, long double x, long double y) {
    return Res{sem::mul<B>(static_cast<uint16_t>(a), static_cast<uint16_t>(b)), x * y, true};
  });
}

TEST(FloatArithSweep, F16AddSubMulMatchReference) {
  constexpr DType H = DType::F16;
  sweep("add.f16", OperandGen(7, 5, 10), kRefF16, 100000, [](uint32_t a, uint32_t b, long double x, long double y) {
    return Res{sem::add<H>(static_cast<uint16_t>(a), static_cast<uint16_t>(b), false), x + y, sumIsExact(x, y)};
  });
  sweep("sub.f16", OperandGen(8, 5, 10), kRefF16, 100000, [](uint32_t a, uint32_t b, long double x, long double y) {
    return Res{sem::sub<H>(static_cast<uint16_t>(a), static_cast<uint16_t>(b), false), x - y, sumIsExact(x, -y)};
  });
  sweep("mul.f16", OperandGen(9, 5, 10), kRefF16, 100000, [](uint32_t a, uint32_t b, long double x, long double y) {
    return Res{sem::mul<H>(static_cast<uint16_t>(a), static_cast<uint16_t>(b)), x * y, true};
  });
}

// Products of bf16 values that land just below the smallest normal: the rounded result decides between
// 2^-126 and zero. Exhaustive over the significand pairs at the critical exponent.
TEST(FloatArithSweep, Bf16ProductsAtTheBottomOfTheRange) {
  FailureLog log;
  for (uint32_t ma = 0; ma < 128; ++ma)
    for (uint32_t mb = 0; mb < 128; ++mb)
      for (uint32_t ea : {0x7du, 0x7eu}) {  // 2^-2 or 2^-1 times 2^-126: products straddle 2^-126
        uint16_t a = static_cast<uint16_t>(ea << 7 | ma), b = static_cast<uint16_t>(1u << 7 | mb);
        uint32_t want = refRound(refValue(a, kRefBF16) * refValue(b, kRefBF16), kRefBF16, RoundingMode::RHNE);
        uint16_t got = sem::mul<DType::BF16>(a, b);
        if (got != want) {
          char buf[96];
          std::snprintf(buf, sizeof buf, "mul.bf16 0x%04x * 0x%04x = 0x%04x, reference 0x%04x", a, b, got, want);
          log.add(buf);
        }
      }
  EXPECT_EQ(log.count, 0);
}
