// Conversions (semantics/convert.h, fp.h): every rounding mode for float -> narrower float, float -> int
// and int -> float; saturation rules (float -> int always saturates, NaN -> 0; int -> int wraps unless
// sat); stochastic rounding statistics; exactness of widening conversions.
#include "semantics/convert.h"

#include "isa_test_util.h"

using namespace tpc;
using namespace isa_test;
using sem::convertFloat;
using sem::floatToInt;
using sem::intToFloat;
using sem::kBF16;
using sem::kF16;
using sem::kF32;

namespace {

constexpr RoundingMode kModes[] = {RoundingMode::RHNE, RoundingMode::RZ, RoundingMode::RU, RoundingMode::RD,
                                   RoundingMode::RHAZ};
const char* modeName(RoundingMode m) {
  static const char* kNames[] = {"rhne", "rz", "ru", "rd", "rhaz", "sr"};
  return kNames[static_cast<int>(m)];
}

// One input and the expected result in each deterministic mode, in kModes order.
struct ModeCase {
  uint32_t in;
  std::array<uint32_t, 5> want;
  const char* why;
};

}  // namespace

TEST(ConvertF32ToBf16, EveryRoundingMode) {
  const ModeCase cases[] = {
      {0x3f808000, {0x3f80, 0x3f80, 0x3f81, 0x3f80, 0x3f81}, "1 + 2^-8: tie"},
      {0xbf808000, {0xbf80, 0xbf80, 0xbf80, 0xbf81, 0xbf81}, "-(1 + 2^-8): tie"},
      {0x3f818000, {0x3f82, 0x3f81, 0x3f82, 0x3f81, 0x3f82}, "1 + 3*2^-8: tie, even is above"},
      {0x3f808010, {0x3f81, 0x3f80, 0x3f81, 0x3f80, 0x3f81}, "just above the tie"},
      {0x3f807fff, {0x3f80, 0x3f80, 0x3f81, 0x3f80, 0x3f80}, "just below the tie"},
      {0x3f800010, {0x3f80, 0x3f80, 0x3f81, 0x3f80, 0x3f80}, "a little above 1"},
      {0xbf800010, {0xbf80, 0xbf80, 0xbf80, 0xbf81, 0xbf80}, "a little below -1"},
      {0x3fffffff, {0x4000, 0x3fff, 0x4000, 0x3fff, 0x4000}, "just below 2: the carry moves the exponent"},
      {0x7f7fffff, {0x7f80, 0x7f7f, 0x7f80, 0x7f7f, 0x7f80}, "f32 max overflows bf16 by mode"},
      {0xff7fffff, {0xff80, 0xff7f, 0xff7f, 0xff80, 0xff80}, "-f32 max"},
      {0x7f7f8000, {0x7f80, 0x7f7f, 0x7f80, 0x7f7f, 0x7f80}, "bf16 max + half ulp: tie, odd rounds up to inf"},
      {0x7f800000, {0x7f80, 0x7f80, 0x7f80, 0x7f80, 0x7f80}, "inf"},
      {0xff800000, {0xff80, 0xff80, 0xff80, 0xff80, 0xff80}, "-inf"},
      {0x7fc00000, {0x7fc0, 0x7fc0, 0x7fc0, 0x7fc0, 0x7fc0}, "NaN"},
      {0xffffffff, {0x7fc0, 0x7fc0, 0x7fc0, 0x7fc0, 0x7fc0}, "negative NaN: canonical"},
      {0x7f800001, {0x7fc0, 0x7fc0, 0x7fc0, 0x7fc0, 0x7fc0}, "signaling NaN whose payload bf16 would drop"},
      {0x80000000, {0x8000, 0x8000, 0x8000, 0x8000, 0x8000}, "-0"},
      {0x00000001, {0x0000, 0x0000, 0x0000, 0x0000, 0x0000}, "denormal input flushes, whatever the mode"},
      {0x807fffff, {0x8000, 0x8000, 0x8000, 0x8000, 0x8000}, "-denormal flushes to -0"},
      {0x00800000, {0x0080, 0x0080, 0x0080, 0x0080, 0x0080}, "min normal is exact"},
      {0x00807fff, {0x0080, 0x0080, 0x0081, 0x0080, 0x0080}, "min normal and a bit"},
  };
  for (const ModeCase& c : cases)
    for (size_t m = 0; m < 5; ++m) {
      SCOPED_TRACE(std::string(c.why) + " " + modeName(kModes[m]));
      EXPECT_EQ(convertFloat(c.in, kF32, kBF16, kModes[m], 0, false), c.want[m]);
      EXPECT_EQ((sem::convert<DType::F32, DType::BF16>(floatOf(c.in), kModes[m], false, 0)), c.want[m]);
      if (kModes[m] == RoundingMode::RHNE) { EXPECT_EQ(sem::f32ToBf16(floatOf(c.in)), c.want[m]) << "fast path"; }
    }
  // Saturation: overflow and infinities give the largest finite value; NaN stays NaN.
  EXPECT_EQ(convertFloat(0x7f7fffff, kF32, kBF16, RoundingMode::RHNE, 0, true), 0x7f7fu);
  EXPECT_EQ(convertFloat(0x7f800000, kF32, kBF16, RoundingMode::RHNE, 0, true), 0x7f7fu);
  EXPECT_EQ(convertFloat(0xff800000, kF32, kBF16, RoundingMode::RU, 0, true), 0xff7fu);
  EXPECT_EQ(convertFloat(0x7fc00000, kF32, kBF16, RoundingMode::RHNE, 0, true), 0x7fc0u);
}

