#include "line_editor.h"

#include <cstdlib>
#include <cstring>

#include <editline/readline.h>

namespace tpc::dbg {

namespace {

LineEditor::Completer* gCompleter = nullptr;
std::vector<std::string> gMatches;
std::string gHistoryFile;

char* matchGenerator(const char*, int state) {
  if (state >= static_cast<int>(gMatches.size())) return nullptr;
  return strdup(gMatches[static_cast<size_t>(state)].c_str());
}

char** completeWord(const char* text, int start, int end) {
  (void)end;
  gMatches.clear();
  if (gCompleter) gMatches = (*gCompleter)(std::string(rl_line_buffer, static_cast<size_t>(start)) + text, text);
  rl_attempted_completion_over = 1;  // no file-name completion as a fallback
  return rl_completion_matches(text, matchGenerator);
}

}  // namespace

LineEditor::LineEditor(std::string historyFile, Completer completer) {
  gCompleter = new Completer(std::move(completer));
  gHistoryFile = std::move(historyFile);
  rl_readline_name = "tpc-gdb";
  rl_attempted_completion_function = completeWord;
  using_history();
  if (!gHistoryFile.empty()) read_history(gHistoryFile.c_str());
}

LineEditor::~LineEditor() {
  if (!gHistoryFile.empty()) write_history(gHistoryFile.c_str());
  delete gCompleter;
  gCompleter = nullptr;
}

std::optional<std::string> LineEditor::readLine(const std::string& prompt) {
  char* line = readline(prompt.c_str());
  if (!line) return std::nullopt;
  std::string s(line);
  std::free(line);
  if (!s.empty() && s.find_first_not_of(" \t") != std::string::npos) add_history(s.c_str());
  return s;
}

}  // namespace tpc::dbg
