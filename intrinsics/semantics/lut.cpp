#include "lut.h"

#include <array>
#include <cmath>
#include <map>
#include <vector>

#include "fp.h"

namespace tpc::sem {

using isa::LutCoef;
using isa::LutTable;
using isa::LutVariant;

namespace {

// ------------------------------------------------------------------------------------------ intervals

unsigned keptBits(unsigned shift) { return shift > 23 ? 0u : 23u - shift; }

float magnitude(uint32_t x) { return std::fabs(ftz(asFloat(x))); }

// Fixed-point intervals of [0, 2^-scale): floor(a * 2^(scale + m)).
uint32_t fixedPointEntry(float a, int scale, unsigned m) {
  return static_cast<uint32_t>(std::floor(std::ldexp(static_cast<double>(a), scale + static_cast<int>(m))));
}
float fixedPointStart(uint32_t entry, int scale, unsigned m) {
  return static_cast<float>(std::ldexp(static_cast<double>(entry), -(scale + static_cast<int>(m))));
}

constexpr int kTanhFirstBinade = -7, kTanhLastBinade = 3;  // 2^-7 <= |x| < 16 by binades
constexpr uint32_t kTanhSaturated = kTanhLastBinade - kTanhFirstBinade + 2;  // the band of |x| >= 16

}  // namespace

uint32_t lutEntry(uint32_t x, unsigned shift, LutVariant variant) {
  const unsigned m = keptBits(shift);
  const uint32_t exponent = (x >> 23) & 0xffu, mantissa = exponent ? x & 0x7fffffu : 0u;
  const uint32_t top = m ? mantissa >> (23 - m) : 0u;
  switch (variant) {
    case LutVariant::Default: return top;
    case LutVariant::SqrtRsqrt: return exponent ? (((exponent - 127u) & 1u) << m) | top : 0u;
    case LutVariant::SinCos: {
      const float a = magnitude(x);
      if (!(a < 1.0f)) return (1u << m) - 1u;  // also NaN
      return fixedPointEntry(a, 0, m);
    }
    case LutVariant::Tanh: {
      const float a = magnitude(x);
      if (a < std::ldexp(1.0f, kTanhFirstBinade)) return fixedPointEntry(a, -kTanhFirstBinade, m);
      if (!(a < std::ldexp(1.0f, kTanhLastBinade + 1))) return kTanhSaturated << m;
      const int e = static_cast<int>(exponent) - 127;
      return (static_cast<uint32_t>(e - kTanhFirstBinade + 1) << m) | top;
    }
  }
  return 0;
}

uint32_t lutStart(uint32_t x, unsigned shift, LutVariant variant) {
  const unsigned m = keptBits(shift);
  switch (variant) {
    case LutVariant::Default:
    case LutVariant::SqrtRsqrt: {
      if ((x & 0x7f800000u) == 0) return x & 0x80000000u;
      const uint32_t low = 23 - m;
      return low ? x & ~((1u << low) - 1u) : x;
    }
    case LutVariant::SinCos: {
      const float a = magnitude(x);
      return asBits(fixedPointStart(lutEntry(x, shift, variant), 0, m) + (a != a ? a : 0.0f));
    }
    case LutVariant::Tanh: {
      const float a = magnitude(x);
      if (a < std::ldexp(1.0f, kTanhFirstBinade)) return asBits(fixedPointStart(lutEntry(x, shift, variant), -kTanhFirstBinade, m));
      if (!(a < std::ldexp(1.0f, kTanhLastBinade + 1))) return asBits(a);
      return lutStart(asBits(a), shift, LutVariant::Default);
    }
  }
  return 0;
}

namespace {

// ------------------------------------------------------------------------------------------ built-in tables

using Fn = long double (*)(long double);

long double reciprocal(long double x) { return 1.0L / x; }
long double squareRoot(long double x) { return std::sqrt(x); }
long double reciprocalSquareRoot(long double x) { return 1.0L / std::sqrt(x); }
long double logarithm2(long double x) { return std::log2(x); }
// log2(x) / (x - 1), which stays accurate next to x = 1 (the kernel multiplies by x - 1 there).
long double logarithm2Ratio(long double x) {
  const long double d = x - 1.0L;
  return d == 0 ? 1.0L / std::log(2.0L) : std::log1p(d) / (d * std::log(2.0L));
}
long double power2Minus1(long double x) { return std::exp2(x - 1.0L); }  // 2^(x-1) on [1, 2)
long double sineOverX(long double x) { return x == 0 ? 1.0L : std::sin(x) / x; }
long double cosine(long double x) { return std::cos(x); }
long double tanhOverX(long double x) { return x == 0 ? 1.0L : std::tanh(x) / x; }
long double hyperbolicTangent(long double x) { return std::tanh(x); }
long double one(long double) { return 1.0L; }

// Entries first .. first + count - 1 cover [start + i * width, start + (i + 1) * width) with f.
struct Segment {
  uint32_t first, count;
  long double start, width;
  Fn f;
};

struct Table {
  LutTableShape shape;
  std::vector<std::array<uint32_t, 3>> coefficients;  // c0, c1, c2 as f32 bits
};

// The quadratic through f at the three Chebyshev nodes of [a, a + h] (close to the best one in the maximum
// norm), in powers of v = x - a, each coefficient rounded to f32.
std::array<uint32_t, 3> fitQuadratic(Fn f, long double a, long double h) {
  if (h == 0) return {asBits(static_cast<float>(f(a))), 0, 0};
  const long double pi = 3.14159265358979323846264338327950288L;
  long double v[3], y[3];
  for (int k = 0; k < 3; ++k) {
    v[k] = h / 2 * (1 - std::cos((2 * k + 1) * pi / 6));
    y[k] = f(a + v[k]);
  }
  // Newton's divided differences, then the power form.
  const long double d01 = (y[1] - y[0]) / (v[1] - v[0]), d12 = (y[2] - y[1]) / (v[2] - v[1]);
  const long double c2 = (d12 - d01) / (v[2] - v[0]);
  const long double c1 = d01 - c2 * (v[0] + v[1]);
  const long double c0 = y[0] - c1 * v[0] - c2 * v[0] * v[0];
  return {asBits(static_cast<float>(c0)), asBits(static_cast<float>(c1)), asBits(static_cast<float>(c2))};
}

Table build(LutTableShape shape, std::initializer_list<Segment> segments) {
  Table t{shape, std::vector<std::array<uint32_t, 3>>(shape.entries, {0, 0, 0})};
  for (const Segment& s : segments)
    for (uint32_t i = 0; i < s.count; ++i) t.coefficients[s.first + i] = fitQuadratic(s.f, s.start + i * s.width, s.width);
  return t;
}

std::map<uint32_t, Table> buildTables() {
  const long double e64 = 1.0L / 64, e128 = 1.0L / 128;
  std::map<uint32_t, Table> tables;
  auto id = [](LutTable t) { return static_cast<uint32_t>(t); };
  tables[id(LutTable::Fp32Rcp)] = build({128, 16, LutVariant::Default}, {{0, 128, 1, e128, reciprocal}});
  tables[id(LutTable::Fp32Log2)] =
      build({256, 16, LutVariant::Default}, {{0, 128, 1, e128, logarithm2Ratio}, {128, 128, 1, e128, logarithm2}});
  tables[id(LutTable::Fp32Pow2)] = build({64, 17, LutVariant::Default}, {{0, 64, 1, e64, power2Minus1}});
  tables[id(LutTable::Fp32Sqrt)] =
      build({128, 17, LutVariant::SqrtRsqrt}, {{0, 64, 1, e64, squareRoot}, {64, 64, 2, 2 * e64, squareRoot}});
  tables[id(LutTable::Fp32Rsqrt)] = build({256, 16, LutVariant::SqrtRsqrt},
                                          {{0, 128, 1, e128, reciprocalSquareRoot}, {128, 128, 2, 2 * e128, reciprocalSquareRoot}});
  tables[id(LutTable::Fp32SinCos)] =
      build({128, 17, LutVariant::SinCos}, {{0, 64, 0, e64, sineOverX}, {64, 64, 0, e64, cosine}});
  // tanh: tanh(x)/x below 1 (the kernel multiplies by |x| there), tanh(x) from 1 on, 1 from 16 on.
  Table tanh = build({(kTanhSaturated << 6) + 1, 17, LutVariant::Tanh},
                     {{0, 64, 0, std::ldexp(1.0L, kTanhFirstBinade) / 64, tanhOverX}, {kTanhSaturated << 6, 1, 16, 0, one}});
  for (int e = kTanhFirstBinade; e <= kTanhLastBinade; ++e) {
    const uint32_t first = static_cast<uint32_t>(e - kTanhFirstBinade + 1) << 6;
    Table band = build(tanh.shape, {{first, 64, std::ldexp(1.0L, e), std::ldexp(1.0L, e) / 64, e < 0 ? tanhOverX : hyperbolicTangent}});
    for (uint32_t i = 0; i < 64; ++i) tanh.coefficients[first + i] = band.coefficients[first + i];
  }
  tables[id(LutTable::Fp32Tanh)] = std::move(tanh);
  return tables;
}

const Table* findTable(uint32_t fid) {
  static const std::map<uint32_t, Table> tables = buildTables();
  auto it = tables.find(fid);
  return it == tables.end() ? nullptr : &it->second;
}

}  // namespace

uint32_t lutCoefficient(uint32_t fid, uint32_t entry, LutCoef coef) {
  const Table* t = findTable(fid);
  if (!t || entry >= t->coefficients.size()) return 0;
  const auto& c = t->coefficients[entry];
  switch (coef) {
    case LutCoef::Value:
    case LutCoef::C0: return c[0];
    case LutCoef::C1: return c[1];
    case LutCoef::C2: return c[2];
  }
  return 0;
}

LutTableShape lutTableShape(uint32_t fid) {
  const Table* t = findTable(fid);
  return t ? t->shape : LutTableShape{0, 0, LutVariant::Default};
}

uint64_t userLutOffset(uint32_t fid, uint32_t entry, LutCoef coef) {
  const uint64_t base = static_cast<uint64_t>(fid >> 2) * 256;
  if (coef == LutCoef::Value) return base + uint64_t{4} * entry;
  const uint64_t k = static_cast<uint64_t>(coef) - static_cast<uint64_t>(LutCoef::C0);
  return base + uint64_t{128} * (entry / 10) + uint64_t{12} * (entry % 10) + 4 * k;
}

}  // namespace tpc::sem
