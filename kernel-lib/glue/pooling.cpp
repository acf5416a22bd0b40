// 2-D pooling (kernels/pool.c, global_pool.c): maxpool2d_fwd (y and i32 indices), maxpool2d_bwd,
// avgpool2d_fwd, avgpool2d_bwd, global_avgpool_fwd and global_maxpool_fwd, f32 and bf16, on 4-D tensors in
// NCHW or NHWC. Every kernel is elementwise over the tensor it writes (y, or dx for the backward ones),
// VL elements of dimension 0 per point (64 f32, 128 bf16); the inputs are read anywhere.
// docs/kernel-lib.md lists the GUIDs, tensors and parameters.
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

class Pool : public Family {
 public:
  // op: "maxpool2d" or "avgpool2d"; backward: the _bwd GUIDs.
  Pool(std::string op, bool backward) : op_(std::move(op)), backward_(backward) {}
  std::vector<std::string> guids(const std::string&) const override {
    const std::string base = op_ + (backward_ ? "_bwd_" : "_fwd_");
    return {base + "f32", base + "bf16"};
  }
  const ParamSchema& params() const override {
    using P = tpc_kernels_pool_params;
    static const ParamSchema s{sizeof(P),
                               {{ParamField::I32, "kernel", offsetof(P, kernel), 2},
                                {ParamField::I32, "stride", offsetof(P, stride), 2},
                                {ParamField::I32, "pads", offsetof(P, pads), 4},
                                {ParamField::I32, "dilation", offsetof(P, dilation), 2},
                                {ParamField::I32, "ceil_mode", offsetof(P, ceil_mode)},
                                {ParamField::I32, "count_include_pad", offsetof(P, count_include_pad)},
                                {ParamField::I32, "layout", offsetof(P, layout)}},
                               [](void* p) { *static_cast<P*>(p) = {{1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 0, 0, 0}; }};
    return s;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type = DATA_F32;
    typeOfGuid(node.guid, &type);
    const bool max = op_ == "maxpool2d";
    // Forward: x -> y (, indices). Backward: dy (, indices) -> dx.
    const size_t inputs = backward_ && max ? 2 : 1, outputs = !backward_ && max ? 2 : 1;
    if (GlueResult r = expectCounts(node, inputs, outputs); !r.ok()) return r;
    const auto& p = node.param<tpc_kernels_pool_params>();
    if (GlueResult r = expectLayout(node, p.layout); !r.ok()) return r;
    for (int k = 0; k < 2; ++k) {
      if (p.kernel[k] < 1 || p.stride[k] < 1 || p.dilation[k] < 1)
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                    fmt::format("{}: kernel, stride and dilation must be at least 1; [{}] are {}, {} and {}", node.guid,
                                k, p.kernel[k], p.stride[k], p.dilation[k]));
    }
    for (int k = 0; k < 4; ++k)
      if (p.pads[k] < 0 || p.pads[k] >= (p.kernel[k % 2] - 1) * p.dilation[k % 2] + 1)
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                    fmt::format("{}: pads[{}] must be in [0, {}) (the window's extent: a window wholly in the "
                                "padding has nothing to pool), not {}",
                                node.guid, k, (p.kernel[k % 2] - 1) * p.dilation[k % 2] + 1, p.pads[k]));
    if ((p.ceil_mode != 0 && p.ceil_mode != 1) || (p.count_include_pad != 0 && p.count_include_pad != 1))
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                  fmt::format("{}: ceil_mode and count_include_pad must be 0 or 1, not {} and {}", node.guid,
                              p.ceil_mode, p.count_include_pad));
    // The big tensor (x, or dx for the backward) and the pooled one (y, or dy).
    const TensorView& big = backward_ ? node.outputs[0] : node.inputs[0];
    if (GlueResult r = expect4d(node, backward_, 0); !r.ok()) return r;
    const Dims d = dimsOf(p.layout);
    const int64_t H = static_cast<int64_t>(big.sizes[d.h]), W = static_cast<int64_t>(big.sizes[d.w]);
    if (H * W >= (int64_t{1} << 31))
      return fail(backward_ ? GLUE_INCOMPATIBLE_OUTPUT_SIZE : GLUE_INCOMPATIBLE_INPUT_SIZE,
                  fmt::format("{}: a plane of {} x {} elements: the indices count in 32 bits", node.guid, H, W));
    TensorView pooled = big;
    pooled.sizes[d.h] = static_cast<uint64_t>(
        pooledSize(H, p.pads[0], p.pads[2], p.kernel[0], p.stride[0], p.dilation[0], p.ceil_mode != 0));
    pooled.sizes[d.w] = static_cast<uint64_t>(
        pooledSize(W, p.pads[1], p.pads[3], p.kernel[1], p.stride[1], p.dilation[1], p.ceil_mode != 0));
    if (pooled.elements() == 0 || big.elements() == 0)
      return fail(backward_ ? GLUE_INCOMPATIBLE_OUTPUT_SIZE : GLUE_INCOMPATIBLE_INPUT_SIZE,
                  fmt::format("{}: no window fits in a plane of {} x {} (pooled shape {})", node.guid, H, W,
                              shapeText(pooled)));
    if (backward_) {
      if (GlueResult r = expectType(node, false, 0, type); !r.ok()) return r;
      const TensorView& dy = node.inputs[0];
      if (dy.dims != pooled.dims || dy.sizes != pooled.sizes)
        return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: input 0 (dy) must have the pooled shape {}, not {}",
                                                              node.guid, shapeText(pooled), shapeText(dy)));
      if (max) {
        if (GlueResult r = expectType(node, false, 1, DATA_I32); !r.ok()) return r;
        const TensorView& ix = node.inputs[1];
        if (ix.dims != pooled.dims || ix.sizes != pooled.sizes)
          return fail(GLUE_INCOMPATIBLE_INPUT_SIZE,
                      fmt::format("{}: input 1 (indices) must have the pooled shape {}, not {}", node.guid,
                                  shapeText(pooled), shapeText(ix)));
      }
      if (GlueResult r = expectType(node, true, 0, type); !r.ok()) return r;
    } else {
      if (GlueResult r = expectType(node, false, 0, type); !r.ok()) return r;
      if (GlueResult r = expectType(node, true, 0, type); !r.ok()) return r;
      pooled.type = type;
      if (GlueResult r = expectOutputShape(node, 0, pooled); !r.ok()) return r;
      if (max) {
        if (GlueResult r = expectType(node, true, 1, DATA_I32); !r.ok()) return r;
        TensorView ix = pooled;
        ix.type = DATA_I32;
        if (GlueResult r = expectOutputShape(node, 1, ix); !r.ok()) return r;
      }
    }
    const TensorView& written = backward_ ? big : pooled;
    const uint32_t lanes = lanesOf(type);
    plan.kernel = node.guid + layoutSuffix(p.layout);
    elementwiseSpace(written, lanes, plan);
    for (size_t k = 0; k < inputs; ++k) plan.inputs.push_back(anywhere());
    for (size_t k = 0; k < outputs; ++k)
      plan.outputs.push_back(elementwisePattern(node.outputs[k], written, plan.rank, lanes));
    for (int32_t v : {p.kernel[0], p.kernel[1], p.stride[0], p.stride[1], p.dilation[0], p.dilation[1], p.pads[0],
                      p.pads[1]})
      plan.addScalar(v);
    plan.addScalar(static_cast<int32_t>(H + p.pads[2]));
    plan.addScalar(static_cast<int32_t>(W + p.pads[3]));
    plan.addScalar(p.count_include_pad);
    return {};
  }

 private:
  std::string op_;
  bool backward_;
};

