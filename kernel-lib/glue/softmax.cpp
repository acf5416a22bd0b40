// softmax_fwd_DT, log_softmax_fwd_DT and softmax_bwd_DT along `dim` (kernels/softmax.c), in the row
// geometry of row_geometry.h.
#include <fmt/format.h>

#include "glue.h"
#include "row_geometry.h"

namespace tpc::kernels {
namespace {

using namespace tpc_lib_api;

class Softmax : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override {
    std::vector<std::string> out;
    for (const char* op : {"softmax_fwd", "log_softmax_fwd", "softmax_bwd"})
      for (const char* t : {"f32", "bf16"}) out.push_back(std::string(op) + "_" + t);
    return out;
  }
  const ParamSchema& params() const override { return reduceSchema(); }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    const TensorDataType type = node.guid.ends_with("_bf16") ? DATA_BF16 : DATA_F32;
    const bool backward = node.guid.starts_with("softmax_bwd");
    if (GlueResult r = expectCounts(node, backward ? 2 : 1, 1); !r.ok()) return r;
    for (size_t k = 0; k < node.inputs.size(); ++k)
      if (GlueResult r = expectType(node, false, k, type); !r.ok()) return r;
    if (GlueResult r = expectType(node, true, 0, type); !r.ok()) return r;
    const TensorView& x = node.inputs[0];
    if (backward && (node.inputs[1].dims != x.dims || node.inputs[1].sizes != x.sizes))
      return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: input 1 (y) must have the shape of input 0 (dy), {}, not {}",
                                                            node.guid, shapeText(x), shapeText(node.inputs[1])));
    const auto& p = node.param<tpc_kernels_reduce_params>();
    if (p.dims != 0 || p.select_last != 0)
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                  fmt::format("{}: normalizes along one dimension, dim; dims and select_last must be 0", node.guid));
    const int32_t dim = p.dim;
    if (GlueResult r = checkRowDim(node, x, dim); !r.ok()) return r;
    if (GlueResult r = expectOutputShape(node, 0, x); !r.ok()) return r;
    const RowGeometry g = rowGeometry(x, dim, lanesOf(type));
    g.fill(plan, node.guid);
    for (size_t k = 0; k < node.inputs.size(); ++k) plan.inputs.push_back(g.pattern(true));
    plan.outputs.push_back(g.pattern(true));
    plan.addScalar(dim);
    plan.addScalar(g.n);
    plan.addScalar(flatLayout(plan));
    return {};
  }
};

}  // namespace

std::vector<std::unique_ptr<Family>> softmaxFamilies() {
  std::vector<std::unique_ptr<Family>> v;
  v.push_back(std::make_unique<Softmax>());
  return v;
}

}  // namespace tpc::kernels
