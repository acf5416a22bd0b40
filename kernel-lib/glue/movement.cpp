// Data movement (kernels/move.c, concat.c, gather.c): transpose, slice, pad, expand and identity (one
// kernel, an affine map of coordinates per dimension), concat and gather; every element type, moved as
// raw bits of its size. docs/kernel-lib.md lists the GUIDs, tensors and parameters.
#include <cmath>
#include <cstddef>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "glue.h"

namespace tpc::kernels {
namespace {

using namespace tpc_lib_api;

const char* const kMoveTypes[] = {"f32", "bf16", "f16", "i32", "u32", "i16", "u16", "i8", "u8"};

std::vector<std::string> guidsOf(const std::string& op) {
  std::vector<std::string> out;
  for (const char* t : kMoveTypes) out.push_back(op + "_fwd_" + t);
  return out;
}

// The kernel variant by element size: NAME.b32, .b16 or .b8.
std::string sized(const std::string& name, TensorDataType t) {
  const uint32_t lanes = lanesOf(t);
  return name + (lanes == 64 ? ".b32" : lanes == 128 ? ".b16" : ".b8");
}

uint32_t rankOf(const TensorView& t) { return std::max<uint32_t>(t.dims, 1); }

// An input any point may read anywhere of.
TensorAccessPattern anywhere() {
  TensorAccessPattern p{};
  p.allRequired = 1;
  return p;
}

// f32 to f16 bits, nearest even, through double: every f16 is a double, and the scaled rounding below is
// exact for normal and subnormal halves alike.
int32_t halfBitsOf(float value) {
  if (std::isnan(value)) return 0x7e00;
  const int32_t sign = std::signbit(value) ? 0x8000 : 0;
  double a = std::fabs(static_cast<double>(value));
  if (a >= 65520.0) return sign | 0x7c00;  // rounds to infinity
  if (a < std::ldexp(1.0, -14)) return sign | static_cast<int32_t>(std::nearbyint(std::ldexp(a, 24)));  // subnormal
  int e;
  std::frexp(a, &e);  // a = m 2^e, m in [0.5, 1)
  const double m = std::nearbyint(std::ldexp(a, 11 - e));  // 11 significant bits, 1024..2048
  const int32_t exponent = e - 1 + 15 + (m == 2048.0 ? 1 : 0);
  const int32_t mantissa = m == 2048.0 ? 0 : static_cast<int32_t>(m) - 1024;
  return sign | (exponent << 10) | mantissa;
}

// The bits of `value` in the tensor's type (move.c stores the low bits of its scalar).
int32_t bitsOf(float value, TensorDataType t) {
  switch (t) {
    case DATA_F32: {
      int32_t b;
      std::memcpy(&b, &value, 4);
      return b;
    }
    case DATA_BF16: {
      uint32_t b;
      std::memcpy(&b, &value, 4);
      if ((b & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
      return static_cast<int32_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);  // nearest even
    }
    case DATA_F16: return halfBitsOf(value);
    default: return static_cast<int32_t>(std::lrint(value));
  }
}

// A move: input dimension i read at base[i] + step[i] o[src[i]] (kernels/move.c).
struct MoveMap {
  int32_t src[5] = {0, 1, 2, 3, 4}, base[5] = {0, 0, 0, 0, 0}, step[5] = {1, 1, 1, 1, 1};
  int32_t mode = 0, value = 0;
};

// vectorAllowed: false where dimension 0's map is not a shift although src and step say so (pad's edge and
// reflect modes with padding in dimension 0).
void planMove(const Node& node, const MoveMap& m, LaunchPlan& plan, bool vectorAllowed = true) {
  const TensorView& out = node.outputs[0];
  const TensorDataType t = out.type;
  const bool vector0 = vectorAllowed && m.src[0] == 0 && m.step[0] == 1;
  plan.kernel = sized("move", t) + (vector0 ? "" : ".elements");
  elementwiseSpace(out, lanesOf(t), plan);
  plan.inputs.push_back(anywhere());
  plan.outputs.push_back(elementwisePattern(out, out, plan.rank, lanesOf(t)));
  int32_t src = 0;
  for (int i = 0; i < 5; ++i) src |= m.src[i] << (3 * i);
  plan.addScalar(src);
  for (int32_t b : m.base) plan.addScalar(b);
  for (int32_t s : m.step) plan.addScalar(s);
  plan.addScalar(m.mode);
  plan.addScalar(m.value);
  plan.addScalar(static_cast<int32_t>(vector0));
}

GlueResult expectOneInOneOut(const Node& node, TensorDataType* type) {
  if (GlueResult r = expectCounts(node, 1, 1); !r.ok()) return r;
  typeOfGuid(node.guid, type);
  return expectAllTypes(node, *type);
}

const ParamSchema& axisSchema() {
  using P = tpc_kernels_axis_params;
  static const ParamSchema s{sizeof(P), {{ParamField::I32, "dim", offsetof(P, dim)}},
                             [](void* p) { *static_cast<P*>(p) = {0}; }};
  return s;
}

// ------------------------------------------------------------------------------------------ move.c

// transpose_fwd_DT: output TPC dimension d is input dimension perm[d].
class Transpose : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override { return guidsOf("transpose"); }
  const ParamSchema& params() const override {
    using P = tpc_kernels_transpose_params;
    static const ParamSchema s{sizeof(P), {{ParamField::I32, "perm", offsetof(P, perm), 5}},
                               [](void* p) { *static_cast<P*>(p) = {{0, 1, 2, 3, 4}}; }};
    return s;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type;
    if (GlueResult r = expectOneInOneOut(node, &type); !r.ok()) return r;
    const TensorView& x = node.inputs[0];
    const auto& p = node.param<tpc_kernels_transpose_params>();
    const uint32_t rank = rankOf(x);
    MoveMap m;
    TensorView want = x;
    bool seen[5] = {};
    for (uint32_t d = 0; d < 5; ++d) {
      const int32_t from = p.perm[d];
      const bool ok = d < rank ? from >= 0 && from < static_cast<int32_t>(rank) && !seen[from] : from == static_cast<int32_t>(d);
      if (!ok)
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                    fmt::format("{}: perm must be a permutation of the input's {} dimensions (0 to {}), with perm[d] = d "
                                "above them; perm[{}] is {}",
                                node.guid, rank, rank - 1, d, from));
      seen[from] = true;
      m.src[from] = static_cast<int32_t>(d);
      want.sizes[d] = x.sizes[static_cast<size_t>(from)];
    }
    if (GlueResult r = expectOutputShape(node, 0, want); !r.ok()) return r;
    planMove(node, m, plan);
    return {};
  }
};

// slice_fwd_DT: output element o reads input element start[d] + step[d] o[d].
class Slice : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override { return guidsOf("slice"); }
  const ParamSchema& params() const override {
    using P = tpc_kernels_slice_params;
    static const ParamSchema s{sizeof(P),
                               {{ParamField::I32, "start", offsetof(P, start), 5}, {ParamField::I32, "step", offsetof(P, step), 5}},
                               [](void* p) { *static_cast<P*>(p) = {{0, 0, 0, 0, 0}, {1, 1, 1, 1, 1}}; }};
    return s;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type;
    if (GlueResult r = expectOneInOneOut(node, &type); !r.ok()) return r;
    const TensorView &x = node.inputs[0], &y = node.outputs[0];
    const auto& p = node.param<tpc_kernels_slice_params>();
    if (y.dims != x.dims)
      return fail(GLUE_INCOMPATIBLE_OUTPUT_SIZE, fmt::format("{}: the output must have the input's rank, {}, not {}",
                                                             node.guid, x.dims, y.dims));
    MoveMap m;
    for (size_t d = 0; d < 5; ++d) {
      const int64_t n = static_cast<int64_t>(x.sizes[d]), count = static_cast<int64_t>(y.sizes[d]);
      const int64_t first = p.start[d], last = first + static_cast<int64_t>(p.step[d]) * (count - 1);
      if (p.step[d] == 0)
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT, fmt::format("{}: step[{}] must not be 0", node.guid, d));
      if (count > 0 && (first < 0 || first >= n || last < 0 || last >= n))
        return fail(GLUE_INCOMPATIBLE_OUTPUT_SIZE,
                    fmt::format("{}: dimension {}: {} elements from {} in steps of {} reach {}, outside the input's 0 to {}",
                                node.guid, d, count, first, p.step[d], last, n - 1));
      m.base[d] = p.start[d];
      m.step[d] = p.step[d];
    }
    planMove(node, m, plan);
    return {};
  }
};

