#include "tpc/dbg/types.h"

#include <cmath>
#include <cstring>
#include <map>

#include <fmt/format.h>

namespace tpc::dbg {

std::optional<TypeInfo> parseTypeName(const std::string& raw) {
  std::string name = raw;
  // Arrays: the element type with its dimensions multiplied into arrayCount.
  if (size_t bracket = name.find('['); bracket != std::string::npos && name.back() == ']') {
    auto element = parseTypeName(name.substr(0, bracket));
    if (!element || element->arrayCount != 1) return std::nullopt;
    long long count = 1;
    for (size_t p = bracket; p < name.size();) {
      size_t close = name.find(']', p);
      if (name[p] != '[' || close == std::string::npos) return std::nullopt;
      std::string digits = name.substr(p + 1, close - p - 1);
      if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
      count *= std::stoll(digits);
      if (count > 65536) return std::nullopt;
      p = close + 1;
    }
    element->arrayCount = static_cast<int>(count);
    return element;
  }
  // Qualifiers do not change the representation.
  for (const char* q : {"const ", "volatile ", "__local__ ", "signed "})
    for (size_t p; (p = name.find(q)) != std::string::npos;) name.erase(p, std::strlen(q));
  while (!name.empty() && name.back() == ' ') name.pop_back();
  using K = ValueKind;
  static const std::map<std::string, TypeInfo> known = {
      {"float", {K::Scalar, DType::F32, false, 1}},
      {"int", {K::Scalar, DType::I32, false, 1}},
      {"int32_t", {K::Scalar, DType::I32, false, 1}},
      {"long", {K::Scalar, DType::I32, false, 1}},
      {"unsigned", {K::Scalar, DType::U32, false, 1}},
      {"unsigned int", {K::Scalar, DType::U32, false, 1}},
      {"uint32_t", {K::Scalar, DType::U32, false, 1}},
      {"short", {K::Scalar, DType::I16, false, 1}},
      {"int16_t", {K::Scalar, DType::I16, false, 1}},
      {"unsigned short", {K::Scalar, DType::U16, false, 1}},
      {"uint16_t", {K::Scalar, DType::U16, false, 1}},
      {"char", {K::Scalar, DType::I8, false, 1}},
      {"int8_t", {K::Scalar, DType::I8, false, 1}},
      {"unsigned char", {K::Scalar, DType::U8, false, 1}},
      {"uint8_t", {K::Scalar, DType::U8, false, 1}},
      {"bool", {K::Scalar, DType::I32, true, 1}},
      {"_Bool", {K::Scalar, DType::I32, true, 1}},
      {"bf16", {K::Scalar, DType::BF16, false, 1}},
      {"__bf16", {K::Scalar, DType::BF16, false, 1}},
      {"_BFloat16", {K::Scalar, DType::BF16, false, 1}},
      {"bfloat", {K::Scalar, DType::BF16, false, 1}},
      {"half", {K::Scalar, DType::F16, false, 1}},
      {"_Float16", {K::Scalar, DType::F16, false, 1}},
      {"float64", {K::Vector, DType::F32, false, 64}},
      {"int64", {K::Vector, DType::I32, false, 64}},
      {"uint64", {K::Vector, DType::U32, false, 64}},
      {"short128", {K::Vector, DType::I16, false, 128}},
      {"ushort128", {K::Vector, DType::U16, false, 128}},
      {"char256", {K::Vector, DType::I8, false, 256}},
      {"uchar256", {K::Vector, DType::U8, false, 256}},
      {"bfloat128", {K::Vector, DType::BF16, false, 128}},
      {"half128", {K::Vector, DType::F16, false, 128}},
      {"bool64", {K::Predicate, DType::U8, true, 64}},
      {"bool128", {K::Predicate, DType::U8, true, 128}},
      {"bool256", {K::Predicate, DType::U8, true, 256}},
      {"int5", {K::Index, DType::I32, false, 5}},
  };
  auto it = known.find(name);
  if (it != known.end()) return it->second;
  // Typedefs the headers spell with a suffix (float64_t) mean the same.
  if (name.size() > 2 && name.ends_with("_t")) {
    it = known.find(name.substr(0, name.size() - 2));
    if (it != known.end()) return it->second;
  }
  return std::nullopt;
}

std::optional<TypeInfo> parseCastType(const std::string& name) {
  if (auto t = parseTypeName(name); t && t->kind == ValueKind::Scalar) return t;
  if (auto d = parseDType(name)) return TypeInfo{ValueKind::Scalar, *d, false, 1};
  return std::nullopt;
}

std::string Location::describe() const {
  switch (space) {
    case Space::Register: return fmt::format("{}{}", isa::regFilePrefix(file), index);
    case Space::ScalarLocal: return fmt::format("scalar local memory 0x{:x}", address);
    case Space::VectorLocal: return fmt::format("vector local memory 0x{:x}", address);
    case Space::Global: return fmt::format("global memory 0x{:x}", address);
  }
  return "?";
}

Value Value::scalar(DType t, double v, bool isBool) {
  Value x;
  x.kind = ValueKind::Scalar;
  x.elem = t;
  x.isBool = isBool;
  x.lanes = {isBool ? (v != 0 ? 1.0 : 0.0) : convertToType(v, t)};
  return x;
}

double convertToType(double v, DType t) {
  if (std::isnan(v) && !dtypeIsFloat(t)) return 0;
  auto wrap = [&](int bits, bool isSigned) {
    double m = std::ldexp(1.0, bits);
    double r = std::fmod(std::trunc(v), m);
    if (r < 0) r += m;
    if (isSigned && r >= m / 2) r -= m;
    return r;
  };
  switch (t) {
    case DType::F32: return static_cast<double>(static_cast<float>(v));
    case DType::BF16: {
      float f = static_cast<float>(v);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      if (!std::isnan(f)) bits += 0x7fff + ((bits >> 16) & 1);  // round to nearest even
      bits &= 0xffff0000u;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    case DType::F16: return static_cast<double>(static_cast<float>(static_cast<_Float16>(static_cast<float>(v))));
    case DType::I32: return wrap(32, true);
    case DType::U32: return wrap(32, false);
    case DType::I16: return wrap(16, true);
    case DType::U16: return wrap(16, false);
    case DType::I8: return wrap(8, true);
    case DType::U8: return wrap(8, false);
    default: return v;
  }
}

}  // namespace tpc::dbg
