// resize_fwd_{f32,bf16} (kernels/resize.c): ONNX Resize's nearest and linear modes over TPC dimensions 0 and
// 1; the output's shape comes from the node, the scale factors from the parameters (0: output / input).
// The index space is the output's elementwise space. docs/kernel-lib.md lists the parameters.
#include <cmath>
#include <cstddef>

#include <fmt/format.h>

#include "glue.h"

namespace tpc::kernels {
namespace {

using namespace tpc_lib_api;

class Resize : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override { return {"resize_fwd_f32", "resize_fwd_bf16"}; }
  const ParamSchema& params() const override {
    using P = tpc_kernels_resize_params;
    static const ParamSchema s{sizeof(P),
                               {{ParamField::I32, "mode", offsetof(P, mode)},
                                {ParamField::I32, "coordinate_mode", offsetof(P, coordinate_mode)},
                                {ParamField::I32, "nearest_mode", offsetof(P, nearest_mode)},
                                {ParamField::F32, "scale", offsetof(P, scale), 2}},
                               [](void* p) { *static_cast<P*>(p) = {0, 0, 0, {0.0f, 0.0f}}; }};
    return s;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type = DATA_F32;
    typeOfGuid(node.guid, &type);
    if (GlueResult r = expectCounts(node, 1, 1); !r.ok()) return r;
    if (GlueResult r = expectAllTypes(node, type); !r.ok()) return r;
    const auto& p = node.param<tpc_kernels_resize_params>();
    const TensorView &x = node.inputs[0], &y = node.outputs[0];
    if (p.mode != 0 && p.mode != 1)
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT, fmt::format("{}: mode must be 0 (nearest) or 1 (linear), not {}", node.guid, p.mode));
    if (p.coordinate_mode < 0 || p.coordinate_mode > 4)
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                  fmt::format("{}: coordinate_mode must be 0 (half_pixel), 1 (asymmetric), 2 (align_corners), 3 "
                              "(pytorch_half_pixel) or 4 (tf_half_pixel_for_nn), not {}",
                              node.guid, p.coordinate_mode));
    if (p.nearest_mode < 0 || p.nearest_mode > 3)
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                  fmt::format("{}: nearest_mode must be 0 (round_prefer_floor), 1 (round_prefer_ceil), 2 (floor) or 3 "
                              "(ceil), not {}",
                              node.guid, p.nearest_mode));
    if (x.elements() == 0)
      return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: input 0 is empty, {}", node.guid, shapeText(x)));
    if (y.dims != std::max(x.dims, 1u))
      return fail(GLUE_INCOMPATIBLE_OUTPUT_SIZE,
                  fmt::format("{}: the output must have the input's rank, {}, not {}", node.guid, x.dims, y.dims));
    for (size_t d = 2; d < 5; ++d)
      if (y.sizes[d] != x.sizes[d])
        return fail(GLUE_INCOMPATIBLE_OUTPUT_SIZE,
                    fmt::format("{}: output {} resizes TPC dimension {} of input {} (only dimensions 0 and 1 resize)",
                                node.guid, shapeText(y), d, shapeText(x)));
    float scale[2];
    for (size_t d = 0; d < 2; ++d) {
      scale[d] = p.scale[d] == 0.0f ? static_cast<float>(static_cast<double>(y.sizes[d]) / static_cast<double>(x.sizes[d]))
                                    : p.scale[d];
      if (!(scale[d] > 0.0f) || !std::isfinite(scale[d]))
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                    fmt::format("{}: scale[{}] must be positive and finite, not {}", node.guid, d, scale[d]));
      if (y.sizes[d] >= (1u << 24) || x.sizes[d] >= (1u << 24))
        return fail(GLUE_INCOMPATIBLE_OUTPUT_SIZE, fmt::format("{}: 2^24 elements or more along dimension {}", node.guid, d));
    }
    plan.kernel = node.guid;
    fillElementwise(node, y, lanesOf(type), plan);
    TensorAccessPattern anywhere{};
    anywhere.allRequired = 1;
    plan.inputs[0] = anywhere;
    plan.addScalar(p.mode);
    plan.addScalar(p.coordinate_mode);
    plan.addScalar(p.nearest_mode);
    plan.addScalar(scale[0]);
    plan.addScalar(scale[1]);
    return {};
  }
};

}  // namespace

std::vector<std::unique_ptr<Family>> resizeFamilies() {
  std::vector<std::unique_ptr<Family>> v;
  v.push_back(std::make_unique<Resize>());
  return v;
}

}  // namespace tpc::kernels
