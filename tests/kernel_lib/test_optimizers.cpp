// sgd_fwd and adamw_fwd (f32 and bf16 gradients) against PyTorch's update rules evaluated in long double:
// several steps in a row (the state carried from one to the next), with and without momentum and weight
// decay. Bound: a few f32 roundings of each term of the update.
#include <cmath>

#include "kernel_test.h"

namespace kltest {
namespace {

long double nearTo(long double x) { return 8 * kU32 * std::fabs(x); }

bool close(uint32_t got, long double exact, long double tolerance) {
  return std::fabs(valueOfF32(got) - exact) <= tolerance + ulpOfF32(exact) / 2 + 0x1p-126L;
}

// Also on shapes whose rows hold several of the loop's groups of 4 points (512 elements) and a tail, with
// several rows per core and dimension 2 above one (common.h, FOR_EACH_POINT_FLAT).
TEST(Sgd, StepsWithMomentumAndWeightDecay) {
  const std::pair<std::vector<int64_t>, int> shapes[] = {{{3, 301}, 0}, {{5, 3 * 512 + 2 * 128 + 77}, 1},
                                                         {{5, 3 * 512 + 2 * 128 + 77}, 3}, {{2, 3, 1024}, 2}};
  for (const auto& [shape, cores] : shapes)
    for (DType gt : {DType::F32, DType::BF16})
      for (auto [momentum, decay] : {std::pair{0.0f, 0.0f}, std::pair{0.9f, 0.01f}}) {
        SCOPED_TRACE(std::string(gt == DType::F32 ? "f32" : "bf16") + " momentum " + std::to_string(momentum) + " " +
                     shapeName(shape) + " cores " + std::to_string(cores));
        const std::string guid = gt == DType::F32 ? "sgd_fwd_f32" : "sgd_fwd_bf16";
        HostTensor w = tensorOf(DType::F32, shape, randomValues(count(shape), -1, 1, 1));
        HostTensor buf = tensorOf(DType::F32, shape, std::vector<double>(count(shape), 0.0));
        std::vector<long double> W = valuesOf(w), B = valuesOf(buf);
        const tpc_kernels_sgd_params p{0.1f, momentum, decay};
        for (int step = 0; step < 3; ++step) {
          HostTensor g = tensorOf(gt, shape, randomValues(count(shape), -1, 1, static_cast<uint32_t>(10 + step)));
          const auto out = runKernel(guid, {w, g, buf}, {{DType::F32, shape}, {DType::F32, shape}}, paramsOf(p), cores);
          ASSERT_FALSE(out.empty());
          const auto G = valuesOf(g);
          const auto gotW = bitsOfTensor(out[0]), gotB = bitsOfTensor(out[1]);
          int bad = 0;
          for (size_t i = 0; i < W.size() && bad < 5; ++i) {
            const long double gi = G[i] + decay * W[i];
            const long double b = momentum * B[i] + gi;
            const long double wNew = W[i] - p.lr * (momentum != 0 ? b : gi);
            const long double tol = nearTo(gi) + nearTo(momentum * B[i]);
            if ((!close(gotB[i], b, tol) || !close(gotW[i], wNew, nearTo(W[i]) + p.lr * tol + nearTo(p.lr * b))) && ++bad)
              ADD_FAILURE() << "step " << step << " element " << i << ": w " << floatOf(gotW[i]) << " want "
                            << static_cast<double>(wNew) << ", buf " << floatOf(gotB[i]) << " want " << static_cast<double>(b);
            // The next step starts from what the kernel wrote (as in place).
          }
          w = out[0], buf = out[1];
          W = valuesOf(w), B = valuesOf(buf);
        }
      }
}

TEST(AdamW, StepsMatchTheUpdateRule) {
  const std::vector<int64_t> shape = {2, 3, 130};
  for (DType gt : {DType::F32, DType::BF16}) {
    SCOPED_TRACE(gt == DType::F32 ? "f32" : "bf16");
    const std::string guid = gt == DType::F32 ? "adamw_fwd_f32" : "adamw_fwd_bf16";
    HostTensor w = tensorOf(DType::F32, shape, randomValues(count(shape), -1, 1, 3));
    HostTensor m = tensorOf(DType::F32, shape, std::vector<double>(count(shape), 0.0));
    HostTensor v = m;
    for (int step = 1; step <= 3; ++step) {
      const tpc_kernels_adamw_params p{0.01f, 0.9f, 0.999f, 1e-8f, 0.05f, step};
      HostTensor g = tensorOf(gt, shape, randomValues(count(shape), -2, 2, static_cast<uint32_t>(20 + step)));
      const auto out = runKernel(guid, {w, g, m, v}, {{DType::F32, shape}, {DType::F32, shape}, {DType::F32, shape}}, paramsOf(p));
      ASSERT_FALSE(out.empty());
      const auto W = valuesOf(w), G = valuesOf(g), M = valuesOf(m), V = valuesOf(v);
      const auto gotW = bitsOfTensor(out[0]), gotM = bitsOfTensor(out[1]), gotV = bitsOfTensor(out[2]);
      const long double bias1 = 1 - std::pow(static_cast<long double>(p.beta1), step);
      const long double bias2 = 1 - std::pow(static_cast<long double>(p.beta2), step);
      int bad = 0;
      for (size_t i = 0; i < W.size() && bad < 5; ++i) {
        const long double decayed = W[i] * (1 - static_cast<long double>(p.lr) * p.weight_decay);
        const long double mi = p.beta1 * M[i] + (1 - static_cast<long double>(p.beta1)) * G[i];
        const long double vi = p.beta2 * V[i] + (1 - static_cast<long double>(p.beta2)) * G[i] * G[i];
        const long double denom = std::sqrt(vi) / std::sqrt(bias2) + p.eps;
        const long double update = p.lr / bias1 * mi / denom;
        const long double wNew = decayed - update;
        const bool ok = close(gotM[i], mi, nearTo(mi) + nearTo(G[i])) && close(gotV[i], vi, nearTo(vi)) &&
                        close(gotW[i], wNew, nearTo(decayed) + 16 * kU32 * std::fabs(update));
        if (!ok && ++bad)
          ADD_FAILURE() << "step " << step << " element " << i << ": w " << floatOf(gotW[i]) << " want " << static_cast<double>(wNew)
                        << ", m " << floatOf(gotM[i]) << " want " << static_cast<double>(mi) << ", v " << floatOf(gotV[i])
                        << " want " << static_cast<double>(vi);
      }
      w = out[0], m = out[1], v = out[2];
    }
  }
}

}  // namespace
}  // namespace kltest