TEST(ConvertF32ToF16, EveryRoundingMode) {
  const ModeCase cases[] = {
      {0x3f801000, {0x3c00, 0x3c00, 0x3c01, 0x3c00, 0x3c01}, "1 + 2^-11: tie"},
      {0xbf801000, {0xbc00, 0xbc00, 0xbc00, 0xbc01, 0xbc01}, "-(1 + 2^-11): tie"},
      {0x3f803000, {0x3c02, 0x3c01, 0x3c02, 0x3c01, 0x3c02}, "1 + 3*2^-11: tie, even above"},
      {0x477ff000, {0x7c00, 0x7bff, 0x7c00, 0x7bff, 0x7c00}, "65520 = max + half ulp: tie, odd rounds to inf"},
      {0x477fef00, {0x7bff, 0x7bff, 0x7c00, 0x7bff, 0x7bff}, "65519: below the tie; RU passes max"},
      {0x47c35000, {0x7c00, 0x7bff, 0x7c00, 0x7bff, 0x7c00}, "1e5 overflows"},
      {0xc7c35000, {0xfc00, 0xfbff, 0xfbff, 0xfc00, 0xfc00}, "-1e5"},
      {0x38800000, {0x0400, 0x0400, 0x0400, 0x0400, 0x0400}, "2^-14, the smallest f16 normal"},
      {0x38000000, {0x0000, 0x0000, 0x0000, 0x0000, 0x0000}, "2^-15 would be an f16 denormal: flushes"},
      {0xb8000000, {0x8000, 0x8000, 0x8000, 0x8000, 0x8000}, "-2^-15 flushes to -0"},
      // 2^-14 * (1 - 2^-12) has 12 significant bits 1.11111111111b * 2^-15: the tie rounds up to 2^-14.
      {0x387ff000, {0x0400, 0x0000, 0x0400, 0x0000, 0x0400}, "just below the smallest normal"},
      {0x7f800000, {0x7c00, 0x7c00, 0x7c00, 0x7c00, 0x7c00}, "inf"},
      {0xff800001, {0x7e00, 0x7e00, 0x7e00, 0x7e00, 0x7e00}, "NaN: canonical f16 NaN"},
      {0x80000000, {0x8000, 0x8000, 0x8000, 0x8000, 0x8000}, "-0"},
      {0x3dcccccd, {0x2e66, 0x2e66, 0x2e67, 0x2e66, 0x2e66}, "0.1"},
  };
  for (const ModeCase& c : cases)
    for (size_t m = 0; m < 5; ++m) {
      SCOPED_TRACE(std::string(c.why) + " " + modeName(kModes[m]));
      EXPECT_EQ(convertFloat(c.in, kF32, kF16, kModes[m], 0, false), c.want[m]);
      EXPECT_EQ((sem::convert<DType::F32, DType::F16>(floatOf(c.in), kModes[m], false, 0)), c.want[m]);
      if (kModes[m] == RoundingMode::RHNE) { EXPECT_EQ(sem::f32ToF16(floatOf(c.in)), c.want[m]); }
    }
  EXPECT_EQ(convertFloat(0x47c35000, kF32, kF16, RoundingMode::RHNE, 0, true), 0x7bffu);
  EXPECT_EQ(convertFloat(0xff800000, kF32, kF16, RoundingMode::RHNE, 0, true), 0xfbffu);
}