// global_avgpool_fwd_DT, global_maxpool_fwd_DT: x -> y with H and W of size 1.
class GlobalPool : public Family {
 public:
  explicit GlobalPool(std::string op) : op_(std::move(op)) {}
  std::vector<std::string> guids(const std::string&) const override {
    return {op_ + "_fwd_f32", op_ + "_fwd_bf16"};
  }
  const ParamSchema& params() const override {
    using P = tpc_kernels_layout_params;
    static const ParamSchema s{sizeof(P), {{ParamField::I32, "layout", offsetof(P, layout)}},
                               [](void* p) { *static_cast<P*>(p) = {0}; }};
    return s;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type = DATA_F32;
    typeOfGuid(node.guid, &type);
    if (GlueResult r = expectCounts(node, 1, 1); !r.ok()) return r;
    if (GlueResult r = expectAllTypes(node, type); !r.ok()) return r;
    const int32_t layout = node.param<tpc_kernels_layout_params>().layout;
    if (GlueResult r = expectLayout(node, layout); !r.ok()) return r;
    if (GlueResult r = expect4d(node, false, 0); !r.ok()) return r;
    const TensorView& x = node.inputs[0];
    const Dims d = dimsOf(layout);
    if (x.elements() == 0 || x.sizes[d.h] * x.sizes[d.w] >= (uint64_t{1} << 24))
      return fail(GLUE_INCOMPATIBLE_INPUT_SIZE,
                  fmt::format("{}: the plane must have 1 to 2^24 - 1 elements (its size is an exact f32), not {} x {}",
                              node.guid, x.sizes[d.h], x.sizes[d.w]));
    TensorView y = x;
    y.sizes[d.h] = y.sizes[d.w] = 1;
    if (GlueResult r = expectOutputShape(node, 0, y); !r.ok()) return r;
    const uint32_t lanes = lanesOf(type);
    plan.kernel = node.guid + layoutSuffix(layout);
    elementwiseSpace(y, lanes, plan);
    plan.inputs.push_back(anywhere());
    plan.outputs.push_back(elementwisePattern(y, y, plan.rank, lanes));
    return {};
  }

 private:
  std::string op_;
};

}  // namespace

std::vector<std::unique_ptr<Family>> poolingFamilies() {
  std::vector<std::unique_ptr<Family>> v;
  for (const char* op : {"maxpool2d", "avgpool2d"})
    for (bool backward : {false, true}) v.push_back(std::make_unique<Pool>(op, backward));
  v.push_back(std::make_unique<GlobalPool>("global_avgpool"));
  v.push_back(std::make_unique<GlobalPool>("global_maxpool"));
  return v;
}

}  // namespace tpc::kernels
