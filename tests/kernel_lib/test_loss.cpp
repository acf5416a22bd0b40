// The ONNX losses (nll_loss_fwd, softmax_cross_entropy_fwd) against a host reference in long double: [N, C]
// in f32 and bf16 and [N, C, d] in f32, with and without class weights, an ignored label, and each
// reduction. Bounds: each position's log-probability within (C + 4) u of its terms' scale (u = 2^-24, or
// bf16's input rounding for bf16), sums within N u of the sum of magnitudes, plus the output's rounding.
#include "kernel_test.h"

namespace kltest {
namespace {

using Shape = std::vector<int64_t>;

struct LossCase {
  Shape x;  // [N, C] or [N, C, D]
  bool weight;
  int reduction;
  bool ignore;
};

void checkLoss(const std::string& op, DType t, const LossCase& c, bool logProb, int cores = 0) {
  const bool softmax = op == "softmax_cross_entropy";
  const std::string guid = op + (t == DType::F32 ? "_fwd_f32" : "_fwd_bf16");
  SCOPED_TRACE(guid + " " + shapeName(c.x) + " weight " + std::to_string(c.weight) + " reduction " +
               std::to_string(c.reduction) + " ignore " + std::to_string(c.ignore) + " log_prob " + std::to_string(logProb));
  const int64_t n = c.x[0], classes = c.x[1], d = c.x.size() == 3 ? c.x[2] : 1;
  Shape labelShape = {n};
  if (c.x.size() == 3) labelShape.push_back(d);
  std::vector<double> xs = randomValues(count(c.x), softmax ? -5 : -6, softmax ? 5 : -0.01, 3);
  std::vector<double> ls(static_cast<size_t>(n * d)), ws = randomValues(static_cast<size_t>(classes), 0.5, 2, 4);
  for (size_t k = 0; k < ls.size(); ++k) ls[k] = static_cast<double>((k * 7 + 3) % static_cast<size_t>(classes));
  const int ignoreIndex = 1;
  HostTensor x = tensorOf(t, c.x, xs), labels = tensorOf(DType::I32, labelShape, ls), w = tensorOf(DType::F32, {classes}, ws);
  std::vector<HostTensor> inputs = {x, labels};
  if (c.weight) inputs.push_back(w);
  std::vector<std::pair<DType, Shape>> outputs = {{DType::F32, c.reduction ? Shape{1} : labelShape}};
  if (logProb) outputs.push_back({t, c.x});
  auto got = runKernel(guid, inputs, outputs, paramsOf(tpc_kernels_loss_params{c.reduction, c.ignore ? 1 : 0, ignoreIndex}), cores);
  if (got.empty()) return;
  const auto xv = valuesOf(x), wv = valuesOf(w);
  const long double u = t == DType::F32 ? 0x1p-24L : 0x1p-8L;
  long double sum = 0, weights = 0, absSum = 0, errSum = 0;
  const auto lossGot = valuesOf(got[0]);
  const std::vector<long double> lp = logProb ? valuesOf(got[1]) : std::vector<long double>{};
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < d; ++j) {
      auto at = [&](int64_t k) { return static_cast<size_t>((i * classes + k) * d + j); };
      long double m = -INFINITY, s = 0, scale = 0;
      for (int64_t k = 0; k < classes; ++k) m = std::fmax(m, xv[at(k)]);
      for (int64_t k = 0; k < classes; ++k) s += std::exp(xv[at(k)] - m), scale = std::fmax(scale, std::fabs(xv[at(k)]));
      const long double lse = softmax ? m + std::log(s) : 0;
      const long double tol = (classes + 4) * u * (1 + scale + std::fabs(lse));
      for (int64_t k = 0; k < classes && logProb; ++k) {
        ASSERT_NEAR(static_cast<double>(lp[at(k)]), static_cast<double>(xv[at(k)] - lse), static_cast<double>(tol + (t == DType::F32 ? 0 : 0x1p-8L * std::fabs(xv[at(k)] - lse))))
            << "log_prob of position " << i << "," << j << " class " << k;
      }
      const int64_t label = static_cast<int64_t>(ls[static_cast<size_t>(i * d + j)]);
      const bool ignored = c.ignore && label == ignoreIndex;
      const long double weight = ignored ? 0 : c.weight ? wv[static_cast<size_t>(label)] : 1;
      const long double l = ignored ? 0 : -(xv[at(label)] - lse) * weight;
      sum += l, weights += weight, absSum += std::fabs(l), errSum += tol * weight;
      if (c.reduction == 0) {
        ASSERT_NEAR(static_cast<double>(lossGot[static_cast<size_t>(i * d + j)]), static_cast<double>(l),
                    static_cast<double>(tol * weight + 4 * 0x1p-24L * std::fabs(l)))
            << "position " << i << "," << j;
      }
    }
  // The sum: each term's own error, and f32 additions in any order (n d of them) on the magnitudes.
  const long double sumTol = errSum + (n * d + 1) * 0x1p-24L * absSum;
  if (c.reduction == 1) {
    EXPECT_NEAR(static_cast<double>(lossGot[0]), static_cast<double>(sum), static_cast<double>(sumTol));
  } else if (c.reduction == 2) {
    EXPECT_NEAR(static_cast<double>(lossGot[0]), static_cast<double>(sum / weights),
                static_cast<double>(sumTol / weights + 4 * 0x1p-24L * std::fabs(sum / weights)));
  }
}

TEST(Loss, EveryFormReductionAndType) {
  for (const std::string op : {"nll_loss", "softmax_cross_entropy"})
    for (int reduction : {0, 1, 2})
      for (bool weight : {false, true})
        for (bool ignore : {false, true}) {
          for (DType t : {DType::F32, DType::BF16}) checkLoss(op, t, {{7, 130}, weight, reduction, ignore}, false);
          checkLoss(op, DType::F32, {{3, 5, 70}, weight, reduction, ignore}, false);
          checkLoss(op, DType::F32, {{40, 11}, weight, reduction, ignore}, false, 1);
          if (op == "softmax_cross_entropy") {
            checkLoss(op, DType::F32, {{5, 70}, weight, reduction, ignore}, true);
            checkLoss(op, DType::BF16, {{5, 200}, weight, reduction, ignore}, true);
            checkLoss(op, DType::F32, {{2, 4, 65}, weight, reduction, ignore}, true);
          }
        }
}

TEST(Loss, Rejections) {
  auto code = [](const std::string& guid, std::vector<HostTensor> in, std::vector<HostTensor> out, tpc_kernels_loss_params p) {
    tpc::kernels::NodeRun node;
    node.guid = guid;
    node.inputs = std::move(in);
    node.outputs = std::move(out);
    node.params = paramsOf(p);
    return tpc::kernels::runNode(node).glue.code;
  };
  using tpc::makeZeroTensor;
  EXPECT_EQ(code("nll_loss_fwd_f32", {makeZeroTensor(DType::F32, {3, 4}), makeZeroTensor(DType::I32, {4})}, {makeZeroTensor(DType::F32, {1})}, {2, 0, 0}),
            tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE);
  EXPECT_EQ(code("nll_loss_fwd_f32", {makeZeroTensor(DType::F32, {3, 4}), makeZeroTensor(DType::I32, {3})}, {makeZeroTensor(DType::F32, {3})}, {3, 0, 0}),
            tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  EXPECT_EQ(code("nll_loss_fwd_bf16", {makeZeroTensor(DType::BF16, {3, 4, 5}), makeZeroTensor(DType::I32, {3, 5})}, {makeZeroTensor(DType::F32, {1})}, {2, 0, 0}),
            tpc_lib_api::GLUE_INCOMPATIBLE_DATA_TYPE);
  EXPECT_EQ(code("softmax_cross_entropy_fwd_f32", {makeZeroTensor(DType::F32, {3, 4}), makeZeroTensor(DType::I32, {3}), makeZeroTensor(DType::F32, {5})},
                 {makeZeroTensor(DType::F32, {1})}, {2, 0, 0}),
            tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE);
}

}  // namespace
}  // namespace kltest
