// Integer lane semantics: add/sub/mac wrap modulo 2^width or saturate with `sat`; mul wraps; shifts take
// the amount modulo the width and shr is arithmetic for signed, logical for unsigned types; comparisons
// and min/max follow the type's signedness. Known answers plus sweeps against 128-bit reference arithmetic.
#include "semantics/arith.h"
#include "semantics/compare.h"
#include "semantics/logic.h"

#include "isa_test_util.h"

using namespace tpc;
using namespace isa_test;
using sem::CmpOp;

TEST(IntArith, WrapAndSaturateKnownAnswers) {
  using sem::add;
  using sem::sub;
  // i8
  EXPECT_EQ(add<DType::I8>(100, 100, false), -56);   // 200 - 256
  EXPECT_EQ(add<DType::I8>(100, 100, true), 127);
  EXPECT_EQ(sub<DType::I8>(-100, 100, false), 56);   // -200 + 256
  EXPECT_EQ(sub<DType::I8>(-100, 100, true), -128);
  EXPECT_EQ(add<DType::I8>(-128, -1, false), 127);
  EXPECT_EQ(add<DType::I8>(-128, -1, true), -128);
  // u8
  EXPECT_EQ(add<DType::U8>(200, 100, false), 44);
  EXPECT_EQ(add<DType::U8>(200, 100, true), 255);
  EXPECT_EQ(sub<DType::U8>(5, 10, false), 251);
  EXPECT_EQ(sub<DType::U8>(5, 10, true), 0);
  // i16
  EXPECT_EQ(add<DType::I16>(30000, 10000, false), -25536);
  EXPECT_EQ(add<DType::I16>(30000, 10000, true), 32767);
  EXPECT_EQ(sub<DType::I16>(-30000, 10000, true), -32768);
  // u16
  EXPECT_EQ(add<DType::U16>(65535, 2, false), 1);
  EXPECT_EQ(add<DType::U16>(65535, 2, true), 65535);
  EXPECT_EQ(sub<DType::U16>(0, 1, false), 65535);
  EXPECT_EQ(sub<DType::U16>(0, 1, true), 0);
  // i32
  EXPECT_EQ(add<DType::I32>(INT32_MAX, 1, false), INT32_MIN);
  EXPECT_EQ(add<DType::I32>(INT32_MAX, 1, true), INT32_MAX);
  EXPECT_EQ(sub<DType::I32>(INT32_MIN, 1, false), INT32_MAX);
  EXPECT_EQ(sub<DType::I32>(INT32_MIN, 1, true), INT32_MIN);
  EXPECT_EQ(sub<DType::I32>(0, INT32_MIN, true), INT32_MAX);
  // u32
  EXPECT_EQ(add<DType::U32>(0xffffffffu, 2u, false), 1u);
  EXPECT_EQ(add<DType::U32>(0xffffffffu, 2u, true), 0xffffffffu);
  EXPECT_EQ(sub<DType::U32>(1u, 2u, false), 0xffffffffu);
  EXPECT_EQ(sub<DType::U32>(1u, 2u, true), 0u);
}

TEST(IntArith, MulWrapsKnownAnswers) {
  using sem::mul;
  EXPECT_EQ(mul<DType::I16>(300, 300), 24464);  // 90000 - 65536
  EXPECT_EQ(mul<DType::I8>(-128, -1), -128);    // 128 wraps
  EXPECT_EQ(mul<DType::U8>(16, 17), 16);        // 272 - 256
  EXPECT_EQ(mul<DType::U32>(0x10000u, 0x10000u), 0u);
  EXPECT_EQ(mul<DType::U32>(0xffffffffu, 0xffffffffu), 1u);
  EXPECT_EQ(mul<DType::I32>(-1, INT32_MIN), INT32_MIN);
  EXPECT_EQ(mul<DType::I32>(46341, 46341), -2147479015);  // 2147488281 - 2^32
  EXPECT_EQ(mul<DType::U16>(65535, 65535), 1);
}

