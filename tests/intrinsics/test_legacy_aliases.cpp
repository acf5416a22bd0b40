// The legacy intrinsic names (tpc-legacy-aliases.h from intrinsics/intrinsics/legacy_aliases.txt): the rule
// expander on known inputs, and every alias followed through the aliases it names to an intrinsic of our
// table, called with a number of arguments that intrinsic takes. A transcription slip (a lost argument, a
// misspelt target) fails here rather than in a user's kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "tpc/isa/intrinsics.h"
#include "tpc/isa/legacy_aliases.h"

namespace tpc::isa {
namespace {

std::vector<LegacyAliasLine> expand(const std::string& rules, std::string* error) {
  auto lines = expandLegacyAliases(rules, "rules.txt", error);
  return lines ? *lines : std::vector<LegacyAliasLine>{};
}

TEST(LegacyAliases, TypedRulesExpandPerTypeWithTheirPredicateConversion) {
  std::string error;
  auto lines = expand(
      "// a comment\n"
      "[f32 bf16 u8] v_{t}_ld_x_vb(n, i, p, o) = v_{t}_ld_y_vb(n, 0, i, {vb}(p), o)\n"
      "[i16:u16] v_{u}_{t}_sel(a) = sel_{t}_{u}(a, ({uvec})0, ({vec})0, ({bool}){0})\n"
      "#if defined(__gaudi__)\n"
      "plain_old = plain_new\n"
      "#endif\n",
      &error);
  ASSERT_EQ(lines.size(), 7u) << error;
  EXPECT_EQ(lines[0].name, "v_f32_ld_x_vb");
  EXPECT_EQ(*lines[0].params, "(n, i, p, o)");
  EXPECT_EQ(lines[0].body, "v_f32_ld_y_vb(n, 0, i, to_bool64(p), o)");
  EXPECT_EQ(lines[1].body, "v_bf16_ld_y_vb(n, 0, i, to_bool128(p), o)");
  EXPECT_EQ(lines[2].body, "v_u8_ld_y_vb(n, 0, i, (p), o)");
  EXPECT_EQ(lines[3].name, "v_u16_i16_sel");
  EXPECT_EQ(lines[3].body, "sel_i16_u16(a, (ushort128)0, (short128)0, (bool128){0})");
  EXPECT_EQ(lines[4].directive, "#if defined(__gaudi__)");
  EXPECT_EQ(lines[5].name, "plain_old");
  EXPECT_FALSE(lines[5].params.has_value());
  EXPECT_EQ(lines[5].body, "plain_new");
  EXPECT_EQ(lines[6].directive, "#endif");
  EXPECT_EQ(lines[1].ruleLine, 2);
}

TEST(LegacyAliases, MalformedRulesAreErrorsWithTheirLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"a(x)\n", "rules.txt:1: expected 'name(params) = body'"},
      {"\n[f32 x32] a_{t} = b_{t}\n", "rules.txt:2: unknown type 'x32'"},
      {"[f32 a_{t} = b\n", "rules.txt:1: expected ']'"},
      {"[f32] a_{t} = b_{u}\n", "rules.txt:1: {u} or {uvec} in a rule over single types"},
      {"a_{t} = b\n", "rules.txt:1: a placeholder in a rule without a [types] list"},
      {"[] a_{t} = b\n", "rules.txt:1: empty type list"},
      {"a x) = b\n", "rules.txt:1: expected '(parameters)'"},
  };
  for (const auto& [rules, want] : cases) {
    std::string error;
    EXPECT_FALSE(expandLegacyAliases(rules, "rules.txt", &error).has_value()) << rules;
    EXPECT_EQ(error.rfind(want, 0), 0u) << "rules: " << rules << "error: " << error;
  }
}

// ---------------------------------------------------------------------------------- the built-in rules

// The call a body makes: its callee and top-level argument count; nothing when the body is not one call
// (an expression such as "(a)").
struct Call {
  std::string callee;
  size_t args = 0;
};

