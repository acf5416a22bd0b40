// Normalizations over sets of channels (kernels/chnorm.c): batchnorm_fwd (training and inference),
// batchnorm_bwd, instancenorm_fwd and groupnorm_fwd, f32 and bf16, on 4-D tensors in NCHW or NHWC (group
// norm NCHW only). A point owns whole channels (groups): NHWC VL channels, NCHW one channel (group), of
// every image (batch norm) or one (instance and group norm). Per-channel tensors are f32 vectors of C.
// docs/kernel-lib.md lists the GUIDs, tensors and parameters.
#include <cmath>
#include <cstddef>
#include <utility>

#include <fmt/format.h>

#include "glue.h"

namespace tpc::kernels {
namespace {

using namespace tpc_lib_api;

TensorAccessPattern anywhere() {
  TensorAccessPattern p{};
  p.allRequired = 1;
  return p;
}

// The pattern of a tensor a point writes: in dimension d, `width[d]` elements per point (0: all of them).
TensorAccessPattern boxPattern(const TensorView& t, const std::array<uint32_t, 4>& width) {
  TensorAccessPattern p{};
  for (uint32_t d = 0; d < 4; ++d) {
    DimIndexSpaceMapping& m = p.mapping[d];
    m.indexSpaceDim = d;
    m.a = static_cast<float>(width[d]);
    m.start_b = 0.0f;
    m.end_b = width[d] ? static_cast<float>(width[d]) - 1.0f : static_cast<float>(t.sizes[d]) - 1.0f;
  }
  return p;
}

struct Layout {
  size_t h, w, c;
};
Layout layoutOf(int32_t layout) { return layout == 1 ? Layout{2, 1, 0} : Layout{1, 0, 2}; }

GlueResult expectChannelVector(const Node& node, bool output, size_t index, uint64_t channels) {
  if (GlueResult r = expectType(node, output, index, DATA_F32); !r.ok()) return r;
  const TensorView& t = (output ? node.outputs : node.inputs)[index];
  if (t.dims != 1 || t.sizes[0] != channels)
    return fail(output ? GLUE_INCOMPATIBLE_OUTPUT_SIZE : GLUE_INCOMPATIBLE_INPUT_SIZE,
                fmt::format("{} {} {} must have the shape ({},) (the channels), not {}", node.guid,
                            output ? "output" : "input", index, channels, shapeText(t)));
  return {};
}

GlueResult expectData(const Node& node, bool output, size_t index, const TensorView& x, TensorDataType type) {
  if (GlueResult r = expectType(node, output, index, type); !r.ok()) return r;
  const TensorView& t = (output ? node.outputs : node.inputs)[index];
  if (t.dims != 4 || t.sizes != x.sizes)
    return fail(output ? GLUE_INCOMPATIBLE_OUTPUT_SIZE : GLUE_INCOMPATIBLE_INPUT_SIZE,
                fmt::format("{} {} {} must have the shape {}, not {}", node.guid, output ? "output" : "input", index,
                            shapeText(x), shapeText(t)));
  return {};
}

// x checked (4-D, of the type, not empty) and the elements per statistic below 2^24 (an exact f32 count).
GlueResult expectInput(const Node& node, size_t index, TensorDataType type, int32_t layout, uint64_t perStatistic) {
  if (layout != 0 && layout != 1)
    return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                fmt::format("{}: layout must be 0 (NCHW) or 1 (NHWC), not {}", node.guid, layout));
  if (GlueResult r = expectType(node, false, index, type); !r.ok()) return r;
  const TensorView& x = node.inputs[index];
  if (x.dims != 4 || x.elements() == 0)
    return fail(GLUE_INCOMPATIBLE_INPUT_SIZE,
                fmt::format("{}: input {} must be 4-D and not empty, not {}", node.guid, index, shapeText(x)));
  if (perStatistic >= (uint64_t{1} << 24))
    return fail(GLUE_INCOMPATIBLE_INPUT_SIZE,
                fmt::format("{}: {} elements per statistic; at most 2^24 - 1 (an exact f32 count)", node.guid,
                            perStatistic));
  return {};
}

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The launch over channels (groups): NHWC [ceil(C / VL), 1, 1, images], NCHW [1, 1, C (groups), images].
void channelSpace(const TensorView& x, int32_t layout, uint64_t groups, uint64_t images, uint32_t lanes,
                  LaunchPlan& plan) {
  plan.rank = 4;
  if (layout == 1)
    plan.geometry = {ceilDiv(x.sizes[0], lanes), 1, 1, images, 1};
  else
    plan.geometry = {1, 1, groups, images, 1};
}

// A data tensor's pattern: NHWC VL channels of whole planes; NCHW one channel (group) of whole planes; of one
// image when `perImage`.
TensorAccessPattern dataPattern(const TensorView& t, int32_t layout, uint32_t lanes, uint32_t groupSize, bool perImage) {
  if (layout == 1) return boxPattern(t, {lanes, 0, 0, perImage ? 1u : 0u});
  return boxPattern(t, {0, 0, groupSize, perImage ? 1u : 0u});
}

TensorAccessPattern channelPattern(const TensorView& t, int32_t layout, uint32_t lanes) {
  TensorAccessPattern p{};
  DimIndexSpaceMapping& m = p.mapping[0];
  m.indexSpaceDim = layout == 1 ? 0 : 2;
  m.a = layout == 1 ? static_cast<float>(lanes) : 1.0f;
  m.start_b = 0.0f;
  m.end_b = m.a - 1.0f;
  (void)t;
  return p;
}

const char* layoutSuffix(int32_t layout) { return layout == 1 ? ".nhwc" : ".nchw"; }

class BatchNorm : public Family {
 public:
  explicit BatchNorm(bool backward) : backward_(backward) {}
  std::vector<std::string> guids(const std::string&) const override {
    const std::string base = backward_ ? "batchnorm_bwd_" : "batchnorm_fwd_";
    return {base + "f32", base + "bf16"};
  }
  const ParamSchema& params() const override {
    using P = tpc_kernels_batchnorm_params;
    static const ParamSchema s{sizeof(P),
                               {{ParamField::F32, "eps", offsetof(P, eps)},
                                {ParamField::F32, "momentum", offsetof(P, momentum)},
                                {ParamField::I32, "training", offsetof(P, training)},
                                {ParamField::I32, "unbiased_running_var", offsetof(P, unbiased_running_var)},
                                {ParamField::I32, "layout", offsetof(P, layout)}},
                               [](void* p) { *static_cast<P*>(p) = {1e-5f, 0.9f, 1, 0, 0}; }};
    return s;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type = DATA_F32;
    typeOfGuid(node.guid, &type);
    const auto& p = node.param<tpc_kernels_batchnorm_params>();
    const bool training = p.training != 0;
    if (p.training != 0 && p.training != 1)
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT, fmt::format("{}: training must be 0 or 1, not {}", node.guid, p.training));
    // Forward: x, gamma, beta, running mean, running var -> y (, saved mean, saved invstd, running mean,
    // running var). Backward: dy, x, gamma, saved mean, saved invstd -> dx, dgamma, dbeta.
    if (GlueResult r = expectCounts(node, 5, backward_ ? 3 : training ? 5 : 1); !r.ok()) return r;
    const size_t xi = backward_ ? 1 : 0;
    const TensorView& x = node.inputs[xi];
    const Layout l = layoutOf(p.layout);
    const uint64_t m = x.dims == 4 ? x.sizes[3] * x.sizes[l.h] * x.sizes[l.w] : 0;
    if (GlueResult r = expectInput(node, xi, type, p.layout, m); !r.ok()) return r;
    const uint64_t C = x.sizes[l.c];
    if (backward_) {
      if (GlueResult r = expectData(node, false, 0, x, type); !r.ok()) return r;
      for (size_t k : {2, 3, 4})
        if (GlueResult r = expectChannelVector(node, false, k, C); !r.ok()) return r;
      if (GlueResult r = expectData(node, true, 0, x, type); !r.ok()) return r;
      for (size_t k : {1, 2})
        if (GlueResult r = expectChannelVector(node, true, k, C); !r.ok()) return r;
    } else {
      for (size_t k = 1; k < 5; ++k)
        if (GlueResult r = expectChannelVector(node, false, k, C); !r.ok()) return r;
      if (GlueResult r = expectData(node, true, 0, x, type); !r.ok()) return r;
      for (size_t k = 1; k < node.outputs.size(); ++k)
        if (GlueResult r = expectChannelVector(node, true, k, C); !r.ok()) return r;
      if (!(p.eps >= 0.0f && std::isfinite(p.eps)) || !std::isfinite(p.momentum))
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                    fmt::format("{}: eps must be finite and >= 0 and momentum finite, not {} and {}", node.guid, p.eps,
                                p.momentum));
      if (training && p.unbiased_running_var == 1 && m < 2)
        return fail(GLUE_INCOMPATIBLE_INPUT_SIZE,
                    fmt::format("{}: the unbiased variance needs 2 or more elements per channel, not {}", node.guid, m));
      if (p.unbiased_running_var != 0 && p.unbiased_running_var != 1)
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                    fmt::format("{}: unbiased_running_var must be 0 or 1, not {}", node.guid, p.unbiased_running_var));
    }
    const uint32_t lanes = lanesOf(type);
    plan.kernel = node.guid + (backward_ ? "" : training ? ".train" : ".infer") + layoutSuffix(p.layout);
    channelSpace(x, p.layout, C, 1, lanes, plan);
    for (size_t k = 0; k < node.inputs.size(); ++k) plan.inputs.push_back(anywhere());
    plan.outputs.push_back(dataPattern(node.outputs[0], p.layout, lanes, 1, false));
    for (size_t k = 1; k < node.outputs.size(); ++k) plan.outputs.push_back(channelPattern(node.outputs[k], p.layout, lanes));
    if (backward_) {
      plan.addScalar(static_cast<float>(m));
    } else if (training) {
      plan.addScalar(p.eps);
      plan.addScalar(static_cast<float>(m));
      plan.addScalar(p.momentum);
      plan.addScalar(static_cast<float>(1.0 - static_cast<double>(p.momentum)));
      plan.addScalar(p.unbiased_running_var ? static_cast<float>(static_cast<double>(m) / static_cast<double>(m - 1)) : 1.0f);
    } else {
      plan.addScalar(p.eps);
    }
    return {};
  }

 private:
  bool backward_;
};