TEST(IntArith, MacWrapAndSaturateKnownAnswers) {
  using sem::mac;
  EXPECT_EQ(mac<DType::I8>(100, 20, 10, false), 44);     // 300 - 256
  EXPECT_EQ(mac<DType::I8>(100, 20, 10, true), 127);
  EXPECT_EQ(mac<DType::I8>(-100, 20, -10, true), -128);
  EXPECT_EQ(mac<DType::I8>(100, 16, 16, false), 100);     // 256 wraps to 0 (mod 256)
  EXPECT_EQ(mac<DType::U8>(10, 3, 4, false), 22);
  EXPECT_EQ(mac<DType::U8>(250, 3, 4, true), 255);
  EXPECT_EQ(mac<DType::U8>(250, 16, 16, false), 250);
  EXPECT_EQ(mac<DType::I16>(0, 300, 300, true), 32767);
  EXPECT_EQ(mac<DType::I16>(-32768, 300, 300, true), 32767);  // -32768 + 90000 = 57232
  EXPECT_EQ(mac<DType::U16>(1, 65535, 65535, false), 2);
  EXPECT_EQ(mac<DType::U16>(1, 65535, 65535, true), 65535);
  EXPECT_EQ(mac<DType::I32>(0, 65536, 65536, false), 0);          // 2^32 wraps to 0
  EXPECT_EQ(mac<DType::I32>(0, 65536, 65536, true), INT32_MAX);
  EXPECT_EQ(mac<DType::I32>(INT32_MIN, INT32_MIN, 1, true), INT32_MIN);
  EXPECT_EQ(mac<DType::I32>(INT32_MAX, INT32_MIN, INT32_MIN, true), INT32_MAX);  // 2^31 - 1 + 2^62
  EXPECT_EQ(mac<DType::I32>(5, INT32_MIN, INT32_MIN, false), 5);                 // 2^62 = 0 mod 2^32
  EXPECT_EQ(mac<DType::U32>(7u, 0x10000u, 0x10000u, false), 7u);
  EXPECT_EQ(mac<DType::U32>(7u, 0x10000u, 0x10000u, true), 0xffffffffu);
  // The largest u32 products (up to 2^64 - 2^33 + 1) must saturate, not wrap through int64.
  EXPECT_EQ(mac<DType::U32>(0u, 0xffffffffu, 0xffffffffu, true), 0xffffffffu);
  EXPECT_EQ(mac<DType::U32>(0xffffffffu, 0xffffffffu, 0xffffffffu, true), 0xffffffffu);
  EXPECT_EQ(mac<DType::U32>(0u, 0x80000000u, 0x80000000u, true), 0xffffffffu);  // exactly 2^62... 2^62
  EXPECT_EQ(mac<DType::U32>(0u, 0xffffffffu, 0xffffffffu, false), 1u);
}

namespace {

// Reference integer semantics with 128-bit arithmetic.
struct IntType {
  int bits;
  bool isSigned;
  __int128 lo() const { return isSigned ? -(__int128{1} << (bits - 1)) : 0; }
  __int128 hi() const { return isSigned ? (__int128{1} << (bits - 1)) - 1 : (__int128{1} << bits) - 1; }
  __int128 wrap(__int128 v) const {
    __int128 m = __int128{1} << bits;
    v %= m;
    if (v < 0) v += m;
    if (isSigned && v > hi()) v -= m;
    return v;
  }
  __int128 sat(__int128 v) const { return v < lo() ? lo() : v > hi() ? hi() : v; }
};

template <DType T> void intSweep(uint32_t seed) {
  using S = typename sem::Elem<T>::S;
  const IntType ty{static_cast<int>(sizeof(S) * 8), std::is_signed_v<S>};
  std::mt19937 rng(seed);
  const S edges[] = {std::numeric_limits<S>::min(), std::numeric_limits<S>::max(), S(0), S(1), S(-1), S(2),
                     static_cast<S>(std::numeric_limits<S>::max() / 2 + 1)};
  auto pick = [&]() -> S {
    if (rng() % 4 == 0) return edges[rng() % std::size(edges)];
    return static_cast<S>(rng());
  };
  FailureLog log;
  for (int i = 0; i < 30000; ++i) {
    const S a = pick(), b = pick(), c = pick();
    const __int128 A = a, B = b, C = c;
    const bool sat = rng() & 1u;
    auto fix = [&](__int128 v) { return sat ? ty.sat(v) : ty.wrap(v); };
    auto check = [&](const char* op, __int128 got, __int128 want) {
      if (got != want)
        log.add(std::string(op) + " " + std::to_string(static_cast<long long>(A)) + ", " +
                std::to_string(static_cast<long long>(B)) + ", " + std::to_string(static_cast<long long>(C)) +
                (sat ? " sat" : "") + ": got " + std::to_string(static_cast<long long>(got)) + ", want " +
                std::to_string(static_cast<long long>(want)));
    };
    check("add", sem::add<T>(a, b, sat), fix(A + B));
    check("sub", sem::sub<T>(a, b, sat), fix(A - B));
    check("mul", sem::mul<T>(a, b), ty.wrap(A * B));
    check("mac", sem::mac<T>(a, b, c, sat), fix(A + B * C));
    check("max", sem::fmax<T>(a, b), A > B ? A : B);
    check("min", sem::fmin<T>(a, b), A < B ? A : B);
    check("neg", sem::neg<T>(a), ty.wrap(-A));
    check("abs", sem::abs<T>(a), ty.wrap(A < 0 ? -A : A));
    check("cmp_less", sem::compare<T>(CmpOp::Less, a, b), A < B);
    check("cmp_geq", sem::compare<T>(CmpOp::Geq, a, b), A >= B);
    check("cmp_eq", sem::compare<T>(CmpOp::Eq, a, b), A == B);
    // Shifts: the amount is b taken modulo the width (as an unsigned number).
    const int amount = static_cast<int>(static_cast<unsigned __int128>(ty.wrap(B) + (B < 0 ? (__int128{1} << ty.bits) : 0)) % ty.bits);
    check("shl", sem::shl<T>(a, b), ty.wrap(A * (__int128{1} << amount)));
    // Arithmetic shift right is floor division by 2^amount; for unsigned values it is the logical shift.
    __int128 p = __int128{1} << amount;
    __int128 q = A >= 0 ? A / p : -((-A + p - 1) / p);
    check("shr", sem::shr<T>(a, b), q);
  }
  EXPECT_EQ(log.count, 0) << dtypeName(T);
}

}  // namespace

