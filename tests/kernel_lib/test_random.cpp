// The random kernels against a host Philox4x32-10 written from the paper (checked against Random123's
// known answers), on shapes whose rows are not multiples of 4 elements (Philox blocks spanning rows) and on
// 1, 7 and 24 cores (the same numbers); uniform and dropout bit-exact, normal within its f32 evaluation's
// bound; the moments and a chi-square test of a fixed seed's output.
#include <array>

#include "kernel_test.h"

namespace kltest {
namespace {

using Block = std::array<uint32_t, 4>;

Block philox(Block c, std::array<uint32_t, 2> k) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{0xD2511F53u} * c[0], p1 = uint64_t{0xCD9E8D57u} * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1), static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1],
         static_cast<uint32_t>(p0)};
    k[0] += 0x9E3779B9u;
    k[1] += 0xBB67AE85u;
  }
  return c;
}

// Word i mod 4 of the block of element i (docs/kernel-lib.md, "Random numbers").
uint32_t wordOf(uint64_t i, uint64_t seed, uint64_t offset) {
  const uint64_t q = i / 4;
  const Block b = philox({static_cast<uint32_t>(q), static_cast<uint32_t>(q >> 32), static_cast<uint32_t>(offset),
                          static_cast<uint32_t>(offset >> 32)},
                         {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
  return b[i % 4];
}
float uniformOf(uint32_t w) { return static_cast<float>(w >> 8) * 0x1p-24f; }

TEST(Philox, HostReferenceMatchesRandom123KnownAnswers) {
  EXPECT_EQ(philox({0, 0, 0, 0}, {0, 0}), (Block{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(philox({~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}), (Block{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(philox({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u}),
            (Block{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

tpc_kernels_random_params params(uint64_t seed, uint64_t offset) {
  return tpc_kernels_random_params{seed, offset, 0.0f, 1.0f, 0.0f, 1.0f, 0.5f};
}

// The output of a random kernel, run on 1, 7 and 24 cores: the three must be the same bits.
std::vector<uint32_t> sameOnAnyCoreCount(const std::string& guid, const std::vector<int64_t>& shape,
                                         const tpc_kernels_random_params& p) {
  std::vector<std::vector<uint32_t>> runs;
  for (int cores : {1, 7, 24}) {
    auto out = runKernel(guid, {}, {{DType::F32, shape}}, paramsOf(p), cores);
    if (!out.empty()) runs.push_back(bitsOfTensor(out[0]));
  }
  if (runs.size() != 3) return {};
  EXPECT_EQ(runs[0], runs[1]) << "1 and 7 cores differ";
  EXPECT_EQ(runs[0], runs[2]) << "1 and 24 cores differ";
  return runs[0];
}

TEST(RandomUniform, KnownAnswerAndEveryElementBitExact) {
  // Counter 0, key 0: the first four elements are Random123's first known answer.
  auto first = runKernel("random_uniform_fwd_f32", {}, {{DType::F32, {8}}}, paramsOf(params(0, 0)));
  ASSERT_FALSE(first.empty());
  const Block kat = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(bitsOfTensor(first[0])[i], bitsOf(uniformOf(kat[i]))) << i;

  for (const auto& shape : std::vector<std::vector<int64_t>>{{1}, {3, 7}, {5, 300}, {2, 3, 5, 257}, {2, 1, 3, 2, 131}})
    for (auto [seed, offset] : {std::pair<uint64_t, uint64_t>{0, 0}, {0x123456789abcdefull, 42}, {7, 1ull << 40}})
      for (float low : {0.0f, -3.0f}) {
        SCOPED_TRACE(shapeName(shape) + " seed " + std::to_string(seed) + " offset " + std::to_string(offset));
        auto p = params(seed, offset);
        p.low = low, p.high = low + 5.0f;
        const std::vector<uint32_t> got = sameOnAnyCoreCount("random_uniform_fwd_f32", shape, p);
        ASSERT_EQ(got.size(), count(shape));
        int bad = 0;
        for (size_t i = 0; i < got.size() && bad < 5; ++i) {
          const float want = std::fmaf(uniformOf(wordOf(i, seed, offset)), p.high - p.low, p.low);
          if (got[i] != bitsOf(want) && ++bad) ADD_FAILURE() << "element " << i << ": got " << floatOf(got[i]) << ", want " << want;
        }
      }
}

// Box-Muller in double: z for element i from its pair of words.
double normalOf(uint64_t i, uint64_t seed, uint64_t offset, double* radius) {
  const uint64_t first = i & ~uint64_t{1};
  const uint32_t w1 = wordOf(first, seed, offset), w2 = wordOf(first + 1, seed, offset);
  const double u1 = static_cast<double>((w1 >> 8) + 1) * 0x1p-24, u2 = static_cast<double>(w2 >> 8) * 0x1p-24;
  *radius = std::sqrt(-2.0 * std::log(u1));
  return *radius * (i % 2 ? std::sin(2 * M_PI * u2) : std::cos(2 * M_PI * u2));
}

// Rows of 1001 elements (groups of 256 starting inside Philox blocks) and of 1000 (every group at a block:
// random.c's branch-free loop).
TEST(RandomNormal, BoxMullerOnThePairsOnAnyCoreCount) {
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{3, 1001}, std::vector<int64_t>{3, 1000}}) {
    SCOPED_TRACE(shapeName(shape));
    auto p = params(99, 5);
    p.mean = 1.5f, p.std = 2.0f;
    const std::vector<uint32_t> got = sameOnAnyCoreCount("random_normal_fwd_f32", shape, p);
    ASSERT_EQ(got.size(), count(shape));
    int bad = 0;
    for (size_t i = 0; i < got.size() && bad < 5; ++i) {
      double r;
      const double z = normalOf(i, 99, 5, &r);
      // f32 log, sqrt, sin and cos of an argument rounded to f32 (2 pi u2 carries 4 u of 2 pi): a few ulp of
      // r, and r times the argument's rounding.
      const double tolerance = (16 * r + 4 * std::fabs(z) + 1) * 0x1p-24 * p.std + 0x1p-22 * std::fabs(p.mean);
      const double value = floatOf(got[i]), want = p.mean + p.std * z;
      if (std::fabs(value - want) > tolerance && ++bad)
        ADD_FAILURE() << "element " << i << ": got " << value << ", want " << want << " within " << tolerance;
    }
  }
}

TEST(Random, MomentsAndHistogramOfAFixedSeed) {
  const int64_t n = 1 << 18;
  auto uni = runKernel("random_uniform_fwd_f32", {}, {{DType::F32, {n}}}, paramsOf(params(2024, 0)));
  auto nor = runKernel("random_normal_fwd_f32", {}, {{DType::F32, {n}}}, paramsOf(params(2024, 1)));
  ASSERT_FALSE(uni.empty() || nor.empty());
  // Chi-square over 64 equal bins of [0, 1) and of the normal's quantiles; 63 degrees of freedom: 110 is
  // beyond the 99.99th percentile.
  std::vector<double> u, z;
  for (uint32_t b : bitsOfTensor(uni[0])) u.push_back(floatOf(b));
  for (uint32_t b : bitsOfTensor(nor[0])) z.push_back(floatOf(b));
  auto chiSquare = [&](const std::vector<double>& xs, auto cdf) {
    std::vector<double> bins(64, 0);
    for (double x : xs) bins[std::min<size_t>(63, static_cast<size_t>(cdf(x) * 64))] += 1;
    double chi = 0, expected = static_cast<double>(xs.size()) / 64;
    for (double b : bins) chi += (b - expected) * (b - expected) / expected;
    return chi;
  };
  double mean = 0, var = 0;
  for (double x : u) mean += x;
  mean /= static_cast<double>(n);
  for (double x : u) var += (x - mean) * (x - mean);
  var /= static_cast<double>(n);
  EXPECT_NEAR(mean, 0.5, 4 * std::sqrt(1.0 / 12 / static_cast<double>(n)));
  EXPECT_NEAR(var, 1.0 / 12, 0.002);
  EXPECT_LT(chiSquare(u, [](double x) { return x; }), 110);
  mean = var = 0;
  for (double x : z) mean += x;
  mean /= static_cast<double>(n);
  for (double x : z) var += (x - mean) * (x - mean);
  var /= static_cast<double>(n);
  EXPECT_NEAR(mean, 0.0, 4 / std::sqrt(static_cast<double>(n)));
  EXPECT_NEAR(var, 1.0, 0.02);
  EXPECT_LT(chiSquare(z, [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }), 110);
}

// The last shapes: rows of several groups of dropout_bwd's loop (4 points of 256) and a tail, rows of a
// multiple of 4 elements (dropout_fwd's branch-free loop), several rows per core (1 and 3 cores).
TEST(Dropout, ForwardAndBackwardBitExact) {
  const std::pair<std::vector<int64_t>, int> shapes[] = {{{7}, 0}, {{3, 301}, 0}, {{2, 2, 3, 130}, 0},
                                                         {{5, 3 * 1024 + 2 * 256 + 76}, 1}, {{2, 3, 2048}, 3}};
  for (DType t : {DType::F32, DType::BF16})
    for (const auto& [shape, cores] : shapes)
      for (float pDrop : {0.0f, 0.1f, 0.75f}) {
        const std::string suffix = t == DType::F32 ? "f32" : "bf16";
        SCOPED_TRACE("dropout " + suffix + " " + shapeName(shape) + " p " + std::to_string(pDrop) + " cores " +
                     std::to_string(cores));
        auto p = params(31337, 3);
        p.p = pDrop;
        HostTensor x = tensorOf(t, shape, randomValues(count(shape), -3, 3, 21));
        auto fwd = runKernel("dropout_fwd_" + suffix, {x}, {{t, shape}, {DType::U8, shape}}, paramsOf(p), cores ? cores : 7);
        ASSERT_FALSE(fwd.empty());
        HostTensor dy = tensorOf(t, shape, randomValues(count(shape), -3, 3, 22));
        auto bwd = runKernel("dropout_bwd_" + suffix, {dy, fwd[1]}, {{t, shape}}, paramsOf(p), cores);
        ASSERT_FALSE(bwd.empty());
        const float scale = 1.0f / (1.0f - pDrop);
        const auto xs = valuesOf(x), dys = valuesOf(dy);
        const auto y = bitsOfTensor(fwd[0]), mask = bitsOfTensor(fwd[1]), dx = bitsOfTensor(bwd[0]);
        size_t kept = 0, bad = 0;
        for (size_t i = 0; i < xs.size() && bad < 5; ++i) {
          const bool keep = uniformOf(wordOf(i, 31337, 3)) >= pDrop;
          kept += keep;
          auto rounded = [&](long double v) { return t == DType::F32 ? toF32(v) : toBF16(floatOf(toF32(v))); };
          const uint32_t wantY = keep ? rounded(static_cast<float>(xs[i]) * scale) : rounded(0.0L);
          const uint32_t wantDx = keep ? rounded(static_cast<float>(dys[i]) * scale) : rounded(0.0L);
          if ((mask[i] != (keep ? 1u : 0u) || y[i] != wantY || dx[i] != wantDx) && ++bad)
            ADD_FAILURE() << "element " << i << ": mask " << mask[i] << " y 0x" << std::hex << y[i] << " dx 0x" << dx[i]
                          << ", want " << keep << " 0x" << wantY << " 0x" << wantDx;
        }
        if (pDrop == 0.0f) {
          EXPECT_EQ(kept, xs.size());
        }
      }
}

}  // namespace
}  // namespace kltest
