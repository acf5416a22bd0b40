// Lookup tables: v_f32_get_lut_entry_and_interval_start_b, v_f32_lookup_1c, v_f32_lookup and v_f32_lookup_2c,
// against a host reference of our documented tables (docs/isa.md, "Lookup tables"): the interval of a value
// is its sign, exponent and top `shift` mantissa bits; a table gives the function and its derivative at the
// interval's first value, computed in double and rounded to f32.
#include <cmath>
#include <limits>
#include <random>

#include "itest.h"

namespace itest {
namespace {

class Lookup : public IntrinsicsTest {};

const char* const kLookup = R"(
void main(tensor x, tensor out)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * 64, 0, 0, 0, 0};
        float64 a = v_f32_ld_tnsr_b(c, x);
        uint64_float64_pair_t es = v_f32_get_lut_entry_and_interval_start_b(a, {SHIFT});
        float128 recip = v_f32_lookup_2c(es.v1, TPC_LUT_FID(TPC_LUT_RECIP, {SHIFT}), 0, (float128){0});
        float64 sine = v_f32_lookup_1c(es.v1, TPC_LUT_FID(TPC_LUT_SIN, {SHIFT}), 0, 0.0f);
        float64 root = v_f32_lookup(es.v1, TPC_LUT_FID(TPC_LUT_SQRT, {SHIFT}), 0, 0.0f);
        // With the predicate off (odd vectors) the income is kept.
        float128 kept = v_f32_lookup_2c(es.v1, TPC_LUT_FID(TPC_LUT_EXP2, {SHIFT}), 0, recip, (v & 1) == 0);
        v_u32_st_tnsr(c, out, es.v1);
        c[1] = 1; v_f32_st_tnsr(c, out, es.v2);
        c[1] = 2; v_f32_st_tnsr(c, out, recip.v1);
        c[1] = 3; v_f32_st_tnsr(c, out, recip.v2);
        c[1] = 4; v_f32_st_tnsr(c, out, sine);
        c[1] = 5; v_f32_st_tnsr(c, out, root);
        c[1] = 6; v_f32_st_tnsr(c, out, kept.v1);
        c[1] = 7; v_f32_st_tnsr(c, out, kept.v2);
    }
}
)";

// A result rounded to f32; denormal results flush to zero, as every result of the core does.
uint32_t bitsOfF(double d) {
  float f = static_cast<float>(d);
  if (f != 0 && std::fabs(f) < std::numeric_limits<float>::min()) f = std::copysign(0.0f, f);
  return bitsOf(f);
}

TEST_P(Lookup, EntryStartValueAndSlope) {
  for (int shift : {0, 6, 16}) {
    SCOPED_TRACE("shift " + std::to_string(shift));
    auto text = build(fill(kLookup, {{"SHIFT", std::to_string(shift)}}));
    if (text.empty()) continue;
    const Type& t = type("f32");
    const int64_t n = 64 * 2 + 17;
    std::mt19937 rng(static_cast<uint32_t>(shift) + 5);
    std::vector<uint32_t> xs;
    for (int64_t i = 0; i < n; ++i) {
      double magnitude = std::ldexp(1.0 + (rng() % 100000) / 100000.0, static_cast<int>(rng() % 12) - 4);  // 1/16 .. 256
      xs.push_back(bitsOf(static_cast<float>(i % 3 == 0 ? -magnitude : magnitude)));
    }
    RunResult r = exec(text, {makeTensor(t, {n}, xs), makeTensor(t, {n, 8})}, {}, {vectors(n, 64), 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> want(static_cast<size_t>(n * 8));
    for (int64_t i = 0; i < n; ++i) {
      uint32_t b = xs[static_cast<size_t>(i)];
      uint32_t sign = b >> 31, exponent = (b >> 23) & 0xff, mantissa = b & 0x7fffff;
      uint32_t entry = (sign << (8 + shift)) | (exponent << shift) | (mantissa >> (23 - shift));
      uint32_t startBits = b & ~((1u << (23 - shift)) - 1u);
      double start = static_cast<double>(floatOf(startBits));
      double root = std::sqrt(std::fabs(start));
      auto at = [&](int row) -> uint32_t& { return want[static_cast<size_t>(row * n + i)]; };
      at(0) = entry;
      at(1) = startBits;
      at(2) = bitsOfF(1.0 / start);
      at(3) = bitsOfF(-1.0 / (start * start));
      at(4) = bitsOfF(std::sin(start));
      at(5) = start < 0 ? 0x7fc00000u : bitsOfF(root);
      bool predicate = (i / 64) % 2 == 0;
      at(6) = predicate ? bitsOfF(std::exp2(start)) : at(2);
      at(7) = predicate ? bitsOfF(std::log(2.0) * std::exp2(start)) : at(3);
    }
    // sqrt of a negative start: any NaN (compared as such by the helper when both are NaN).
    for (int64_t i = 0; i < n; ++i)
      if (floatOf(xs[static_cast<size_t>(i)]) < 0) {
        uint32_t got = r.tensors[1].get(5 * n + i);
        if (std::isnan(floatOf(got))) want[static_cast<size_t>(5 * n + i)] = got;
      }
    expectElements(r.tensors[1], want, "lut entry/start, lookup_1c/2c, lookup");
  }
}

ITEST_INSTANTIATE(Lookup);

}  // namespace
}  // namespace itest
