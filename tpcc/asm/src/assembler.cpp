#include "tpc/asm/assembler.h"

#include <map>
#include <vector>

#include <fmt/format.h>

#include "tpc/isa/asm_text.h"
#include "tpc/support/text.h"

namespace tpc::assembler {

namespace {

struct Line {
  int number;
  std::string_view text;  // without the comment
  size_t indent;          // column of the first non-blank character (0-based)
};

// Everything before "//", except inside a string literal.
std::string_view stripComment(std::string_view s) {
  bool quoted = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (quoted && s[i] == '\\') {
      ++i;
      continue;
    }
    if (s[i] == '"') quoted = !quoted;
    if (!quoted && s[i] == '/' && i + 1 < s.size() && s[i + 1] == '/') return s.substr(0, i);
  }
  return s;
}

std::string_view trimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.'; }
bool isIdentChar(char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }

// "name:" alone on a line.
bool isLabel(std::string_view s, std::string_view* name) {
  if (s.empty() || s.back() != ':' || !isIdentStart(s.front()) || s.front() == '.') return false;
  std::string_view n = s.substr(0, s.size() - 1);
  for (char c : n)
    if (!isIdentChar(c)) return false;
  *name = n;
  return true;
}

}  // namespace

obj::KernelObject assemble(std::string_view text, const std::string& fileName) {
  auto fail = [&](const Line& l, size_t col, const std::string& msg) -> AsmError {
    return AsmError(fmt::format("{}:{}:{}: error: {}", fileName, l.number, col + 1, msg));
  };
  std::vector<Line> lines;
  int number = 0;
  for (size_t pos = 0; pos <= text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = trimRight(stripComment(text.substr(pos, end - pos)));
    ++number;
    size_t indent = raw.find_first_not_of(" \t");
    if (indent != std::string_view::npos) lines.push_back(Line{number, raw.substr(indent), indent});
    pos = end + 1;
  }

  // Pass 1: label addresses.
  std::map<std::string, uint32_t, std::less<>> labels;
  uint32_t bundles = 0;
  for (const Line& l : lines) {
    std::string_view name;
    if (isLabel(l.text, &name)) {
      if (!labels.emplace(std::string(name), bundles * static_cast<uint32_t>(isa::kBundleBytes)).second)
        throw fail(l, l.indent, fmt::format("label '{}' is defined twice", name));
    } else if (l.text.front() != '.') {
      ++bundles;
    }
  }
  isa::LabelResolver resolve = [&](std::string_view name) -> std::optional<uint32_t> {
    auto it = labels.find(name);
    if (it == labels.end()) return std::nullopt;
    return it->second;
  };

  // Pass 2: directives and bundles.
  obj::KernelObject o;
  bool haveKernel = false;
  uint32_t index = 0;
  for (const Line& l : lines) {
    std::string_view name;
    if (isLabel(l.text, &name)) continue;
    if (l.text.front() == '.') {
      auto w = splitWords(l.text);
      std::string_view d = w[0];
      auto need = [&](size_t n, const char* usage) {
        if (w.size() != n) throw fail(l, l.indent, fmt::format("expected '{}'", usage));
      };
      if (d == ".kernel") {
        need(2, ".kernel NAME");
        o.kernelName = std::string(w[1]);
        haveKernel = true;
      } else if (d == ".arch") {
        need(2, ".arch gaudi|gaudi2|gaudi3");
        if (!isa::findArch(w[1])) throw fail(l, l.indent, fmt::format("unknown architecture '{}'", w[1]));
        o.arch = std::string(w[1]);
      } else if (d == ".param") {
        need(3, ".param tensor|TYPE NAME");
        obj::Param p;
        p.name = std::string(w[2]);
        if (w[1] == "tensor") {
          p.kind = obj::ParamKind::Tensor;
        } else if (auto t = parseDType(w[1])) {
          p.kind = obj::ParamKind::Scalar;
          p.scalarType = *t;
        } else {
          throw fail(l, l.indent, fmt::format("unknown parameter type '{}' (expected tensor or a data type)", w[1]));
        }
        o.params.push_back(p);
      } else if (d == ".printf_format") {
        // The rest of the line is one string literal (it may contain spaces).
        std::string_view literal = trimSpaces(l.text.substr(d.size()));
        std::string why;
        auto text = unquoteCString(literal, &why);
        if (!text) throw fail(l, l.indent, fmt::format(".printf_format: {}", why));
        o.printfFormats.push_back(*text);
      } else if (d == ".scalar_local" || d == ".vector_local") {
        need(2, fmt::format("{} BYTES", d).c_str());
        auto v = isa::parseInteger(w[1]);
        if (!v || *v < 0 || *v > 0xffffffffll)
          throw fail(l, l.indent, fmt::format("expected a byte count, got '{}'", w[1]));
        (d == ".scalar_local" ? o.scalarLocalBytes : o.vectorLocalBytes) = static_cast<uint32_t>(*v);
      } else {
        throw fail(l, l.indent,
                   fmt::format("unknown directive '{}' (expected .kernel, .arch, .param, .scalar_local, "
                               ".vector_local, .printf_format)", d));
      }
      continue;
    }
    // Optional "0xADDR:" prefix, which must match the bundle's position.
    std::string_view body = l.text;
    size_t col = l.indent;
    if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
      size_t colon = body.find(':');
      if (colon == std::string_view::npos) throw fail(l, col, "expected ':' after the bundle address");
      auto addr = isa::parseInteger(body.substr(0, colon));
      uint32_t want = index * static_cast<uint32_t>(isa::kBundleBytes);
      if (!addr || *addr != want)
        throw fail(l, col, fmt::format("bundle address '{}' does not match its position 0x{:x}",
                                       body.substr(0, colon), want));
      size_t skip = colon + 1;
      while (skip < body.size() && (body[skip] == ' ' || body[skip] == '\t')) ++skip;
      body.remove_prefix(skip);
      col += skip;
    }
    isa::Bundle b;
    std::string why;
    if (!isa::parseBundle(body, &b, &why, resolve)) throw fail(l, col, why);
    uint8_t bytes[isa::kBundleBytes];
    isa::encodeBundle(b, bytes);
    o.text.insert(o.text.end(), bytes, bytes + isa::kBundleBytes);
    ++index;
  }
  if (!haveKernel && o.text.empty())
    throw AsmError(fmt::format("{}:1:1: error: no bundles and no .kernel directive: not a TPC assembly file", fileName));
  return o;
}

}  // namespace tpc::assembler
