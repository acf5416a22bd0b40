// cross_entropy_fwd_DT and cross_entropy_bwd_DT (kernels/cross_entropy.c): logits with the classes along
// dimension 0, i32 labels with one element per row, either the logits' shape with dimension 0 of size 1 or
// the logits' shape without dimension 0 (PyTorch's [N] for [N, C]); the loss and its gradient dloss are f32
// with the labels' shape.
#include <fmt/format.h>

#include "glue.h"
#include "row_geometry.h"

namespace tpc::kernels {
namespace {

using namespace tpc_lib_api;

class CrossEntropy : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override {
    return {"cross_entropy_fwd_f32", "cross_entropy_fwd_bf16", "cross_entropy_bwd_f32", "cross_entropy_bwd_bf16"};
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    const TensorDataType type = node.guid.ends_with("_bf16") ? DATA_BF16 : DATA_F32;
    const bool backward = node.guid.starts_with("cross_entropy_bwd");
    if (GlueResult r = expectCounts(node, backward ? 3 : 2, 1); !r.ok()) return r;
    if (GlueResult r = expectType(node, false, 0, type); !r.ok()) return r;
    if (GlueResult r = expectType(node, false, 1, DATA_I32); !r.ok()) return r;
    const TensorView& x = node.inputs[0];
    if (GlueResult r = checkRowDim(node, x, 0); !r.ok()) return r;
    // The labels' shape: the logits' with dimension 0 of size 1, or without dimension 0.
    const TensorView& labels = node.inputs[1];
    const TensorView same = reducedShape(x, 0);
    TensorView shifted;
    shifted.dims = x.dims - 1;
    for (size_t d = 0; d + 1 < 5; ++d) shifted.sizes[d] = x.sizes[d + 1];
    const bool isSame = labels.dims == same.dims && labels.sizes == same.sizes;
    const bool isShifted = x.dims >= 2 && labels.dims == shifted.dims && labels.sizes == shifted.sizes;
    if (!isSame && !isShifted)
      return fail(GLUE_INCOMPATIBLE_INPUT_SIZE,
                  fmt::format("{}: input 1 (labels) must have the shape {} or {} for logits {}, not {}", node.guid,
                              shapeText(same), shapeText(shifted), shapeText(x), shapeText(labels)));
    TensorView lossShape = labels;
    lossShape.type = DATA_F32;
    if (backward) {
      if (GlueResult r = expectType(node, false, 2, DATA_F32); !r.ok()) return r;
      if (node.inputs[2].dims != labels.dims || node.inputs[2].sizes != labels.sizes)
        return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: input 2 (dloss) must have the labels' shape {}, not {}",
                                                              node.guid, shapeText(labels), shapeText(node.inputs[2])));
      if (GlueResult r = expectType(node, true, 0, type); !r.ok()) return r;
      if (GlueResult r = expectOutputShape(node, 0, x); !r.ok()) return r;
    } else {
      if (GlueResult r = expectType(node, true, 0, DATA_F32); !r.ok()) return r;
      if (GlueResult r = expectOutputShape(node, 0, lossShape); !r.ok()) return r;
    }
    const RowGeometry g = rowGeometry(x, 0, lanesOf(type));
    g.fill(plan, node.guid);
    // One element per row: index-space dimension d (1-4) is labels' dimension d, or d - 1 when shifted.
    TensorAccessPattern perRow = g.pattern(false);
    if (!isSame) {
      perRow = TensorAccessPattern{};
      for (uint32_t d = 0; d + 1 < g.rank; ++d) perRow.mapping[d] = {d + 1, 1.0f, 0.0f, 0.0f, false};
    }
    plan.inputs = {g.pattern(true), perRow};
    if (backward) plan.inputs.push_back(perRow);
    plan.outputs = {backward ? g.pattern(true) : perRow};
    plan.addScalar(g.n);
    plan.addScalar(static_cast<int32_t>(isSame ? 0 : 1));
    plan.addScalar(flatLayout(plan));
    return {};
  }
};

}  // namespace

std::vector<std::unique_ptr<Family>> crossEntropyFamilies() {
  std::vector<std::unique_ptr<Family>> v;
  v.push_back(std::make_unique<CrossEntropy>());
  return v;
}

}  // namespace tpc::kernels