std::optional<Call> callOf(const std::string& body) {
  size_t open = body.find('(');
  if (open == std::string::npos || open == 0) return std::nullopt;
  Call c{body.substr(0, open)};
  for (char ch : c.callee)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')) return std::nullopt;
  int depth = 0;
  bool any = false;
  for (size_t i = open; i < body.size(); ++i) {
    char ch = body[i];
    if (ch == '(' || ch == '{' || ch == '[') ++depth;
    else if (ch == ')' || ch == '}' || ch == ']') {
      if (--depth == 0) {
        if (i + 1 != body.size()) return std::nullopt;  // "f(x) & 1": not one call
        c.args = any ? c.args + 1 : 0;
        return c;
      }
    } else if (depth == 1 && ch == ',') ++c.args;
    else if (depth >= 1 && !std::isspace(static_cast<unsigned char>(ch))) any = true;
  }
  return std::nullopt;
}

size_t paramCount(const std::string& params) {
  return params == "()" ? 0 : static_cast<size_t>(std::count(params.begin(), params.end(), ',')) + 1;
}

std::string readFile(const char* path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Functions of tpc-special.h (the special-function library), which aliases may name too.
std::set<std::string> specialFunctions() {
  std::set<std::string> names;
  std::string s = readFile(TPC_SPECIAL_H);
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] != '(' || i == 0) continue;
    size_t b = i;
    while (b > 0 && (std::isalnum(static_cast<unsigned char>(s[b - 1])) || s[b - 1] == '_')) --b;
    if (b < i) names.insert(s.substr(b, i - b));
  }
  return names;
}

TEST(LegacyAliases, EveryAliasReachesAnIntrinsicWithArgumentsItTakes) {
  const std::vector<LegacyAliasLine>& lines = legacyAliases();
  std::map<std::string, const LegacyAliasLine*> byName;
  size_t macros = 0;
  for (const LegacyAliasLine& a : lines) {
    if (!a.directive.empty()) continue;
    ++macros;
    auto [it, fresh] = byName.emplace(a.name, &a);
    // A name defined twice must be defined the same way (C allows only identical redefinitions).
    if (!fresh) {
      bool conditional = false;  // different definitions for different architectures are fine
      for (const LegacyAliasLine& d : lines)
        if (!d.directive.empty() && d.ruleLine > std::min(it->second->ruleLine, a.ruleLine) &&
            d.ruleLine < std::max(it->second->ruleLine, a.ruleLine))
          conditional = true;
      if (!conditional) {
        EXPECT_TRUE(it->second->params == a.params && it->second->body == a.body)
            << a.name << " is defined at rules line " << it->second->ruleLine << " and differently at " << a.ruleLine;
      }
    }
  }
  ASSERT_GT(macros, 0u);
  const std::set<std::string> special = specialFunctions();

  std::map<std::string, std::vector<std::string>> unresolved;  // target -> aliases reaching it
  size_t reachIntrinsic = 0;
  for (const auto& [name, alias] : byName) {
    if (!alias->params) continue;  // object-like: checked through the function-like aliases that use it
    std::optional<Call> call = callOf(alias->body);
    if (!call) continue;  // an expression of its argument, e.g. "(a)"
    size_t args = call->args;
    std::string callee = call->callee;
    // Follow object-like aliases (another name) and function-like ones (check their parameter count).
    for (int hops = 0; hops < 16; ++hops) {
      auto next = byName.find(callee);
      if (next == byName.end()) break;
      const LegacyAliasLine* a = next->second;
      if (!a->params) {
        callee = a->body;
        continue;
      }
      ASSERT_EQ(paramCount(*a->params), args) << name << " calls " << callee << " with " << args << " arguments";
      std::optional<Call> inner = callOf(a->body);
      if (!inner) {
        callee.clear();
        break;
      }
      callee = inner->callee;
      args = inner->args;
    }
    if (callee.empty() || special.count(callee)) continue;
    if (const IntrinsicInfo* in = findIntrinsic(callee)) {
      ++reachIntrinsic;
      EXPECT_TRUE(args >= in->requiredParams() && args <= in->params.size())
          << name << " (rules line " << alias->ruleLine << ") calls " << callee << " with " << args
          << " arguments; it takes " << in->requiredParams() << " to " << in->params.size();
    } else {
      unresolved[callee].push_back(name);
    }
  }
  // Names the vendor's older example kernels and their helper headers use: each must reach our table.
  for (const char* used : {"v_f32_ld_tnsr_i", "v_bf16_ld_tnsr_i_b", "f32_st_tnsr_i_v", "bf16_st_tnsr_i_v_b",
                           "v_f32_add_v_v", "v_bf16_mul_v_s", "v_f32_mac_v_v_b", "v_i32_f32_sel_less_v_s_v_v",
                           "v_bf16_bf16_sel_geq_v_v_v_v_b", "v_f32_mov_v_b", "v_i32_mov_s", "bv_f32_cmp_grt_v_s",
                           "v_f32_max_v_v", "s_f32_ld_l_s", "v_convert_f32_to_i32_v_b", "v_convert_f32_to_bf16_av_b"}) {
    EXPECT_TRUE(byName.count(used)) << used << " is not a legacy alias";
    for (const auto& [target, names] : unresolved)
      EXPECT_EQ(std::count(names.begin(), names.end(), used), 0) << used << " reaches " << target << ", not in our table";
  }
  // Targets outside our table are intrinsics we do not implement yet: a kernel using one of these aliases
  // gets the same error as one calling the target directly. Listed so the gap is visible in the test log.
  std::ostringstream gaps;
  for (const auto& [target, names] : unresolved) gaps << "  " << target << " <- " << names.front() << "\n";
  std::cout << macros << " legacy aliases, " << reachIntrinsic << " reach an intrinsic of the table; targets we lack:\n"
            << gaps.str();
}

