#include "tpc/support/text.h"

namespace tpc {

namespace {
bool isSpace(char c) { return c == ' ' || c == '\t'; }
}  // namespace

std::string_view trimSpaces(std::string_view s) {
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && (isSpace(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> splitOn(std::string_view s, char separator) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == separator) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::vector<std::string_view> splitWords(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && isSpace(s[i])) ++i;
    size_t start = i;
    while (i < s.size() && !isSpace(s[i])) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

std::string escapeNonPrintable(std::string_view text) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if ((u >= 0x20 && u < 0x7f) || c == '\n') {
      out += c;
    } else {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

std::string quoteCString(std::string_view text) {
  static const char* kHex = "0123456789abcdef";
  std::string out = "\"";
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      default:
        if (u < 0x20 || u == 0x7f) {
          out += "\\x";
          out += kHex[u >> 4];
          out += kHex[u & 15];
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::optional<std::string> unquoteCString(std::string_view lit, std::string* error) {
  if (lit.size() < 2 || lit.front() != '"' || lit.back() != '"') {
    *error = "expected a string in double quotes";
    return std::nullopt;
  }
  std::string out;
  for (size_t i = 1; i + 1 < lit.size(); ++i) {
    char c = lit[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i + 1 > lit.size() - 1) {
      *error = "the string ends with a lone backslash";
      return std::nullopt;
    }
    switch (lit[i]) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case '\\': out += '\\'; break;
      case '"': out += '"'; break;
      case 'x': {
        auto hex = [](char h) { return h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1; };
        if (i + 2 >= lit.size() - 1 + 1 || hex(lit[i + 1]) < 0 || hex(lit[i + 2]) < 0) {
          *error = "\\x needs two hexadecimal digits";
          return std::nullopt;
        }
        out += static_cast<char>(hex(lit[i + 1]) * 16 + hex(lit[i + 2]));
        i += 2;
        break;
      }
      default:
        *error = std::string("unknown escape \\") + lit[i];
        return std::nullopt;
    }
  }
  return out;
}

}  // namespace tpc
