// Lookup tables through the intrinsics, in the vendor's convention: v_f32_get_lut_entry_and_interval_start_b
// with each function variant (e_func_variant << 13) and the shift, v_f32_lookup_1c / _2c / v_f32_lookup on
// the built-in tables (e_function_id), predicates and incomes; and user tables: set_lut_32(tensor) and
// SW_LUT_PTR with function ids (table << 2) | 3, laid out as the vendor's user tables are.
//
// The interval numbers and the tables' contents are the instructions' (checked by hand-worked cases in
// tests/simulator/test_lookup_tables.cpp and over whole ranges in tests/special_functions); here the
// reference for them is that semantics, and what is checked is that each intrinsic reaches it with the
// right variant, shift, table, coefficient, predicate and income. The user tables' reference is the
// layout itself.
#include <cmath>
#include <random>

#include "itest.h"
#include "semantics/lut.h"

namespace itest {
namespace {

class Lookup : public IntrinsicsTest {};

uint32_t tableId(tpc::isa::LutTable t) { return static_cast<uint32_t>(t); }

const char* const kBuiltIn = R"(
void main(tensor x, tensor out)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * 64, 0, 0, 0, 0};
        float64 a = v_f32_ld_tnsr_b(c, x);
        uint64_float64_pair_t d = v_f32_get_lut_entry_and_interval_start_b(a, 16, (e_func_variant_default) << 13);
        uint64_float64_pair_t t = v_f32_get_lut_entry_and_interval_start_b(a, 17, SW_LUT_TANH);
        uint64_float64_pair_t q = v_f32_get_lut_entry_and_interval_start_b(a, 17, e_func_variant_sqrt_rsqrt << 13);
        // Odd vectors: the predicate is off and the income stays.
        uint64_float64_pair_t income = {7, 0.5f};
        uint64_float64_pair_t sc = v_f32_get_lut_entry_and_interval_start_b(a, 17, SW_LUT_SIN_COS, income, (v & 1) == 0);
        float64 c0 = v_f32_lookup_1c(t.v1, e_fp32_tanh, SW_BV32, (float64){0});
        float64_pair_t c12 = v_f32_lookup_2c(t.v1, e_fp32_tanh, SW_BV32, (float64_pair_t){0});
        float64 value = v_f32_lookup(d.v1, e_fp32_rcp, 0, 0.0f);
        float64 kept = v_f32_lookup_1c(q.v1, e_fp32_sqrt, 0, 5.0f, (v & 1) == 0);
        float64_pair_t keptPair = v_f32_lookup_2c(sc.v1, e_fp32_sin_cos, 0, (float64_pair_t){1.0f, 2.0f}, (v & 1) == 1);
        v_u32_st_tnsr(c, out, d.v1);
        c[1] = 1; v_f32_st_tnsr(c, out, d.v2);
        c[1] = 2; v_u32_st_tnsr(c, out, t.v1);
        c[1] = 3; v_f32_st_tnsr(c, out, t.v2);
        c[1] = 4; v_u32_st_tnsr(c, out, q.v1);
        c[1] = 5; v_f32_st_tnsr(c, out, q.v2);
        c[1] = 6; v_u32_st_tnsr(c, out, sc.v1);
        c[1] = 7; v_f32_st_tnsr(c, out, sc.v2);
        c[1] = 8; v_f32_st_tnsr(c, out, c0);
        c[1] = 9; v_f32_st_tnsr(c, out, c12.v1);
        c[1] = 10; v_f32_st_tnsr(c, out, c12.v2);
        c[1] = 11; v_f32_st_tnsr(c, out, value);
        c[1] = 12; v_f32_st_tnsr(c, out, kept);
        c[1] = 13; v_f32_st_tnsr(c, out, keptPair.v1);
        c[1] = 14; v_f32_st_tnsr(c, out, keptPair.v2);
    }
}
)";