// pad_fwd_DT: before[d] and after[d] elements around the input in dimension d.
class Pad : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override { return guidsOf("pad"); }
  const ParamSchema& params() const override {
    using P = tpc_kernels_pad_params;
    static const ParamSchema s{sizeof(P),
                               {{ParamField::I32, "before", offsetof(P, before), 5},
                                {ParamField::I32, "after", offsetof(P, after), 5},
                                {ParamField::I32, "mode", offsetof(P, mode)},
                                {ParamField::F32, "value", offsetof(P, value)}},
                               [](void* p) { *static_cast<P*>(p) = {{0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, 0, 0.0f}; }};
    return s;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type;
    if (GlueResult r = expectOneInOneOut(node, &type); !r.ok()) return r;
    const TensorView& x = node.inputs[0];
    const auto& p = node.param<tpc_kernels_pad_params>();
    if (p.mode < 0 || p.mode > 2)
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                  fmt::format("{}: mode must be 0 (constant), 1 (edge) or 2 (reflect), not {}", node.guid, p.mode));
    TensorView want = x;
    want.dims = std::max(x.dims, 1u);
    MoveMap m;
    m.mode = p.mode;
    m.value = bitsOf(p.value, type);
    for (size_t d = 0; d < 5; ++d) {
      const int64_t n = static_cast<int64_t>(x.sizes[d]), size = n + p.before[d] + p.after[d];
      if (size < 0 || (d >= want.dims && (p.before[d] || p.after[d])))
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                    fmt::format("{}: before[{}] {} and after[{}] {} leave no elements of the input's {} in dimension {}",
                                node.guid, d, p.before[d], d, p.after[d], n, d));
      if (p.mode != 0 && size > 0 && n == 0)
        return fail(GLUE_INCOMPATIBLE_INPUT_SIZE,
                    fmt::format("{}: mode {} needs input elements in dimension {} to repeat", node.guid, p.mode, d));
      if (p.mode == 2 && (p.before[d] >= n || p.after[d] >= n) && (p.before[d] > 0 || p.after[d] > 0))
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                    fmt::format("{}: reflect pads of {} and {} in dimension {} need more than that many elements, not {}",
                                node.guid, p.before[d], p.after[d], d, n));
      want.sizes[d] = static_cast<uint64_t>(size);
      m.base[d] = -p.before[d];
    }
    if (GlueResult r = expectOutputShape(node, 0, want); !r.ok()) return r;
    // Edge and reflect along dimension 0 move elements one at a time (the map is not a shift there).
    planMove(node, m, plan, p.mode == 0 || (p.before[0] == 0 && p.after[0] == 0));
    return {};
  }
};

