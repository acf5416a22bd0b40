// VPU instructions executed through the simulator (ld_tnsr in, registers read back through Core::r)
// against host expectations written here, independently of intrinsics/semantics.
#include <algorithm>
#include <cstring>
#include <limits>

#include "sim_test_util.h"

namespace simtest {
namespace {

template <class T> T clampTo(int64_t v) {
  return static_cast<T>(std::clamp<int64_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}
template <class T> T wrapTo(int64_t v) { return static_cast<T>(static_cast<std::make_unsigned_t<T>>(v)); }

float refMax(float x, float y) {
  x = f32In(x);
  y = f32In(y);
  if (std::isnan(x) || std::isnan(y)) return floatOf(0x7fc00000u);
  if (x == 0 && y == 0) return (std::signbit(x) && std::signbit(y)) ? -0.0f : 0.0f;
  return x > y ? x : y;
}
float refMin(float x, float y) {
  x = f32In(x);
  y = f32In(y);
  if (std::isnan(x) || std::isnan(y)) return floatOf(0x7fc00000u);
  if (x == 0 && y == 0) return (std::signbit(x) || std::signbit(y)) ? -0.0f : 0.0f;
  return x < y ? x : y;
}

TEST(VectorInsns, F32Arithmetic) {
  Rng rng(1);
  std::vector<float> a = rng.floats(64, -100, 100), b = rng.floats(64, -100, 100), c = rng.floats(64, -1e4f, 1e4f);
  // Special lanes: signed zeros, a NaN, infinities, a denormal input (flushed), equal values.
  a[0] = 0.0f, b[0] = -0.0f;
  a[1] = -0.0f, b[1] = -0.0f;
  a[2] = NAN;
  b[3] = INFINITY;
  a[4] = floatOf(0x00000005u), b[4] = -1.0f;
  a[5] = b[5] = 7.25f;
  auto r = runVector({vin(DType::F32, a), vin(DType::F32, b), vin(DType::F32, c)},
                     lines({"nop ; nop ; add.f32 v10, v0, v1 ; nop",
                            "nop ; nop ; sub.f32 v11, v0, v1 ; nop",
                            "nop ; nop ; mul.f32 v12, v0, v1 ; nop",
                            "nop ; nop ; max.f32 v13, v0, v1 ; nop",
                            "nop ; nop ; min.f32 v14, v0, v1 ; nop",
                            "nop ; nop ; madd.f32 v15, v0, v1, v2 ; nop",
                            "nop ; nop ; mov.f32 v16, v2 ; nop",
                            "nop ; nop ; mac.f32 v16, v0, v1 ; nop",
                            "nop ; nop ; abs.f32 v17, v1 ; nop",
                            "nop ; nop ; neg.f32 v18, v1 ; nop"}));
  auto lane = [&](auto f) { return mapLanes<float>(64, f); };
  EXPECT_TRUE(lanesEqual(r->vreg<float>(10), lane([&](size_t i) { return f32Out(f32In(a[i]) + f32In(b[i])); })));
  EXPECT_TRUE(lanesEqual(r->vreg<float>(11), lane([&](size_t i) { return f32Out(f32In(a[i]) - f32In(b[i])); })));
  EXPECT_TRUE(lanesEqual(r->vreg<float>(12), lane([&](size_t i) { return f32Out(f32In(a[i]) * f32In(b[i])); })));
  EXPECT_TRUE(lanesEqual(r->vreg<float>(13), lane([&](size_t i) { return refMax(a[i], b[i]); })));
  EXPECT_TRUE(lanesEqual(r->vreg<float>(14), lane([&](size_t i) { return refMin(a[i], b[i]); })));
  // madd and mac are fused: one rounding of c + a*b.
  auto fused = [&](size_t i) { return f32Out(std::fma(f32In(a[i]), f32In(b[i]), f32In(c[i]))); };
  EXPECT_TRUE(lanesEqual(r->vreg<float>(15), lane(fused)));
  EXPECT_TRUE(lanesEqual(r->vreg<float>(16), lane(fused)));
  EXPECT_TRUE(lanesEqual(r->vreg<float>(17), lane([&](size_t i) { return f32Out(std::fabs(f32In(b[i]))); })));
  EXPECT_TRUE(lanesEqual(r->vreg<float>(18), lane([&](size_t i) { return f32Out(-f32In(b[i])); })));
  // Spot checks that do not depend on the helpers above.
  EXPECT_EQ(bitsOf(r->vreg<float>(13)[0]), 0x00000000u);  // max(+0, -0) = +0
  EXPECT_EQ(bitsOf(r->vreg<float>(14)[0]), 0x80000000u);  // min(+0, -0) = -0
  EXPECT_EQ(bitsOf(r->vreg<float>(10)[2]), 0x7fc00000u);  // NaN is canonical
  EXPECT_EQ(bitsOf(r->vreg<float>(10)[4]), bitsOf(-1.0f));  // denormal input flushed
  EXPECT_EQ(bitsOf(r->vreg<float>(18)[3]), 0xff800000u);
}

TEST(VectorInsns, Bf16ArithmeticRoundsOnce) {
  Rng rng(2);
  std::vector<uint16_t> a(128), b(128), c(128);
  for (int i = 0; i < 128; ++i) {
    a[i] = floatToBf16(rng.uniform(-300, 300));
    b[i] = floatToBf16(rng.uniform(-3, 3));
    c[i] = floatToBf16(rng.uniform(-1000, 1000));
  }
  a[0] = 0x3f81, b[0] = 0x3b80;  // 1.0078125 + 2^-8: a tie that rounds to even
  a[1] = 0x3f80, b[1] = 0x3b80;  // 1 + 2^-8: a tie, stays at 1
  auto r = runVector({vin(DType::BF16, a), vin(DType::BF16, b), vin(DType::BF16, c)},
                     lines({"nop ; nop ; add.bf16 v10, v0, v1 ; nop",
                            "nop ; nop ; sub.bf16 v11, v0, v1 ; nop",
                            "nop ; nop ; mul.bf16 v12, v0, v1 ; nop",
                            "nop ; nop ; max.bf16 v13, v0, v1 ; nop",
                            "nop ; nop ; min.bf16 v14, v0, v1 ; nop",
                            "nop ; nop ; madd.bf16 v15, v0, v1, v2 ; nop",
                            "nop ; nop ; neg.bf16 v16, v0 ; nop",
                            "nop ; nop ; abs.bf16 v17, v0 ; nop"}));
  auto lane = [&](auto f) { return mapLanes<uint16_t>(128, f); };
  auto A = [&](size_t i) { return static_cast<double>(bf16ToFloat(a[i])); };
  auto B = [&](size_t i) { return static_cast<double>(bf16ToFloat(b[i])); };
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(10), lane([&](size_t i) { return doubleToBf16(A(i) + B(i)); })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(11), lane([&](size_t i) { return doubleToBf16(A(i) - B(i)); })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(12), lane([&](size_t i) { return doubleToBf16(A(i) * B(i)); })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(13), lane([&](size_t i) { return A(i) > B(i) ? a[i] : b[i]; })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(14), lane([&](size_t i) { return A(i) < B(i) ? a[i] : b[i]; })));
  // madd on bf16 lanes computes in f32: the product of two bf16 values is exact there, the sum is rounded
  // to f32 and then to bf16.
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(15), lane([&](size_t i) {
    float p = static_cast<float>(A(i) * B(i));
    float s = p + bf16ToFloat(c[i]);
    return floatToBf16(s);
  })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(16), lane([&](size_t i) { return static_cast<uint16_t>(a[i] ^ 0x8000u); })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(17), lane([&](size_t i) { return static_cast<uint16_t>(a[i] & 0x7fffu); })));
  EXPECT_EQ(r->vreg<uint16_t>(10)[0], 0x3f82u);
  EXPECT_EQ(r->vreg<uint16_t>(10)[1], 0x3f80u);
}