// The aliases come after our own headers: one of the same name as an intrinsic, a special function or a
// macro of tpc-defs.h would silently replace it.
TEST(LegacyAliases, NoAliasShadowsAnIntrinsicOrAMacroOfOurHeaders) {
  std::set<std::string> ours = specialFunctions();
  for (const char* path : {TPC_INTRINSICS_DEFS_H, TPC_SPECIAL_H}) {
    std::string text = readFile(path);
    for (size_t at = text.find("#define "); at != std::string::npos; at = text.find("#define ", at + 1)) {
      size_t b = at + 8, e = b;
      while (e < text.size() && (std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '_')) ++e;
      ours.insert(text.substr(b, e - b));
    }
  }
  ASSERT_TRUE(ours.count("MkRMW"));
  for (const LegacyAliasLine& a : legacyAliases()) {
    if (!a.directive.empty()) continue;
    EXPECT_EQ(findIntrinsic(a.name), nullptr) << a.name << " (rules line " << a.ruleLine << ") is an intrinsic";
    EXPECT_EQ(ours.count(a.name), 0u) << a.name << " (rules line " << a.ruleLine << ") is defined by our headers";
  }
}

TEST(LegacyAliases, HeaderGuardsEveryAliasWithTheOptOutMacro) {
  std::string h = generateLegacyAliasesHeader();
  size_t guard = h.find("#if !defined(NO_TPC_INTRINSICS_ALIASES)");
  ASSERT_NE(guard, std::string::npos);
  EXPECT_LT(guard, h.find("#define v_f32_ld_tnsr_i_vb"));
}

// The header a source gets: the aliases it names and, through them, those they expand to, each on the line
// it has in the whole header; the names the included aliases expand to are added for the intrinsics filter.
TEST(LegacyAliases, FilteredHeaderKeepsWhatTheSourceNamesOnTheirLines) {
  std::unordered_set<std::string> names = {"i_i32_set_indx_s", "main", "x"};
  std::string filtered = generateLegacyAliasesHeader(&names);
  std::string whole = generateLegacyAliasesHeader();
  auto lines = [](const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  };
  std::vector<std::string> f = lines(filtered), w = lines(whole);
  ASSERT_EQ(f.size(), w.size());
  std::set<std::string> defined;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i].empty()) continue;
    EXPECT_EQ(f[i], w[i]) << "line " << i + 1;
    if (f[i].rfind("#define ", 0) == 0) defined.insert(f[i].substr(8, f[i].find_first_of("( ", 8) - 8));
  }
  defined.erase("TPC_LEGACY_ALIASES_H_INCLUDED");
  EXPECT_EQ(defined, (std::set<std::string>{"i_i32_set_indx_s", "i_i32_set_indx_s_b"}));
  EXPECT_TRUE(names.count("set_indx")) << "the intrinsic the chain ends in";
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i].rfind("#if", 0) == 0 || w[i].rfind("#endif", 0) == 0 || w[i].rfind("#else", 0) == 0) {
      EXPECT_EQ(f[i], w[i]) << "conditionals are kept whole";
    }
  }

  std::unordered_set<std::string> none = {"main"};
  std::string empty = generateLegacyAliasesHeader(&none);
  EXPECT_EQ(empty.find("#define v_"), std::string::npos);
  EXPECT_EQ(none, (std::unordered_set<std::string>{"main"}));
}

}  // namespace
}  // namespace tpc::isa
