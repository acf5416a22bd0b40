// sgd_fwd_DT and adamw_fwd_DT (kernels/optimizer.c), DT the gradients' type: f32 parameters and state
// (SGD: w, grad, momentum buffer -> w, buffer; AdamW: w, grad, m, v -> w, m, v), all of one shape. Each
// output may reuse its input's memory (inputsReusability): a graph compiler runs the step in place.
#include <cmath>
#include <cstddef>

#include <fmt/format.h>

#include "glue.h"

namespace tpc::kernels {
namespace {

using namespace tpc_lib_api;

constexpr uint32_t kGroup = 128;  // elements of dimension 0 per point

bool finite(std::initializer_list<float> values) {
  for (float v : values)
    if (!std::isfinite(v)) return false;
  return true;
}

class Optimizer : public Family {
 public:
  explicit Optimizer(bool adamw) : adamw_(adamw) {}
  std::vector<std::string> guids(const std::string&) const override {
    const std::string op = adamw_ ? "adamw_fwd_" : "sgd_fwd_";
    return {op + "f32", op + "bf16"};
  }
  const ParamSchema& params() const override {
    if (adamw_) {
      using P = tpc_kernels_adamw_params;
      static const ParamSchema s{sizeof(P),
                                 {{ParamField::F32, "lr", offsetof(P, lr)},
                                  {ParamField::F32, "beta1", offsetof(P, beta1)},
                                  {ParamField::F32, "beta2", offsetof(P, beta2)},
                                  {ParamField::F32, "eps", offsetof(P, eps)},
                                  {ParamField::F32, "weight_decay", offsetof(P, weight_decay)},
                                  {ParamField::I32, "step", offsetof(P, step)}},
                                 [](void* p) { *static_cast<P*>(p) = {0.001f, 0.9f, 0.999f, 1e-8f, 0.01f, 1}; }};
      return s;
    }
    using P = tpc_kernels_sgd_params;
    static const ParamSchema s{sizeof(P),
                               {{ParamField::F32, "lr", offsetof(P, lr)},
                                {ParamField::F32, "momentum", offsetof(P, momentum)},
                                {ParamField::F32, "weight_decay", offsetof(P, weight_decay)}},
                               [](void* p) { *static_cast<P*>(p) = {0.01f, 0.0f, 0.0f}; }};
    return s;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    const TensorDataType gradType = node.guid.ends_with("_bf16") ? DATA_BF16 : DATA_F32;
    const size_t state = adamw_ ? 2 : 1;
    if (GlueResult r = expectCounts(node, 2 + state, 1 + state); !r.ok()) return r;
    const TensorView& w = node.inputs[0];
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      if (GlueResult r = expectType(node, false, k, k == 1 ? gradType : DATA_F32); !r.ok()) return r;
      if (node.inputs[k].dims != w.dims || node.inputs[k].sizes != w.sizes)
        return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: input {} must have the shape of the parameters, {}, not {}",
                                                              node.guid, k, shapeText(w), shapeText(node.inputs[k])));
    }
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      if (GlueResult r = expectType(node, true, k, DATA_F32); !r.ok()) return r;
      if (GlueResult r = expectOutputShape(node, k, w); !r.ok()) return r;
    }
    plan.kernel = node.guid;
    elementwiseSpace(w, kGroup, plan);
    for (const TensorView& t : node.inputs) plan.inputs.push_back(elementwisePattern(t, w, plan.rank, kGroup));
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      TensorAccessPattern p = elementwisePattern(node.outputs[k], w, plan.rank, kGroup);
      // Output k may be input 0 (w) or input 2 + k - 1 (the state it updates).
      p.inputsReusability = static_cast<uint16_t>(1u << (k == 0 ? 0 : k + 1));
      plan.outputs.push_back(p);
    }
    if (adamw_) {
      const auto& p = node.param<tpc_kernels_adamw_params>();
      if (!finite({p.lr, p.beta1, p.beta2, p.eps, p.weight_decay}) || p.beta1 < 0 || p.beta1 >= 1 || p.beta2 < 0 ||
          p.beta2 >= 1 || p.eps < 0 || p.step < 1)
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                    fmt::format("{}: lr, eps >= 0 and weight_decay must be finite, beta1 and beta2 in [0, 1), step >= 1; not "
                                "lr {} beta1 {} beta2 {} eps {} weight_decay {} step {}",
                                node.guid, p.lr, p.beta1, p.beta2, p.eps, p.weight_decay, p.step));
      const double bias1 = 1.0 - std::pow(static_cast<double>(p.beta1), p.step);
      const double bias2 = 1.0 - std::pow(static_cast<double>(p.beta2), p.step);
      for (float v : {p.lr, p.beta1, p.beta2, p.eps, p.weight_decay}) plan.addScalar(v);
      plan.addScalar(static_cast<float>(p.lr / bias1));
      plan.addScalar(static_cast<float>(1.0 / std::sqrt(bias2)));
      plan.addScalar(flatLayout(plan));
    } else {
      const auto& p = node.param<tpc_kernels_sgd_params>();
      if (!finite({p.lr, p.momentum, p.weight_decay}))
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT, fmt::format("{}: lr, momentum and weight_decay must be finite, not {}, {}, {}",
                                                                     node.guid, p.lr, p.momentum, p.weight_decay));
      for (float v : {p.lr, p.momentum, p.weight_decay}) plan.addScalar(v);
      plan.addScalar(flatLayout(plan));
    }
    return {};
  }

 private:
  bool adamw_;
};

}  // namespace

std::vector<std::unique_ptr<Family>> optimizerFamilies() {
  std::vector<std::unique_ptr<Family>> v;
  v.push_back(std::make_unique<Optimizer>(false));
  v.push_back(std::make_unique<Optimizer>(true));
  return v;
}

}  // namespace tpc::kernels
