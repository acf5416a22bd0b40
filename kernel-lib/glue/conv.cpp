// Direct 2-D convolution (kernels/conv.c): conv2d_fwd (x, w[, bias] -> y), conv2d_bwd_data (dy, w -> dx;
// also ONNX's ConvTranspose) and conv2d_bwd_weights (x, dy -> dw), f32 and bf16, on 4-D tensors in NCHW
// (w [M, C/groups, kH, kW]) or NHWC (w [kH, kW, C/groups, M]). Each kernel is elementwise over the tensor it
// writes, VL elements of dimension 0 per point (64 f32, 128 bf16), and computes each element in one place;
// the inputs are read anywhere. docs/kernel-lib.md lists the GUIDs, tensors and parameters.
#include <cstddef>
#include <utility>

#include <fmt/format.h>

#include "cnn.h"
#include "glue.h"

namespace tpc::kernels {
namespace {

using namespace tpc_lib_api;
using namespace cnn;

TensorAccessPattern anywhere() {
  TensorAccessPattern p{};
  p.allRequired = 1;
  return p;
}

// The weight's sizes from its TPC dimensions: NHWC [M, Cg, kW, kH], NCHW [kW, kH, Cg, M].
struct WeightDims {
  int64_t m, cg, kh, kw;
};
WeightDims weightDims(const TensorView& w, int32_t layout) {
  const auto& s = w.sizes;
  if (layout == 1)
    return {static_cast<int64_t>(s[0]), static_cast<int64_t>(s[1]), static_cast<int64_t>(s[3]), static_cast<int64_t>(s[2])};
  return {static_cast<int64_t>(s[3]), static_cast<int64_t>(s[2]), static_cast<int64_t>(s[1]), static_cast<int64_t>(s[0])};
}

class Conv : public Family {
 public:
  enum Kind { kForward, kData, kWeights };
  explicit Conv(Kind kind) : kind_(kind) {}
  std::string base() const {
    return kind_ == kForward ? "conv2d_fwd_" : kind_ == kData ? "conv2d_bwd_data_" : "conv2d_bwd_weights_";
  }
  std::vector<std::string> guids(const std::string&) const override { return {base() + "f32", base() + "bf16"}; }
  const ParamSchema& params() const override {
    using P = tpc_kernels_conv_params;
    static const ParamSchema s{sizeof(P),
                               {{ParamField::I32, "stride", offsetof(P, stride), 2},
                                {ParamField::I32, "pads", offsetof(P, pads), 4},
                                {ParamField::I32, "dilation", offsetof(P, dilation), 2},
                                {ParamField::I32, "groups", offsetof(P, groups)},
                                {ParamField::I32, "layout", offsetof(P, layout)}},
                               [](void* p) { *static_cast<P*>(p) = {{1, 1}, {0, 0, 0, 0}, {1, 1}, 1, 0}; }};
    return s;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type = DATA_F32;
    typeOfGuid(node.guid, &type);
    const bool bias = kind_ == kForward && node.inputs.size() == 3;
    if (GlueResult r = expectCounts(node, bias ? 3 : 2, 1); !r.ok()) return r;
    if (GlueResult r = expectAllTypes(node, type); !r.ok()) return r;
    const auto& p = node.param<tpc_kernels_conv_params>();
    if (GlueResult r = expectLayout(node, p.layout); !r.ok()) return r;
    for (int k = 0; k < 2; ++k)
      if (p.stride[k] < 1 || p.dilation[k] < 1)
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                    fmt::format("{}: stride and dilation must be at least 1; [{}] are {} and {}", node.guid, k,
                                p.stride[k], p.dilation[k]));
    for (int k = 0; k < 4; ++k)
      if (p.pads[k] < 0)
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                    fmt::format("{}: pads[{}] must be at least 0, not {}", node.guid, k, p.pads[k]));
    if (p.groups < 1)
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                  fmt::format("{}: groups must be at least 1, not {}", node.guid, p.groups));
    // The roles: x-shaped (x, dx), w-shaped (w, dw), y-shaped (y, dy); each an input or the output.
    struct Role {
      bool output;
      size_t index;
      const char* name;
    };
    const Role xr = kind_ == kData ? Role{true, 0, "dx"} : Role{false, 0, "x"};
    const Role wr = kind_ == kWeights ? Role{true, 0, "dw"} : Role{false, 1, "w"};
    const Role yr = kind_ == kForward ? Role{true, 0, "y"} : kind_ == kData ? Role{false, 0, "dy"} : Role{false, 1, "dy"};
    auto view = [&](const Role& r) -> const TensorView& { return (r.output ? node.outputs : node.inputs)[r.index]; };
    auto sizeCode = [](const Role& r) { return r.output ? GLUE_INCOMPATIBLE_OUTPUT_SIZE : GLUE_INCOMPATIBLE_INPUT_SIZE; };
    for (const Role& r : {xr, wr, yr})
      if (view(r).dims != 4)
        return fail(sizeCode(r), fmt::format("{}: {} ({} {}) must be 4-D, not {}", node.guid, r.name,
                                             r.output ? "output" : "input", r.index, shapeText(view(r))));
    const TensorView& x = view(xr);
    const WeightDims wd = weightDims(view(wr), p.layout);
    const Dims d = dimsOf(p.layout);
    const int64_t C = static_cast<int64_t>(x.sizes[d.c]), H = static_cast<int64_t>(x.sizes[d.h]),
                  W = static_cast<int64_t>(x.sizes[d.w]);
    if (x.elements() == 0 || view(wr).elements() == 0)
      return fail(sizeCode(x.elements() == 0 ? xr : wr),
                  fmt::format("{}: {} {} and {} {} must not be empty", node.guid, xr.name, shapeText(x), wr.name,
                              shapeText(view(wr))));
    if (C % p.groups != 0 || wd.m % p.groups != 0 || wd.cg != C / p.groups)
      return fail(sizeCode(wr),
                  fmt::format("{}: {} {} ({}) must have M a multiple of groups {} and C/groups = {}/{} input "
                              "channels; it has M {} and {}",
                              node.guid, wr.name, shapeText(view(wr)),
                              p.layout == 1 ? "kH, kW, C/groups, M" : "M, C/groups, kH, kW", p.groups, C, p.groups,
                              wd.m, wd.cg));
    TensorView y = x;
    y.type = type;
    y.sizes[d.c] = static_cast<uint64_t>(wd.m);
    y.sizes[d.h] = static_cast<uint64_t>(pooledSize(H, p.pads[0], p.pads[2], wd.kh, p.stride[0], p.dilation[0], false));
    y.sizes[d.w] = static_cast<uint64_t>(pooledSize(W, p.pads[1], p.pads[3], wd.kw, p.stride[1], p.dilation[1], false));
    if (y.elements() == 0)
      return fail(sizeCode(xr), fmt::format("{}: no {} x {} window (dilation {}, {}) fits in a padded plane of {} x {}",
                                            node.guid, wd.kh, wd.kw, p.dilation[0], p.dilation[1],
                                            H + p.pads[0] + p.pads[2], W + p.pads[1] + p.pads[3]));
    const TensorView& yv = view(yr);
    if (yv.sizes != y.sizes)
      return fail(sizeCode(yr), fmt::format("{}: {} ({} {}) must have the shape {}, not {}", node.guid, yr.name,
                                            yr.output ? "output" : "input", yr.index, shapeText(y), shapeText(yv)));
    if (bias) {
      const TensorView& b = node.inputs[2];
      if (b.dims != 1 || static_cast<int64_t>(b.sizes[0]) != wd.m)
        return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: input 2 (bias) must have the shape ({}), not {}",
                                                              node.guid, wd.m, shapeText(b)));
    }
    if (x.elements() >= (uint64_t{1} << 31) || y.elements() >= (uint64_t{1} << 31))
      return fail(sizeCode(xr), fmt::format("{}: {} and {} must have fewer than 2^31 elements (32-bit coordinates)",
                                            node.guid, xr.name, yr.name));
    const TensorView& written = node.outputs[0];
    const uint32_t lanes = lanesOf(type);
    plan.kernel = node.guid + layoutSuffix(p.layout) + (p.layout == 0 && p.stride[1] == 1 ? ".w1" : "") +
                  (bias ? ".bias" : "");
    elementwiseSpace(written, lanes, plan);
    for (size_t k = 0; k < node.inputs.size(); ++k) plan.inputs.push_back(anywhere());
    plan.outputs.push_back(elementwisePattern(written, written, plan.rank, lanes));
    for (int32_t v : {p.stride[0], p.stride[1], p.dilation[0], p.dilation[1], p.pads[0], p.pads[1], p.groups})
      plan.addScalar(v);
    return {};
  }

 private:
  Kind kind_;
};

}  // namespace

std::vector<std::unique_ptr<Family>> convFamilies() {
  std::vector<std::unique_ptr<Family>> v;
  for (Conv::Kind k : {Conv::kForward, Conv::kData, Conv::kWeights}) v.push_back(std::make_unique<Conv>(k));
  return v;
}

}  // namespace tpc::kernels