TEST(VectorInsns, I8ArithmeticWrapsOrSaturates) {
  Rng rng(3);
  std::vector<int8_t> a = rng.ints<int8_t>(256, -128, 127), b = rng.ints<int8_t>(256, -128, 127);
  std::vector<int8_t> sh = rng.ints<int8_t>(256, 0, 20);  // shift amounts, taken modulo 8
  a[0] = -128, b[0] = -1;
  a[1] = 127, b[1] = 1;
  auto r = runVector({vin(DType::I8, a), vin(DType::I8, b), vin(DType::I8, sh)},
                     lines({"nop ; nop ; add.i8 v10, v0, v1 ; nop",
                            "nop ; nop ; add.i8 v11, v0, v1 sat ; nop",
                            "nop ; nop ; sub.i8 v12, v0, v1 sat ; nop",
                            "nop ; nop ; mul.i8 v13, v0, v1 ; nop",
                            "nop ; nop ; max.i8 v14, v0, v1 ; nop",
                            "nop ; nop ; min.i8 v15, v0, v1 ; nop",
                            "nop ; nop ; abs.i8 v16, v0 ; nop",
                            "nop ; nop ; neg.i8 v17, v0 ; nop",
                            "nop ; nop ; shl.i8 v18, v0, v2 ; nop",
                            "nop ; nop ; shr.i8 v19, v0, v2 ; nop",
                            "nop ; nop ; not.i8 v20, v0 ; nop",
                            "nop ; nop ; xor.i8 v21, v0, v1 ; nop"}));
  auto lane = [&](auto f) { return mapLanes<int8_t>(256, f); };
  EXPECT_TRUE(lanesEqual(r->vreg<int8_t>(10), lane([&](size_t i) { return wrapTo<int8_t>(a[i] + b[i]); })));
  EXPECT_TRUE(lanesEqual(r->vreg<int8_t>(11), lane([&](size_t i) { return clampTo<int8_t>(a[i] + b[i]); })));
  EXPECT_TRUE(lanesEqual(r->vreg<int8_t>(12), lane([&](size_t i) { return clampTo<int8_t>(a[i] - b[i]); })));
  EXPECT_TRUE(lanesEqual(r->vreg<int8_t>(13), lane([&](size_t i) { return wrapTo<int8_t>(a[i] * b[i]); })));
  EXPECT_TRUE(lanesEqual(r->vreg<int8_t>(14), lane([&](size_t i) { return std::max(a[i], b[i]); })));
  EXPECT_TRUE(lanesEqual(r->vreg<int8_t>(15), lane([&](size_t i) { return std::min(a[i], b[i]); })));
  EXPECT_TRUE(lanesEqual(r->vreg<int8_t>(16), lane([&](size_t i) { return wrapTo<int8_t>(a[i] < 0 ? -a[i] : a[i]); })));
  EXPECT_TRUE(lanesEqual(r->vreg<int8_t>(17), lane([&](size_t i) { return wrapTo<int8_t>(-a[i]); })));
  EXPECT_TRUE(lanesEqual(r->vreg<int8_t>(18), lane([&](size_t i) {
    return wrapTo<int8_t>(static_cast<uint8_t>(a[i]) << (sh[i] % 8));
  })));
  EXPECT_TRUE(lanesEqual(r->vreg<int8_t>(19), lane([&](size_t i) {
    // Arithmetic shift: floor division by a power of two.
    return static_cast<int8_t>(std::floor(a[i] / std::pow(2.0, sh[i] % 8)));
  })));
  EXPECT_TRUE(lanesEqual(r->vreg<int8_t>(20), lane([&](size_t i) { return static_cast<int8_t>(-1 - a[i]); })));
  EXPECT_TRUE(lanesEqual(r->vreg<int8_t>(21), lane([&](size_t i) { return static_cast<int8_t>(a[i] ^ b[i]); })));
  EXPECT_EQ(r->vreg<int8_t>(10)[0], 127);   // -128 + -1 wraps
  EXPECT_EQ(r->vreg<int8_t>(11)[0], -128);  // saturates
  EXPECT_EQ(r->vreg<int8_t>(16)[0], -128);  // abs(-128) wraps
}

