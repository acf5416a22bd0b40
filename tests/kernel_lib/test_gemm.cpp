// gemm_fwd_f32 and gemm_fwd_bf16 against a long-double host product: every combination of transposes,
// bias and activation, sizes not multiples of the tile (4 rows by 256 columns) nor of a vector, K from 1,
// and batches with broadcasting. Bound: the forward error of a dot product in f32, K u sum |a b| (u =
// 2^-24), plus the bias's addition, the activation's few ulp and the rounding to the output type.
#include <array>

#include "kernel_test.h"
#include "reference.h"

namespace kltest {
namespace {

struct GemmCase {
  std::vector<int64_t> a, b;  // NumPy shapes as stored (transposes applied by the flags)
  int transposeA, transposeB;
};

std::string typeSuffix(DType t) { return t == DType::F32 ? "f32" : "bf16"; }

// The element of a row-major tensor of `shape` at the batch index `batch` (broadcast: size 1 reads 0) and the
// last two coordinates (i, j).
long double at(const std::vector<long double>& v, const std::vector<int64_t>& shape, const std::vector<int64_t>& batch,
               int64_t i, int64_t j) {
  const size_t rank = shape.size();
  int64_t index = 0;
  for (size_t d = 0; d + 2 < rank; ++d) {
    const size_t bd = batch.size() - (rank - 2) + d;  // batch aligned to the right
    index = index * shape[d] + (shape[d] == 1 ? 0 : batch[bd]);
  }
  index = (index * shape[rank - 2] + i) * shape[rank - 1] + j;
  return v[static_cast<size_t>(index)];
}

void checkGemm(DType t, const GemmCase& g, bool bias, int activation, int cores = 0) {
  const int64_t M = g.transposeA ? g.a.back() : g.a[g.a.size() - 2], K = g.transposeA ? g.a[g.a.size() - 2] : g.a.back();
  const int64_t N = g.transposeB ? g.b[g.b.size() - 2] : g.b.back();
  // The output's batch: the broadcast of both batches (right-aligned).
  const size_t batchRank = std::max(g.a.size(), g.b.size()) - 2;
  std::vector<int64_t> batch(batchRank, 1);
  for (size_t d = 0; d < batchRank; ++d) {
    const auto dimOf = [&](const std::vector<int64_t>& s) {
      const size_t r = s.size() - 2;
      return d + r >= batchRank ? s[d + r - batchRank] : 1;
    };
    batch[d] = std::max(dimOf(g.a), dimOf(g.b));
  }
  std::vector<int64_t> outShape = batch;
  outShape.push_back(M);
  outShape.push_back(N);
  const std::string guid = "gemm_fwd_" + typeSuffix(t);
  SCOPED_TRACE(guid + " A " + shapeName(g.a) + " B " + shapeName(g.b) + " transposes " + std::to_string(g.transposeA) +
               std::to_string(g.transposeB) + (bias ? " bias" : "") + " activation " + std::to_string(activation));
  HostTensor a = tensorOf(t, g.a, randomValues(count(g.a), -1, 1, static_cast<uint32_t>(count(g.a))));
  HostTensor b = tensorOf(t, g.b, randomValues(count(g.b), -1, 1, static_cast<uint32_t>(count(g.b) + 1)));
  std::vector<HostTensor> inputs = {a, b};
  if (bias) inputs.push_back(tensorOf(t, {N}, randomValues(static_cast<size_t>(N), -1, 1, 3)));
  const auto out = runKernel(guid, inputs, {{t, outShape}},
                             paramsOf(tpc_kernels_gemm_params{g.transposeA, g.transposeB, activation}), cores);
  if (out.empty()) return;
  const auto A = valuesOf(a), B = valuesOf(b);
  const auto biasValues = bias ? valuesOf(inputs[2]) : std::vector<long double>{};
  const auto got = bitsOfTensor(out[0]);
  const size_t batches = count(batch);
  int bad = 0;
  for (size_t q = 0; q < batches && bad < 5; ++q) {
    std::vector<int64_t> bi(batchRank);
    for (size_t d = batchRank, rest = q; d-- > 0;) bi[d] = static_cast<int64_t>(rest % static_cast<size_t>(batch[d])), rest /= static_cast<size_t>(batch[d]);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        long double sum = 0, magnitude = 0;
        for (int64_t k = 0; k < K; ++k) {
          const long double x = g.transposeA ? at(A, g.a, bi, k, m) : at(A, g.a, bi, m, k);
          const long double y = g.transposeB ? at(B, g.b, bi, n, k) : at(B, g.b, bi, k, n);
          sum += x * y, magnitude += std::fabs(x * y);
        }
        long double tolerance = static_cast<long double>(K) * kU32 * magnitude;
        if (bias) sum += biasValues[static_cast<size_t>(n)], tolerance += kU32 * std::fabs(sum);
        long double exact = sum;
        if (activation == 1) exact = std::max(sum, 0.0L);
        if (activation == 2) exact = ref::geluTanh(sum), tolerance = 1.2L * tolerance + 8 * kU32 * std::fabs(exact);
        const size_t i = (q * static_cast<size_t>(M) + static_cast<size_t>(m)) * static_cast<size_t>(N) + static_cast<size_t>(n);
        const long double v = t == DType::F32 ? valueOfF32(got[i]) : valueOfBF16(static_cast<uint16_t>(got[i]));
        const long double rounding = t == DType::F32 ? ulpOfF32(exact) / 2 : ulpOfBF16(exact);
        if (std::fabs(v - exact) > tolerance + rounding + 0x1p-126L && ++bad <= 5)
          ADD_FAILURE() << "out[batch " << q << ", " << m << ", " << n << "]: got " << static_cast<double>(v) << ", want "
                        << static_cast<double>(exact) << " within " << static_cast<double>(tolerance + rounding);
      }
  }
}

TEST(Gemm, TransposesBiasAndActivations) {
  const std::vector<std::array<int64_t, 3>> sizes = {{1, 1, 1}, {5, 7, 3}, {4, 64, 256}, {13, 100, 300}, {33, 17, 129}};
  for (DType t : {DType::F32, DType::BF16})
    for (const auto& [M, K, N] : sizes)
      for (int ta : {0, 1})
        for (int tb : {0, 1}) {
          const GemmCase g{ta ? std::vector<int64_t>{K, M} : std::vector<int64_t>{M, K},
                           tb ? std::vector<int64_t>{N, K} : std::vector<int64_t>{K, N}, ta, tb};
          checkGemm(t, g, false, 0);
          if (M == 13) {
            for (int activation : {0, 1, 2}) checkGemm(t, g, true, activation);
            checkGemm(t, g, false, 2);
          }
        }
}

TEST(Gemm, BatchesBroadcast) {
  for (DType t : {DType::F32, DType::BF16}) {
    checkGemm(t, {{2, 1, 5, 7}, {3, 7, 70}, 0, 0}, true, 1);    // A broadcast along the second batch dimension
    checkGemm(t, {{6, 9}, {4, 9, 65}, 0, 0}, false, 0);         // A without a batch
    checkGemm(t, {{3, 9, 6}, {1, 65, 9}, 1, 1}, false, 0);      // both transposed, B broadcast
  }
}

TEST(Gemm, AnyCoreCountGivesTheSameBits) {
  // Each output element is one core's dot product in a fixed order: the core count cannot change it.
  const GemmCase g{{37, 300}, {300, 270}, 0, 0};
  std::vector<std::vector<uint32_t>> results;
  for (int cores : {1, 7, 24}) {
    const auto a = tensorOf(DType::F32, g.a, randomValues(count(g.a), -1, 1, 1));
    const auto b = tensorOf(DType::F32, g.b, randomValues(count(g.b), -1, 1, 2));
    const auto out = runKernel("gemm_fwd_f32", {a, b}, {{DType::F32, {37, 270}}}, paramsOf(tpc_kernels_gemm_params{0, 0, 0}), cores);
    if (!out.empty()) results.push_back(bitsOfTensor(out[0]));
  }
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
}

}  // namespace
}  // namespace kltest