TEST(ConvertFloatToInt, EveryRoundingModeAndSaturation) {
  struct Case {
    float in;
    std::array<int64_t, 5> want;  // i32 results in kModes order
  };
  const Case cases[] = {
      {2.5f, {2, 2, 3, 2, 3}},       {-2.5f, {-2, -2, -2, -3, -3}}, {3.5f, {4, 3, 4, 3, 4}},
      {-0.5f, {0, 0, 0, -1, -1}},    {0.5f, {0, 0, 1, 0, 1}},       {2.3f, {2, 2, 3, 2, 2}},
      {-2.7f, {-3, -2, -2, -3, -3}}, {1e-30f, {0, 0, 1, 0, 0}},     {-1e-30f, {0, 0, 0, -1, 0}},
      {16777215.0f, {16777215, 16777215, 16777215, 16777215, 16777215}},
      {2147483520.0f, {2147483520, 2147483520, 2147483520, 2147483520, 2147483520}},
      {2147483648.0f, {INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX}},
      {-2147483648.0f, {INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN}},
      {3e9f, {INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX}},
      {-3e9f, {INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN}},
      {1e30f, {INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX}},
      {INFINITY, {INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX}},
      {-INFINITY, {INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN}},
      {NAN, {0, 0, 0, 0, 0}},
  };
  for (const Case& c : cases)
    for (size_t m = 0; m < 5; ++m) {
      SCOPED_TRACE(std::to_string(c.in) + " " + modeName(kModes[m]));
      // `sat` does not matter: float to int always saturates.
      EXPECT_EQ((sem::convert<DType::F32, DType::I32>(c.in, kModes[m], false, 0)), c.want[m]);
      EXPECT_EQ((sem::convert<DType::F32, DType::I32>(c.in, kModes[m], true, 0)), c.want[m]);
    }
  constexpr auto RHNE = RoundingMode::RHNE;
  // i16
  EXPECT_EQ((sem::convert<DType::F32, DType::I16>(32767.5f, RHNE, false, 0)), 32767) << "rounds to 32768, saturates";
  EXPECT_EQ((sem::convert<DType::F32, DType::I16>(32767.5f, RoundingMode::RZ, false, 0)), 32767);
  EXPECT_EQ((sem::convert<DType::F32, DType::I16>(-32768.5f, RHNE, false, 0)), -32768) << "tie to even -32768";
  EXPECT_EQ((sem::convert<DType::F32, DType::I16>(-32768.5f, RoundingMode::RD, false, 0)), -32768);
  EXPECT_EQ((sem::convert<DType::F32, DType::I16>(40000.0f, RHNE, false, 0)), 32767);
  EXPECT_EQ((sem::convert<DType::F32, DType::I16>(-40000.0f, RHNE, false, 0)), -32768);
  EXPECT_EQ((sem::convert<DType::F32, DType::I16>(NAN, RHNE, false, 0)), 0);
  // i8
  EXPECT_EQ((sem::convert<DType::F32, DType::I8>(127.4f, RHNE, false, 0)), 127);
  EXPECT_EQ((sem::convert<DType::F32, DType::I8>(127.5f, RHNE, false, 0)), 127);
  EXPECT_EQ((sem::convert<DType::F32, DType::I8>(-128.5f, RHNE, false, 0)), -128);
  EXPECT_EQ((sem::convert<DType::F32, DType::I8>(-129.0f, RHNE, false, 0)), -128);
  EXPECT_EQ((sem::convert<DType::F32, DType::I8>(126.1f, RoundingMode::RU, false, 0)), 127);
  EXPECT_EQ((sem::convert<DType::F32, DType::I8>(-INFINITY, RHNE, false, 0)), -128);
  // u8: negative values clamp to 0
  EXPECT_EQ((sem::convert<DType::F32, DType::U8>(-1.0f, RHNE, false, 0)), 0);
  EXPECT_EQ((sem::convert<DType::F32, DType::U8>(-0.4f, RHNE, false, 0)), 0);
  EXPECT_EQ((sem::convert<DType::F32, DType::U8>(-0.5f, RoundingMode::RD, false, 0)), 0);
  EXPECT_EQ((sem::convert<DType::F32, DType::U8>(255.5f, RHNE, false, 0)), 255);
  EXPECT_EQ((sem::convert<DType::F32, DType::U8>(254.5f, RHNE, false, 0)), 254);
  EXPECT_EQ((sem::convert<DType::F32, DType::U8>(253.5f, RHNE, false, 0)), 254);
  EXPECT_EQ((sem::convert<DType::F32, DType::U8>(300.0f, RHNE, false, 0)), 255);
  EXPECT_EQ((sem::convert<DType::F32, DType::U8>(NAN, RHNE, false, 0)), 0);
  EXPECT_EQ((sem::convert<DType::F32, DType::U8>(-INFINITY, RHNE, false, 0)), 0);
  EXPECT_EQ((sem::convert<DType::F32, DType::U8>(INFINITY, RHNE, false, 0)), 255);
  // u16, u32
  EXPECT_EQ((sem::convert<DType::F32, DType::U16>(65535.5f, RHNE, false, 0)), 65535);
  EXPECT_EQ((sem::convert<DType::F32, DType::U32>(4294967040.0f, RHNE, false, 0)), 4294967040u);
  EXPECT_EQ((sem::convert<DType::F32, DType::U32>(4294967296.0f, RHNE, false, 0)), 0xffffffffu);
  EXPECT_EQ((sem::convert<DType::F32, DType::U32>(-1.0f, RHNE, false, 0)), 0u);
  // From bf16 and f16 sources.
  EXPECT_EQ((sem::convert<DType::BF16, DType::I32>(0x4020, RHNE, false, 0)), 2) << "bf16 2.5: tie to even";
  EXPECT_EQ((sem::convert<DType::BF16, DType::I32>(0x4020, RoundingMode::RHAZ, false, 0)), 3);
  EXPECT_EQ((sem::convert<DType::F16, DType::I8>(0x7bff, RHNE, false, 0)), 127) << "65504 saturates";
  EXPECT_EQ((sem::convert<DType::F16, DType::U8>(0x7e00, RHNE, false, 0)), 0) << "f16 NaN";
  EXPECT_EQ((sem::convert<DType::F16, DType::I16>(0xc100, RoundingMode::RU, false, 0)), -2) << "-2.5 toward +inf";
}

