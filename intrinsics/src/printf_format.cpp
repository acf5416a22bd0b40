#include "tpc/isa/printf_format.h"

#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "../semantics/fp.h"

namespace tpc::isa {

std::optional<PrintfFormat> parsePrintfFormat(std::string_view f, std::string* error) {
  PrintfFormat out;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') continue;
    if (i + 1 < f.size() && f[i + 1] == '%') {
      ++i;
      continue;
    }
    if (out.conversion != PrintfConversion::None) {
      *error = "a TPC printf prints at most one value";
      return std::nullopt;
    }
    size_t j = i + 1;
    while (j < f.size() && std::strchr("-+ #0", f[j])) ++j;
    while (j < f.size() && f[j] >= '0' && f[j] <= '9') ++j;
    if (j < f.size() && f[j] == '.') {
      ++j;
      while (j < f.size() && f[j] >= '0' && f[j] <= '9') ++j;
    }
    while (j < f.size() && (f[j] == 'h' || f[j] == 'l')) ++j;
    if (j >= f.size()) {
      *error = "the format ends inside a conversion";
      return std::nullopt;
    }
    char c = f[j];
    if (std::strchr("diuxXo", c)) out.conversion = PrintfConversion::Integer;
    else if (std::strchr("fFeEgGaA", c)) out.conversion = PrintfConversion::Float;
    else if (c == 'c') out.conversion = PrintfConversion::Char;
    else {
      *error = fmt::format("conversion '%{}' is not supported by TPC printf (use d i u x X o c f e g a)", c);
      return std::nullopt;
    }
    i = j;
  }
  return out;
}

std::string formatPrintf(std::string_view format, const PrintfFormat& parsed, DType t, uint32_t bits) {
  std::string f(format);
  // Length modifiers are dropped: the value is passed as int, long long or double below.
  std::string clean;
  bool inConversion = false;
  for (char c : f) {
    if (inConversion && (c == 'h' || c == 'l')) continue;
    if (c == '%') inConversion = !inConversion;
    else if (inConversion && std::strchr("diuxXocfFeEgGaA", c)) inConversion = false;
    clean += c;
  }
  double asDouble = 0;
  long long asInt = 0;
  switch (t) {
    case DType::F32: asDouble = sem::asFloat(bits); break;
    case DType::BF16: asDouble = sem::asFloat(bits << 16); break;
    case DType::F16: asDouble = sem::asFloat(sem::convertFloat(bits & 0xffffu, sem::kF16, sem::kF32, RoundingMode::RHNE, 0, false)); break;
    case DType::I32: asInt = static_cast<int32_t>(bits); break;
    case DType::I16: asInt = static_cast<int16_t>(bits); break;
    case DType::I8: asInt = static_cast<int8_t>(bits); break;
    case DType::U16: asInt = bits & 0xffffu; break;
    case DType::U8: asInt = bits & 0xffu; break;
    default: asInt = bits; break;
  }
  if (dtypeIsFloat(t)) asInt = static_cast<long long>(asDouble);
  else asDouble = static_cast<double>(asInt);
  // Two passes of snprintf: the length, then the text.
  auto print = [](const std::string& fmtText, auto value) {
    int n = std::snprintf(nullptr, 0, fmtText.c_str(), value);
    if (n <= 0) return std::string();
    std::string out(static_cast<size_t>(n) + 1, '\0');
    std::snprintf(out.data(), out.size(), fmtText.c_str(), value);
    out.resize(static_cast<size_t>(n));
    return out;
  };
  switch (parsed.conversion) {
    case PrintfConversion::None: return print(clean, 0);
    case PrintfConversion::Float: return print(clean, asDouble);
    case PrintfConversion::Char: return print(clean, static_cast<int>(asInt));
    case PrintfConversion::Integer: {
      // The one integer conversion gets an explicit long long length to match the value passed.
      std::string wide = clean;
      for (size_t i = 0; i < wide.size(); ++i) {
        if (wide[i] != '%') continue;
        if (i + 1 < wide.size() && wide[i + 1] == '%') {
          ++i;
          continue;
        }
        size_t k = i + 1;
        while (k < wide.size() && !std::strchr("diuxXo", wide[k])) ++k;
        wide.insert(k, "ll");
        break;
      }
      return print(wide, asInt);
    }
  }
  return {};
}

}  // namespace tpc::isa