TEST(VectorInsns, U16ArithmeticAndLogic) {
  Rng rng(4);
  std::vector<uint16_t> a = rng.ints<uint16_t>(128, 0, 65535), b = rng.ints<uint16_t>(128, 0, 65535);
  std::vector<uint16_t> sh = rng.ints<uint16_t>(128, 0, 40);
  a[0] = 3, b[0] = 5;
  auto r = runVector({vin(DType::U16, a), vin(DType::U16, b), vin(DType::U16, sh)},
                     lines({"nop ; nop ; add.u16 v10, v0, v1 ; nop",
                            "nop ; nop ; add.u16 v11, v0, v1 sat ; nop",
                            "nop ; nop ; sub.u16 v12, v0, v1 sat ; nop",
                            "nop ; nop ; sub.u16 v13, v0, v1 ; nop",
                            "nop ; nop ; and.u16 v14, v0, v1 ; nop",
                            "nop ; nop ; or.u16 v15, v0, v1 ; nop",
                            "nop ; nop ; shl.u16 v16, v0, v2 ; nop",
                            "nop ; nop ; shr.u16 v17, v0, v2 ; nop",
                            "nop ; nop ; mul.u16 v18, v0, v1 ; nop",
                            "nop ; nop ; max.u16 v19, v0, v1 ; nop",
                            "nop ; nop ; mov.u16 v20, v2 ; nop",
                            "nop ; nop ; mac.u16 v20, v0, v1 sat ; nop"}));
  auto lane = [&](auto f) { return mapLanes<uint16_t>(128, f); };
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(10), lane([&](size_t i) { return static_cast<uint16_t>((a[i] + b[i]) & 0xffff); })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(11), lane([&](size_t i) { return clampTo<uint16_t>(a[i] + b[i]); })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(12), lane([&](size_t i) { return clampTo<uint16_t>(int64_t{a[i]} - b[i]); })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(13), lane([&](size_t i) { return static_cast<uint16_t>((a[i] - b[i]) & 0xffff); })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(14), lane([&](size_t i) { return static_cast<uint16_t>(a[i] & b[i]); })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(15), lane([&](size_t i) { return static_cast<uint16_t>(a[i] | b[i]); })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(16), lane([&](size_t i) { return static_cast<uint16_t>((a[i] << (sh[i] % 16)) & 0xffff); })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(17), lane([&](size_t i) { return static_cast<uint16_t>(a[i] >> (sh[i] % 16)); })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(18), lane([&](size_t i) { return static_cast<uint16_t>((uint32_t{a[i]} * b[i]) & 0xffff); })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(19), lane([&](size_t i) { return std::max(a[i], b[i]); })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(20), lane([&](size_t i) { return clampTo<uint16_t>(int64_t{sh[i]} + int64_t{a[i]} * b[i]); })));
  EXPECT_EQ(r->vreg<uint16_t>(12)[0], 0u);  // 3 - 5 saturates at 0
  EXPECT_EQ(r->vreg<uint16_t>(13)[0], 65534u);
}