// instancenorm_fwd_DT, groupnorm_fwd_DT: x, gamma, beta -> y.
class GroupNorm : public Family {
 public:
  explicit GroupNorm(bool instance) : instance_(instance) {}
  std::vector<std::string> guids(const std::string&) const override {
    const std::string base = instance_ ? "instancenorm_fwd_" : "groupnorm_fwd_";
    return {base + "f32", base + "bf16"};
  }
  const ParamSchema& params() const override {
    using P = tpc_kernels_groupnorm_params;
    static const ParamSchema s{sizeof(P),
                               {{ParamField::F32, "eps", offsetof(P, eps)},
                                {ParamField::I32, "groups", offsetof(P, groups)},
                                {ParamField::I32, "layout", offsetof(P, layout)}},
                               [](void* p) { *static_cast<P*>(p) = {1e-5f, 1, 0}; }};
    return s;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type = DATA_F32;
    typeOfGuid(node.guid, &type);
    const auto& p = node.param<tpc_kernels_groupnorm_params>();
    if (GlueResult r = expectCounts(node, 3, 1); !r.ok()) return r;
    if (!instance_ && p.layout == 1)
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                  fmt::format("{}: layout must be 0 (NCHW): group norm has no NHWC kernel yet", node.guid));
    const TensorView& x = node.inputs[0];
    const Layout l = layoutOf(p.layout);
    const uint64_t C = x.dims == 4 ? x.sizes[l.c] : 0;
    const int32_t groups = instance_ ? static_cast<int32_t>(C) : p.groups;
    if (!instance_ && (groups < 1 || C % static_cast<uint64_t>(groups) != 0))
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                  fmt::format("{}: groups must divide the {} channels, not {}", node.guid, C, groups));
    const uint64_t groupSize = groups > 0 ? C / static_cast<uint64_t>(groups) : 1;
    const uint64_t m = x.dims == 4 ? groupSize * x.sizes[l.h] * x.sizes[l.w] : 0;
    if (GlueResult r = expectInput(node, 0, type, p.layout, m); !r.ok()) return r;
    for (size_t k : {1, 2})
      if (GlueResult r = expectChannelVector(node, false, k, C); !r.ok()) return r;
    if (GlueResult r = expectData(node, true, 0, x, type); !r.ok()) return r;
    if (!(p.eps >= 0.0f && std::isfinite(p.eps)))
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT, fmt::format("{}: eps must be finite and >= 0, not {}", node.guid, p.eps));
    const uint32_t lanes = lanesOf(type);
    plan.kernel = node.guid + layoutSuffix(p.layout);
    channelSpace(x, p.layout, static_cast<uint64_t>(groups), x.sizes[3], lanes, plan);
    for (size_t k = 0; k < 3; ++k) plan.inputs.push_back(anywhere());
    plan.outputs.push_back(dataPattern(node.outputs[0], p.layout, lanes, static_cast<uint32_t>(groupSize), true));
    plan.addScalar(p.eps);
    plan.addScalar(static_cast<float>(m));
    if (!instance_) plan.addScalar(static_cast<int32_t>(groupSize));
    return {};
  }

 private:
  bool instance_;
};

}  // namespace

std::vector<std::unique_ptr<Family>> chnormFamilies() {
  std::vector<std::unique_ptr<Family>> v;
  v.push_back(std::make_unique<BatchNorm>(false));
  v.push_back(std::make_unique<BatchNorm>(true));
  v.push_back(std::make_unique<GroupNorm>(true));
  v.push_back(std::make_unique<GroupNorm>(false));
  return v;
}

}  // namespace tpc::kernels
