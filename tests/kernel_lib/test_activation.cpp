// The activations with parameters (elu, selu, celu, softplus, softsign, hardsigmoid, hardswish, mish, silu,
// erf, thresholded_relu), forward and backward, against the host references of activation_reference.h over
// the elementwise shapes, with ONNX's default parameters and with others. Bounds: f32 within `ulps` of the
// exact value, or `absolute` where the exact value is tiny; backward within `gradUlps` f32 ulps of the
// magnitude of the terms it adds (ref::activationGradTerms: silu, mish and hardswish cancel at their
// derivative's zero); bf16 within one bf16 ulp of the exact value rounded to bf16 (or the same bounds
// scaled to bf16).
#include "activation_reference.h"
#include "kernel_test.h"

namespace kltest {
namespace {

struct ActivationCase {
  const char* op;
  double lo, hi;                 // inputs
  tpc_kernels_activation_params defaults, other;
  int64_t ulps, gradUlps;        // f32 bounds of the forward and backward
  long double absolute;          // or this far from the exact value
};

const ActivationCase kCases[] = {
    {"elu", -12, 6, {1, 0, 0}, {0.5f, 0, 0}, 3, 3, 0},
    {"selu", -12, 6, {1.67326319217681884765625f, 0, 1.05070102214813232421875f}, {1.2f, 0, 2.0f}, 4, 4, 0},
    {"celu", -12, 6, {1, 0, 0}, {2.5f, 0, 0}, 4, 4, 0},
    {"softplus", -30, 30, {0, 0, 0}, {0, 0, 0}, 4, 4, 0},
    {"softsign", -1e4, 1e4, {0, 0, 0}, {0, 0, 0}, 2, 3, 0},
    {"hardsigmoid", -6, 6, {0.2f, 0.5f, 0}, {0.3f, 0.25f, 0}, 1, 0, 0},
    {"hardswish", -6, 6, {1.0f / 6, 0.5f, 0}, {0.25f, 0.5f, 0}, 2, 2, 0x1p-40L},
    {"mish", -20, 20, {0, 0, 0}, {0, 0, 0}, 4, 6, 0x1p-30L},
    {"silu", -40, 40, {0, 0, 0}, {0, 0, 0}, 4, 6, 0x1p-40L},
    {"erf", -5, 5, {0, 0, 0}, {0, 0, 0}, 4, 4, 0},
    {"thresholded_relu", -3, 3, {1, 0, 0}, {-0.5f, 0, 0}, 0, 0, 0},
};

ref::ActivationParams paramsOfStruct(const tpc_kernels_activation_params& p) { return {p.alpha, p.beta, p.gamma}; }

bool within(uint32_t got, long double exact, int64_t ulps, long double absolute, long double terms) {
  if (ulps32(got, toF32(exact)) <= ulps) return true;
  const long double err = std::fabs(valueOfF32(got) - exact);
  return (absolute > 0 && err <= absolute) || err <= ulps * ulpOfF32(terms);
}
bool withinBF16(uint16_t got, long double exact, long double absolute, long double terms) {
  if (ulps16(got, toBF16(exact)) <= 1) return true;
  const long double err = std::fabs(valueOfBF16(got) - exact);
  return (absolute > 0 && err <= absolute * 65536) || err <= ulpOfBF16(terms);
}

void check(const ActivationCase& c, bool backward, DType t, const std::vector<int64_t>& shape,
           const tpc_kernels_activation_params* params) {
  const std::string guid = std::string(c.op) + (backward ? "_bwd_" : "_fwd_") + (t == DType::F32 ? "f32" : "bf16");
  SCOPED_TRACE(guid + " " + shapeName(shape) + (params ? " (parameters given)" : " (defaults)"));
  const size_t n = count(shape);
  std::vector<double> xs = randomValues(n, c.lo, c.hi, static_cast<uint32_t>(n * 13 + 5));
  const double specials[] = {0.0, -0.0, 1e-30, -1e-30, 1e-7, -1e-7, 0.5, -0.5, 3.0, -3.0, INFINITY, -INFINITY, NAN};
  for (size_t k = 0; k < std::size(specials) && k + 1 < n; ++k) xs[k + 1] = specials[k];
  HostTensor x = tensorOf(t, shape, xs);
  std::vector<HostTensor> inputs = {x};
  if (backward) inputs.insert(inputs.begin(), tensorOf(t, shape, randomValues(n, -2, 2, static_cast<uint32_t>(n))));
  const auto out = runKernel(guid, inputs, {{t, shape}}, params ? paramsOf(*params) : std::vector<unsigned char>{});
  if (out.empty()) return;
  const auto xv = valuesOf(x);
  const auto dy = backward ? valuesOf(inputs[0]) : std::vector<long double>(n, 1);
  const auto got = bitsOfTensor(out[0]);
  const ref::ActivationParams p = paramsOfStruct(params ? *params : c.defaults);
  int bad = 0;
  for (size_t i = 0; i < n && bad < 5; ++i) {
    if (backward && std::isinf(xv[i])) continue;  // the derivative's limits are 0 x inf in several forms
    const long double exact = backward ? ref::activationGrad(c.op, dy[i], xv[i], p) : ref::activation(c.op, xv[i], p);
    const long double terms = backward ? ref::activationGradTerms(c.op, dy[i], xv[i], p) : std::fabs(exact);
    const bool ok = t == DType::F32 ? within(got[i], exact, backward ? c.gradUlps : c.ulps, c.absolute, terms)
                                    : withinBF16(static_cast<uint16_t>(got[i]), exact, c.absolute, terms);
    if (!ok) {
      ++bad;
      ADD_FAILURE() << guid << "(" << static_cast<double>(xv[i]) << ") element " << i << ": got 0x" << std::hex
                    << got[i] << std::dec << " ("
                    << static_cast<double>(t == DType::F32 ? valueOfF32(got[i]) : valueOfBF16(static_cast<uint16_t>(got[i])))
                    << "), exact " << static_cast<double>(exact);
    }
  }
}

TEST(Activation, ForwardEveryOperationTypeAndShape) {
  for (const ActivationCase& c : kCases)
    for (DType t : {DType::F32, DType::BF16})
      for (const auto& shape : elementwiseShapes()) check(c, false, t, shape, nullptr);
}

TEST(Activation, BackwardEveryOperationTypeAndShape) {
  for (const ActivationCase& c : kCases)
    for (DType t : {DType::F32, DType::BF16})
      for (const auto& shape : elementwiseShapes()) check(c, true, t, shape, nullptr);
}

// Parameters other than the defaults reach the kernel (a kernel that ignored them fails here).
TEST(Activation, ParametersReachTheKernel) {
  for (const ActivationCase& c : kCases)
    for (bool backward : {false, true}) check(c, backward, DType::F32, {3, 131}, &c.other);
}

TEST(Activation, RejectsBadParameters) {
  tpc::kernels::NodeRun node;
  node.guid = "celu_fwd_f32";
  node.inputs = {tpc::makeZeroTensor(DType::F32, {4})};
  node.outputs = {tpc::makeZeroTensor(DType::F32, {4})};
  node.params = paramsOf(tpc_kernels_activation_params{0, 0, 0});
  auto r = tpc::kernels::runNode(node);
  EXPECT_EQ(r.glue.code, tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT) << r.glue.message;
  node.guid = "elu_fwd_f32";
  node.params = paramsOf(tpc_kernels_activation_params{NAN, 0, 0});
  r = tpc::kernels::runNode(node);
  EXPECT_EQ(r.glue.code, tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT) << r.glue.message;
}

}  // namespace
}  // namespace kltest
