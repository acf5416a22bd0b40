// layernorm_fwd_DT, layernorm_bwd_DT and rmsnorm_fwd_DT along dimension 0 (kernels/norm.c). gamma and
// beta are one-dimensional, of the row's length and the data type; mean and rstd are f32 with the input's
// shape but dimension 0 of size 1; dgamma and dbeta are f32, zeroed before the launch (memsetBeforeExecution)
// and summed into by every row.
#include <cmath>
#include <cstddef>

#include <fmt/format.h>

#include "glue.h"
#include "row_geometry.h"

namespace tpc::kernels {
namespace {

using namespace tpc_lib_api;

GlueResult expectVectorOf(const Node& node, bool output, size_t index, uint32_t n, TensorDataType type) {
  if (GlueResult r = expectType(node, output, index, type); !r.ok()) return r;
  const TensorView& t = (output ? node.outputs : node.inputs)[index];
  if (t.dims != 1 || t.sizes[0] != n)
    return fail(output ? GLUE_INCOMPATIBLE_OUTPUT_SIZE : GLUE_INCOMPATIBLE_INPUT_SIZE,
                fmt::format("{} {} {} must have the shape ({},) (the normalized dimension), not {}", node.guid,
                            output ? "output" : "input", index, n, shapeText(t)));
  return {};
}

GlueResult expectShape(const Node& node, size_t index, const TensorView& shape, TensorDataType type) {
  if (GlueResult r = expectType(node, false, index, type); !r.ok()) return r;
  const TensorView& t = node.inputs[index];
  if (t.dims != shape.dims || t.sizes != shape.sizes)
    return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{} input {} must have the shape {}, not {}", node.guid, index,
                                                          shapeText(shape), shapeText(t)));
  return {};
}

// Every point reads a one-dimensional tensor whole.
TensorAccessPattern wholeVector(uint32_t n) {
  TensorAccessPattern p{};
  p.mapping[0].indexSpaceDim = 0;
  p.mapping[0].a = 0.0f;
  p.mapping[0].start_b = 0.0f;
  p.mapping[0].end_b = static_cast<float>(n) - 1.0f;
  return p;
}

class Norm : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override {
    std::vector<std::string> out;
    for (const char* op : {"layernorm_fwd", "layernorm_bwd", "rmsnorm_fwd"})
      for (const char* t : {"f32", "bf16"}) out.push_back(std::string(op) + "_" + t);
    return out;
  }
  const ParamSchema& params() const override {
    static const ParamSchema s{sizeof(tpc_kernels_norm_params),
                               {{ParamField::I32, "dim", offsetof(tpc_kernels_norm_params, dim)},
                                {ParamField::F32, "eps", offsetof(tpc_kernels_norm_params, eps)}},
                               [](void* p) { *static_cast<tpc_kernels_norm_params*>(p) = {0, 1e-5f}; }};
    return s;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    const TensorDataType type = node.guid.ends_with("_bf16") ? DATA_BF16 : DATA_F32;
    const bool layer = node.guid.starts_with("layernorm"), backward = node.guid.starts_with("layernorm_bwd");
    // Inputs: x, gamma, beta | dy, x, gamma, mean, rstd | x, gamma. Outputs: y, mean, rstd | dx, dgamma, dbeta | y, rstd.
    const size_t inputs = backward ? 5 : layer ? 3 : 2, outputs = layer ? 3 : 2;
    if (GlueResult r = expectCounts(node, inputs, outputs); !r.ok()) return r;
    const TensorView& x = node.inputs[0];
    if (GlueResult r = expectType(node, false, 0, type); !r.ok()) return r;
    const auto& p = node.param<tpc_kernels_norm_params>();
    if (GlueResult r = checkRowDim(node, x, p.dim); !r.ok()) return r;
    if (p.dim != 0)
      return fail(GLUE_UNSUPPORTED_LAYER_CONFIGURATION,
                  fmt::format("{} normalizes along dimension 0 (the last NumPy axis) only, not dim {}", node.guid, p.dim));
    if (!backward && !(p.eps >= 0.0f && std::isfinite(p.eps)))
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                  fmt::format("{}: eps must be a finite number >= 0, not {}", node.guid, p.eps));
    const RowGeometry g = rowGeometry(x, 0, lanesOf(type));
    const TensorView stats = reducedShape(x, 0);
    if (backward) {
      if (GlueResult r = expectShape(node, 1, x, type); !r.ok()) return r;
      if (GlueResult r = expectVectorOf(node, false, 2, g.n, type); !r.ok()) return r;
      for (size_t k : {3, 4})
        if (GlueResult r = expectShape(node, k, stats, DATA_F32); !r.ok()) return r;
      if (GlueResult r = expectType(node, true, 0, type); !r.ok()) return r;
      if (GlueResult r = expectOutputShape(node, 0, x); !r.ok()) return r;
      for (size_t k : {1, 2})
        if (GlueResult r = expectVectorOf(node, true, k, g.n, DATA_F32); !r.ok()) return r;
    } else {
      for (size_t k = 1; k < inputs; ++k)
        if (GlueResult r = expectVectorOf(node, false, k, g.n, type); !r.ok()) return r;
      if (GlueResult r = expectType(node, true, 0, type); !r.ok()) return r;
      if (GlueResult r = expectOutputShape(node, 0, x); !r.ok()) return r;
      for (size_t k = 1; k < outputs; ++k) {
        if (GlueResult r = expectType(node, true, k, DATA_F32); !r.ok()) return r;
        if (GlueResult r = expectOutputShape(node, k, stats); !r.ok()) return r;
      }
    }
    g.fill(plan, node.guid);
    if (backward) {
      plan.inputs = {g.pattern(true), g.pattern(true), wholeVector(g.n), g.pattern(false), g.pattern(false)};
      // dgamma and dbeta: every row adds to them (read-modify-write stores), from zero.
      TensorAccessPattern accumulated = wholeVector(g.n);
      accumulated.memsetBeforeExecution = 1;
      accumulated.memsetValue.fValue = 0.0f;
      plan.outputs = {g.pattern(true), accumulated, accumulated};
    } else {
      plan.inputs.push_back(g.pattern(true));
      for (size_t k = 1; k < inputs; ++k) plan.inputs.push_back(wholeVector(g.n));
      plan.outputs.push_back(g.pattern(true));
      for (size_t k = 1; k < outputs; ++k) plan.outputs.push_back(g.pattern(false));
    }
    plan.addScalar(g.n);
    if (!backward) plan.addScalar(p.eps);
    plan.addScalar(1.0f / static_cast<float>(g.n));
    plan.addScalar(flatLayout(plan));
    return {};
  }
};

}  // namespace

std::vector<std::unique_ptr<Family>> normFamilies() {
  std::vector<std::unique_ptr<Family>> v;
  v.push_back(std::make_unique<Norm>());
  return v;
}

}  // namespace tpc::kernels