TEST(VectorInsns, I32ShiftsAndLogic) {
  Rng rng(5);
  std::vector<int32_t> a = rng.ints<int32_t>(64, INT32_MIN, INT32_MAX), b = rng.ints<int32_t>(64, INT32_MIN, INT32_MAX);
  std::vector<int32_t> sh = rng.ints<int32_t>(64, 0, 100);
  auto r = runVector({vin(DType::I32, a), vin(DType::I32, b), vin(DType::I32, sh)},
                     lines({"nop ; nop ; shl.i32 v10, v0, v2 ; nop",
                            "nop ; nop ; shr.i32 v11, v0, v2 ; nop",
                            "nop ; nop ; and.i32 v12, v0, v1 ; nop",
                            "nop ; nop ; or.i32 v13, v0, v1 ; nop",
                            "nop ; nop ; xor.i32 v14, v0, v1 ; nop",
                            "nop ; nop ; not.i32 v15, v0 ; nop",
                            "nop ; nop ; add.i32 v16, v0, v1 sat ; nop",
                            "nop ; nop ; mul.i32 v17, v0, v1 ; nop",
                            "nop ; nop ; shr.u32 v18, v0, v2 ; nop"}));
  auto lane = [&](auto f) { return mapLanes<int32_t>(64, f); };
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(10), lane([&](size_t i) { return wrapTo<int32_t>(int64_t{static_cast<uint32_t>(a[i])} << (sh[i] % 32)); })));
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(11), lane([&](size_t i) {
    return static_cast<int32_t>(std::floor(static_cast<double>(a[i]) / std::pow(2.0, sh[i] % 32)));
  })));
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(12), lane([&](size_t i) { return a[i] & b[i]; })));
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(13), lane([&](size_t i) { return a[i] | b[i]; })));
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(14), lane([&](size_t i) { return a[i] ^ b[i]; })));
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(15), lane([&](size_t i) { return ~a[i]; })));
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(16), lane([&](size_t i) { return clampTo<int32_t>(int64_t{a[i]} + b[i]); })));
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(17), lane([&](size_t i) { return wrapTo<int32_t>(int64_t{a[i]} * b[i]); })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint32_t>(18), mapLanes<uint32_t>(64, [&](size_t i) {
    return static_cast<uint32_t>(a[i]) >> (sh[i] % 32);
  })));
}

TEST(VectorInsns, BroadcastFromScalarRegisterAndImmediate) {
  Rng rng(6);
  std::vector<float> a = rng.floats(64, -10, 10);
  std::vector<int32_t> ai = rng.ints<int32_t>(64, -1000, 1000);
  std::vector<uint16_t> ab(128);
  for (auto& x : ab) x = floatToBf16(rng.uniform(-10, 10));
  std::vector<int8_t> a8 = rng.ints<int8_t>(256, -128, 127);
  // s0 = 2.5f, s1 = bf16 3.0 in the low half, s2 = -5 (i8 sign-extended), s3 = 0x0f0f0f0f.
  std::vector<uint32_t> scalars = {bitsOf(2.5f), 0x4040u, 0xfffffffbu, 0x0f0f0f0fu};
  auto r = runVector({vin(DType::F32, a), vin(DType::I32, ai), vin(DType::BF16, ab), vin(DType::I8, a8)},
                     lines({"nop ; nop ; add.f32 v10, v0, s0 ; nop",
                            "nop ; nop ; mul.bf16 v11, v2, s1 ; nop",
                            "nop ; nop ; add.i8 v12, v3, s2 ; nop",
                            "nop ; nop ; and.i32 v13, v1, s3 ; nop",
                            "nop ; nop ; add.i32 v14, v1, -7 ; nop",
                            "nop ; nop ; mul.f32 v15, v0, 0.5 ; nop",
                            "nop ; nop ; sub.bf16 v16, v2, 1.5 ; nop",
                            "nop ; nop ; mov.f32 v17, s0 ; nop",
                            "nop ; nop ; mov.i32 v18, 123456 ; nop",
                            "nop ; nop ; madd.f32 v19, v0, s0, 1.0 ; nop",
                            "nop ; nop ; max.i8 v20, v3, 0 ; nop",
                            "mov.i32 v21, s3 ; nop ; nop ; nop"}),
                     scalars);
  EXPECT_TRUE(lanesEqual(r->vreg<float>(10), mapLanes<float>(64, [&](size_t i) { return a[i] + 2.5f; })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(11), mapLanes<uint16_t>(128, [&](size_t i) { return doubleToBf16(bf16ToFloat(ab[i]) * 3.0); })));
  EXPECT_TRUE(lanesEqual(r->vreg<int8_t>(12), mapLanes<int8_t>(256, [&](size_t i) { return wrapTo<int8_t>(a8[i] - 5); })));
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(13), mapLanes<int32_t>(64, [&](size_t i) { return ai[i] & 0x0f0f0f0f; })));
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(14), mapLanes<int32_t>(64, [&](size_t i) { return ai[i] - 7; })));
  EXPECT_TRUE(lanesEqual(r->vreg<float>(15), mapLanes<float>(64, [&](size_t i) { return a[i] * 0.5f; })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(16), mapLanes<uint16_t>(128, [&](size_t i) { return doubleToBf16(bf16ToFloat(ab[i]) - 1.5); })));
  EXPECT_TRUE(lanesEqual(r->vreg<float>(17), std::vector<float>(64, 2.5f)));
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(18), std::vector<int32_t>(64, 123456)));
  EXPECT_TRUE(lanesEqual(r->vreg<float>(19), mapLanes<float>(64, [&](size_t i) {
    return std::fma(a[i], 2.5f, 1.0f);  // fused
  })));
  EXPECT_TRUE(lanesEqual(r->vreg<int8_t>(20), mapLanes<int8_t>(256, [&](size_t i) { return std::max<int8_t>(a8[i], 0); })));
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(21), std::vector<int32_t>(64, 0x0f0f0f0f)));
}

