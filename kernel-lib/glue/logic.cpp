// Integer, logical and comparison families (kernels/logic.c, compare.c): bitwise and, or, xor and the
// shifts, mod, logical not, and the comparisons, with NumPy broadcasting. docs/kernel-lib.md lists them.
#include <cstddef>

#include <fmt/format.h>

#include "glue.h"

namespace tpc::kernels {
namespace {

using namespace tpc_lib_api;

std::vector<std::string> guidsOf(const std::vector<std::string>& ops, const std::vector<std::string>& types) {
  std::vector<std::string> out;
  for (const std::string& op : ops)
    for (const std::string& t : types) out.push_back(op + "_fwd_" + t);
  return out;
}

const std::vector<std::string> kIntTypes = {"u8", "i8", "u16", "i16", "u32", "i32"};

// The broadcast plan of a node of one or two inputs and one output whose type may differ from theirs.
GlueResult planBroadcast(const Node& node, TensorDataType inType, TensorDataType outType, uint32_t lanes,
                         LaunchPlan& plan) {
  for (size_t k = 0; k < node.inputs.size(); ++k)
    if (GlueResult r = expectType(node, false, k, inType); !r.ok()) return r;
  if (GlueResult r = expectType(node, true, 0, outType); !r.ok()) return r;
  TensorView shape;
  if (GlueResult r = broadcastShape(node, &shape); !r.ok()) return r;
  if (GlueResult r = expectOutputShape(node, 0, shape); !r.ok()) return r;
  plan.kernel = node.guid;
  fillElementwise(node, shape, lanes, plan);
  if (node.inputs.size() == 2)
    for (const TensorView& t : node.inputs) plan.addScalar(broadcastBits(t, shape));
  return {};
}

// and, or, xor, shl, shr, mod: out = OP(a, b), all of the GUID's type; not: out = (a == 0).
class Integer : public Family {
 public:
  Integer(std::vector<std::string> ops, std::vector<std::string> types) : ops_(std::move(ops)), types_(std::move(types)) {}
  std::vector<std::string> guids(const std::string&) const override { return guidsOf(ops_, types_); }
  const ParamSchema& params() const override {
    static const ParamSchema none;
    using P = tpc_kernels_mod_params;
    static const ParamSchema mod{sizeof(P), {{ParamField::I32, "fmod", offsetof(P, fmod)}},
                                 [](void* p) { *static_cast<P*>(p) = {0}; }};
    return ops_[0] == "mod" ? mod : none;
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type = DATA_I32;
    typeOfGuid(node.guid, &type);
    const bool unary = ops_[0] == "not";
    if (GlueResult r = expectCounts(node, unary ? 1 : 2, 1); !r.ok()) return r;
    if (unary) {
      if (GlueResult r = expectAllTypes(node, type); !r.ok()) return r;
      if (GlueResult r = expectOutputShape(node, 0, node.inputs[0]); !r.ok()) return r;
      plan.kernel = node.guid;
      fillElementwise(node, node.inputs[0], lanesOf(type), plan);
      return {};
    }
    if (GlueResult r = planBroadcast(node, type, type, lanesOf(type), plan); !r.ok()) return r;
    int32_t fmod = 0;
    if (ops_[0] == "mod") {
      fmod = node.param<tpc_kernels_mod_params>().fmod;
      if (fmod != 0 && fmod != 1)
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT, fmt::format("{}: fmod must be 0 or 1, not {}", node.guid, fmod));
      if (type == DATA_F32 && fmod != 1)
        return fail(GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                    fmt::format("{}: floats take fmod = 1 (the dividend's sign, C's fmod), not {}", node.guid, fmod));
    }
    plan.addScalar(fmod);
    return {};
  }

 private:
  std::vector<std::string> ops_, types_;
};

// equal, greater, greater_equal, less, less_equal: out (u8) = a OP b, 256 elements a point.
class Compare : public Family {
 public:
  std::vector<std::string> guids(const std::string&) const override {
    return guidsOf({"equal", "greater", "greater_equal", "less", "less_equal"}, {"f32", "bf16", "i32"});
  }
  GlueResult plan(const Node& node, LaunchPlan& plan) const override {
    TensorDataType type = DATA_F32;
    typeOfGuid(node.guid, &type);
    if (GlueResult r = expectCounts(node, 2, 1); !r.ok()) return r;
    return planBroadcast(node, type, DATA_U8, 256, plan);
  }
};

}  // namespace

std::vector<std::unique_ptr<Family>> logicFamilies() {
  std::vector<std::unique_ptr<Family>> v;
  v.push_back(std::make_unique<Integer>(std::vector<std::string>{"and", "or", "xor"}, kIntTypes));
  v.push_back(std::make_unique<Integer>(std::vector<std::string>{"shl", "shr"}, std::vector<std::string>{"u8", "u16", "u32"}));
  std::vector<std::string> modTypes = kIntTypes;
  modTypes.push_back("f32");
  v.push_back(std::make_unique<Integer>(std::vector<std::string>{"mod"}, modTypes));
  v.push_back(std::make_unique<Integer>(std::vector<std::string>{"not"}, kIntTypes));
  v.push_back(std::make_unique<Compare>());
  return v;
}

}  // namespace tpc::kernels
