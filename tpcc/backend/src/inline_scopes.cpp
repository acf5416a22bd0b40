// The inline scopes of the debug info (.tpc.debug_scopes): the table of inlined calls, the innermost scope
// of each run of bundles, and each variable record's scope, so that the debugger shows inlined helpers as
// frames of their own.
#include "tpc/cc/passes.h"

namespace tpc::cc {

void appendInlineScopes(const MFunction& mf, const std::vector<ScheduledBundle>& bundles,
                        std::vector<obj::VarScope> varScopes, obj::KernelObject& o) {
  o.debug.scopes.push_back({o.kernelName, 0, 0, 0, 0});
  for (const MFunction::InlineScope& s : mf.scopes) o.debug.scopes.push_back({s.function, s.parent, 0, s.line, s.column});
  // A bundle without a source location continues the scope of the one before it, as it continues its line.
  uint32_t current = 0;
  for (size_t k = 0; k < bundles.size(); ++k) {
    if (bundles[k].loc.line) current = bundles[k].loc.scope;
    if (current == 0 || current > mf.scopes.size()) continue;
    const auto address = static_cast<uint32_t>(k * isa::kBundleBytes);
    if (!o.debug.scopeRanges.empty() && o.debug.scopeRanges.back().scope == current &&
        o.debug.scopeRanges.back().highPc == address)
      o.debug.scopeRanges.back().highPc += isa::kBundleBytes;
    else
      o.debug.scopeRanges.push_back({address, address + static_cast<uint32_t>(isa::kBundleBytes), current});
  }
  o.debug.varScopes = std::move(varScopes);
  o.debug.varScopes.resize(o.debug.vars.size());
}

}  // namespace tpc::cc