// expand_fwd_DT: the input broadcast to the output's shape (NumPy rules); identity_fwd_DT: a copy.
class Expand : public Family {
 public:
  explicit Expand(std::string op) : op_(std::move(op)) {}
  std::vector<std::string> guids(const std::string&) const override { return guidsOf(op_); }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type;
    if (GlueResult r = expectOneInOneOut(node, &type); !r.ok()) return r;
    const TensorView &x = node.inputs[0], &y = node.outputs[0];
    if (op_ == "identity") {
      if (GlueResult r = expectOutputShape(node, 0, x); !r.ok()) return r;
    } else {
      for (size_t d = 0; d < 5; ++d)
        if (x.sizes[d] != 1 && x.sizes[d] != y.sizes[d])
          return fail(GLUE_INCOMPATIBLE_OUTPUT_SIZE,
                      fmt::format("{}: input {} does not broadcast to output {} (TPC dimension {}: {} against {})",
                                  node.guid, shapeText(x), shapeText(y), d, x.sizes[d], y.sizes[d]));
    }
    MoveMap m;
    for (size_t d = 0; d < 5; ++d) m.step[d] = x.sizes[d] == 1 && y.sizes[d] != 1 ? 0 : 1;
    planMove(node, m, plan);
    return {};
  }

 private:
  std::string op_;
};

