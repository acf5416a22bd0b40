// gemm_fwd_f32 and gemm_fwd_bf16 (kernels/gemm.c): out = act(op(A) op(B) + bias), batched over dimensions
// 2-3 with NumPy broadcasting (at most 4 dimensions: the k loop has no scalar register to spare for a third
// batch loop). TPC dimensions: A (K, M) [op(A) = A] or (M, K) [transpose_a: A stored as
// NumPy (K, M)]; B (N, K) or (K, N) [transpose_b]; out (N, M); bias (N). Variants: gemm_fwd_DT, then .tb
// for transpose_b, .bias with a bias, .relu or .gelu for the activation.
#include <cstddef>

#include <fmt/format.h>

#include "glue.h"

namespace tpc::kernels {
namespace {

using namespace tpc_lib_api;

constexpr uint32_t kTileRows = 4, kTileCols = 256;  // kernels/gemm.c: ROWS, COLS_VECTORS * LANES

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

class Gemm : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override { return {"gemm_fwd_f32", "gemm_fwd_bf16"}; }
  const ParamSchema& params() const override {
    static const ParamSchema s{sizeof(tpc_kernels_gemm_params),
                               {{ParamField::I32, "transpose_a", offsetof(tpc_kernels_gemm_params, transpose_a)},
                                {ParamField::I32, "transpose_b", offsetof(tpc_kernels_gemm_params, transpose_b)},
                                {ParamField::I32, "activation", offsetof(tpc_kernels_gemm_params, activation)}},
                               [](void* p) { *static_cast<tpc_kernels_gemm_params*>(p) = {0, 0, 0}; }};
    return s;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    const TensorDataType type = node.guid.ends_with("_bf16") ? DATA_BF16 : DATA_F32;
    if (node.inputs.size() != 2 && node.inputs.size() != 3)
      return fail(GLUE_INCOMPATIBLE_INPUT_COUNT,
                  fmt::format("{} takes 2 input tensors (A, B) or 3 (A, B, bias), not {}", node.guid, node.inputs.size()));
    if (node.outputs.size() != 1)
      return fail(GLUE_INCOMPATIBLE_OUTPUT_COUNT, fmt::format("{} takes 1 output tensor, not {}", node.guid, node.outputs.size()));
    for (size_t k = 0; k < node.inputs.size(); ++k)
      if (GlueResult r = expectType(node, false, k, type); !r.ok()) return r;
    if (GlueResult r = expectType(node, true, 0, type); !r.ok()) return r;
    const auto& p = node.param<tpc_kernels_gemm_params>();
    for (auto [name, v] : {std::pair{"transpose_a", p.transpose_a}, std::pair{"transpose_b", p.transpose_b}})
      if (v != 0 && v != 1)
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT, fmt::format("{}: {} must be 0 or 1, not {}", node.guid, name, v));
    if (p.activation < 0 || p.activation > 2)
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                  fmt::format("{}: activation must be 0 (none), 1 (relu) or 2 (gelu), not {}", node.guid, p.activation));
    const TensorView &a = node.inputs[0], &b = node.inputs[1];
    for (size_t k = 0; k < node.inputs.size(); ++k)
      if (node.inputs[k].dims > 4)
        return fail(GLUE_UNSUPPORTED_5D_TENSORS,
                    fmt::format("{}: input {} has 5 dimensions, {}; the batch is at most 2 dimensions (4 in all)",
                                node.guid, k, shapeText(node.inputs[k])));
    for (size_t k : {0, 1})
      if (node.inputs[k].dims < 2)
        return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: input {} must have at least 2 dimensions, not {}",
                                                              node.guid, k, shapeText(node.inputs[k])));
    const uint64_t M = p.transpose_a ? a.sizes[0] : a.sizes[1], K = p.transpose_a ? a.sizes[1] : a.sizes[0];
    const uint64_t KB = p.transpose_b ? b.sizes[0] : b.sizes[1], N = p.transpose_b ? b.sizes[1] : b.sizes[0];
    if (K != KB)
      return fail(GLUE_INCOMPATIBLE_INPUT_SIZE,
                  fmt::format("{}: op(A) {} is {}x{} and op(B) {} is {}x{}: the inner sizes differ", node.guid, shapeText(a), M,
                              K, shapeText(b), KB, N));
    if (M == 0 || N == 0 || K == 0)
      return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: M, N and K must be at least 1, not {}, {}, {}", node.guid, M, N, K));
    // The batch: dimensions 2-4 broadcast.
    TensorView shape;
    shape.dims = std::max(a.dims, b.dims);
    shape.sizes[0] = N;
    shape.sizes[1] = M;
    uint32_t broadcastA = 0, broadcastB = 0;
    for (size_t d = 2; d < 5; ++d) {
      const uint64_t sa = a.sizes[d], sb = b.sizes[d];
      if (sa != sb && sa != 1 && sb != 1)
        return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: the batch dimensions of {} and {} do not broadcast (TPC "
                                                              "dimension {}: {} against {})",
                                                              node.guid, shapeText(a), shapeText(b), d, sa, sb));
      shape.sizes[d] = std::max(sa, sb);
      if (sa == 1 && shape.sizes[d] > 1) broadcastA |= 1u << d;
      if (sb == 1 && shape.sizes[d] > 1) broadcastB |= 1u << d;
    }
    const bool bias = node.inputs.size() == 3;
    if (bias && (node.inputs[2].dims != 1 || node.inputs[2].sizes[0] != N))
      return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: input 2 (bias) must have the shape ({},), not {}", node.guid,
                                                            N, shapeText(node.inputs[2])));
    if (GlueResult r = expectOutputShape(node, 0, shape); !r.ok()) return r;

    const bool tb = p.transpose_b != 0;
    const uint32_t lanes = lanesOf(type);
    const uint64_t cols = tb ? lanes : kTileCols, rows = tb ? 1 : kTileRows;
    plan.kernel = node.guid + (tb ? ".tb" : "") + (bias ? ".bias" : "") +
                  (p.activation == 1 ? ".relu" : p.activation == 2 ? ".gelu" : "");
    plan.rank = shape.dims;
    plan.geometry = {ceilDiv(N, cols), ceilDiv(M, rows), shape.sizes[2], shape.sizes[3], shape.sizes[4]};
    auto map = [](uint32_t space, float a0, float b0, float b1) { return DimIndexSpaceMapping{space, a0, b0, b1, false}; };
    auto batchOf = [&](const TensorView& t, TensorAccessPattern& ap) {
      for (uint32_t d = 2; d < shape.dims; ++d) ap.mapping[d] = map(d, t.sizes[d] == 1 ? 0.0f : 1.0f, 0.0f, 0.0f);
    };
    const float fr = static_cast<float>(rows), fc = static_cast<float>(cols), fk = static_cast<float>(K) - 1.0f;
    TensorAccessPattern pa{}, pb{}, po{};
    // A: every point reads its rows whole along k.
    pa.mapping[p.transpose_a ? 1 : 0] = map(0, 0.0f, 0.0f, fk);
    pa.mapping[p.transpose_a ? 0 : 1] = map(1, fr, 0.0f, fr - 1.0f);
    batchOf(a, pa);
    // B: its columns of the point, whole along k.
    pb.mapping[tb ? 1 : 0] = map(0, fc, 0.0f, fc - 1.0f);
    pb.mapping[tb ? 0 : 1] = map(1, 0.0f, 0.0f, fk);
    batchOf(b, pb);
    po.mapping[0] = map(0, fc, 0.0f, fc - 1.0f);
    po.mapping[1] = map(1, fr, 0.0f, fr - 1.0f);
    batchOf(shape, po);
    plan.inputs = {pa, pb};
    if (bias) {
      TensorAccessPattern pbias{};
      pbias.mapping[0] = map(0, fc, 0.0f, fc - 1.0f);
      plan.inputs.push_back(pbias);
    }
    plan.outputs = {po};
    for (uint64_t v : {M, N, K}) plan.addScalar(static_cast<int32_t>(v));
    plan.addScalar(p.transpose_a);
    plan.addScalar(broadcastA);
    plan.addScalar(broadcastB);
    return {};
  }
};

}  // namespace

std::vector<std::unique_ptr<Family>> gemmFamilies() {
  std::vector<std::unique_ptr<Family>> v;
  v.push_back(std::make_unique<Gemm>());
  return v;
}

}  // namespace tpc::kernels
