// Plans of the kernels that work along one dimension (kernels/rows.h): reductions here; softmax, norms
// and cross-entropy (row_families.cpp) use the same geometry. Dimension 0 takes the NAME.lanes variant, one
// index-space point per row; dimensions 1-4 take NAME.outer, one point per vector of dimension 0 and per
// element of the other dimensions, the reduced one excepted.
#include <bit>
#include <cmath>
#include <cstddef>

#include <fmt/format.h>

#include "glue.h"
#include "row_geometry.h"

namespace tpc::kernels {

using namespace tpc_lib_api;

GlueResult checkRowDim(const Node& node, const TensorView& x, int32_t dim) {
  const uint32_t rank = std::max<uint32_t>(x.dims, 1);
  if (dim < 0 || static_cast<uint32_t>(dim) >= rank)
    return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                fmt::format("{}: dim must be a TPC dimension of input 0, 0 to {} for {}, not {}", node.guid, rank - 1,
                            shapeText(x), dim));
  if (x.elements() == 0)
    return fail(GLUE_INCOMPATIBLE_INPUT_SIZE,
                fmt::format("{}: input 0 is empty, {} (a reduction needs at least one element per row)", node.guid,
                            shapeText(x)));
  return {};
}

TensorView reducedShape(const TensorView& x, int32_t dim) {
  TensorView r = x;
  r.sizes[static_cast<size_t>(dim)] = 1;
  return r;
}

RowGeometry rowGeometry(const TensorView& x, int32_t dim, uint32_t lanes) {
  RowGeometry g;
  g.dim = dim;
  g.lanes = lanes;
  g.n = static_cast<uint32_t>(x.sizes[static_cast<size_t>(dim)]);
  g.rank = std::max<uint32_t>(x.dims, 1);
  for (size_t d = 0; d < 5; ++d) g.space[d] = x.sizes[d];
  g.space[static_cast<size_t>(dim)] = 1;
  if (dim != 0) g.space[0] = (x.sizes[0] + lanes - 1) / lanes;
  return g;
}

void RowGeometry::fill(LaunchPlan& plan, const std::string& guid) const {
  plan.kernel = guid + (dim == 0 ? ".lanes" : ".outer");
  plan.rank = rank;
  plan.geometry = space;
}

TensorAccessPattern RowGeometry::pattern(bool wholeRow, uint32_t width0) const {
  TensorAccessPattern p{};
  for (uint32_t d = 0; d < rank; ++d) {
    DimIndexSpaceMapping& m = p.mapping[d];
    m.indexSpaceDim = d;
    if (static_cast<int32_t>(d) == dim) {
      // The reduced dimension: every point touches all of it (an input) or its element 0 (a reduced output).
      m.a = 0.0f;
      m.start_b = 0.0f;
      m.end_b = wholeRow ? static_cast<float>(n) - 1.0f : 0.0f;
    } else if (d == 0) {
      const float width = static_cast<float>(width0 ? width0 : lanes);
      m.a = width;
      m.start_b = 0.0f;
      m.end_b = width - 1.0f;
    } else {
      m.a = 1.0f;
      m.start_b = 0.0f;
      m.end_b = 0.0f;
    }
  }
  return p;
}

