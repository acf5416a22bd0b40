// Names of glue codes and devices, and node-parameter fields set from text (tpc_kernels/library.h).
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "glue.h"

namespace tpc::kernels {

using namespace tpc_lib_api;

const char* glueCodeName(GlueCodeReturn code) {
  switch (code) {
    case GLUE_SUCCESS: return "GLUE_SUCCESS";
    case GLUE_NODE_NOT_FOUND: return "GLUE_NODE_NOT_FOUND";
    case GLUE_INSUFFICIENT_ISA_BUFFER: return "GLUE_INSUFFICIENT_ISA_BUFFER";
    case GLUE_INCOMPATIBLE_INPUT_COUNT: return "GLUE_INCOMPATIBLE_INPUT_COUNT";
    case GLUE_INCOMPATIBLE_INPUT_SIZE: return "GLUE_INCOMPATIBLE_INPUT_SIZE";
    case GLUE_INCOMPATIBLE_OUTPUT_COUNT: return "GLUE_INCOMPATIBLE_OUTPUT_COUNT";
    case GLUE_INCOMPATIBLE_OUTPUT_SIZE: return "GLUE_INCOMPATIBLE_OUTPUT_SIZE";
    case GLUE_INCOMPATIBLE_DATA_TYPE: return "GLUE_INCOMPATIBLE_DATA_TYPE";
    case GLUE_UNSUPPORTED_LAYER_CONFIGURATION: return "GLUE_UNSUPPORTED_LAYER_CONFIGURATION";
    case GLUE_INSUFFICIENT_AUX_BUFFER_SIZE: return "GLUE_INSUFFICIENT_AUX_BUFFER_SIZE";
    case GLUE_UNSUPPORTED_QUANT_PARAMS: return "GLUE_UNSUPPORTED_QUANT_PARAMS";
    case GLUE_UNSUPPORTED_BROADCAST_MODE: return "GLUE_UNSUPPORTED_BROADCAST_MODE";
    case GLUE_KERNEL_INVALID_SCALAR_ARGUMENT: return "GLUE_KERNEL_INVALID_SCALAR_ARGUMENT";
    case GLUE_INSUFFICIENT_ELF_BUFFER: return "GLUE_INSUFFICIENT_ELF_BUFFER";
    case GLUE_UNSUPPORTED_5D_TENSORS: return "GLUE_UNSUPPORTED_5D_TENSORS";
    case GLUE_FAILED: return "GLUE_FAILED";
    default: return "GLUE_(unknown code)";
  }
}

DeviceId deviceOf(std::string_view arch) {
  if (arch == "gaudi") return DEVICE_ID_GAUDI;
  if (arch == "gaudi2") return DEVICE_ID_GAUDI2;
  if (arch == "gaudi3") return DEVICE_ID_GAUDI3;
  return DEVICE_ID_MAX;
}

const char* archOf(DeviceId device) {
  switch (device) {
    case DEVICE_ID_GAUDI: return "gaudi";
    case DEVICE_ID_GAUDI2: return "gaudi2";
    case DEVICE_ID_GAUDI3: return "gaudi3";
    default: return nullptr;
  }
}

bool setParam(const ParamSchema& schema, void* params, std::string_view name, std::string_view text, std::string* why) {
  const ParamField* field = nullptr;
  for (const ParamField& f : schema.fields)
    if (name == f.name) field = &f;
  if (!field) {
    std::string names;
    for (const ParamField& f : schema.fields) names += (names.empty() ? "" : ", ") + std::string(f.name);
    *why = names.empty() ? std::string("this kernel takes no parameters")
                         : fmt::format("'{}' is not a parameter (expected one of {})", name, names);
    return false;
  }
  if (field->count > 1) {
    // A list: each element set as a field of its own, at its place in the array.
    size_t k = 0, at = 0;
    for (;;) {
      const size_t comma = text.find(',', at);
      const std::string_view item = text.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at);
      if (k == field->count) {
        *why = fmt::format("{}: '{}' has more than {} values", name, text, field->count);
        return false;
      }
      ParamField one = *field;
      one.count = 1;
      one.offset = field->offset + k * (field->type == ParamField::U64 ? 8 : 4);
      ParamSchema single{schema.size, {one}, nullptr};
      if (!setParam(single, params, name, item, why)) return false;
      ++k;
      if (comma == std::string_view::npos) return true;
      at = comma + 1;
    }
  }
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  auto* at = static_cast<unsigned char*>(params) + field->offset;
  switch (field->type) {
    case ParamField::F32: {
      float v = std::strtof(s.c_str(), &end);
      if (s.empty() || *end || errno == ERANGE) {
        *why = fmt::format("{}: '{}' is not a float", name, s);
        return false;
      }
      std::memcpy(at, &v, sizeof v);
      return true;
    }
    case ParamField::I32: {
      long long v = std::strtoll(s.c_str(), &end, 0);
      if (s.empty() || *end || errno == ERANGE || v < INT32_MIN || v > INT32_MAX) {
        *why = fmt::format("{}: '{}' is not a 32-bit integer", name, s);
        return false;
      }
      int32_t w = static_cast<int32_t>(v);
      std::memcpy(at, &w, sizeof w);
      return true;
    }
    case ParamField::U64: {
      if (!s.empty() && s[0] == '-') {
        *why = fmt::format("{}: '{}' is not an unsigned 64-bit integer", name, s);
        return false;
      }
      unsigned long long v = std::strtoull(s.c_str(), &end, 0);
      if (s.empty() || *end || errno == ERANGE) {
        *why = fmt::format("{}: '{}' is not an unsigned 64-bit integer", name, s);
        return false;
      }
      uint64_t w = v;
      std::memcpy(at, &w, sizeof w);
      return true;
    }
  }
  return false;
}

}  // namespace tpc::kernels
