// Elementwise families: unary (relu_fwd_f32, ...), unary backward (relu_bwd_f32, ...), binary with NumPy
// broadcasting (add_fwd_f32, ...), where, clamp and the casts (cast_f32_to_bf16, ...). Their kernels
// (kernels/unary.c, ...) run over the output's elementwise index space; docs/kernel-lib.md lists them.
#include <cmath>
#include <cstddef>
#include <cstring>

#include <fmt/format.h>

#include "glue.h"

namespace tpc::kernels {
namespace {

using namespace tpc_lib_api;

const ParamSchema& unarySchema() {
  static const ParamSchema s{sizeof(tpc_kernels_unary_params),
                             {{ParamField::F32, "alpha", offsetof(tpc_kernels_unary_params, alpha)},
                              {ParamField::I32, "approximate", offsetof(tpc_kernels_unary_params, approximate)}},
                             [](void* p) { *static_cast<tpc_kernels_unary_params*>(p) = {0.01f, 0}; }};
  return s;
}

// ------------------------------------------------------------------------------------------ unary

// OP_fwd_DT: out = OP(x); OP_bwd_DT: dx = OP'(dy, v) with v the forward input or output (kernels/unary_bwd.c).
class Unary : public Family {
 public:
  Unary(std::vector<std::string> ops, bool backward) : ops_(std::move(ops)), backward_(backward) {}
  std::vector<std::string> guids(const std::string&) const override {
    std::vector<std::string> out;
    for (const std::string& op : ops_)
      for (const char* t : {"f32", "bf16"}) out.push_back(op + (backward_ ? "_bwd_" : "_fwd_") + t);
    return out;
  }
  const ParamSchema& params() const override { return unarySchema(); }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type;
    typeOfGuid(node.guid, &type);
    if (GlueResult r = expectCounts(node, backward_ ? 2 : 1, 1); !r.ok()) return r;
    if (GlueResult r = expectAllTypes(node, type); !r.ok()) return r;
    const TensorView& shape = node.inputs[0];
    if (backward_ && (node.inputs[1].dims != shape.dims || node.inputs[1].sizes != shape.sizes))
      return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: input 1 must have the shape of input 0, {}, not {}",
                                                            node.guid, shapeText(shape), shapeText(node.inputs[1])));
    if (GlueResult r = expectOutputShape(node, 0, shape); !r.ok()) return r;
    const auto& p = node.param<tpc_kernels_unary_params>();
    if (!std::isfinite(p.alpha))
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT, fmt::format("{}: alpha must be finite, not {}", node.guid, p.alpha));
    if (p.approximate != 0 && p.approximate != 1)
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                  fmt::format("{}: approximate must be 0 (erf) or 1 (tanh), not {}", node.guid, p.approximate));
    plan.kernel = node.guid;
    fillElementwise(node, shape, lanesOf(type), plan);
    plan.addScalar(p.alpha);
    plan.addScalar(p.approximate);
    plan.addScalar(flatLayout(plan));
    return {};
  }

 private:
  std::vector<std::string> ops_;
  bool backward_;
};

// ------------------------------------------------------------------------------------------ binary

// OP_fwd_DT: out = OP(a, b), a and b broadcast to one shape (kernels/binary.c); pow is C's pow (v_pow_f32).
class Binary : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override {
    std::vector<std::string> out;
    for (const std::string op : {"add", "sub", "mul", "div", "pow", "max", "min"})
      for (const std::string t : {"f32", "bf16", "i32"})
        if (!((op == "div" || op == "pow") && t == "i32")) out.push_back(op + "_fwd_" + t);
    return out;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type;
    typeOfGuid(node.guid, &type);
    if (GlueResult r = expectCounts(node, 2, 1); !r.ok()) return r;
    if (GlueResult r = expectAllTypes(node, type); !r.ok()) return r;
    TensorView shape;
    if (GlueResult r = broadcastShape(node, &shape); !r.ok()) return r;
    if (GlueResult r = expectOutputShape(node, 0, shape); !r.ok()) return r;
    plan.kernel = node.guid;
    fillElementwise(node, shape, lanesOf(type), plan);
    const uint32_t a = broadcastBits(node.inputs[0], shape), b = broadcastBits(node.inputs[1], shape);
    plan.addScalar(a);
    plan.addScalar(b);
    plan.addScalar(flatLayout(plan, (a | b) != 0));
    return {};
  }
};

