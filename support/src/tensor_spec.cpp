#include "tpc/support/tensor_spec.h"

#include <fmt/format.h>

#include <filesystem>
#include <limits>

#include "tpc/support/error.h"
#include "tpc/support/npy.h"

namespace tpc {

namespace {

constexpr std::string_view kForms = "FILE.npy, FILE.npy:DTYPE or FILE.npy=DTYPE[S0,S1,...]";

std::string allDTypeNames() {
  std::string names;
  for (int i = 0; i < kNumDTypes; ++i) {
    if (i) names += ' ';
    names += dtypeName(static_cast<DType>(i));
  }
  return names;
}

class SpecParser {
 public:
  explicit SpecParser(std::string_view arg) : arg_(arg) {}

  TensorSpec parse() {
    TensorSpec spec;
    spec.text = std::string(arg_);
    if (arg_.empty()) fail(fmt::format("expected {}", kForms));

    if (size_t eq = arg_.rfind('='); eq != std::string_view::npos) {
      std::string_view suffix = arg_.substr(eq + 1);
      bool looksLikeShape = suffix.find('[') != std::string_view::npos && suffix.find('/') == std::string_view::npos;
      if (looksLikeShape || meantAsSuffix(suffix)) {
        spec.path = pathBefore(eq, '=');
        spec.create = true;
        parseCreation(suffix, spec);
        return spec;
      }
    }
    if (size_t colon = arg_.rfind(':'); colon != std::string_view::npos) {
      std::string_view suffix = arg_.substr(colon + 1);
      std::optional<DType> type = parseDType(suffix);
      if (type || meantAsSuffix(suffix)) {
        if (suffix.empty()) fail(fmt::format("missing data type after ':' (expected {})", kForms));
        if (!type) failUnknownType(suffix);
        spec.path = pathBefore(colon, ':');
        spec.reinterpret = type;
        return spec;
      }
    }
    spec.path = std::string(arg_);
    return spec;
  }

 private:
  [[noreturn]] void fail(std::string_view what) const {
    throw UserError(fmt::format("-t '{}': {}", arg_, what));
  }
  [[noreturn]] void failUnknownType(std::string_view name) const {
    fail(fmt::format("unknown data type '{}' (expected one of {})", name, allDTypeNames()));
  }

  // A suffix without '.' or '/' cannot be the tail of a FILE.npy path, so the user meant a data type or
  // shape, unless a file with exactly that name exists.
  bool meantAsSuffix(std::string_view suffix) const {
    if (suffix.find_first_of("./") != std::string_view::npos) return false;
    std::error_code ec;
    return !std::filesystem::exists(std::filesystem::path(std::string(arg_)), ec);
  }

  std::string pathBefore(size_t sep, char c) const {
    if (sep == 0) fail(fmt::format("missing file name before '{}' (expected {})", c, kForms));
    return std::string(arg_.substr(0, sep));
  }

  static std::string_view trim(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
  }

  // DTYPE[S0,S1,...] after the '='.
  void parseCreation(std::string_view s, TensorSpec& spec) const {
    size_t open = s.find('[');
    std::string_view typeName = s.substr(0, open);
    if (open == std::string_view::npos) {
      if (parseDType(typeName))
        fail(fmt::format("missing shape after '{0}' (expected {0}[S0,S1,...], e.g. {0}[4,128])", typeName));
      if (typeName.empty()) fail("expected DTYPE[S0,S1,...] after '=', e.g. f32[4,128]");
      failUnknownType(typeName);
    }
    if (typeName.empty()) fail("missing data type before '[' (expected DTYPE[S0,S1,...], e.g. f32[4,128])");
    std::optional<DType> type = parseDType(typeName);
    if (!type) failUnknownType(typeName);
    spec.createType = *type;

    if (s.back() != ']') fail("expected ']' at the end of the shape (DTYPE[S0,S1,...])");
    std::string_view inner = s.substr(open + 1, s.size() - open - 2);
    if (trim(inner).empty())
      fail(fmt::format("expected at least one dimension in '{}[]', e.g. {}[4,128]", typeName, typeName));

    for (size_t start = 0;;) {
      size_t comma = inner.find(',', start);
      std::string_view token = trim(inner.substr(start, comma == std::string_view::npos ? comma : comma - start));
      spec.createShape.push_back(parseDim(token, spec.createShape.size()));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    if (spec.createShape.size() > kMaxTensorDims)
      fail(fmt::format("shape has {} dimensions, expected 1 to {}", spec.createShape.size(), kMaxTensorDims));

    // The tensor must be addressable; this also keeps numBytes() from overflowing.
    uint64_t total = dtypeSize(*type);
    for (int64_t d : spec.createShape) {
      if (total > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / static_cast<uint64_t>(d))
        fail(fmt::format("shape {} is too large", formatShape(spec.createShape)));
      total *= static_cast<uint64_t>(d);
    }
  }

  [[noreturn]] void failDim(size_t index, std::string_view token, std::string_view why) const {
    fail(fmt::format("dimension {} '{}' {}", index + 1, token, why));
  }

  int64_t parseDim(std::string_view token, size_t index) const {
    if (token.empty() || token.find_first_not_of("0123456789") != std::string_view::npos)
      failDim(index, token, "is not a positive integer");
    int64_t value = 0;
    for (char c : token) {
      if (value > (std::numeric_limits<int64_t>::max() - (c - '0')) / 10) failDim(index, token, "is too large");
      value = value * 10 + (c - '0');
    }
    if (value < 1) failDim(index, token, "must be at least 1");
    return value;
  }

  std::string_view arg_;
};

}  // namespace

TensorSpec parseTensorSpec(std::string_view arg) { return SpecParser(arg).parse(); }

HostTensor materialize(const TensorSpec& spec) {
  if (spec.create) {
    try {
      return makeZeroTensor(spec.createType, spec.createShape);
    } catch (const UserError& e) {
      throw UserError(fmt::format("-t '{}': {}", spec.text, e.what()));
    }
  }
  HostTensor t = readNpy(spec.path);
  if (spec.reinterpret && *spec.reinterpret != t.dtype) {
    if (dtypeSize(*spec.reinterpret) != dtypeSize(t.dtype))
      throw UserError(fmt::format("-t '{}': cannot reinterpret {} ({} data, {}-byte elements) as {} ({}-byte "
                                  "elements): the element sizes must match",
                                  spec.text, spec.path, dtypeName(t.dtype), dtypeSize(t.dtype),
                                  dtypeName(*spec.reinterpret), dtypeSize(*spec.reinterpret)));
    t.dtype = *spec.reinterpret;
  }
  return t;
}

}  // namespace tpc