TEST(IntArith, SweepAgainstWideReference) {
  intSweep<DType::I8>(1);
  intSweep<DType::U8>(2);
  intSweep<DType::I16>(3);
  intSweep<DType::U16>(4);
  intSweep<DType::I32>(5);
  intSweep<DType::U32>(6);
}

TEST(IntArith, ShiftsKnownAnswers) {
  using sem::shl;
  using sem::shr;
  EXPECT_EQ(shl<DType::I8>(1, 7), -128);
  EXPECT_EQ(shl<DType::U8>(1, 9), 2) << "amount 9 mod 8 = 1";
  EXPECT_EQ(shl<DType::U8>(0xff, 4), 0xf0);
  EXPECT_EQ(shl<DType::I8>(3, -1), -128) << "amount -1 is 255 as u8, mod 8 = 7";
  EXPECT_EQ(shr<DType::I8>(-128, 1), -64) << "arithmetic";
  EXPECT_EQ(shr<DType::U8>(0x80, 1), 0x40) << "logical";
  EXPECT_EQ(shr<DType::I8>(-1, 7), -1);
  EXPECT_EQ(shr<DType::U8>(0xff, 7), 1);
  EXPECT_EQ(shr<DType::I16>(-32768, 15), -1);
  EXPECT_EQ(shr<DType::U16>(0x8000, 15), 1);
  EXPECT_EQ(shr<DType::I16>(-5, 16), -5) << "amount 16 mod 16 = 0";
  EXPECT_EQ(shr<DType::I32>(-1, 31), -1);
  EXPECT_EQ(shr<DType::U32>(0x80000000u, 31), 1u);
  EXPECT_EQ(shr<DType::I32>(-8, 33), -4) << "amount 33 mod 32 = 1";
  EXPECT_EQ(shr<DType::I32>(-7, 1), -4) << "floor(-3.5)";
  EXPECT_EQ(shl<DType::I32>(1, 31), INT32_MIN);
  EXPECT_EQ(shl<DType::U32>(0x80000001u, 32), 0x80000001u);
  EXPECT_EQ(shl<DType::U32>(0x80000001u, 1), 2u);
}