// where_fwd_DT: out = cond != 0 ? x : y, all three broadcast to one shape; cond is u8 (kernels/where.c).
class Where : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override { return {"where_fwd_f32", "where_fwd_bf16"}; }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type;
    typeOfGuid(node.guid, &type);
    if (GlueResult r = expectCounts(node, 3, 1); !r.ok()) return r;
    if (GlueResult r = expectType(node, false, 0, DATA_U8); !r.ok()) return r;
    for (size_t k : {1, 2})
      if (GlueResult r = expectType(node, false, k, type); !r.ok()) return r;
    if (GlueResult r = expectType(node, true, 0, type); !r.ok()) return r;
    TensorView shape;
    if (GlueResult r = broadcastShape(node, &shape); !r.ok()) return r;
    if (GlueResult r = expectOutputShape(node, 0, shape); !r.ok()) return r;
    plan.kernel = node.guid;
    fillElementwise(node, shape, lanesOf(type), plan);
    uint32_t any = 0;
    for (const TensorView& t : node.inputs) {
      plan.addScalar(broadcastBits(t, shape));
      any |= broadcastBits(t, shape);
    }
    plan.addScalar(flatLayout(plan, any != 0));
    return {};
  }
};

// clamp_fwd_DT: out = min(max(x, low), high) (kernels/clamp.c).
class Clamp : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override { return {"clamp_fwd_f32", "clamp_fwd_bf16"}; }
  const ParamSchema& params() const override {
    static const ParamSchema s{sizeof(tpc_kernels_clamp_params),
                               {{ParamField::F32, "low", offsetof(tpc_kernels_clamp_params, low)},
                                {ParamField::F32, "high", offsetof(tpc_kernels_clamp_params, high)}},
                               [](void* p) { *static_cast<tpc_kernels_clamp_params*>(p) = {-INFINITY, INFINITY}; }};
    return s;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type;
    typeOfGuid(node.guid, &type);
    if (GlueResult r = expectCounts(node, 1, 1); !r.ok()) return r;
    if (GlueResult r = expectAllTypes(node, type); !r.ok()) return r;
    if (GlueResult r = expectOutputShape(node, 0, node.inputs[0]); !r.ok()) return r;
    const auto& p = node.param<tpc_kernels_clamp_params>();
    if (std::isnan(p.low) || std::isnan(p.high) || p.low > p.high)
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                  fmt::format("{}: low and high must be numbers with low <= high, not {} and {}", node.guid, p.low, p.high));
    plan.kernel = node.guid;
    fillElementwise(node, node.inputs[0], lanesOf(type), plan);
    plan.addScalar(p.low);
    plan.addScalar(p.high);
    plan.addScalar(flatLayout(plan));
    return {};
  }
};

// cast_SRC_to_DST (kernels/cast.c): 128 elements per index-space point along dimension 0.
class Cast : public Family {
 public:
  std::vector<std::string> guids(const std::string& arch) const override {
    std::vector<std::string> out = {"cast_f32_to_bf16", "cast_bf16_to_f32", "cast_f32_to_i32", "cast_i32_to_f32"};
    if (arch != "gaudi") out.insert(out.end(), {"cast_f32_to_f16", "cast_f16_to_f32"});  // gaudi has no f16
    return out;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    static const std::vector<std::pair<std::string, TensorDataType>> kTypes = {
        {"f32", DATA_F32}, {"bf16", DATA_BF16}, {"f16", DATA_F16}, {"i32", DATA_I32}};
    const size_t to = node.guid.find("_to_");
    TensorDataType from = DATA_F32, dst = DATA_F32;
    for (const auto& [name, t] : kTypes) {
      if (node.guid.substr(5, to - 5) == name) from = t;
      if (node.guid.substr(to + 4) == name) dst = t;
    }
    if (GlueResult r = expectCounts(node, 1, 1); !r.ok()) return r;
    if (GlueResult r = expectType(node, false, 0, from); !r.ok()) return r;
    if (GlueResult r = expectType(node, true, 0, dst); !r.ok()) return r;
    if (GlueResult r = expectOutputShape(node, 0, node.inputs[0]); !r.ok()) return r;
    plan.kernel = node.guid;
    fillElementwise(node, node.inputs[0], 128, plan);
    plan.addScalar(flatLayout(plan));
    return {};
  }
};

}  // namespace

std::vector<std::unique_ptr<Family>> elementwiseFamilies() {
  std::vector<std::unique_ptr<Family>> v;
  v.push_back(std::make_unique<Unary>(std::vector<std::string>{"relu", "relu6", "leaky_relu", "gelu", "sigmoid", "tanh",
                                                               "exp", "log", "sqrt", "rsqrt", "reciprocal", "abs", "neg"},
                                      false));
  v.push_back(std::make_unique<Unary>(std::vector<std::string>{"relu", "leaky_relu", "gelu", "sigmoid", "tanh"}, true));
  v.push_back(std::make_unique<Binary>());
  v.push_back(std::make_unique<Where>());
  v.push_back(std::make_unique<Clamp>());
  v.push_back(std::make_unique<Cast>());
  return v;
}

}  // namespace tpc::kernels