namespace {

// The reductions: reduce_{sum,mean,max,min}_fwd_DT along one dimension (kernels/reduce.c, the rows' fast
// loops); those over several dimensions at once and reduce_{prod,l1,l2,sum_square,log_sum,log_sum_exp}
// over any (kernels/reduce_any.c, NAME.any); argmax_fwd_DT and argmin_fwd_DT along one (reduce.c, .last
// for select_last).
class Reduce : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override {
    std::vector<std::string> out;
    for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "argmax", "argmin", "reduce_prod",
                           "reduce_l1", "reduce_l2", "reduce_sum_square", "reduce_log_sum", "reduce_log_sum_exp"})
      for (const char* t : {"f32", "bf16"}) out.push_back(std::string(op) + "_fwd_" + t);
    return out;
  }
  const ParamSchema& params() const override { return reduceSchema(); }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    const TensorDataType type = node.guid.ends_with("_bf16") ? DATA_BF16 : DATA_F32;
    const bool arg = node.guid.starts_with("arg");
    const std::string op = node.guid.substr(0, node.guid.find("_fwd_"));
    const bool rowKernel = op == "reduce_sum" || op == "reduce_mean" || op == "reduce_max" || op == "reduce_min";
    if (GlueResult r = expectCounts(node, 1, 1); !r.ok()) return r;
    if (GlueResult r = expectType(node, false, 0, type); !r.ok()) return r;
    if (GlueResult r = expectType(node, true, 0, arg ? DATA_I32 : type); !r.ok()) return r;
    const auto& p = node.param<tpc_kernels_reduce_params>();
    const TensorView& x = node.inputs[0];
    const uint32_t rank = std::max<uint32_t>(x.dims, 1);
    if (p.dims >> rank)
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                  fmt::format("{}: dims must set bits of the input's TPC dimensions only (0 to {} for {}), not 0x{:x}",
                              node.guid, rank - 1, shapeText(x), p.dims));
    if (p.select_last != 0 && (p.select_last != 1 || !arg))
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                  fmt::format("{}: select_last must be 0{}, not {}", node.guid, arg ? " or 1" : " (argmax and argmin only)",
                              p.select_last));
    const uint32_t dims = p.dims ? p.dims : (p.dim >= 0 && p.dim < 32 ? 1u << p.dim : 0u);
    const bool single = (dims & (dims - 1)) == 0;
    if (arg && !single)
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                  fmt::format("{}: argmax and argmin take one dimension, not dims 0x{:x}", node.guid, dims));
    if (single) {
      const int32_t dim = p.dims ? std::countr_zero(p.dims) : p.dim;
      if (GlueResult r = checkRowDim(node, x, dim); !r.ok()) return r;
      if (rowKernel || arg) {
        if (GlueResult r = expectOutputShape(node, 0, reducedShape(x, dim)); !r.ok()) return r;
        const RowGeometry g = rowGeometry(x, dim, lanesOf(type));
        g.fill(plan, node.guid + (p.select_last ? ".last" : ""));
        plan.inputs.push_back(g.pattern(true));
        plan.outputs.push_back(g.pattern(false));
        plan.addScalar(dim);
        plan.addScalar(g.n);
        plan.addScalar(1.0f / static_cast<float>(g.n));
        plan.addScalar(flatLayout(plan));
        return {};
      }
    }
    // Any set of dimensions (kernels/reduce_any.c): the output's elementwise space.
    if (x.elements() == 0)
      return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: input 0 is empty, {}", node.guid, shapeText(x)));
    TensorView want = x;
    uint64_t count = 1;
    for (uint32_t d = 0; d < 5; ++d)
      if (dims >> d & 1) count *= x.sizes[d], want.sizes[d] = 1;
    if (GlueResult r = expectOutputShape(node, 0, want); !r.ok()) return r;
    plan.kernel = node.guid + ".any";
    elementwiseSpace(want, lanesOf(type), plan);
    TensorAccessPattern in{};
    in.allRequired = 1;
    plan.inputs.push_back(in);
    plan.outputs.push_back(elementwisePattern(want, want, plan.rank, lanesOf(type)));
    plan.addScalar(static_cast<int32_t>(dims));
    plan.addScalar(static_cast<float>(1.0 / static_cast<double>(count)));
    return {};
  }
};

}  // namespace

const ParamSchema& reduceSchema() {
  static const ParamSchema s{sizeof(tpc_kernels_reduce_params),
                             {{ParamField::I32, "dim", offsetof(tpc_kernels_reduce_params, dim)},
                              {ParamField::I32, "dims", offsetof(tpc_kernels_reduce_params, dims)},
                              {ParamField::I32, "select_last", offsetof(tpc_kernels_reduce_params, select_last)}},
                             [](void* p) { *static_cast<tpc_kernels_reduce_params*>(p) = {0, 0, 0}; }};
  return s;
}

std::vector<std::unique_ptr<Family>> reductionFamilies() {
  std::vector<std::unique_ptr<Family>> v;
  v.push_back(std::make_unique<Reduce>());
  return v;
}

}  // namespace tpc::kernels