TEST(ConvertIntToFloat, EveryRoundingMode) {
  struct Case {
    int64_t in;
    std::array<uint32_t, 5> want;
    const char* why;
  };
  const Case toF32[] = {
      {16777217, {0x4b800000, 0x4b800000, 0x4b800001, 0x4b800000, 0x4b800001}, "2^24 + 1: tie"},
      {16777219, {0x4b800002, 0x4b800001, 0x4b800002, 0x4b800001, 0x4b800002}, "2^24 + 3: tie, even above"},
      {-16777217, {0xcb800000, 0xcb800000, 0xcb800000, 0xcb800001, 0xcb800001}, "-(2^24 + 1)"},
      {16777218, {0x4b800001, 0x4b800001, 0x4b800001, 0x4b800001, 0x4b800001}, "2^24 + 2 is exact"},
      {INT32_MAX, {0x4f000000, 0x4effffff, 0x4f000000, 0x4effffff, 0x4f000000}, "2^31 - 1"},
      {INT32_MIN, {0xcf000000, 0xcf000000, 0xcf000000, 0xcf000000, 0xcf000000}, "-2^31 is exact"},
      {0xffffffffll, {0x4f800000, 0x4f7fffff, 0x4f800000, 0x4f7fffff, 0x4f800000}, "u32 max"},
      {0, {0, 0, 0, 0, 0}, "zero"},
      {-1, {0xbf800000, 0xbf800000, 0xbf800000, 0xbf800000, 0xbf800000}, "-1"},
      {INT64_MIN, {0xdf000000, 0xdf000000, 0xdf000000, 0xdf000000, 0xdf000000}, "-2^63 (no overflow negating it)"},
      {INT64_MAX, {0x5f000000, 0x5effffff, 0x5f000000, 0x5effffff, 0x5f000000}, "2^63 - 1"},
  };
  for (const Case& c : toF32)
    for (size_t m = 0; m < 5; ++m) { EXPECT_EQ(intToFloat(c.in, kF32, kModes[m], 0), c.want[m]) << c.why << " " << modeName(kModes[m]); }
  // Through the typed conversion.
  EXPECT_EQ(bitsOf(sem::convert<DType::I32, DType::F32>(16777217, RoundingMode::RU, false, 0)), 0x4b800001u);
  EXPECT_EQ(bitsOf(sem::convert<DType::U32, DType::F32>(0xffffffffu, RoundingMode::RZ, false, 0)), 0x4f7fffffu);
  EXPECT_EQ(bitsOf(sem::convert<DType::U8, DType::F32>(255, RoundingMode::RHNE, false, 0)), 0x437f0000u);
  // bf16: 8 bits, so 257 is a tie between 256 (0x4380) and 258 (0x4381).
  EXPECT_EQ((sem::convert<DType::I32, DType::BF16>(257, RoundingMode::RHNE, false, 0)), 0x4380);
  EXPECT_EQ((sem::convert<DType::I32, DType::BF16>(257, RoundingMode::RU, false, 0)), 0x4381);
  EXPECT_EQ((sem::convert<DType::I32, DType::BF16>(259, RoundingMode::RHNE, false, 0)), 0x4382);
  EXPECT_EQ((sem::convert<DType::I16, DType::BF16>(-257, RoundingMode::RD, false, 0)), 0xc381);
  // f16: max 65504; 2049 is a tie between 2048 (0x6800) and 2050 (0x6801).
  EXPECT_EQ((sem::convert<DType::I32, DType::F16>(70000, RoundingMode::RHNE, false, 0)), 0x7c00);
  EXPECT_EQ((sem::convert<DType::I32, DType::F16>(70000, RoundingMode::RZ, false, 0)), 0x7bff);
  EXPECT_EQ((sem::convert<DType::I32, DType::F16>(2049, RoundingMode::RHNE, false, 0)), 0x6800);
  EXPECT_EQ((sem::convert<DType::I32, DType::F16>(2049, RoundingMode::RU, false, 0)), 0x6801);
  EXPECT_EQ((sem::convert<DType::I16, DType::F16>(-32768, RoundingMode::RHNE, false, 0)), 0xf800);
}

