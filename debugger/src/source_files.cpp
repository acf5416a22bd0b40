#include "tpc/dbg/source_files.h"

#include <fstream>

namespace tpc::dbg {

std::string SourceFiles::dirOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

const std::vector<std::string>* SourceFiles::load(const std::string& file) {
  auto it = cache_.find(file);
  if (it == cache_.end()) {
    std::optional<std::vector<std::string>> lines;
    std::string base = file.substr(file.rfind('/') == std::string::npos ? 0 : file.rfind('/') + 1);
    for (const std::string& candidate : {file, objectDir_ + "/" + file, objectDir_ + "/" + base}) {
      std::ifstream in(candidate);
      if (!in) continue;
      lines.emplace();
      for (std::string l; std::getline(in, l);) {
        if (!l.empty() && l.back() == '\r') l.pop_back();
        lines->push_back(l);
      }
      break;
    }
    it = cache_.emplace(file, std::move(lines)).first;
  }
  return it->second ? &*it->second : nullptr;
}

std::optional<std::string> SourceFiles::line(const std::string& file, uint32_t line) {
  const auto* lines = load(file);
  if (!lines || line == 0 || line > lines->size()) return std::nullopt;
  return (*lines)[line - 1];
}

size_t SourceFiles::lineCount(const std::string& file) {
  const auto* lines = load(file);
  return lines ? lines->size() : 0;
}

}  // namespace tpc::dbg
