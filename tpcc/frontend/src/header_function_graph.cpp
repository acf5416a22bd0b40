#include "header_function_graph.h"

#include <vector>

namespace tpc::cc {

void HeaderFunctionGraph::add(Token kind, std::string_view spelling, bool inHeader) {
  if (inHeader) {
    addHeaderToken(kind, spelling);
  } else if (kind == Token::Identifier) {
    sourceNames_.emplace(spelling);
  }
}

void HeaderFunctionGraph::addHeaderToken(Token kind, std::string_view spelling) {
  std::string previous = std::move(previousIdentifier_);
  previousIdentifier_.clear();
  if (braceDepth_ > 0) {
    if (kind == Token::LBrace) ++braceDepth_;
    if (kind == Token::RBrace && --braceDepth_ == 0) {
      current_.clear();
      candidate_.clear();
    }
    if (kind == Token::Identifier) {
      if (current_.empty()) headerNames_.emplace(spelling);  // a struct's members, an initializer's names
      else uses_[current_].emplace(spelling);
    }
    return;
  }
  switch (kind) {
    case Token::Identifier:
      previousIdentifier_ = spelling;
      headerNames_.emplace(spelling);
      break;
    case Token::LParen:
      // __attribute__((...)) before a declaration names no function.
      if (parenDepth_++ == 0 && candidate_.empty() && !previous.empty() && previous.rfind("__attribute", 0) != 0)
        candidate_ = previous;
      break;
    case Token::RParen:
      if (parenDepth_ > 0) --parenDepth_;
      break;
    case Token::Semi:
      candidate_.clear();
      parenDepth_ = 0;
      break;
    case Token::LBrace:
      braceDepth_ = 1;
      current_ = parenDepth_ == 0 ? candidate_ : std::string();
      if (!current_.empty()) uses_[current_];  // a function without calls is still one
      break;
    case Token::RBrace:
    case Token::Other:
      break;
  }
}

std::unordered_set<std::string> HeaderFunctionGraph::reached() const {
  std::unordered_set<std::string> reached;
  std::vector<std::string_view> pending(sourceNames_.begin(), sourceNames_.end());
  while (!pending.empty()) {
    std::string_view name = pending.back();
    pending.pop_back();
    auto it = uses_.find(std::string(name));
    if (it == uses_.end() || !reached.insert(it->first).second) continue;
    for (const std::string& used : it->second) pending.push_back(used);
  }
  return reached;
}

std::unordered_set<std::string> HeaderFunctionGraph::unreachable() const {
  std::unordered_set<std::string> reachedFunctions = reached(), out;
  for (const auto& [function, uses] : uses_)
    if (!reachedFunctions.count(function)) out.insert(function);
  return out;
}

std::unordered_set<std::string> HeaderFunctionGraph::reachableNames() const {
  std::unordered_set<std::string> names = sourceNames_;
  names.insert(headerNames_.begin(), headerNames_.end());
  for (const std::string& function : reached()) {
    const std::unordered_set<std::string>& uses = uses_.at(function);
    names.insert(uses.begin(), uses.end());
  }
  return names;
}

}  // namespace tpc::cc