TEST(ConvertIntToInt, NarrowingWrapsOrSaturates) {
  constexpr auto R = RoundingMode::RHNE;
  EXPECT_EQ((sem::convert<DType::I32, DType::I8>(300, R, false, 0)), 44);
  EXPECT_EQ((sem::convert<DType::I32, DType::I8>(300, R, true, 0)), 127);
  EXPECT_EQ((sem::convert<DType::I32, DType::I8>(-300, R, false, 0)), -44);
  EXPECT_EQ((sem::convert<DType::I32, DType::I8>(-300, R, true, 0)), -128);
  EXPECT_EQ((sem::convert<DType::I32, DType::U8>(-1, R, false, 0)), 255);
  EXPECT_EQ((sem::convert<DType::I32, DType::U8>(-1, R, true, 0)), 0);
  EXPECT_EQ((sem::convert<DType::I32, DType::U8>(256, R, false, 0)), 0);
  EXPECT_EQ((sem::convert<DType::I32, DType::U8>(256, R, true, 0)), 255);
  EXPECT_EQ((sem::convert<DType::I32, DType::I16>(70000, R, false, 0)), 4464);
  EXPECT_EQ((sem::convert<DType::I32, DType::I16>(70000, R, true, 0)), 32767);
  EXPECT_EQ((sem::convert<DType::U32, DType::I32>(0xffffffffu, R, false, 0)), -1);
  EXPECT_EQ((sem::convert<DType::U32, DType::I32>(0xffffffffu, R, true, 0)), INT32_MAX);
  EXPECT_EQ((sem::convert<DType::I32, DType::U32>(-1, R, false, 0)), 0xffffffffu);
  EXPECT_EQ((sem::convert<DType::I32, DType::U32>(-1, R, true, 0)), 0u);
  EXPECT_EQ((sem::convert<DType::I16, DType::U16>(-5, R, false, 0)), 65531);
  EXPECT_EQ((sem::convert<DType::I16, DType::U16>(-5, R, true, 0)), 0);
  EXPECT_EQ((sem::convert<DType::U16, DType::I16>(40000, R, false, 0)), -25536);
  EXPECT_EQ((sem::convert<DType::U16, DType::I16>(40000, R, true, 0)), 32767);
  EXPECT_EQ((sem::convert<DType::U8, DType::I8>(200, R, false, 0)), -56);
  EXPECT_EQ((sem::convert<DType::U8, DType::I8>(200, R, true, 0)), 127);
  EXPECT_EQ((sem::convert<DType::I8, DType::U32>(-1, R, false, 0)), 0xffffffffu);
  EXPECT_EQ((sem::convert<DType::I8, DType::U32>(-1, R, true, 0)), 0u);
  EXPECT_EQ((sem::convert<DType::I8, DType::I32>(-1, R, true, 0)), -1) << "widening is exact";
  EXPECT_EQ((sem::convert<DType::U16, DType::U32>(65535, R, false, 0)), 65535u);
}

