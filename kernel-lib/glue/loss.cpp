// The ONNX losses (kernels/nll.c): nll_loss_fwd_DT (x: log-probabilities) and softmax_cross_entropy_fwd_DT
// (x: scores), x [N, C] or [N, C, d1, ...], labels (i32) x's shape without C, an optional weight per class
// (f32); outputs the loss (f32: labels' shape for reduction 0, one element otherwise) and, for softmax
// cross-entropy, optionally the log-probabilities (x's shape and type).
#include <cstddef>

#include <fmt/format.h>

#include "glue.h"

namespace tpc::kernels {
namespace {

using namespace tpc_lib_api;

class Loss : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override {
    return {"nll_loss_fwd_f32", "nll_loss_fwd_bf16", "softmax_cross_entropy_fwd_f32", "softmax_cross_entropy_fwd_bf16"};
  }
  const ParamSchema& params() const override {
    using P = tpc_kernels_loss_params;
    static const ParamSchema s{sizeof(P),
                               {{ParamField::I32, "reduction", offsetof(P, reduction)},
                                {ParamField::I32, "has_ignore", offsetof(P, has_ignore)},
                                {ParamField::I32, "ignore_index", offsetof(P, ignore_index)}},
                               [](void* p) { *static_cast<P*>(p) = {2, 0, 0}; }};
    return s;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type = DATA_F32;
    typeOfGuid(node.guid, &type);
    const bool softmax = node.guid.starts_with("softmax");
    const auto& p = node.param<tpc_kernels_loss_params>();
    const size_t ins = node.inputs.size(), outs = node.outputs.size();
    if (ins < 2 || ins > 3)
      return fail(GLUE_INCOMPATIBLE_INPUT_COUNT, fmt::format("{} takes 2 or 3 input tensors (x, labels, weight), not {}", node.guid, ins));
    if (outs < 1 || outs > (softmax ? 2u : 1u))
      return fail(GLUE_INCOMPATIBLE_OUTPUT_COUNT,
                  fmt::format("{} takes {} output tensor(s), not {}", node.guid, softmax ? "1 or 2 (loss, log_prob)" : "1 (loss)", outs));
    if (GlueResult r = expectType(node, false, 0, type); !r.ok()) return r;
    if (GlueResult r = expectType(node, false, 1, DATA_I32); !r.ok()) return r;
    if (ins == 3)
      if (GlueResult r = expectType(node, false, 2, DATA_F32); !r.ok()) return r;
    if (GlueResult r = expectType(node, true, 0, DATA_F32); !r.ok()) return r;
    if (outs == 2)
      if (GlueResult r = expectType(node, true, 1, type); !r.ok()) return r;
    if (p.reduction < 0 || p.reduction > 2 || (p.has_ignore != 0 && p.has_ignore != 1))
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                  fmt::format("{}: reduction must be 0 (none), 1 (sum) or 2 (mean) and has_ignore 0 or 1, not {} and {}",
                              node.guid, p.reduction, p.has_ignore));
    const TensorView &x = node.inputs[0], &labels = node.inputs[1];
    if (x.dims < 2)
      return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: x must be [N, C] or [N, C, d...], not {}", node.guid, shapeText(x)));
    const uint32_t cd = x.dims - 2;  // the class dimension
    if (cd > 0 && type != DATA_F32)
      return fail(GLUE_INCOMPATIBLE_DATA_TYPE,
                  fmt::format("{}: x with dimensions after the classes ({}) is f32 only; bf16 takes [N, C]", node.guid, shapeText(x)));
    TensorView want;  // labels: x without the class dimension
    want.type = DATA_I32;
    want.dims = x.dims - 1;
    for (uint32_t d = 0; d < 5; ++d) want.sizes[d] = d < cd ? x.sizes[d] : d + 1 < 5 ? x.sizes[d + 1] : 1;
    bool same = labels.dims == want.dims;
    for (size_t d = 0; d < 5 && same; ++d) same = labels.sizes[d] == want.sizes[d];
    if (!same)
      return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: labels must have x's shape without the classes, {}, not {}",
                                                            node.guid, shapeText(want), shapeText(labels)));
    const uint64_t classes = x.sizes[cd];
    if (ins == 3 && (node.inputs[2].dims != 1 || node.inputs[2].sizes[0] != classes))
      return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: weight must have one value per class, ({},), not {}",
                                                            node.guid, classes, shapeText(node.inputs[2])));
    if (x.elements() == 0)
      return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: x is empty, {}", node.guid, shapeText(x)));
    const TensorView& loss = node.outputs[0];
    if (p.reduction == 0) {
      want.type = DATA_F32;
      if (GlueResult r = expectOutputShape(node, 0, want); !r.ok()) return r;
    } else if (loss.elements() != 1) {
      return fail(GLUE_INCOMPATIBLE_OUTPUT_SIZE,
                  fmt::format("{}: with reduction {} the loss is one element, not {}", node.guid, p.reduction, shapeText(loss)));
    }
    if (outs == 2)
      if (GlueResult r = expectOutputShape(node, 1, x); !r.ok()) return r;
    plan.kernel = fmt::format("{}.cd{}{}{}", node.guid, cd, ins == 3 ? ".w" : "", outs == 2 ? ".lp" : "");
    plan.rank = std::max<uint32_t>(want.dims, 1);
    if (p.reduction != 0) {
      plan.geometry = {1, 1, 1, 1, 1};
    } else if (cd == 0) {
      plan.geometry = {1, want.sizes[0], 1, 1, 1};  // one row of classes a point
      plan.rank = 2;
    } else {
      for (size_t d = 0; d < 5; ++d) plan.geometry[d] = d == 0 ? (want.sizes[0] + 63) / 64 : want.sizes[d];
    }
    TensorAccessPattern any{};
    any.allRequired = 1;
    for (size_t k = 0; k < ins; ++k) plan.inputs.push_back(any);
    for (size_t k = 0; k < outs; ++k) plan.outputs.push_back(any);
    plan.addScalar(p.reduction);
    plan.addScalar(p.has_ignore);
    plan.addScalar(p.ignore_index);
    return {};
  }
};

}  // namespace

std::vector<std::unique_ptr<Family>> lossFamilies() {
  std::vector<std::unique_ptr<Family>> v;
  v.push_back(std::make_unique<Loss>());
  return v;
}

}  // namespace tpc::kernels
