// Random numbers on the Philox stream (kernels/philox.h): random_uniform_fwd_f32, random_normal_fwd_f32,
// dropout_fwd_DT (outputs y and a u8 mask) and dropout_bwd_DT. 256 elements of dimension 0 per index-space
// point; the kernels take the flat-index steps of dimensions 1-4, so every element gets the same number
// whatever the split of the index space.
#include <cmath>
#include <cstddef>

#include <fmt/format.h>

#include "glue.h"

namespace tpc::kernels {
namespace {

using namespace tpc_lib_api;

constexpr uint32_t kGroup = 256;  // elements of dimension 0 per point (one u8 vector)

class Random : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override {
    return {"random_uniform_fwd_f32", "random_normal_fwd_f32", "dropout_fwd_f32", "dropout_fwd_bf16",
            "dropout_bwd_f32", "dropout_bwd_bf16"};
  }
  const ParamSchema& params() const override {
    using P = tpc_kernels_random_params;
    static const ParamSchema s{sizeof(P),
                               {{ParamField::U64, "seed", offsetof(P, seed)},
                                {ParamField::U64, "offset", offsetof(P, offset)},
                                {ParamField::F32, "low", offsetof(P, low)},
                                {ParamField::F32, "high", offsetof(P, high)},
                                {ParamField::F32, "mean", offsetof(P, mean)},
                                {ParamField::F32, "std", offsetof(P, std)},
                                {ParamField::F32, "p", offsetof(P, p)}},
                               [](void* p) { *static_cast<P*>(p) = {0, 0, 0.0f, 1.0f, 0.0f, 1.0f, 0.5f}; }};
    return s;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    const auto& p = node.param<tpc_kernels_random_params>();
    const bool dropout = node.guid.starts_with("dropout"), backward = node.guid.starts_with("dropout_bwd");
    const TensorDataType type = node.guid.ends_with("_bf16") ? DATA_BF16 : DATA_F32;
    if (dropout) {
      if (GlueResult r = expectCounts(node, backward ? 2 : 1, backward ? 1 : 2); !r.ok()) return r;
      if (GlueResult r = expectType(node, false, 0, type); !r.ok()) return r;
      const TensorView& x = node.inputs[0];
      if (backward) {
        if (GlueResult r = expectType(node, false, 1, DATA_U8); !r.ok()) return r;
        if (node.inputs[1].dims != x.dims || node.inputs[1].sizes != x.sizes)
          return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: input 1 (mask) must have the shape of input 0, {}, not {}",
                                                                node.guid, shapeText(x), shapeText(node.inputs[1])));
      }
      if (GlueResult r = expectType(node, true, 0, type); !r.ok()) return r;
      if (GlueResult r = expectOutputShape(node, 0, x); !r.ok()) return r;
      if (!backward) {
        if (GlueResult r = expectType(node, true, 1, DATA_U8); !r.ok()) return r;
        if (GlueResult r = expectOutputShape(node, 1, x); !r.ok()) return r;
      }
      if (!(p.p >= 0.0f && p.p < 1.0f))
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                    fmt::format("{}: p (the probability of dropping) must be in [0, 1), not {}", node.guid, p.p));
    } else {
      if (GlueResult r = expectCounts(node, 0, 1); !r.ok()) return r;
      if (GlueResult r = expectType(node, true, 0, DATA_F32); !r.ok()) return r;
      const bool uniform = node.guid.starts_with("random_uniform");
      if (uniform && !(std::isfinite(p.low) && std::isfinite(p.high) && p.low <= p.high))
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                    fmt::format("{}: low and high must be finite with low <= high, not {} and {}", node.guid, p.low, p.high));
      if (!uniform && !(std::isfinite(p.mean) && std::isfinite(p.std) && p.std >= 0.0f))
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                    fmt::format("{}: mean must be finite and std finite and >= 0, not {} and {}", node.guid, p.mean, p.std));
    }
    const TensorView& shape = node.outputs[0];
    if (shape.elements() >= (uint64_t{1} << 31))
      return fail(GLUE_INCOMPATIBLE_OUTPUT_SIZE,
                  fmt::format("{}: output 0 has {} elements; the stream's flat indices take fewer than 2^31", node.guid,
                              shape.elements()));
    plan.kernel = node.guid;
    elementwiseSpace(shape, kGroup, plan);
    for (const TensorView& t : node.inputs) plan.inputs.push_back(elementwisePattern(t, shape, plan.rank, kGroup));
    for (const TensorView& t : node.outputs) plan.outputs.push_back(elementwisePattern(t, shape, plan.rank, kGroup));
    const float scale = 1.0f / (1.0f - p.p);
    if (backward) {
      plan.addScalar(scale);
      plan.addScalar(flatLayout(plan));
      return {};
    }
    plan.addScalar(static_cast<uint32_t>(p.seed));
    plan.addScalar(static_cast<uint32_t>(p.seed >> 32));
    plan.addScalar(static_cast<uint32_t>(p.offset));
    plan.addScalar(static_cast<uint32_t>(p.offset >> 32));
    uint64_t stride = shape.sizes[0];
    for (size_t d = 1; d < 5; ++d) {
      plan.addScalar(static_cast<int32_t>(stride));
      stride *= shape.sizes[d];
    }
    if (dropout) {
      plan.addScalar(p.p);
      plan.addScalar(scale);
    } else if (node.guid.starts_with("random_uniform")) {
      plan.addScalar(p.low);
      plan.addScalar(p.high);
    } else {
      plan.addScalar(p.mean);
      plan.addScalar(p.std);
    }
    return {};
  }
};

}  // namespace

std::vector<std::unique_ptr<Family>> randomFamilies() {
  std::vector<std::unique_ptr<Family>> v;
  v.push_back(std::make_unique<Random>());
  return v;
}

}  // namespace tpc::kernels