// Widening float conversions are exact: every bf16 and f16 bit pattern (denormals flush, NaN canonical).
TEST(ConvertWidening, Bf16AndF16ToF32AreExactForAllPatterns) {
  FailureLog log;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint32_t e = (h >> 7) & 0xff, m = h & 0x7f;
    uint32_t want = e == 0 ? (h & 0x8000) << 16 : (e == 0xff && m) ? 0x7fc00000u : h << 16;
    for (RoundingMode rm : kModes) {
      uint32_t got = bitsOf(sem::convert<DType::BF16, DType::F32>(static_cast<uint16_t>(h), rm, false, 0));
      if (got != want) log.add("bf16 0x" + std::to_string(h) + " -> f32 " + std::to_string(got));
    }
    // bf16ToF32 is the operand read of bf16 arithmetic, whose results canonicalise NaNs: there a NaN only
    // has to stay a NaN.
    uint32_t fast = bitsOf(sem::bf16ToF32(static_cast<uint16_t>(h)));
    bool fastOk = (e == 0xff && m) ? std::isnan(floatOf(fast)) : fast == want;
    if (!fastOk) log.add("bf16ToF32 " + std::to_string(h));
    // f16: reference value from the bit fields, as long double, then exactly to f32.
    uint32_t want16 = refRound(refValue(h, kRefF16), kRefF32, RoundingMode::RHNE);
    if (bitsOf(sem::f16ToF32(static_cast<uint16_t>(h))) != want16) log.add("f16ToF32 " + std::to_string(h));
    if (bitsOf(sem::convert<DType::F16, DType::F32>(static_cast<uint16_t>(h), RoundingMode::RZ, false, 0)) != want16)
      log.add("f16 -> f32 rz " + std::to_string(h));
  }
  EXPECT_EQ(log.count, 0);
  // A few written out: f16 1.0, 65504, 2^-14, -2; bf16 inf with sat becomes f32 max.
  EXPECT_EQ(bitsOf(sem::f16ToF32(0x3c00)), 0x3f800000u);
  EXPECT_EQ(bitsOf(sem::f16ToF32(0x7bff)), 0x477fe000u);
  EXPECT_EQ(bitsOf(sem::f16ToF32(0x0400)), 0x38800000u);
  EXPECT_EQ(bitsOf(sem::f16ToF32(0xc000)), 0xc0000000u);
  EXPECT_EQ(bitsOf(sem::f16ToF32(0x7c01)), 0x7fc00000u);
  EXPECT_EQ(convertFloat(0x7f80, kBF16, kF32, RoundingMode::RHNE, 0, true), 0x7f7fffffu);
  // Narrowing f16 -> bf16 rounds: f16 1 + 2^-10 (0x3c01) is a bf16 tie-free case below half an ulp.
  EXPECT_EQ(convertFloat(0x3c01, kF16, kBF16, RoundingMode::RHNE, 0, false), 0x3f80u);
  EXPECT_EQ(convertFloat(0x3c01, kF16, kBF16, RoundingMode::RU, 0, false), 0x3f81u);
  EXPECT_EQ(convertFloat(0x0080, kBF16, kF16, RoundingMode::RHNE, 0, false), 0x0000u) << "2^-126 is far below f16";
}

// Sweeps of the deterministic modes against the long double reference.
TEST(ConvertSweep, FloatNarrowingMatchesReference) {
  std::mt19937 rng(77);
  FailureLog log;
  for (int i = 0; i < 60000; ++i) {
    // Half the inputs: all patterns, the others: values near the f16 range where f16 rounding matters.
    uint32_t x = i % 2 ? rng() : ((rng() & 0x80000000u) | ((0x60u + rng() % 0x40u) << 23) | (rng() & 0x7fffffu));
    long double v = refValue(x, kRefF32);
    for (RoundingMode rm : kModes)
      for (bool sat : {false, true}) {
        uint32_t wantB = refRound(v, kRefBF16, rm, sat), wantH = refRound(v, kRefF16, rm, sat);
        uint32_t gotB = convertFloat(x, kF32, kBF16, rm, 0, sat), gotH = convertFloat(x, kF32, kF16, rm, 0, sat);
        if (gotB != wantB) log.add("f32->bf16 0x" + std::to_string(x) + " " + modeName(rm));
        if (gotH != wantH) log.add("f32->f16 0x" + std::to_string(x) + " " + modeName(rm));
      }
    if (sem::f32ToBf16(floatOf(x)) != refRound(v, kRefBF16, RoundingMode::RHNE)) log.add("f32ToBf16 " + std::to_string(x));
    if (sem::f32ToF16(floatOf(x)) != refRound(v, kRefF16, RoundingMode::RHNE)) log.add("f32ToF16 " + std::to_string(x));
  }
  EXPECT_EQ(log.count, 0);
}

TEST(ConvertSweep, FloatToIntMatchesReference) {
  std::mt19937 rng(78);
  FailureLog log;
  struct W {
    int width;
    bool isSigned;
  };
  const W widths[] = {{32, true}, {32, false}, {16, true}, {16, false}, {8, true}, {8, false}};
  for (int i = 0; i < 40000; ++i) {
    // Magnitudes from 2^-4 to 2^34 (every rounding and saturation case), plus arbitrary patterns.
    uint32_t x = i % 4 == 0 ? rng() : ((rng() & 0x80000000u) | ((123u + rng() % 38u) << 23) | (rng() & 0x7fffffu));
    long double v = refValue(x, kRefF32);
    for (const W& w : widths)
      for (RoundingMode rm : kModes) {
        long double lo = w.isSigned ? -std::ldexp(1.0L, w.width - 1) : 0;
        long double hi = w.isSigned ? std::ldexp(1.0L, w.width - 1) - 1 : std::ldexp(1.0L, w.width) - 1;
        long double want;
        if (std::isnan(v)) want = 0;
        else if (std::isinf(v)) want = v < 0 ? lo : hi;
        else want = std::clamp(std::copysign(refRoundInt(std::fabs(v), v < 0, rm), v), lo, hi);
        int64_t got = floatToInt(x, kF32, w.width, w.isSigned, rm, 0);
        if (static_cast<long double>(got) != want)
          log.add("f32 0x" + std::to_string(x) + " -> " + (w.isSigned ? "i" : "u") + std::to_string(w.width) + " " +
                  modeName(rm) + ": " + std::to_string(got));
      }
  }
  EXPECT_EQ(log.count, 0);
}

