// The intrinsic names of the vendor's older compilers (v_f32_add_v_v, v_f32_ld_tnsr_i, f32_st_tnsr_i_v, ...),
// which kernels written for them still use: macros over today's intrinsics, expanded from the rules in
// intrinsics/intrinsics/legacy_aliases.txt into the implicit header tpc-legacy-aliases.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace tpc::isa {

// One line of the generated header: a macro, or a preprocessor conditional passed through from the rules.
struct LegacyAliasLine {
  std::string directive;              // "#if ...", "#endif", ...; empty for a macro
  std::string name;                   // the legacy name
  std::optional<std::string> params;  // "(a, b, i, p, o)" for a function-like macro
  std::string body;                   // what it expands to
  int ruleLine = 0;                   // the rule's line in legacy_aliases.txt
};

// Expands rules (the format is described at the top of legacy_aliases.txt). On a malformed rule returns
// nothing and sets `error` to "<file>:<line>: <what was expected>".
std::optional<std::vector<LegacyAliasLine>> expandLegacyAliases(std::string_view rules, std::string_view fileName,
                                                                std::string* error);

// The rules built into this tool (legacy_aliases.txt, embedded at build time), expanded.
const std::vector<LegacyAliasLine>& legacyAliases();

// tpc-legacy-aliases.h: every alias as a #define, all inside `#if !defined(NO_TPC_INTRINSICS_ALIASES)` as
// with the vendor's compiler, so a kernel that names its own functions like these can opt out
// (-DNO_TPC_INTRINSICS_ALIASES: the header is included before the source).
std::string generateLegacyAliasesHeader();

// The same header with only the aliases a source can expand: those named in `names` (the identifiers the
// source's tokens, macro names and conditionals use) and those their expansions name, transitively. The
// identifiers of every included expansion are added to `names`, so that a filter over the intrinsics built
// from it keeps what the aliases expand to. Conditionals are kept whole, and every alias keeps its line.
std::string generateLegacyAliasesHeader(std::unordered_set<std::string>* names);

}  // namespace tpc::isa
