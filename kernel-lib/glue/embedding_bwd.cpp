// embedding_bwd_{f32,bf16} (kernels/embedding_bwd.c): dy [..., D], indices (i32, [...]) -> dweight [V, D],
// the rows of dy summed into the rows their indices name. The index space is dweight's: 4 vectors of D per
// point along dimension 0, one row per point along dimension 1, so a core owns whole rows and nothing is
// accumulated in memory. docs/kernel-lib.md lists the tensors.
#include <fmt/format.h>

#include "glue.h"

namespace tpc::kernels {
namespace {

using namespace tpc_lib_api;

constexpr uint32_t kVectorsPerPoint = 4;  // VPP of the kernel

class EmbeddingBwd : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override { return {"embedding_bwd_f32", "embedding_bwd_bf16"}; }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    const TensorDataType type = node.guid.ends_with("_bf16") ? DATA_BF16 : DATA_F32;
    if (GlueResult r = expectCounts(node, 2, 1); !r.ok()) return r;
    if (GlueResult r = expectType(node, false, 0, type); !r.ok()) return r;
    if (GlueResult r = expectType(node, false, 1, DATA_I32); !r.ok()) return r;
    if (GlueResult r = expectType(node, true, 0, type); !r.ok()) return r;
    const TensorView &dy = node.inputs[0], &idx = node.inputs[1], &dw = node.outputs[0];
    const uint32_t q = std::max<uint32_t>(idx.dims, 1);
    if (q > 4)
      return fail(GLUE_INCOMPATIBLE_INPUT_SIZE,
                  fmt::format("{}: the indices may have at most 4 dimensions (dy one more), not {}", node.guid, shapeText(idx)));
    TensorView want = idx;
    want.dims = q + 1;
    want.sizes[0] = dy.sizes[0];
    for (uint32_t d = 0; d < 4; ++d) want.sizes[d + 1] = idx.sizes[d];
    if (dy.dims != want.dims || dy.sizes != want.sizes)
      return fail(GLUE_INCOMPATIBLE_INPUT_SIZE,
                  fmt::format("{}: dy must be the indices' shape {} with D appended, {}, not {}", node.guid, shapeText(idx),
                              shapeText(want), shapeText(dy)));
    if (dw.dims != 2 || dw.sizes[0] != dy.sizes[0])
      return fail(GLUE_INCOMPATIBLE_OUTPUT_SIZE,
                  fmt::format("{}: dweight must be 2-D [V, D] with D = {} (dy's last axis), not {}", node.guid, dy.sizes[0],
                              shapeText(dw)));
    if (dw.sizes[1] >= (1u << 31) || idx.elements() >= (1u << 31))
      return fail(GLUE_INCOMPATIBLE_OUTPUT_SIZE, fmt::format("{}: 2^31 rows or indices or more", node.guid));
    const uint32_t width = lanesOf(type) * kVectorsPerPoint;
    plan.kernel = node.guid;
    plan.rank = 2;
    plan.geometry = {(dw.sizes[0] + width - 1) / width, dw.sizes[1], 1, 1, 1};
    TensorAccessPattern anywhere{};
    anywhere.allRequired = 1;
    plan.inputs.push_back(anywhere);
    plan.inputs.push_back(anywhere);
    TensorAccessPattern out{};
    out.mapping[0] = {0, static_cast<float>(width), 0.0f, static_cast<float>(width) - 1.0f, false};
    out.mapping[1] = {1, 1.0f, 0.0f, 0.0f, false};
    plan.outputs.push_back(out);
    for (uint32_t d = 0; d < 4; ++d) plan.addScalar(static_cast<int32_t>(idx.sizes[d]));
    return {};
  }
};

}  // namespace

std::vector<std::unique_ptr<Family>> embeddingBwdFamilies() {
  std::vector<std::unique_ptr<Family>> v;
  v.push_back(std::make_unique<EmbeddingBwd>());
  return v;
}

}  // namespace tpc::kernels
