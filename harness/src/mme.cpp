#include "tpc/harness/mme.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include <cblas.h>

namespace tpc::harness {

uint16_t toBf16(float f) {
  uint32_t b = std::bit_cast<uint32_t>(f);
  if ((b & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((b >> 16) | 0x40u);
  b += 0x7fffu + ((b >> 16) & 1u);
  return static_cast<uint16_t>(b >> 16);
}

float fromBf16(uint16_t h) { return std::bit_cast<float>(static_cast<uint32_t>(h) << 16); }

double mmeComputeCycles(const DeviceModel& model, DType inputs, int64_t m, int64_t n, int64_t k) {
  if (m <= 0 || n <= 0 || k <= 0) return 0;
  // Output-stationary tiles of rows x cols; each takes k steps (f32: f32CyclesPerK per step), the tiles
  // spread over the engines; the systolic array fills and drains once per GEMM (rows + cols cycles).
  const int64_t tiles = ((m + model.mmeRows - 1) / model.mmeRows) * ((n + model.mmeCols - 1) / model.mmeCols);
  const int64_t perMme = (tiles + model.mmeCount - 1) / model.mmeCount;
  const double perK = inputs == DType::F32 ? model.f32CyclesPerK : 1;
  return static_cast<double>(perMme) * static_cast<double>(k) * perK + model.mmeRows + model.mmeCols;
}

double mmeTimeUs(const DeviceModel& model, DType inputs, int64_t m, int64_t n, int64_t k, DType output) {
  const double compute = model.cyclesToUs(mmeComputeCycles(model, inputs, m, n, k));
  const double bytes = static_cast<double>(m * k + k * n) * static_cast<double>(dtypeSize(inputs)) +
                       static_cast<double>(m * n) * static_cast<double>(dtypeSize(output));
  const double memory = bytes / model.hbmBytesPerSecond * 1e6;
  return std::max(compute, memory);
}

void mmeGemm(DType inputs, bool transA, bool transB, int64_t m, int64_t n, int64_t k, const float* a,
             const float* b, float* c) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    std::fill(c, c + m * n, 0.0f);
    return;
  }
  std::vector<float> ar, br;
  if (inputs == DType::BF16) {
    ar.resize(static_cast<size_t>(m * k));
    br.resize(static_cast<size_t>(k * n));
    for (size_t i = 0; i < ar.size(); ++i) ar[i] = fromBf16(toBf16(a[i]));
    for (size_t i = 0; i < br.size(); ++i) br[i] = fromBf16(toBf16(b[i]));
    a = ar.data();
    b = br.data();
  }
  cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0f, a,
              static_cast<int>(transA ? m : k), b, static_cast<int>(transB ? k : n), 0.0f, c, static_cast<int>(n));
}

void useOneBlasThread() { openblas_set_num_threads(1); }

}  // namespace tpc::harness
