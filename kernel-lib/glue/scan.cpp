// Kernels along one dimension that give more than one value per row (kernels/cumsum.c, topk.c, hardmax.c):
// cumsum, topk and hardmax. The index space is RowGeometry's (row_geometry.h): a row per point along dimension 0, a vector
// of 64 (bf16: 128) rows per point along dimensions 1-4, so each core owns whole rows and any core count
// gives the same bits. docs/kernel-lib.md lists the GUIDs, tensors and parameters.
#include <cstddef>

#include <fmt/format.h>

#include "glue.h"
#include "row_geometry.h"

namespace tpc::kernels {
namespace {

using namespace tpc_lib_api;

// A tensor of the row geometry's shape but `count` elements along dim: every point touches all of them.
TensorAccessPattern rowsOf(const RowGeometry& g, uint32_t count) {
  TensorAccessPattern p = g.pattern(true);
  p.mapping[static_cast<size_t>(g.dim)].end_b = static_cast<float>(count) - 1.0f;
  return p;
}

// cumsum_fwd_{f32,bf16,i32}: x -> y of x's shape.
class CumSum : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override {
    return {"cumsum_fwd_f32", "cumsum_fwd_bf16", "cumsum_fwd_i32"};
  }
  const ParamSchema& params() const override {
    using P = tpc_kernels_cumsum_params;
    static const ParamSchema s{sizeof(P),
                               {{ParamField::I32, "dim", offsetof(P, dim)},
                                {ParamField::I32, "exclusive", offsetof(P, exclusive)},
                                {ParamField::I32, "reverse", offsetof(P, reverse)}},
                               [](void* p) { *static_cast<P*>(p) = {0, 0, 0}; }};
    return s;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type = DATA_F32;
    typeOfGuid(node.guid, &type);
    if (GlueResult r = expectCounts(node, 1, 1); !r.ok()) return r;
    if (GlueResult r = expectAllTypes(node, type); !r.ok()) return r;
    const auto& p = node.param<tpc_kernels_cumsum_params>();
    const TensorView& x = node.inputs[0];
    for (auto [name, v] : {std::pair{"exclusive", p.exclusive}, std::pair{"reverse", p.reverse}})
      if (v != 0 && v != 1)
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT, fmt::format("{}: {} must be 0 or 1, not {}", node.guid, name, v));
    if (GlueResult r = checkRowDim(node, x, p.dim); !r.ok()) return r;
    if (GlueResult r = expectOutputShape(node, 0, x); !r.ok()) return r;
    const RowGeometry g = rowGeometry(x, p.dim, lanesOf(type));
    g.fill(plan, node.guid);
    plan.kernel = node.guid;
    plan.inputs.push_back(g.pattern(true));
    plan.outputs.push_back(g.pattern(true));
    plan.addScalar(p.dim);
    plan.addScalar(g.n);
    plan.addScalar(p.exclusive);
    plan.addScalar(p.reverse);
    return {};
  }
};

// topk_fwd_{f32,bf16}: x -> values (x's type), indices (i32), both x's shape with k along dim.
class TopK : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override { return {"topk_fwd_f32", "topk_fwd_bf16"}; }
  const ParamSchema& params() const override {
    using P = tpc_kernels_topk_params;
    static const ParamSchema s{sizeof(P),
                               {{ParamField::I32, "dim", offsetof(P, dim)},
                                {ParamField::I32, "k", offsetof(P, k)},
                                {ParamField::I32, "largest", offsetof(P, largest)}},
                               [](void* p) { *static_cast<P*>(p) = {0, 1, 1}; }};
    return s;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    const TensorDataType type = node.guid.ends_with("_bf16") ? DATA_BF16 : DATA_F32;
    if (GlueResult r = expectCounts(node, 1, 2); !r.ok()) return r;
    if (GlueResult r = expectType(node, false, 0, type); !r.ok()) return r;
    if (GlueResult r = expectType(node, true, 0, type); !r.ok()) return r;
    if (GlueResult r = expectType(node, true, 1, DATA_I32); !r.ok()) return r;
    const auto& p = node.param<tpc_kernels_topk_params>();
    const TensorView& x = node.inputs[0];
    if (p.largest != 0 && p.largest != 1)
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT, fmt::format("{}: largest must be 0 or 1, not {}", node.guid, p.largest));
    if (GlueResult r = checkRowDim(node, x, p.dim); !r.ok()) return r;
    const uint64_t n = x.sizes[static_cast<size_t>(p.dim)];
    if (p.k < 1 || static_cast<uint64_t>(p.k) > n)
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                  fmt::format("{}: k must be 1 to the {} elements along dim {} of {}, not {}", node.guid, n, p.dim,
                              shapeText(x), p.k));
    TensorView want = x;
    want.sizes[static_cast<size_t>(p.dim)] = static_cast<uint64_t>(p.k);
    want.type = type;
    if (GlueResult r = expectOutputShape(node, 0, want); !r.ok()) return r;
    want.type = DATA_I32;
    if (GlueResult r = expectOutputShape(node, 1, want); !r.ok()) return r;
    const RowGeometry g = rowGeometry(x, p.dim, lanesOf(type));
    g.fill(plan, node.guid);
    plan.kernel = node.guid;
    plan.inputs.push_back(g.pattern(true));
    plan.outputs.push_back(rowsOf(g, static_cast<uint32_t>(p.k)));
    plan.outputs.push_back(rowsOf(g, static_cast<uint32_t>(p.k)));
    plan.addScalar(p.dim);
    plan.addScalar(g.n);
    plan.addScalar(p.k);
    plan.addScalar(p.largest);
    return {};
  }
};

// hardmax_fwd_{f32,bf16}: x -> y of x's shape, 1 at the first maximum along dim.
class Hardmax : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override { return {"hardmax_fwd_f32", "hardmax_fwd_bf16"}; }
  const ParamSchema& params() const override {
    using P = tpc_kernels_axis_params;
    static const ParamSchema s{sizeof(P), {{ParamField::I32, "dim", offsetof(P, dim)}},
                               [](void* p) { *static_cast<P*>(p) = {0}; }};
    return s;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    const TensorDataType type = node.guid.ends_with("_bf16") ? DATA_BF16 : DATA_F32;
    if (GlueResult r = expectCounts(node, 1, 1); !r.ok()) return r;
    if (GlueResult r = expectAllTypes(node, type); !r.ok()) return r;
    const int32_t dim = node.param<tpc_kernels_axis_params>().dim;
    const TensorView& x = node.inputs[0];
    if (GlueResult r = checkRowDim(node, x, dim); !r.ok()) return r;
    if (GlueResult r = expectOutputShape(node, 0, x); !r.ok()) return r;
    const RowGeometry g = rowGeometry(x, dim, lanesOf(type));
    g.fill(plan, node.guid);
    plan.kernel = node.guid;
    plan.inputs.push_back(g.pattern(true));
    plan.outputs.push_back(g.pattern(true));
    plan.addScalar(dim);
    plan.addScalar(g.n);
    return {};
  }
};

}  // namespace

std::vector<std::unique_ptr<Family>> scanFamilies() {
  std::vector<std::unique_ptr<Family>> v;
  v.push_back(std::make_unique<CumSum>());
  v.push_back(std::make_unique<TopK>());
  v.push_back(std::make_unique<Hardmax>());
  return v;
}

}  // namespace tpc::kernels
