#include "tpc/dbg/debug_info.h"

#include <algorithm>
#include <cstdint>

#include "tpc/isa/encoding.h"

namespace tpc::dbg {

DebugInfo::DebugInfo(const obj::KernelObject& o)
    : files_(o.debug.files), lines_(o.debug.lines), scopes_(o.debug.scopes), scopeRanges_(o.debug.scopeRanges),
      kernelName_(o.kernelName), textSize_(static_cast<uint32_t>(o.text.size())) {
  std::stable_sort(lines_.begin(), lines_.end(), [](const auto& a, const auto& b) { return a.address < b.address; });
  // Which bundles may continue with the next one (not an unconditional jump or halt), and where straight-line
  // regions start: the entry, jump targets, bundles after a jump or halt, a hardware loop's body and exit.
  const size_t bundles = o.text.size() / isa::kBundleBytes;
  regionStart_.assign(bundles, false);
  auto markStart = [&](uint64_t bundle) {
    if (bundle < bundles) regionStart_[bundle] = true;
  };
  markStart(0);
  for (size_t k = 0; k < bundles; ++k) {
    isa::Bundle b;
    std::string why;
    bool falls = true;
    if (isa::decodeBundle(o.text.data() + k * isa::kBundleBytes, &b, &why)) {
      const isa::SlotInsn& spu = b[isa::Slot::Spu];
      if ((spu.id == isa::InsnId::SpuJmpr || spu.id == isa::InsnId::SpuHalt) && spu.alwaysExecutes()) falls = false;
      if (spu.id == isa::InsnId::SpuJmpr) markStart(spu.imm / isa::kBundleBytes);
      if (spu.id == isa::InsnId::SpuJmpr || spu.id == isa::InsnId::SpuHalt || spu.id == isa::InsnId::SpuLoop)
        markStart(k + 1);
      if (spu.id == isa::InsnId::SpuLoop) markStart(spu.field(isa::SwitchField::LoopEnd) / isa::kBundleBytes + 1);
    }
    fallsThrough_.push_back(falls);
  }
  vars_.reserve(o.debug.vars.size());
  for (size_t k = 0; k < o.debug.vars.size(); ++k) {
    const obj::VarLocation& v = o.debug.vars[k];
    VarRecord r{v.name, v.typeName, v.lowPc, v.highPc, v.regFile, v.regIndex, v.localOffset, 0, false};
    if (k < o.debug.varScopes.size()) {
      r.scope = o.debug.varScopes[k].scope;
      r.isArgument = o.debug.varScopes[k].isArgument;
    }
    vars_.push_back(std::move(r));
  }
}

const std::string& DebugInfo::fileName(uint32_t file) const {
  static const std::string unknown = "??";
  return file < files_.size() ? files_[file] : unknown;
}

std::optional<SourcePos> DebugInfo::lineAt(uint32_t address) const {
  auto it = std::upper_bound(lines_.begin(), lines_.end(), address,
                             [](uint32_t a, const obj::LineEntry& e) { return a < e.address; });
  if (it == lines_.begin()) return std::nullopt;
  --it;
  return SourcePos{it->file, it->line, it->column};
}

bool DebugInfo::isLineStart(uint32_t address) const {
  auto it = std::lower_bound(lines_.begin(), lines_.end(), address,
                             [](const obj::LineEntry& e, uint32_t a) { return e.address < a; });
  return it != lines_.end() && it->address == address;
}

std::optional<uint32_t> DebugInfo::addressOfLine(uint32_t file, uint32_t line, uint32_t* resolvedLine) const {
  // The nearest line at or after `line` with code; of its entries, the lowest address (gdb moves a
  // breakpoint on a line without code to the next line that has some).
  uint32_t best = 0;
  for (const auto& e : lines_)
    if (e.file == file && e.line >= line && (best == 0 || e.line < best)) best = e.line;
  if (best == 0) return std::nullopt;
  std::optional<uint32_t> address;
  for (const auto& e : lines_)
    if (e.file == file && e.line == best && (!address || e.address < *address)) address = e.address;
  if (resolvedLine) *resolvedLine = best;
  return address;
}

std::vector<uint32_t> DebugInfo::addressesOfLine(uint32_t file, uint32_t line, uint32_t* resolvedLine) const {
  uint32_t resolved = 0;
  if (!addressOfLine(file, line, &resolved)) return {};
  if (resolvedLine) *resolvedLine = resolved;
  std::vector<uint32_t> out;
  size_t lastRegion = SIZE_MAX;
  for (const auto& e : lines_) {  // sorted by address
    if (e.file != file || e.line != resolved) continue;
    // The region of this entry: the nearest region start at or before its bundle.
    size_t region = e.address / isa::kBundleBytes;
    while (region > 0 && !(region < regionStart_.size() && regionStart_[region])) --region;
    if (region != lastRegion) out.push_back(e.address);
    lastRegion = region;
  }
  return out;
}

std::optional<uint32_t> DebugInfo::findFile(const std::string& name) const {
  for (uint32_t k = 0; k < files_.size(); ++k) {
    const std::string& f = files_[k];
    if (f == name) return k;
    if (f.size() > name.size() && f.compare(f.size() - name.size(), name.size(), name) == 0 &&
        f[f.size() - name.size() - 1] == '/')
      return k;
    // A relative name given for a file recorded with a longer path, or the other way round.
    auto base = [](const std::string& p) { return p.substr(p.rfind('/') == std::string::npos ? 0 : p.rfind('/') + 1); };
    if (name.find('/') == std::string::npos && base(f) == name) return k;
    if (base(name) == base(f) && name.size() > f.size() && name.compare(name.size() - f.size(), f.size(), f) == 0)
      return k;
  }
  return std::nullopt;
}

std::optional<uint32_t> DebugInfo::addressOfFunction(const std::string& name) const {
  if (name == kernelName_ || name == "main") return 0u;
  std::optional<uint32_t> best;
  for (const auto& r : scopeRanges_)
    if (r.scope < scopes_.size() && scopes_[r.scope].function == name && (!best || r.lowPc < *best)) best = r.lowPc;
  return best;
}

uint32_t DebugInfo::scopeAt(uint32_t address) const {
  uint32_t scope = 0;
  for (const auto& r : scopeRanges_)
    if (address >= r.lowPc && address < r.highPc && r.scope > scope) scope = r.scope;
  return scope;
}

std::vector<Frame> DebugInfo::framesAt(uint32_t address) const {
  std::vector<Frame> frames;
  uint32_t scope = scopeAt(address);
  std::optional<SourcePos> pos = lineAt(address);
  // Walk from the innermost scope out; each frame's position is the call site recorded in its child.
  for (int guard = 0; guard < 64; ++guard) {
    Frame f;
    f.scope = scope;
    f.function = scope < scopes_.size() && scope > 0 ? scopes_[scope].function : kernelName_;
    f.pos = pos;
    frames.push_back(f);
    if (scope == 0 || scope >= scopes_.size()) break;
    const obj::InlineScope& s = scopes_[scope];
    pos = SourcePos{s.callFile, s.callLine, s.callColumn};
    scope = s.parent;
  }
  return frames;
}

std::vector<std::string> DebugInfo::variablesOfScope(uint32_t scope, bool arguments) const {
  std::vector<std::string> names;
  for (const auto& v : vars_)
    if (v.scope == scope && v.isArgument == arguments && std::find(names.begin(), names.end(), v.name) == names.end())
      names.push_back(v.name);
  return names;
}

const VarRecord* DebugInfo::locate(const std::string& name, uint32_t scope, uint32_t address) const {
  uint32_t at = address;
  const size_t before = address / isa::kBundleBytes;
  if (before > 0 && before - 1 < fallsThrough_.size() && fallsThrough_[before - 1]) at = address - isa::kBundleBytes;
  for (const auto& v : vars_)
    if (v.scope == scope && v.name == name && at >= v.lowPc && at < v.highPc && v.regFile != 0) return &v;
  return nullptr;
}

std::string DebugInfo::typeOf(const std::string& name, uint32_t scope) const {
  for (const auto& v : vars_)
    if (v.scope == scope && v.name == name) return v.type;
  return {};
}

}  // namespace tpc::dbg