TEST(ConvertSweep, IntToFloatMatchesReference) {
  std::mt19937 rng(79);
  FailureLog log;
  for (int i = 0; i < 40000; ++i) {
    int64_t v = static_cast<int32_t>(rng()) >> (rng() % 32);  // all magnitudes
    if (i % 3 == 0) v = rng();                                // u32 range
    for (RoundingMode rm : kModes) {
      const std::pair<const RefFormat*, sem::FloatFormat> fmts[] = {{&kRefF32, kF32}, {&kRefBF16, kBF16}, {&kRefF16, kF16}};
      for (const auto& [ref, f] : fmts) {
        uint32_t want = refRound(static_cast<long double>(v), *ref, rm);
        uint32_t got = intToFloat(v, f, rm, 0);
        if (got != want) log.add("int " + std::to_string(v) + " " + modeName(rm) + " got " + std::to_string(got));
      }
    }
  }
  EXPECT_EQ(log.count, 0);
}

// A wide magnitude through roundToFormat: 2^40 + 2^16 is a tie at 24 bits (ulp 2^17).
TEST(ConvertSweep, RoundToFormatWideMagnitudes) {
  const uint64_t mag = (uint64_t{1} << 40) + (uint64_t{1} << 16);
  EXPECT_EQ(sem::roundToFormat(false, mag, 0, kF32, RoundingMode::RHNE, 0, false), 0x53800000u);
  EXPECT_EQ(sem::roundToFormat(false, mag, 0, kF32, RoundingMode::RHAZ, 0, false), 0x53800001u);
  EXPECT_EQ(sem::roundToFormat(true, mag + 1, 0, kF32, RoundingMode::RHNE, 0, false), 0xd3800001u);
  EXPECT_EQ(sem::roundToFormat(false, 3, -1, kF32, RoundingMode::RHNE, 0, false), 0x3fc00000u);  // 1.5
  EXPECT_EQ(sem::roundToFormat(false, 1, 128, kF32, RoundingMode::RZ, 0, false), 0x7f7fffffu);  // 2^128: overflow
  EXPECT_EQ(sem::roundToFormat(false, 1, -127, kF32, RoundingMode::RU, 0, false), 0u);          // 2^-127 flushes
  EXPECT_EQ(sem::roundToFormat(true, 1, 16, kF16, RoundingMode::RHNE, 0, true), 0xfbffu);       // saturates
}

// Stochastic rounding: with the random bits swept over a full period, a value whose dropped fraction is
// k / 2^shift rounds up for exactly k of the 2^shift random values, and only ever to one of its two
// neighbours.
TEST(StochasticRounding, F32ToBf16FractionMatchesSweep) {
  for (uint32_t rem : {0x0001u, 0x5000u, 0x8000u, 0xabcdu, 0xffffu}) {
    for (uint32_t sign : {0u, 0x80000000u}) {
      const uint32_t x = sign | 0x3f800000u | rem;  // 1 + rem * 2^-23; bf16 keeps the top 7 mantissa bits
      const uint32_t down = (x >> 16), up = down + 1;
      uint32_t ups = 0;
      for (uint32_t rnd = 0; rnd < 0x10000u; ++rnd) {
        uint32_t r = convertFloat(x, kF32, kBF16, RoundingMode::SR, rnd, false);
        ASSERT_TRUE(r == down || r == up) << std::hex << x << " rnd " << rnd << " -> " << r;
        ups += r == up;
      }
      EXPECT_EQ(ups, rem) << std::hex << "x=0x" << x;
      // A longer sweep (random bits above the fraction's width vary too) keeps the same proportion.
      uint32_t ups2 = 0;
      for (uint32_t rnd = 0; rnd < 0x100000u; rnd += 3) ups2 += convertFloat(x, kF32, kBF16, RoundingMode::SR, rnd * 0x9e3779b1u, false) == up;
      EXPECT_NEAR(static_cast<double>(ups2) / (0x100000 / 3 + 1), rem / 65536.0, 0.01);
    }
  }
  // Exactly representable values never move.
  for (uint32_t rnd = 0; rnd < 0x10000u; rnd += 7) ASSERT_EQ(convertFloat(0x40490000u, kF32, kBF16, RoundingMode::SR, rnd, false), 0x4049u);
  // Above the bf16 maximum, rounding up means infinity: both neighbours appear, in proportion.
  uint32_t infs = 0;
  for (uint32_t rnd = 0; rnd < 0x10000u; ++rnd) {
    uint32_t r = convertFloat(0x7f7fc000u, kF32, kBF16, RoundingMode::SR, rnd, false);
    ASSERT_TRUE(r == 0x7f7fu || r == 0x7f80u);
    infs += r == 0x7f80u;
  }
  EXPECT_EQ(infs, 0xc000u);
}