TEST(VectorInsns, CompareIntoVectorPredicateThenSelect) {
  Rng rng(7);
  std::vector<float> a = rng.floats(64, -4, 4), b = rng.floats(64, -4, 4), x = rng.floats(64, 100, 200),
                     y = rng.floats(64, -200, -100);
  for (int i = 0; i < 64; i += 5) b[i] = a[i];  // equal lanes
  a[1] = NAN;
  std::vector<int32_t> k = rng.ints<int32_t>(64, -3, 3);
  auto r = runVector({vin(DType::F32, a), vin(DType::F32, b), vin(DType::F32, x), vin(DType::F32, y),
                      vin(DType::I32, k)},
                     lines({"nop ; nop ; cmp_less.f32 vp1, v0, v1 ; nop",
                            "nop ; nop ; cmp_eq.f32 vp2, v0, v1 ; nop",
                            "nop ; nop ; cmp_neq.f32 vp3, v0, v1 ; nop",
                            "nop ; nop ; cmp_geq.i32 vp4, v4, 0 ; nop",
                            "nop ; nop ; cmp_grt.i32 vp5, v4, s0 ; nop",
                            "nop ; nop ; cmp_leq.f32 vp6, v0, v1 ; nop",
                            "nop ; nop ; sel_less.f32.f32 v10, v0, v1, v2, v3 ; nop",
                            "nop ; nop ; sel_geq.i32.f32 v11, v4, 0, v2, v3 ; nop",
                            "nop ; nop ; sel_eq.f32.i32 v12, v0, v1, v4, 77 ; nop",
                            "nop ; nop ; mov.f32 v13, v3 ; nop",
                            "nop ; nop ; @vp1 mov.f32 v13, v2 ; nop",
                            "nop ; nop ; vp_and vp7, vp1, vp4 ; nop",
                            "nop ; nop ; vp_not vp8, vp2 ; nop"}),
                     {1u});
  Core& c = r->core();
  for (int i = 0; i < 64; ++i) {
    SCOPED_TRACE("lane " + std::to_string(i));
    EXPECT_EQ(c.r.vp[1].bit(i), a[i] < b[i]);
    EXPECT_EQ(c.r.vp[2].bit(i), a[i] == b[i]);
    EXPECT_EQ(c.r.vp[3].bit(i), !(a[i] == b[i]));
    EXPECT_EQ(c.r.vp[4].bit(i), k[i] >= 0);
    EXPECT_EQ(c.r.vp[5].bit(i), k[i] > 1);
    EXPECT_EQ(c.r.vp[6].bit(i), a[i] <= b[i]);
    EXPECT_EQ(c.r.vp[7].bit(i), a[i] < b[i] && k[i] >= 0);
    EXPECT_EQ(c.r.vp[8].bit(i), !(a[i] == b[i]));
  }
  // A comparison of 64 lanes clears the other predicate bits.
  for (int i = 64; i < 256; ++i) ASSERT_FALSE(c.r.vp[1].bit(i)) << i;
  EXPECT_TRUE(c.r.vp[3].bit(1));  // NaN != x
  EXPECT_TRUE(lanesEqual(r->vreg<float>(10), mapLanes<float>(64, [&](size_t i) { return a[i] < b[i] ? x[i] : y[i]; })));
  EXPECT_TRUE(lanesEqual(r->vreg<float>(11), mapLanes<float>(64, [&](size_t i) { return k[i] >= 0 ? x[i] : y[i]; })));
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(12), mapLanes<int32_t>(64, [&](size_t i) { return a[i] == b[i] ? k[i] : 77; })));
  EXPECT_TRUE(lanesEqual(r->vreg<float>(13), mapLanes<float>(64, [&](size_t i) { return a[i] < b[i] ? x[i] : y[i]; })));
}

