// Checks of a node and the elementwise plan helpers (glue.h).
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "glue.h"

namespace tpc::kernels {

using namespace tpc_lib_api;

void LaunchPlan::addScalar(float v) {
  uint32_t w;
  std::memcpy(&w, &v, 4);
  scalars.push_back(w);
}
void LaunchPlan::addScalar(int32_t v) { scalars.push_back(static_cast<uint32_t>(v)); }
void LaunchPlan::addScalar(uint32_t v) { scalars.push_back(v); }

const ParamSchema& Family::params() const {
  static const ParamSchema none;
  return none;
}

GlueResult fail(GlueCodeReturn code, std::string message) { return GlueResult{code, std::move(message)}; }

const char* typeName(TensorDataType t) {
  switch (t) {
    case DATA_I8: return "i8";
    case DATA_U8: return "u8";
    case DATA_I16: return "i16";
    case DATA_U16: return "u16";
    case DATA_BF16: return "bf16";
    case DATA_F16: return "f16";
    case DATA_I32: return "i32";
    case DATA_U32: return "u32";
    case DATA_F32: return "f32";
    default: return "an unsupported type";
  }
}

bool typeOfGuid(const std::string& guid, TensorDataType* type) {
  static const std::pair<const char*, TensorDataType> kSuffixes[] = {
      {"_f32", DATA_F32}, {"_bf16", DATA_BF16}, {"_f16", DATA_F16}, {"_i32", DATA_I32}, {"_u32", DATA_U32},
      {"_i16", DATA_I16}, {"_u16", DATA_U16},   {"_i8", DATA_I8},   {"_u8", DATA_U8}};
  for (const auto& [suffix, t] : kSuffixes)
    if (guid.size() > std::strlen(suffix) && guid.ends_with(suffix)) {
      *type = t;
      return true;
    }
  return false;
}

GlueResult expectAllTypes(const Node& node, TensorDataType type) {
  for (size_t k = 0; k < node.inputs.size(); ++k)
    if (GlueResult r = expectType(node, false, k, type); !r.ok()) return r;
  for (size_t k = 0; k < node.outputs.size(); ++k)
    if (GlueResult r = expectType(node, true, k, type); !r.ok()) return r;
  return {};
}

void fillElementwise(const Node& node, const TensorView& shape, uint32_t lanes, LaunchPlan& plan) {
  elementwiseSpace(shape, lanes, plan);
  for (const TensorView& t : node.inputs) plan.inputs.push_back(elementwisePattern(t, shape, plan.rank, lanes));
  for (const TensorView& t : node.outputs) plan.outputs.push_back(elementwisePattern(t, shape, plan.rank, lanes));
}

std::string shapeText(const TensorView& t) {
  if (t.dims == 0) return "()";
  std::string s = "(";
  for (uint32_t k = t.dims; k-- > 0;) s += fmt::format("{}{}", t.sizes[k], k ? ", " : t.dims == 1 ? ",)" : ")");
  return s;
}

GlueResult expectCounts(const Node& node, size_t inputs, size_t outputs) {
  if (node.inputs.size() != inputs)
    return fail(GLUE_INCOMPATIBLE_INPUT_COUNT,
                fmt::format("{} takes {} input tensor(s), not {}", node.guid, inputs, node.inputs.size()));
  if (node.outputs.size() != outputs)
    return fail(GLUE_INCOMPATIBLE_OUTPUT_COUNT,
                fmt::format("{} takes {} output tensor(s), not {}", node.guid, outputs, node.outputs.size()));
  return {};
}

GlueResult expectType(const Node& node, bool output, size_t index, TensorDataType type) {
  const TensorView& t = (output ? node.outputs : node.inputs)[index];
  if (t.type != type)
    return fail(GLUE_INCOMPATIBLE_DATA_TYPE, fmt::format("{} {} {} must be {}, not {}", node.guid,
                                                         output ? "output" : "input", index, typeName(type),
                                                         typeName(t.type)));
  return {};
}

GlueResult expectOutputShape(const Node& node, size_t index, const TensorView& shape) {
  const TensorView& t = node.outputs[index];
  bool same = t.dims == shape.dims;
  for (int d = 0; d < 5 && same; ++d) same = t.sizes[static_cast<size_t>(d)] == shape.sizes[static_cast<size_t>(d)];
  if (!same)
    return fail(GLUE_INCOMPATIBLE_OUTPUT_SIZE, fmt::format("{} output {} must have the shape {}, not {}", node.guid,
                                                           index, shapeText(shape), shapeText(t)));
  return {};
}

GlueResult broadcastShape(const Node& node, TensorView* shape) {
  TensorView s;
  s.dims = 0;
  for (const TensorView& t : node.inputs) s.dims = std::max(s.dims, t.dims);
  for (size_t d = 0; d < 5; ++d) {
    uint64_t size = 1;
    for (const TensorView& t : node.inputs) {
      const uint64_t ts = t.sizes[d];
      if (ts == 1 || ts == size) continue;
      if (size != 1) {
        std::string shapes;
        for (const TensorView& u : node.inputs) shapes += (shapes.empty() ? "" : " and ") + shapeText(u);
        return fail(GLUE_INCOMPATIBLE_INPUT_SIZE,
                    fmt::format("{}: the input shapes {} do not broadcast (TPC dimension {}: {} against {})",
                                node.guid, shapes, d, size, ts));
      }
      size = ts;
    }
    s.sizes[d] = size;
  }
  *shape = s;
  return {};
}

uint32_t lanesOf(TensorDataType t) {
  switch (t) {
    case DATA_I8: case DATA_U8: return 256;
    case DATA_I16: case DATA_U16: case DATA_BF16: case DATA_F16: return 128;
    default: return 64;
  }
}

void elementwiseSpace(const TensorView& shape, uint32_t lanes, LaunchPlan& plan) {
  plan.rank = std::max<uint32_t>(shape.dims, 1);
  for (size_t d = 0; d < 5; ++d) plan.geometry[d] = d == 0 ? (shape.sizes[0] + lanes - 1) / lanes : shape.sizes[d];
}

TensorAccessPattern elementwisePattern(const TensorView& tensor, const TensorView& shape, uint32_t rank, uint32_t lanes) {
  TensorAccessPattern p{};
  for (uint32_t d = 0; d < rank; ++d) {
    DimIndexSpaceMapping& m = p.mapping[d];
    m.indexSpaceDim = d;
    const bool broadcast = tensor.sizes[d] == 1 && shape.sizes[d] > 1;
    const float width = d == 0 ? static_cast<float>(lanes) : 1.0f;
    m.a = broadcast ? 0.0f : width;
    m.start_b = 0.0f;
    m.end_b = broadcast ? 0.0f : width - 1.0f;
  }
  return p;
}

int32_t flatLayout(const LaunchPlan& plan, bool broadcasts) {
  if (broadcasts) return 0;
  return plan.geometry[2] == 1 && plan.geometry[3] == 1 && plan.geometry[4] == 1 ? 2 : 1;
}

uint32_t broadcastBits(const TensorView& tensor, const TensorView& shape) {
  uint32_t bits = 0;
  for (size_t d = 0; d < 5; ++d)
    if (tensor.sizes[d] == 1 && shape.sizes[d] > 1) bits |= 1u << d;
  return bits;
}

}  // namespace tpc::kernels
