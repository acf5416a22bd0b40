#include <algorithm>
#include <limits>

#include "byte_io.h"

namespace tpc::obj {

bool isKnownArch(std::string_view arch) {
  return std::find(std::begin(kArchNames), std::end(kArchNames), arch) != std::end(kArchNames);
}

namespace detail {

namespace {
bool hasNul(const std::string& s) { return s.find('\0') != std::string::npos; }
bool tooLong(const std::string& s) { return s.size() > std::numeric_limits<uint32_t>::max(); }
}  // namespace

void validateObject(const KernelObject& obj, const std::string& file) {
  auto fail = [&](const std::string& what) { throw ObjectError(file, what); };
  auto checkString = [&](const std::string& s, std::string_view what) {
    if (hasNul(s)) fail(fmt::format("{} contains a NUL byte", what));
    if (tooLong(s)) fail(fmt::format("{} is longer than 4 GiB", what));
  };

  if (obj.kernelName.empty()) fail("empty kernel name");
  checkString(obj.kernelName, "kernel name");
  if (!isKnownArch(obj.arch))
    fail(fmt::format("unknown architecture '{}' (expected gaudi, gaudi2 or gaudi3)", obj.arch));
  if (obj.text.size() % kBundleBytes != 0)
    fail(fmt::format("section '.text' size {} is not a multiple of the {}-byte bundle size",
                     obj.text.size(), kBundleBytes));
  if (obj.text.size() > std::numeric_limits<uint32_t>::max())
    fail(fmt::format("section '.text' size {} exceeds 4 GiB", obj.text.size()));
  if (obj.params.size() > std::numeric_limits<uint32_t>::max()) fail("too many parameters");

  for (size_t i = 0; i < obj.params.size(); ++i) {
    const Param& p = obj.params[i];
    checkString(p.name, fmt::format("parameter {} name", i));
    auto kind = static_cast<unsigned>(p.kind);
    if (p.kind != ParamKind::Tensor && p.kind != ParamKind::Scalar)
      fail(fmt::format("parameter {} ('{}'): kind {} is out of range (0 = tensor, 1 = scalar)", i,
                       p.name, kind));
    auto type = static_cast<unsigned>(p.scalarType);
    if (type >= static_cast<unsigned>(kNumDTypes))
      fail(fmt::format("parameter {} ('{}'): scalar type {} is out of range (0..{})", i, p.name, type,
                       kNumDTypes - 1));
  }

  const DebugInfo& d = obj.debug;
  const uint64_t textSize = obj.text.size();
  if (d.files.size() > std::numeric_limits<uint32_t>::max() ||
      d.lines.size() > std::numeric_limits<uint32_t>::max() ||
      d.vars.size() > std::numeric_limits<uint32_t>::max())
    fail("too many debug records");
  for (size_t i = 0; i < d.files.size(); ++i) checkString(d.files[i], fmt::format("debug file {}", i));
  for (size_t i = 0; i < d.lines.size(); ++i) {
    const LineEntry& l = d.lines[i];
    if (l.file >= d.files.size())
      fail(fmt::format("line entry {}: file index {} is out of range ({} files)", i, l.file,
                       d.files.size()));
    if (l.address % kBundleBytes != 0 || l.address >= textSize)
      fail(fmt::format("line entry {}: address {} is not the offset of a bundle in .text (size {})", i,
                       l.address, textSize));
  }
  for (size_t i = 0; i < d.vars.size(); ++i) {
    const VarLocation& v = d.vars[i];
    checkString(v.name, fmt::format("variable {} name", i));
    checkString(v.typeName, fmt::format("variable {} type name", i));
    if (v.lowPc > v.highPc || v.highPc > textSize || v.lowPc % kBundleBytes != 0 ||
        v.highPc % kBundleBytes != 0)
      fail(fmt::format("variable {} ('{}'): range [{}, {}) is not a bundle-aligned range within .text "
                       "(size {})",
                       i, v.name, v.lowPc, v.highPc, textSize));
  }
  // Inline scopes: parents come first (no cycles), ranges are bundle-aligned, one scope per variable.
  if (d.scopes.size() > std::numeric_limits<uint32_t>::max() || d.scopeRanges.size() > std::numeric_limits<uint32_t>::max())
    fail("too many debug scope records");
  for (size_t i = 0; i < d.scopes.size(); ++i) {
    const InlineScope& s = d.scopes[i];
    checkString(s.function, fmt::format("scope {} function name", i));
    if (i > 0 && s.parent >= i)
      fail(fmt::format("scope {} ('{}'): parent {} is not an earlier scope", i, s.function, s.parent));
    if (i > 0 && s.callFile >= d.files.size())
      fail(fmt::format("scope {} ('{}'): call file index {} is out of range ({} files)", i, s.function, s.callFile,
                       d.files.size()));
  }
  for (size_t i = 0; i < d.scopeRanges.size(); ++i) {
    const ScopeRange& r = d.scopeRanges[i];
    if (r.scope >= d.scopes.size() || r.lowPc > r.highPc || r.highPc > textSize || r.lowPc % kBundleBytes != 0 ||
        r.highPc % kBundleBytes != 0)
      fail(fmt::format("scope range {}: [{}, {}) in scope {} is not a bundle-aligned range within .text (size {}) "
                       "of one of the {} scopes",
                       i, r.lowPc, r.highPc, r.scope, textSize, d.scopes.size()));
  }
  if (!d.varScopes.empty() && d.varScopes.size() != d.vars.size())
    fail(fmt::format("{} variable scopes for {} variable records", d.varScopes.size(), d.vars.size()));
  if (d.scopes.empty() && (!d.scopeRanges.empty() || !d.varScopes.empty()))
    fail("scope ranges or variable scopes without a scope table");
  for (size_t i = 0; i < d.varScopes.size(); ++i)
    if (d.varScopes[i].scope >= d.scopes.size())
      fail(fmt::format("variable {}: scope {} is out of range ({} scopes)", i, d.varScopes[i].scope, d.scopes.size()));
  for (size_t i = 0; i < d.indexVars.size(); ++i) {
    const IndexSpaceVar& v = d.indexVars[i];
    checkString(v.name, "index-space variable name");
    if (v.name.empty() || v.dim >= 5 || v.scale <= 0 || v.scope >= std::max<size_t>(d.scopes.size(), 1))
      fail(fmt::format("index-space variable {}: '{}' of scope {}, dimension {}, scale {}: expected a named variable "
                       "of one of the {} scopes, a dimension below 5 and a positive scale",
                       i, v.name, v.scope, v.dim, v.scale, std::max<size_t>(d.scopes.size(), 1)));
  }
}

}  // namespace detail
}  // namespace tpc::obj