TEST(VectorInsns, GroupMovesShuffleLaneIdFclass) {
  std::vector<uint8_t> src(256), dst(256);
  for (int i = 0; i < 256; ++i) src[i] = static_cast<uint8_t>(i), dst[i] = static_cast<uint8_t>(0xA0 ^ i);
  Rng rng(8);
  std::vector<int32_t> idx = rng.ints<int32_t>(64, 0, 1000);
  std::vector<uint8_t> idx8 = rng.ints<uint8_t>(256, 0, 255);
  auto r = runVector({vin(DType::U8, src), vin(DType::U8, dst), vin(DType::I32, idx), vin(DType::U8, idx8)},
                     lines({"nop ; nop ; mov.u8 v10, v1 ; nop",
                            "nop ; nop ; mov_dual_group v10, v0, 0xffffffff sdg=2 ddg=1 wr=3 ; nop",
                            "nop ; nop ; mov.u8 v20, v1 ; nop",
                            "nop ; nop ; mov_dual_group v20, v0, 0xf000000f sdg=3 ddg=0 wr=2 ; nop",
                            "nop ; nop ; mov.u8 v11, v1 ; nop",
                            "nop ; nop ; mov_group.u8 v11, v0, 0xf00000ff gen=2 dgen=10 ; nop",
                            "nop ; nop ; permute.i32 v12, v0, v2 ; nop",
                            "nop ; nop ; permute.u8 v13, v0, v3 ; nop",
                            "nop ; nop ; mov.u8 v17, v1 ; nop",
                            "nop ; nop ; shuffle.i32 v17, v0, v2 ; nop",
                            "nop ; nop ; mov.u8 v18, v1 ; nop",
                            "nop ; nop ; shuffle.u8 v18, v0, v3 ; nop",
                            "nop ; nop ; mov.u8 v19, v1 ; nop",
                            "nop ; nop ; shuffle.i16 v19, v0, v3 ; nop",
                            "nop ; nop ; lane_id.i32 v14 ; nop",
                            "nop ; nop ; lane_id.u16 v15 ; nop",
                            "nop ; nop ; lane_id.i8 v16 ; nop"}));
  // mov_dual_group: bytes [64,128) of the destination come from bytes [128,192) of the source.
  std::vector<uint8_t> want = dst;
  for (int i = 0; i < 64; ++i) want[64 + i] = src[128 + i];
  EXPECT_TRUE(lanesEqual(r->vreg<uint8_t>(10), want));
  // mov_dual_group wr=0b10 with byte mask 0xf000000f: bytes 0-3 and 28-31 of the upper group of dual group
  // 0 come from the upper group of dual group 3.
  want = dst;
  for (int j = 0; j < 32; ++j)
    if (j < 4 || j >= 28) want[32 + j] = src[3 * 64 + 32 + j];
  EXPECT_TRUE(lanesEqual(r->vreg<uint8_t>(20), want));
  // mov_group gen=0b10 dgen=0b1010: the upper group of dual groups 1 and 3 gets the lower group's bytes
  // 0-7 and 28-31 (mask 0xf00000ff).
  want = dst;
  for (int dg : {1, 3})
    for (int j = 0; j < 32; ++j)
      if (j < 8 || j >= 28) want[64 * dg + 32 + j] = src[64 * dg + j];
  EXPECT_TRUE(lanesEqual(r->vreg<uint8_t>(11), want));
  // shuffle: within each dual group; the selector byte is the element's first byte of b: bit 7 enables,
  // bit 5 picks the group, the low bits the element of the group. Disabled elements keep the old value.
  auto shuffled = [&](size_t width, size_t i, const uint8_t* sel) -> int64_t {
    size_t perGroup = 32 / width;
    uint8_t b = sel[i * width];
    if (!(b & 0x80)) return -1;
    return static_cast<int64_t>((i / (2 * perGroup)) * 2 * perGroup + ((b >> 5) & 1) * perGroup + (b & (perGroup - 1)));
  };
  std::vector<uint8_t> idxBytes(256);
  std::memcpy(idxBytes.data(), idx.data(), 256);
  std::vector<int32_t> dstI32 = fromBytes<int32_t>(dst);
  std::vector<int32_t> srcI32s = fromBytes<int32_t>(src);
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(17), mapLanes<int32_t>(64, [&](size_t i) {
    int64_t k = shuffled(4, i, idxBytes.data());
    return k < 0 ? dstI32[i] : srcI32s[k];
  })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint8_t>(18), mapLanes<uint8_t>(256, [&](size_t i) {
    int64_t k = shuffled(1, i, idx8.data());
    return k < 0 ? dst[i] : src[k];
  })));
  std::vector<int16_t> dstI16 = fromBytes<int16_t>(dst), srcI16 = fromBytes<int16_t>(src);
  EXPECT_TRUE(lanesEqual(r->vreg<int16_t>(19), mapLanes<int16_t>(128, [&](size_t i) {
    int64_t k = shuffled(2, i, idx8.data());
    return k < 0 ? dstI16[i] : srcI16[k];
  })));
  // permute: lane i takes source lane (low byte of index lane i) mod lanes.
  std::vector<int32_t> srcI32 = fromBytes<int32_t>(src);
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(12), mapLanes<int32_t>(64, [&](size_t i) { return srcI32[(idx[i] & 0xff) % 64]; })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint8_t>(13), mapLanes<uint8_t>(256, [&](size_t i) { return src[idx8[i]]; })));
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(14), mapLanes<int32_t>(64, [](size_t i) { return static_cast<int32_t>(i); })));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(15), mapLanes<uint16_t>(128, [](size_t i) { return static_cast<uint16_t>(i); })));
  EXPECT_TRUE(lanesEqual(r->vreg<int8_t>(16), mapLanes<int8_t>(256, [](size_t i) { return wrapTo<int8_t>(static_cast<int64_t>(i)); })));
}

TEST(VectorInsns, Fclass) {
  // One lane per class, in the documented bit order: -inf, -normal, -denormal, -0, +0, +denormal, +normal,
  // +inf, signaling NaN, quiet NaN.
  const uint32_t f32Classes[] = {0xff800000u, 0xc0490fdbu, 0x80000001u, 0x80000000u, 0x00000000u,
                                 0x007fffffu, 0x3f800000u, 0x7f800000u, 0x7f800001u, 0x7fc00000u};
  const uint16_t bf16Classes[] = {0xff80, 0xc049, 0x8001, 0x8000, 0x0000, 0x007f, 0x3f80, 0x7f80, 0x7f81, 0x7fc0};
  std::vector<uint32_t> a(64, 0x3f800000u);
  std::vector<uint16_t> b(128, 0x3f80);
  for (int i = 0; i < 10; ++i) a[i * 3] = f32Classes[i], b[i * 7] = bf16Classes[i];
  auto r = runVector({vin(DType::F32, a), vin(DType::BF16, b)},
                     lines({"nop ; nop ; fclass.f32 v10, v0 ; nop", "nop ; nop ; fclass.bf16 v11, v1 ; nop"}));
  std::vector<uint32_t> want(64, 1u << 6);
  for (int i = 0; i < 10; ++i) want[i * 3] = 1u << i;
  EXPECT_TRUE(lanesEqual(r->vreg<uint32_t>(10), want));
  std::vector<uint16_t> want16(128, 1u << 6);
  for (int i = 0; i < 10; ++i) want16[i * 7] = static_cast<uint16_t>(1u << i);
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(11), want16));
}