TEST(IntArith, MinMaxCompareFollowSignedness) {
  EXPECT_EQ(sem::fmax<DType::I8>(-1, 1), 1);
  EXPECT_EQ(sem::fmax<DType::U8>(255, 1), 255);
  EXPECT_EQ(sem::fmin<DType::I16>(-32768, 32767), -32768);
  EXPECT_EQ(sem::fmin<DType::U32>(0xffffffffu, 0u), 0u);
  EXPECT_TRUE(sem::compare<DType::I8>(CmpOp::Less, -1, 1));
  EXPECT_TRUE(sem::compare<DType::U8>(CmpOp::Grt, 255, 1));
  EXPECT_TRUE(sem::compare<DType::I32>(CmpOp::Leq, INT32_MIN, INT32_MIN));
  EXPECT_TRUE(sem::compare<DType::U32>(CmpOp::Neq, 0x80000000u, 0u));
  EXPECT_FALSE(sem::compare<DType::U16>(CmpOp::Geq, 1, 65535));
}

TEST(IntArith, AbsNegDivRem) {
  EXPECT_EQ(sem::abs<DType::I8>(-128), -128) << "|-128| wraps";
  EXPECT_EQ(sem::abs<DType::I16>(-5), 5);
  EXPECT_EQ(sem::abs<DType::U8>(200), 200);
  EXPECT_EQ(sem::neg<DType::I32>(INT32_MIN), INT32_MIN);
  EXPECT_EQ(sem::neg<DType::U8>(1), 255);
  EXPECT_EQ(sem::udiv<DType::U32>(100u, 7u), 14u);
  EXPECT_EQ(sem::urem<DType::U32>(100u, 7u), 2u);
  EXPECT_EQ(sem::udiv<DType::U32>(5u, 0u), 0xffffffffu) << "division by zero gives all ones";
  EXPECT_EQ(sem::urem<DType::U32>(5u, 0u), 5u) << "remainder by zero gives the dividend";
  EXPECT_EQ(sem::udiv<DType::U8>(5, 0), 0xff);
  EXPECT_EQ(sem::udiv<DType::U16>(65535, 256), 255);
  EXPECT_EQ(sem::urem<DType::U16>(65535, 256), 255);
}

// Bitwise operations act on the raw bits of any type, floats included.
TEST(IntArith, BitwiseOnRawBits) {
  EXPECT_EQ(sem::bitAnd<DType::U8>(0xf0, 0x3c), 0x30);
  EXPECT_EQ(sem::bitOr<DType::I16>(0x0f00, 0x00f0), 0x0ff0);
  EXPECT_EQ(sem::bitXor<DType::U32>(0xffff0000u, 0x0ff00ff0u), 0xf00f0ff0u);
  EXPECT_EQ(sem::bitNot<DType::I8>(0), -1);
  EXPECT_EQ(sem::bitNot<DType::U16>(0x00ff), 0xff00);
  EXPECT_EQ(bitsOf(sem::bitXor<DType::F32>(floatOf(0x3f800000), floatOf(0x80000000))), 0xbf800000u);  // sign flip
  EXPECT_EQ(bitsOf(sem::bitAnd<DType::F32>(floatOf(0x7fc12345), floatOf(0xffffffff))), 0x7fc12345u)
      << "no NaN canonicalisation for bitwise ops";
  EXPECT_EQ(bitsOf(sem::bitOr<DType::F32>(floatOf(0x00000001), floatOf(0))), 0x00000001u) << "no flush either";
  EXPECT_EQ(sem::bitAnd<DType::BF16>(0xffff, 0x7fff), 0x7fff);
  EXPECT_EQ(sem::bitNot<DType::F16>(0x0000), 0xffff);
}

// Scalar registers hold narrower values sign- or zero-extended (lanes.h).
TEST(IntArith, ScalarRegisterExtension) {
  EXPECT_EQ(sem::toScalarReg<DType::I8>(-2), 0xfffffffeu);
  EXPECT_EQ(sem::toScalarReg<DType::U8>(0xfe), 0x000000feu);
  EXPECT_EQ(sem::toScalarReg<DType::I16>(-32768), 0xffff8000u);
  EXPECT_EQ(sem::toScalarReg<DType::U16>(0x8000), 0x00008000u);
  EXPECT_EQ(sem::toScalarReg<DType::BF16>(0xbf80), 0x0000bf80u);
  EXPECT_EQ(sem::fromScalarReg<DType::I8>(0x12345680u), -128);
  EXPECT_EQ(sem::fromScalarReg<DType::F16>(0xffff3c00u), 0x3c00);
  EXPECT_EQ(bitsOf(sem::fromScalarReg<DType::F32>(0x3f800000u)), 0x3f800000u);
}
