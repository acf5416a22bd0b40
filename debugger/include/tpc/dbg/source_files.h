// Source text for listings and stop lines: files named in the line table, found as recorded (relative to
// the current directory), next to the object, or by their base name next to the object.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tpc::dbg {

class SourceFiles {
 public:
  explicit SourceFiles(std::string objectPath) : objectDir_(dirOf(objectPath)) {}
  // Line `line` (1-based) of `file`; nullopt when the file or line cannot be read.
  std::optional<std::string> line(const std::string& file, uint32_t line);
  size_t lineCount(const std::string& file);

 private:
  static std::string dirOf(const std::string& path);
  const std::vector<std::string>* load(const std::string& file);
  std::string objectDir_;
  std::map<std::string, std::optional<std::vector<std::string>>> cache_;
};

}  // namespace tpc::dbg