TEST(VectorInsns, PackAndUnpack) {
  Rng rng(9);
  std::vector<uint8_t> u = rng.ints<uint8_t>(256, 0, 255);
  std::vector<uint8_t> fill(256, 0xEE);
  auto r = runVector({vin(DType::U8, u), vin(DType::U8, fill)},
                     lines({"nop ; nop ; mov.u8 v10, v1 ; nop",
                            "nop ; nop ; pack.i8 v10, v0 group=1 stride4=1 ; nop",
                            "nop ; nop ; mov.u8 v11, v1 ; nop",
                            "nop ; nop ; pack.u16 v11, v0 group=0 stride4=0 ; nop",
                            "nop ; nop ; mov.u8 v12, v1 ; nop",
                            "nop ; nop ; unpack.i8 v12, v0 group=1 stride4=1 ghalf=1 ulane=2 ; nop",
                            "nop ; nop ; mov.u8 v13, v1 ; nop",
                            "nop ; nop ; unpack.bf16 v13, v0 group=1 stride4=0 ; nop"}));
  // pack.i8 stride 4 of group 1: dual group d's bytes 32, 36, ..., 60 land at bytes 16 * d + 8 .. + 15.
  std::vector<uint8_t> want = fill;
  for (int d = 0; d < 4; ++d)
    for (int k = 0; k < 8; ++k) want[64 * d + 16 * d + 8 + k] = u[64 * d + 32 + 4 * k];
  EXPECT_TRUE(lanesEqual(r->vreg<uint8_t>(10), want));
  // pack.u16 stride 2 of group 0: 16-bit elements 0, 2, ..., 14 of dual group d land at elements
  // 16 * (d mod 2) + 0 .. 7 of the dual group.
  std::vector<uint16_t> u16 = fromBytes<uint16_t>(u), fill16 = fromBytes<uint16_t>(fill);
  std::vector<uint16_t> want16 = fill16;
  for (int d = 0; d < 4; ++d)
    for (int k = 0; k < 8; ++k) want16[32 * d + 16 * (d % 2) + k] = u16[32 * d + 2 * k];
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(11), want16));
  // unpack.i8 stride 4, upper half of group 1, lane 2: byte 48 + k of dual group d goes to byte 4k + 2.
  want = fill;
  for (int d = 0; d < 4; ++d)
    for (int k = 0; k < 16; ++k) want[64 * d + 4 * k + 2] = u[64 * d + 48 + k];
  EXPECT_TRUE(lanesEqual(r->vreg<uint8_t>(12), want));
  // unpack.bf16 stride 2 of group 1: 16-bit element 16 + k of dual group d goes to element 2k.
  want16 = fill16;
  for (int d = 0; d < 4; ++d)
    for (int k = 0; k < 16; ++k) want16[32 * d + 2 * k] = u16[32 * d + 16 + k];
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(13), want16));
}

// Rounding of an f32 to bf16 by mode, on the bits (for normal values well inside the range).
uint16_t bf16Directed(uint32_t bits, char mode) {
  bool neg = bits >> 31;
  uint16_t trunc = static_cast<uint16_t>(bits >> 16);
  bool inexact = (bits & 0xffffu) != 0;
  switch (mode) {
    case 'z': return trunc;
    case 'u': return (inexact && !neg) ? trunc + 1 : trunc;
    case 'd': return (inexact && neg) ? trunc + 1 : trunc;
    default: return floatToBf16(floatOf(bits));
  }
}