TEST(StochasticRounding, F32ToF16AndIntConversions) {
  // f32 -> f16 drops 13 bits: 1 + 0x0abc * 2^-23 rounds up for 0x0abc of 2^13 random values.
  {
    const uint32_t x = 0x3f800abcu;
    uint32_t ups = 0;
    for (uint32_t rnd = 0; rnd < 0x2000u; ++rnd) {
      uint32_t r = convertFloat(x, kF32, kF16, RoundingMode::SR, rnd, false);
      ASSERT_TRUE(r == 0x3c00u || r == 0x3c01u);
      ups += r == 0x3c01u;
    }
    EXPECT_EQ(ups, 0x0abcu);
  }
  // f32 -> i32: 2.3f = 0x40133333 is 2 + 0x133333 / 2^22.
  {
    uint32_t ups = 0, downs = 0;
    for (uint32_t rnd = 0; rnd < (1u << 22); ++rnd) {
      int64_t r = floatToInt(0x40133333u, kF32, 32, true, RoundingMode::SR, rnd);
      ups += r == 3;
      downs += r == 2;
    }
    EXPECT_EQ(ups, 0x133333u);
    EXPECT_EQ(ups + downs, 1u << 22);
    EXPECT_NEAR(ups / static_cast<double>(1u << 22), 0.3, 0.0001);
  }
  // Negative values round away from zero with the same probability: -2.3 -> -3 for 0x133333 values.
  {
    uint32_t aways = 0;
    for (uint32_t rnd = 0; rnd < (1u << 22); rnd += 1) aways += floatToInt(0xc0133333u, kF32, 32, true, RoundingMode::SR, rnd) == -3;
    EXPECT_EQ(aways, 0x133333u);
  }
  // 1048576.375 = 2^20 + 3/8: 3 of 8 random values round up.
  {
    uint32_t ups = 0;
    for (uint32_t rnd = 0; rnd < 8; ++rnd) ups += floatToInt(bitsOf(1048576.375f), kF32, 32, true, RoundingMode::SR, rnd) == 1048577;
    EXPECT_EQ(ups, 3u);
  }
  // 1.5 * 2^-10 drops 33 bits: it rounds up to 1 with probability 3 * 2^22 / 2^33 = 3/2048. The random
  // word supplies the top 32 of those bits; of the 4096 values j * 2^20, exactly j >= 4090 round up.
  {
    uint32_t ups = 0;
    for (uint32_t j = 0; j < 4096; ++j) ups += floatToInt(0x3ac00000u, kF32, 32, true, RoundingMode::SR, j << 20) == 1;
    EXPECT_EQ(ups, 6u);
  }
  // i32 -> f32: 2^26 + 5 drops 3 bits (5/8 round up); 2^24 + 1 drops one (half round up).
  {
    uint32_t ups = 0;
    for (uint32_t rnd = 0; rnd < 1024; ++rnd) {
      uint32_t r = intToFloat((1 << 26) + 5, kF32, RoundingMode::SR, rnd);
      ASSERT_TRUE(r == 0x4c800000u || r == 0x4c800001u);
      ups += r == 0x4c800001u;
    }
    EXPECT_EQ(ups, 640u);
    EXPECT_NE(intToFloat((1 << 24) + 1, kF32, RoundingMode::SR, 0), intToFloat((1 << 24) + 1, kF32, RoundingMode::SR, 1));
  }
  // Through the typed conversion with random (not swept) bits: the share is within 5 sigma.
  {
    std::mt19937 rng(5);
    const int n = 20000;
    int ups = 0;
    for (int i = 0; i < n; ++i) ups += sem::convert<DType::F32, DType::BF16>(floatOf(0x3f804000u), RoundingMode::SR, false, rng()) == 0x3f81;
    const double p = 0.25, sigma = std::sqrt(p * (1 - p) / n);
    EXPECT_NEAR(ups / static_cast<double>(n), p, 5 * sigma);
  }
}