// trilu_fwd_DT: the upper (or lower) triangle of the last two NumPy axes, the rest zeroed (kernels/trilu.c).
class Trilu : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override { return guidsOf("trilu"); }
  const ParamSchema& params() const override {
    using P = tpc_kernels_trilu_params;
    static const ParamSchema s{sizeof(P), {{ParamField::I32, "k", offsetof(P, k)}, {ParamField::I32, "upper", offsetof(P, upper)}},
                               [](void* p) { *static_cast<P*>(p) = {0, 1}; }};
    return s;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type;
    if (GlueResult r = expectOneInOneOut(node, &type); !r.ok()) return r;
    const TensorView& x = node.inputs[0];
    const auto& p = node.param<tpc_kernels_trilu_params>();
    if (x.dims < 2)
      return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: the input needs two dimensions at least, not {}", node.guid, shapeText(x)));
    if (p.upper != 0 && p.upper != 1)
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT, fmt::format("{}: upper must be 0 or 1, not {}", node.guid, p.upper));
    if (GlueResult r = expectOutputShape(node, 0, x); !r.ok()) return r;
    plan.kernel = sized("trilu", type);
    fillElementwise(node, x, lanesOf(type), plan);
    plan.addScalar(p.k);
    plan.addScalar(p.upper);
    return {};
  }
};

// ------------------------------------------------------------------------------------------ concat.c

// concat_fwd_DT: 2 to 8 inputs joined along TPC dimension dim.
class Concat : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override { return guidsOf("concat"); }
  const ParamSchema& params() const override { return axisSchema(); }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type = DATA_F32;
    typeOfGuid(node.guid, &type);
    const size_t n = node.inputs.size();
    if (n < 2 || n > 8)
      return fail(GLUE_INCOMPATIBLE_INPUT_COUNT, fmt::format("{} takes 2 to 8 input tensors, not {}", node.guid, n));
    if (node.outputs.size() != 1)
      return fail(GLUE_INCOMPATIBLE_OUTPUT_COUNT, fmt::format("{} takes 1 output tensor, not {}", node.guid, node.outputs.size()));
    if (GlueResult r = expectAllTypes(node, type); !r.ok()) return r;
    const int32_t dim = node.param<tpc_kernels_axis_params>().dim;
    const TensorView& first = node.inputs[0];
    if (dim < 0 || static_cast<uint32_t>(dim) >= rankOf(first))
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT, fmt::format("{}: dim must be a TPC dimension of the inputs, 0 to {}, not {}",
                                                                    node.guid, rankOf(first) - 1, dim));
    TensorView want = first;
    want.sizes[static_cast<size_t>(dim)] = 0;
    std::vector<uint64_t> offsets;
    for (size_t k = 0; k < n; ++k) {
      const TensorView& t = node.inputs[k];
      for (size_t d = 0; d < 5; ++d)
        if (d != static_cast<size_t>(dim) && t.sizes[d] != first.sizes[d])
          return fail(GLUE_INCOMPATIBLE_INPUT_SIZE,
                      fmt::format("{}: input {} {} differs from input 0 {} outside dimension {}", node.guid, k,
                                  shapeText(t), shapeText(first), dim));
      want.sizes[static_cast<size_t>(dim)] += t.sizes[static_cast<size_t>(dim)];
      offsets.push_back(want.sizes[static_cast<size_t>(dim)]);
    }
    if (GlueResult r = expectOutputShape(node, 0, want); !r.ok()) return r;
    if (want.sizes[static_cast<size_t>(dim)] >= (1u << 31))
      return fail(GLUE_INCOMPATIBLE_OUTPUT_SIZE, fmt::format("{}: 2^31 elements or more along dim", node.guid));
    plan.kernel = sized("concat", type) + fmt::format(".n{}", n);
    elementwiseSpace(want, lanesOf(type), plan);
    for (size_t k = 0; k < n; ++k) plan.inputs.push_back(anywhere());
    plan.outputs.push_back(elementwisePattern(want, want, plan.rank, lanesOf(type)));
    plan.addScalar(dim);
    for (size_t k = 0; k < 8; ++k) plan.addScalar(static_cast<int32_t>(offsets[std::min(k, n - 1)]));
    return {};
  }
};

