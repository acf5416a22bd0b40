// Which functions of the implicit headers (tpc-special.h, tpc-defs.h) a source can reach. tpc-special.h
// defines ~200 functions and parsing their bodies was most of a small kernel's compile time; the real pass
// skips the bodies of those the source cannot call. Built from the token stream of the preprocessing scan
// that precedes the real pass, so it needs no parse: at brace depth 0 in a header, the first identifier
// followed by '(' since the last ';' or '}' names the function whose body the next '{' opens, and every
// identifier in that body is a name the function may use.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace tpc::cc {

class HeaderFunctionGraph {
 public:
  enum class Token { Identifier, LParen, RParen, LBrace, RBrace, Semi, Other };

  // One token of the preprocessed source, in order; `inHeader` when it comes from an implicit header (by
  // its expansion location: a header macro the source invokes counts as the source's).
  void add(Token kind, std::string_view spelling, bool inHeader);

  // Names the source uses in other ways (the expansions of the legacy aliases it names, say).
  void addSourceNames(const std::unordered_set<std::string>& names) { sourceNames_.insert(names.begin(), names.end()); }
  const std::unordered_set<std::string>& sourceNames() const { return sourceNames_; }

  // The header functions the source cannot reach: every one found, but those named by the source's tokens
  // and, transitively, by the bodies of those reached. A function not found here is never in this set.
  std::unordered_set<std::string> unreachable() const;

  // Every name the compile can meet: the source's, the headers' outside function bodies and those in the
  // bodies of the functions the source reaches (the intrinsics to declare are among them).
  std::unordered_set<std::string> reachableNames() const;

 private:
  void addHeaderToken(Token kind, std::string_view spelling);

  std::unordered_map<std::string, std::unordered_set<std::string>> uses_;  // function -> names in its body
  std::unordered_set<std::string> reached() const;

  std::unordered_set<std::string> sourceNames_;
  std::unordered_set<std::string> headerNames_;  // outside function bodies
  int braceDepth_ = 0, parenDepth_ = 0;
  std::string previousIdentifier_;  // the token just before, when it was an identifier
  std::string candidate_;           // at depth 0: the function a '{' would open
  std::string current_;             // inside a body: its function, empty for a struct or an initializer
};

}  // namespace tpc::cc