TEST(VectorInsns, ConvertWithRoundingModes) {
  Rng rng(10);
  std::vector<float> f = rng.floats(64, -1000, 1000);
  f[0] = 2.5f, f[1] = -2.5f, f[2] = 3.5f, f[3] = -0.5f, f[4] = 1e12f, f[5] = -1e12f, f[6] = NAN, f[7] = 0.49999997f;
  f[8] = floatOf(0x3f808000u);  // bf16 tie
  std::vector<int32_t> k = rng.ints<int32_t>(64, INT32_MIN, INT32_MAX);
  k[0] = 16777217, k[1] = -16777219, k[2] = 300, k[3] = -129;
  std::vector<uint16_t> h(128);
  for (auto& x : h) x = floatToBf16(rng.uniform(-50, 50));
  std::vector<uint16_t> fill(128, 0x1234);
  auto r = runVector({vin(DType::F32, f), vin(DType::I32, k), vin(DType::BF16, h), vin(DType::U16, fill)},
                     lines({"nop ; nop ; mov.u16 v10, v3 ; nop",
                            "nop ; nop ; convert.f32.bf16 v10, v0 rm=rhne ; nop",
                            "nop ; nop ; mov.u16 v11, v3 ; nop",
                            "nop ; nop ; convert.f32.bf16 v11, v0 rm=rz part=1 ; nop",
                            "nop ; nop ; convert.f32.bf16 v12, v0 rm=ru ; nop",
                            "nop ; nop ; convert.f32.bf16 v13, v0 rm=rd ; nop",
                            "nop ; nop ; convert.f32.i32 v14, v0 rm=rz ; nop",
                            "nop ; nop ; convert.f32.i32 v15, v0 rm=rhne ; nop",
                            "nop ; nop ; convert.f32.i32 v16, v0 rm=rd ; nop",
                            "nop ; nop ; convert.f32.i32 v17, v0 rm=ru ; nop",
                            "nop ; nop ; convert.f32.i32 v18, v0 rm=rhaz ; nop",
                            "nop ; nop ; convert.i32.f32 v19, v1 rm=rhne ; nop",
                            "nop ; nop ; convert.i32.f32 v20, v1 rm=rz ; nop",
                            "nop ; nop ; convert.bf16.f32 v21, v2 part=1 ; nop",
                            "nop ; nop ; convert.i32.i8 v22, v1 sat ; nop",
                            "nop ; nop ; convert.i32.i8 v23, v1 ; nop"}));
  auto fb = [&](size_t i) { return bitsOf(f[i]); };
  auto bf = [&](char mode, int base) {
    std::vector<uint16_t> w = fill;
    for (int i = 0; i < 64; ++i) w[base + i] = bf16Directed(fb(i), mode);
    w[base + 6] = 0x7fc0;  // NaN
    return w;
  };
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(10), bf('n', 0)));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(11), bf('z', 64)));
  // ru/rd write lanes 0..63; lanes 64..127 keep the old value of a fresh register (zero).
  std::vector<uint16_t> ru = bf('u', 0), rd = bf('d', 0);
  std::fill(ru.begin() + 64, ru.end(), 0), std::fill(rd.begin() + 64, rd.end(), 0);
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(12), ru));
  EXPECT_TRUE(lanesEqual(r->vreg<uint16_t>(13), rd));
  EXPECT_EQ(r->vreg<uint16_t>(10)[8], 0x3f80u);  // tie to even
  auto toInt = [&](double (*rnd)(double)) {
    return mapLanes<int32_t>(64, [&](size_t i) -> int32_t {
      if (std::isnan(f[i])) return 0;
      double v = rnd(f[i]);
      return static_cast<int32_t>(std::clamp(v, -2147483648.0, 2147483647.0));
    });
  };
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(14), toInt([](double v) { return std::trunc(v); })));
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(15), toInt([](double v) { return std::nearbyint(v); })));  // default FE_TONEAREST
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(16), toInt([](double v) { return std::floor(v); })));
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(17), toInt([](double v) { return std::ceil(v); })));
  EXPECT_TRUE(lanesEqual(r->vreg<int32_t>(18), toInt([](double v) { return std::round(v); })));
  EXPECT_EQ(r->vreg<int32_t>(15)[0], 2);
  EXPECT_EQ(r->vreg<int32_t>(15)[1], -2);
  EXPECT_EQ(r->vreg<int32_t>(18)[0], 3);
  EXPECT_EQ(r->vreg<int32_t>(14)[4], INT32_MAX);
  EXPECT_EQ(r->vreg<int32_t>(14)[5], INT32_MIN);
  // int -> f32: 2^24 + 1 is a tie that rounds to even (down), rz truncates toward zero.
  EXPECT_TRUE(lanesEqual(r->vreg<float>(19), mapLanes<float>(64, [&](size_t i) { return static_cast<float>(k[i]); })));
  EXPECT_EQ(r->vreg<float>(19)[0], 16777216.0f);
  EXPECT_EQ(r->vreg<float>(19)[1], -16777220.0f);
  EXPECT_EQ(r->vreg<float>(20)[1], -16777218.0f);
  EXPECT_TRUE(lanesEqual(r->vreg<float>(20), mapLanes<float>(64, [&](size_t i) {
    float t = static_cast<float>(k[i]);  // nearest; step back toward zero when it rounded away
    if (std::fabs(static_cast<double>(t)) > std::fabs(static_cast<double>(k[i]))) t = std::nextafter(t, 0.0f);
    return t;
  })));
  // bf16 -> f32 with part=1 reads source lanes 64..127; exact.
  EXPECT_TRUE(lanesEqual(r->vreg<float>(21), mapLanes<float>(64, [&](size_t i) { return bf16ToFloat(h[64 + i]); })));
  // i32 -> i8 writes lanes 0..63 of 256; saturating or wrapping.
  std::vector<int8_t> sat(256, 0), wrap(256, 0);
  for (int i = 0; i < 64; ++i) sat[i] = clampTo<int8_t>(k[i]), wrap[i] = wrapTo<int8_t>(k[i]);
  EXPECT_TRUE(lanesEqual(r->vreg<int8_t>(22), sat));
  EXPECT_TRUE(lanesEqual(r->vreg<int8_t>(23), wrap));
  EXPECT_EQ(r->vreg<int8_t>(22)[2], 127);
  EXPECT_EQ(r->vreg<int8_t>(23)[2], 44);
}

}  // namespace
}  // namespace simtest