TEST_P(Lookup, BuiltInTablesVariantsPredicatesAndIncomes) {
  using tpc::isa::LutCoef;
  using tpc::isa::LutVariant;
  auto text = build(kBuiltIn);
  ASSERT_FALSE(text.empty());
  const Type& t = type("f32");
  const int64_t n = 64 * 2 + 17;
  std::mt19937 rng(5);
  std::vector<uint32_t> xs;
  for (int64_t i = 0; i < n; ++i) {
    double magnitude = std::ldexp(1.0 + (rng() % 100000) / 100000.0, static_cast<int>(rng() % 14) - 9);  // 2^-9 .. 32
    xs.push_back(bitsOf(static_cast<float>(i % 3 == 0 ? -magnitude : magnitude)));
  }
  const int rows = 15;
  RunResult r = exec(text, {makeTensor(t, {n}, xs), makeTensor(t, {n, rows})}, {}, {vectors(n, 64), 1, 1, 1, 1});
  if (r.tensors.empty()) return;
  std::vector<uint32_t> want(static_cast<size_t>(n * rows));
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t b = xs[static_cast<size_t>(i)];
    const bool on = (i / 64) % 2 == 0;
    auto at = [&](int row) -> uint32_t& { return want[static_cast<size_t>(row * n + i)]; };
    at(0) = tpc::sem::lutEntry(b, 16, LutVariant::Default);
    at(1) = tpc::sem::lutStart(b, 16, LutVariant::Default);
    at(2) = tpc::sem::lutEntry(b, 17, LutVariant::Tanh);
    at(3) = tpc::sem::lutStart(b, 17, LutVariant::Tanh);
    at(4) = tpc::sem::lutEntry(b, 17, LutVariant::SqrtRsqrt);
    at(5) = tpc::sem::lutStart(b, 17, LutVariant::SqrtRsqrt);
    at(6) = on ? tpc::sem::lutEntry(b, 17, LutVariant::SinCos) : 7u;
    at(7) = on ? tpc::sem::lutStart(b, 17, LutVariant::SinCos) : bitsOf(0.5f);
    const uint32_t tanhEntry = at(2), sinCosEntry = at(6);
    at(8) = tpc::sem::lutCoefficient(tableId(tpc::isa::LutTable::Fp32Tanh), tanhEntry, LutCoef::C0);
    at(9) = tpc::sem::lutCoefficient(tableId(tpc::isa::LutTable::Fp32Tanh), tanhEntry, LutCoef::C1);
    at(10) = tpc::sem::lutCoefficient(tableId(tpc::isa::LutTable::Fp32Tanh), tanhEntry, LutCoef::C2);
    at(11) = tpc::sem::lutCoefficient(tableId(tpc::isa::LutTable::Fp32Rcp), at(0), LutCoef::Value);
    at(12) = on ? tpc::sem::lutCoefficient(tableId(tpc::isa::LutTable::Fp32Sqrt), at(4), LutCoef::C0) : bitsOf(5.0f);
    at(13) = !on ? tpc::sem::lutCoefficient(tableId(tpc::isa::LutTable::Fp32SinCos), sinCosEntry, LutCoef::C1) : bitsOf(1.0f);
    at(14) = !on ? tpc::sem::lutCoefficient(tableId(tpc::isa::LutTable::Fp32SinCos), sinCosEntry, LutCoef::C2) : bitsOf(2.0f);
  }
  expectElements(r.tensors[1], want, "lut entries and starts, lookups");
}

// A user table as the vendor's user_lut example builds one: table 0 holds one value per entry, table 1
// (256 bytes on) c0, c1, c2 of ten entries per 128 bytes; the kernel evaluates c * (c0 + x c1 + y c2).
const char* const kUserTable = R"(
void main(tensor entries, tensor x, tensor y, tensor out, tensor aux)
{
    set_lut_32(aux);
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * 64, 0, 0, 0, 0};
        uint64 k = v_u32_ld_tnsr_b(c, entries);
        float64 value = v_f32_lookup(k, (0 << 2) | 3, SW_LUT_PTR, 0);
        float64_pair_t c1c2 = {0};
        c1c2 = v_f32_lookup_2c(k, (1 << 2) | 3, SW_LUT_PTR, c1c2);
        float64 c0 = v_f32_lookup_1c(k, (1 << 2) | 3, SW_LUT_PTR, 0.0f);
        float64 res = c0;
        res += v_f32_ld_tnsr_b(c, x) * c1c2.v1;
        res += v_f32_ld_tnsr_b(c, y) * c1c2.v2;
        v_f32_st_tnsr(c, out, res * value);
    }
}
)";

TEST_P(Lookup, UserTablesThroughSetLut32) {
  auto text = build(kUserTable);
  ASSERT_FALSE(text.empty());
  const Type& f32 = type("f32");
  const int entries = 32;
  std::vector<uint32_t> table(64 + 128, bitsOf(NAN));
  for (int k = 0; k < entries; ++k) {
    table[static_cast<size_t>(k)] = bitsOf(static_cast<float>(k) + 0.5f);
    for (int j = 0; j < 3; ++j)
      table[static_cast<size_t>(64 + 32 * (k / 10) + 3 * (k % 10) + j)] = bitsOf(static_cast<float>(k) + 0.125f * (j + 1));
  }
  const int64_t n = 64 * 3;
  std::vector<uint32_t> ks, xs, ys;
  for (int64_t i = 0; i < n; ++i) {
    ks.push_back(static_cast<uint32_t>((i * 13 + 5) % entries));
    xs.push_back(bitsOf(static_cast<float>((i * 7) % 19) - 9.0f));
    ys.push_back(bitsOf(0.25f * static_cast<float>((i * 3) % 11)));
  }
  RunResult r = exec(text, {makeTensor(type("u32"), {n}, ks), makeTensor(f32, {n}, xs), makeTensor(f32, {n}, ys),
                            makeTensor(f32, {n}), makeTensor(f32, {static_cast<int64_t>(table.size())}, table)},
                     {}, {vectors(n, 64), 1, 1, 1, 1});
  if (r.tensors.empty()) return;
  std::vector<uint32_t> want(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const float k = static_cast<float>(ks[static_cast<size_t>(i)]);
    float res = k + 0.125f;  // c0, then += x * c1 and += y * c2, each rounded (no contraction)
    res += floatOf(xs[static_cast<size_t>(i)]) * (k + 0.25f);
    res += floatOf(ys[static_cast<size_t>(i)]) * (k + 0.375f);
    want[static_cast<size_t>(i)] = bitsOf(res * (k + 0.5f));
  }
  expectElements(r.tensors[3], want, "user tables");
}

ITEST_INSTANTIATE(Lookup);

}  // namespace
}  // namespace itest
