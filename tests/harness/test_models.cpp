// The MME model against its own roofline, the timelines' booking, and bf16 rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tpc/harness/device_model.h"
#include "tpc/harness/mme.h"
#include "tpc/harness/timeline.h"

namespace tpc::harness {
namespace {

TEST(MmeModel, NeverFasterThanItsRoofline) {
  const DeviceModel& m = gaudi2();
  EXPECT_NEAR(m.clockHz(), 1.648e9, 1e6);
  for (DType t : {DType::F32, DType::BF16})
    for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1}, {1, 4096, 4096}, {512, 4096, 1024},
                           {4096, 4096, 4096}, {300, 70, 9}, {8192, 8192, 8192}}) {
      const double us = mmeTimeUs(m, t, M, N, K);
      const double flops = 2.0 * M * N * K;
      const double bytes = static_cast<double>(M * K + K * N) * dtypeSize(t) + M * N * 4.0;
      EXPECT_GE(us * 1e-6 * m.mmePeakFlops(t), flops * (1 - 1e-12)) << M << "x" << N << "x" << K;
      EXPECT_GE(us * 1e-6 * m.hbmBytesPerSecond, bytes * (1 - 1e-12));
    }
}

TEST(MmeModel, LargeGemmsReachThePeakSkinnyOnesTheBandwidth) {
  const DeviceModel& m = gaudi2();
  // 8192^3 in bf16: compute bound, within 2% of 432 TFLOPS.
  const double big = mmeTimeUs(m, DType::BF16, 8192, 8192, 8192);
  EXPECT_GT(2.0 * 8192 * 8192 * 8192 / (big * 1e-6), 0.98 * m.bf16PeakFlops);
  // Below the machine balance (432 TFLOPS / 2.45 TB/s = 176 flops per byte) a GEMM is memory bound: its
  // time is its bytes over HBM (256 x 512 outputs, k = 65536: 170 flops per byte).
  const double thin = mmeTimeUs(m, DType::BF16, 256, 512, 65536);
  EXPECT_NEAR(thin, ((256.0 + 512.0) * 65536 * 2 + 256.0 * 512 * 4) / m.hbmBytesPerSecond * 1e6, 1e-6);
  // A matrix-vector product uses one row of the array: far below the peak.
  EXPECT_GT(mmeTimeUs(m, DType::BF16, 1, 8192, 8192), 100 * 2.0 * 8192 * 8192 / m.bf16PeakFlops * 1e6);
  // f32 is 4 times slower on the array.
  EXPECT_NEAR(mmeComputeCycles(m, DType::F32, 4096, 4096, 4096) - 512, 4 * (mmeComputeCycles(m, DType::BF16, 4096, 4096, 4096) - 512), 1e-9);
}

TEST(MmeGemm, MatchesAPlainLoopWithTransposes) {
  const int64_t M = 5, N = 7, K = 3;
  std::vector<float> a(M * K), b(K * N), c(M * N);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 5) - 2.0f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 3) + 0.5f;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      mmeGemm(DType::F32, ta, tb, M, N, K, a.data(), b.data(), c.data());
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
          float want = 0;
          for (int64_t k = 0; k < K; ++k) want += (ta ? a[k * M + i] : a[i * K + k]) * (tb ? b[j * K + k] : b[k * N + j]);
          EXPECT_EQ(c[i * N + j], want) << ta << tb << " " << i << "," << j;
        }
    }
}

TEST(MmeGemm, Bf16RoundsTheInputs) {
  const float a = 1.0f + 1.0f / 256 + 1.0f / 1024;  // rounds up to 1 + 2^-7 in bf16
  const float b = 1.0f;
  float c = 0;
  mmeGemm(DType::BF16, false, false, 1, 1, 1, &a, &b, &c);
  EXPECT_EQ(c, 1.0f + 1.0f / 128);
  EXPECT_EQ(toBf16(1.0f), 0x3f80);
  EXPECT_EQ(fromBf16(toBf16(-2.5f)), -2.5f);
  EXPECT_TRUE(std::isnan(fromBf16(toBf16(NAN))));
}

TEST(Timeline, BooksTheEarliestGapAfterReady) {
  Timeline t;
  EXPECT_EQ(t.book(0, 10, "a"), 0);
  EXPECT_EQ(t.book(0, 5, "b"), 10);
  EXPECT_EQ(t.book(30, 5, "c"), 30);
  EXPECT_EQ(t.book(0, 10, "d"), 15);   // the gap 15-30 holds it
  EXPECT_EQ(t.book(0, 10, "e"), 35);   // no gap left before 35
  EXPECT_EQ(t.book(12, 0, "f"), 15);  // zero length: the first free instant at or after 12
  EXPECT_DOUBLE_EQ(t.busy(), 40);
  EXPECT_DOUBLE_EQ(t.end(), 45);
}

}  // namespace
}  // namespace tpc::harness
