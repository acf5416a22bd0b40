// The activations with parameters (kernels/activation.c, activation_bwd.c): OP_fwd_DT, out = OP(x), and
// OP_bwd_DT, dx = dy OP'(x), elementwise over tensors of one shape. Each operation is a family of its own,
// so that its GUIDs default to ONNX's attributes for it.
#include <cmath>
#include <cstddef>
#include <utility>

#include <fmt/format.h>

#include "glue.h"

namespace tpc::kernels {
namespace {

using namespace tpc_lib_api;

struct ActivationOp {
  const char* name;
  tpc_kernels_activation_params defaults;
  bool backward;  // has OP_bwd_DT
};

// ONNX's defaults (docs/kernel-lib.md): selu's are the f32 values of the SELU paper's constants.
constexpr ActivationOp kOps[] = {
    {"elu", {1.0f, 0.0f, 0.0f}, true},
    {"selu", {1.67326319217681884765625f, 0.0f, 1.05070102214813232421875f}, true},
    {"celu", {1.0f, 0.0f, 0.0f}, true},
    {"softplus", {0.0f, 0.0f, 0.0f}, true},
    {"softsign", {0.0f, 0.0f, 0.0f}, true},
    {"hardsigmoid", {0.2f, 0.5f, 0.0f}, true},
    {"hardswish", {1.0f / 6.0f, 0.5f, 0.0f}, true},
    {"mish", {0.0f, 0.0f, 0.0f}, true},
    {"silu", {0.0f, 0.0f, 0.0f}, true},
    {"erf", {0.0f, 0.0f, 0.0f}, true},
    {"thresholded_relu", {1.0f, 0.0f, 0.0f}, true},
};
constexpr size_t kNumOps = sizeof kOps / sizeof kOps[0];

template <size_t I> void setDefaults(void* p) { *static_cast<tpc_kernels_activation_params*>(p) = kOps[I].defaults; }

template <size_t... I> const ParamSchema& schemaOf(size_t op, std::index_sequence<I...>) {
  using P = tpc_kernels_activation_params;
  static const ParamSchema schemas[] = {ParamSchema{sizeof(P),
                                                    {{ParamField::F32, "alpha", offsetof(P, alpha)},
                                                     {ParamField::F32, "beta", offsetof(P, beta)},
                                                     {ParamField::F32, "gamma", offsetof(P, gamma)}},
                                                    &setDefaults<I>}...};
  return schemas[op];
}

class Activation : public Family {
 public:
  explicit Activation(size_t op) : op_(op) {}
  std::vector<std::string> guids(const std::string&) const override {
    std::vector<std::string> out;
    for (const char* dir : {"_fwd_", "_bwd_"})
      if (dir[1] == 'f' || kOps[op_].backward)
        for (const char* t : {"f32", "bf16"}) out.push_back(std::string(kOps[op_].name) + dir + t);
    return out;
  }
  const ParamSchema& params() const override { return schemaOf(op_, std::make_index_sequence<kNumOps>()); }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type = DATA_F32;
    typeOfGuid(node.guid, &type);
    const bool backward = node.guid.find("_bwd_") != std::string::npos;
    if (GlueResult r = expectCounts(node, backward ? 2 : 1, 1); !r.ok()) return r;
    if (GlueResult r = expectAllTypes(node, type); !r.ok()) return r;
    const TensorView& shape = node.inputs[0];
    if (backward && (node.inputs[1].dims != shape.dims || node.inputs[1].sizes != shape.sizes))
      return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: input 1 (x) must have the shape of input 0 (dy), {}, not {}",
                                                            node.guid, shapeText(shape), shapeText(node.inputs[1])));
    if (GlueResult r = expectOutputShape(node, 0, shape); !r.ok()) return r;
    const auto& p = node.param<tpc_kernels_activation_params>();
    for (const auto& [name, v] : {std::pair{"alpha", p.alpha}, {"beta", p.beta}, {"gamma", p.gamma}})
      if (!std::isfinite(v))
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT, fmt::format("{}: {} must be finite, not {}", node.guid, name, v));
    if (std::string(kOps[op_].name) == "celu" && p.alpha == 0.0f)
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT, fmt::format("{}: alpha must not be 0 (celu divides by it)", node.guid));
    plan.kernel = node.guid;
    fillElementwise(node, shape, lanesOf(type), plan);
    plan.addScalar(p.alpha);
    plan.addScalar(p.beta);
    plan.addScalar(p.gamma);
    plan.addScalar(flatLayout(plan));
    return {};
  }

 private:
  size_t op_;
};

}  // namespace

std::vector<std::unique_ptr<Family>> activationFamilies() {
  std::vector<std::unique_ptr<Family>> v;
  for (size_t op = 0; op < kNumOps; ++op) v.push_back(std::make_unique<Activation>(op));
  return v;
}

}  // namespace tpc::kernels
