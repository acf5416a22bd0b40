// The gdb-like command interpreter over a Session: one command line in, gdb's output shapes out. The
// tpc-gdb front end feeds it from libedit, -ex, -x or a DAP "repl" evaluate.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tpc/dbg/session.h"
#include "tpc/dbg/source_files.h"

namespace tpc::dbg {

class CommandInterpreter {
 public:
  using Sink = std::function<void(const std::string&)>;
  CommandInterpreter(Session& session, Sink out, Sink err);

  // Runs one command; returns false when it failed (the error went to err). An empty line repeats the
  // last stepping command, as gdb does interactively.
  bool execute(const std::string& line);
  bool quitRequested() const { return quit_; }
  // Command names and, after a command, variable/register names that start with `prefix`.
  std::vector<std::string> complete(const std::string& lineSoFar, const std::string& prefix);
  // Prints a stop as gdb does (used by the front end after commands that resume).
  void reportStop(const StopEvent& e);
  // The source line of the focused core's selected frame, "LINE\tTEXT".
  std::string sourceLineText(uint32_t file, uint32_t line);

 private:
  void dispatch(const std::string& cmd, const std::string& args);
  void print(const std::string& args, bool record);
  void showDisplays();
  void infoRegisters(const std::string& which);
  void infoCores();
  void infoBreakpoints();
  void infoLine(const std::string& args);
  void listSource(const std::string& args);
  void disassemble(const std::string& args);
  void examine(const std::string& fmtAndArgs);
  void backtrace();
  void frameLine(bool withLocation);
  void variables(bool arguments);
  std::string where(int core);

  Session& s_;
  SourceFiles sources_;
  Sink out_, err_;
  bool quit_ = false;
  std::string lastRepeatable_;
  std::vector<std::pair<int, std::string>> displays_;  // number, "/f expr" or "expr"
  int nextDisplay_ = 1;
  uint32_t listFile_ = 0, listNext_ = 0;
};

}  // namespace tpc::dbg