// ------------------------------------------------------------------------------------------ gather.c

// gather_fwd_DT: data, indices (i32) -> out, along data's TPC dimension dim; embedding_fwd_DT: weights
// [V, D], indices -> out [..., D] (gather along dimension 1).
class Gather : public Family {
 public:
  explicit Gather(std::string op) : op_(std::move(op)) {}
  std::vector<std::string> guids(const std::string&) const override {
    if (op_ == "embedding") return {"embedding_fwd_f32", "embedding_fwd_bf16"};
    return guidsOf(op_);
  }
  const ParamSchema& params() const override {
    static const ParamSchema none;
    return op_ == "embedding" ? none : axisSchema();
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type = DATA_F32;
    typeOfGuid(node.guid, &type);
    if (GlueResult r = expectCounts(node, 2, 1); !r.ok()) return r;
    if (GlueResult r = expectType(node, false, 0, type); !r.ok()) return r;
    if (GlueResult r = expectType(node, false, 1, DATA_I32); !r.ok()) return r;
    if (GlueResult r = expectType(node, true, 0, type); !r.ok()) return r;
    const TensorView &data = node.inputs[0], &idx = node.inputs[1];
    const int32_t a = op_ == "embedding" ? 1 : node.param<tpc_kernels_axis_params>().dim;
    if (op_ == "embedding" && data.dims != 2)
      return fail(GLUE_INCOMPATIBLE_INPUT_SIZE, fmt::format("{}: the weights must be 2-D [V, D], not {}", node.guid, shapeText(data)));
    const uint32_t rank = rankOf(data), q = idx.dims;
    if (a < 0 || static_cast<uint32_t>(a) >= rank)
      return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                  fmt::format("{}: dim must be a TPC dimension of the data, 0 to {}, not {}", node.guid, rank - 1, a));
    if (rank - 1 + q > 5)
      return fail(GLUE_INCOMPATIBLE_OUTPUT_SIZE,
                  fmt::format("{}: the output would have {} dimensions (at most 5)", node.guid, rank - 1 + q));
    TensorView want;
    want.type = type;
    want.dims = std::max<uint32_t>(rank - 1 + q, 1);
    for (uint32_t k = 0; k < 5; ++k) {
      const uint32_t ak = static_cast<uint32_t>(a);
      want.sizes[k] = k < ak ? data.sizes[k] : k < ak + q ? idx.sizes[k - ak] : k + 1 - q < 5 ? data.sizes[k + 1 - q] : 1;
    }
    if (GlueResult r = expectOutputShape(node, 0, want); !r.ok()) return r;
    plan.kernel = sized("gather", type) + (a == 0 ? ".elements" : "");
    elementwiseSpace(want, lanesOf(type), plan);
    plan.inputs.push_back(anywhere());
    plan.inputs.push_back(anywhere());
    plan.outputs.push_back(elementwisePattern(want, want, plan.rank, lanesOf(type)));
    plan.addScalar(a);
    plan.addScalar(static_cast<int32_t>(q));
    plan.addScalar(static_cast<int32_t>(data.sizes[static_cast<size_t>(a)]));
    return {};
  }

 private:
  std::string op_;
};

}  // namespace

std::vector<std::unique_ptr<Family>> movementFamilies() {
  std::vector<std::unique_ptr<Family>> v;
  v.push_back(std::make_unique<Transpose>());
  v.push_back(std::make_unique<Slice>());
  v.push_back(std::make_unique<Pad>());
  v.push_back(std::make_unique<Expand>("expand"));
  v.push_back(std::make_unique<Expand>("identity"));
  v.push_back(std::make_unique<Trilu>());
  v.push_back(std::make_unique<Concat>());
  v.push_back(std::make_unique<Gather>("gather"));
  v.push_back(std::make_unique<Gather>("embedding"));
  return v;
}

}  // namespace tpc::kernels
