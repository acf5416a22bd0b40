// Interactive line editing, history and tab completion through libedit's readline interface.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tpc::dbg {

class LineEditor {
 public:
  using Completer = std::function<std::vector<std::string>(const std::string& line, const std::string& word)>;
  LineEditor(std::string historyFile, Completer completer);
  ~LineEditor();
  // nullopt at end of input (Ctrl-D).
  std::optional<std::string> readLine(const std::string& prompt);
};

}  // namespace tpc::dbg
