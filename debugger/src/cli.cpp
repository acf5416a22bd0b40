#include "tpc/dbg/cli.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "tpc/dbg/core_state.h"
#include "tpc/dbg/expression.h"
#include "tpc/dbg/format.h"
#include "tpc/isa/asm_text.h"
#include "tpc/isa/encoding.h"
#include "tpc/support/error.h"

namespace tpc::dbg {

namespace {

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t k = 0;
  while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
  return s.substr(k);
}

// gdb's command names and the abbreviations it accepts.
const std::vector<std::pair<const char*, const char*>>& aliases() {
  static const std::vector<std::pair<const char*, const char*>> a = {
      {"b", "break"},     {"br", "break"},     {"c", "continue"},  {"cont", "continue"}, {"n", "next"},
      {"s", "step"},      {"si", "stepi"},     {"ni", "nexti"},    {"p", "print"},       {"r", "run"},
      {"q", "quit"},      {"bt", "backtrace"}, {"where", "backtrace"}, {"l", "list"},   {"d", "delete"},
      {"i", "info"},      {"fin", "finish"},   {"u", "until"},     {"disas", "disassemble"},
      {"rsi", "reverse-stepi"}, {"rn", "reverse-next"}, {"rs", "reverse-step"}, {"rc", "reverse-continue"},
      {"tb", "tbreak"},   {"f", "frame"},      {"inspect", "print"}, {"call", "print"}, {"exit", "quit"},
      {"start", "start"}, {"thread", "core"}};
  return a;
}

const std::vector<std::string>& commandNames() {
  static const std::vector<std::string> names = {
      "break", "tbreak", "delete", "info", "run", "start", "continue", "next", "step", "stepi", "nexti", "finish",
      "until", "advance", "print", "display", "undisplay", "x", "list", "disassemble", "watch", "backtrace", "set",
      "core", "quit", "frame", "up", "down", "condition", "enable", "disable", "whatis", "ptype", "output",
      "reverse-stepi", "reverse-nexti", "reverse-next", "reverse-step", "reverse-continue", "reverse-finish",
      "echo", "help", "kill"};
  return names;
}

bool isInt(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

}  // namespace

CommandInterpreter::CommandInterpreter(Session& session, Sink out, Sink err)
    : s_(session), sources_(session.objectPath()), out_(std::move(out)), err_(std::move(err)) {
  s_.setPrintfSink([this](int, const std::string& text) { out_(text); });
}

std::string CommandInterpreter::sourceLineText(uint32_t file, uint32_t line) {
  auto text = sources_.line(s_.debugInfo().fileName(file), line);
  if (!text) return fmt::format("{}\tin {}", line, s_.debugInfo().fileName(file));
  return fmt::format("{}\t{}", line, *text);
}

std::string CommandInterpreter::where(int core) {
  auto p = s_.positionOf(core);
  if (!p) return fmt::format("0x{:04x}", s_.pcOf(core));
  return fmt::format("{}:{}", s_.debugInfo().fileName(p->file), p->line);
}

void CommandInterpreter::frameLine(bool withLocation) {
  const int c = s_.focus();
  const uint32_t pc = s_.pcOf(c);
  std::vector<Frame> frames = s_.frames();
  const Frame& f = frames[std::min<size_t>(static_cast<size_t>(s_.selectedFrame()), frames.size() - 1)];
  if (withLocation) out_(fmt::format("core {}, {}\n", c, where(c)));
  if (!f.pos) {
    out_(fmt::format("0x{:04x} in {} ()\n", pc, f.function));
    return;
  }
  std::string line = sourceLineText(f.pos->file, f.pos->line);
  if (s_.selectedFrame() == 0 && !s_.debugInfo().isLineStart(pc)) out_(fmt::format("0x{:04x}\t{}\n", pc, line));
  else out_(line + "\n");
  listFile_ = f.pos->file;
  listNext_ = f.pos->line > 5 ? f.pos->line - 5 : 1;
}

void CommandInterpreter::reportStop(const StopEvent& e) {
  using R = StopEvent::Reason;
  switch (e.reason) {
    case R::Breakpoint:
      if (!e.message.empty())
        out_(fmt::format("Error in testing condition for breakpoint {}:\n{}\n", e.number, escapeNonPrintable(e.message)));
      out_(fmt::format("\n{}reakpoint {}, core {}, {}\n", e.temporary ? "Temporary b" : "B", e.number, e.core, where(e.core)));
      frameLine(false);
      break;
    case R::Watchpoint:
      out_(fmt::format("\nHardware watchpoint {}: {}\n\nOld value = {}\nNew value = {}\n", e.number, e.expression,
                       e.oldValue, e.newValue));
      frameLine(true);
      break;
    case R::Fault:
      out_(fmt::format("\nCore {} received a fault at 0x{:04x}, {}: {}\n", e.core, e.address, where(e.core), e.message));
      frameLine(false);
      break;
    case R::Exited:
      for (const std::string& f : e.written) out_(fmt::format("wrote {}\n", f));
      if (e.exitCode) out_(fmt::format("[Inferior 1 (kernel {}) exited with code {:02}]\n", s_.object().kernelName, e.exitCode));
      else out_(fmt::format("[Inferior 1 (kernel {}) exited normally]\n", s_.object().kernelName));
      return;
    case R::NoHistory:
      out_("\nNo more reverse-execution history.\n");
      frameLine(true);
      break;
    case R::Pause:
      out_(fmt::format("\nProgram stopped (interrupted), core {}.\n", e.core));
      frameLine(true);
      break;
    case R::Entry:
      out_(fmt::format("core {}, {}\n", e.core, where(e.core)));
      frameLine(false);
      break;
    case R::Step:
    case R::Error: frameLine(false); break;
  }
  showDisplays();
}

bool CommandInterpreter::execute(const std::string& rawLine) {
  std::string line = trim(rawLine);
  if (line.empty() || line[0] == '#') {
    if (line.empty() && !lastRepeatable_.empty()) line = lastRepeatable_;
    else return true;
  }
  size_t split = 0;
  while (split < line.size() && !std::isspace(static_cast<unsigned char>(line[split])) && line[split] != '/') ++split;
  std::string cmd = line.substr(0, split);
  std::string args = trim(line.substr(split));
  for (auto [a, full] : aliases())
    if (cmd == a) cmd = full;
  try {
    dispatch(cmd, args);
    return true;
  } catch (const OptimizedOut&) {
    err_("value has been optimized out\n");
  } catch (const std::exception& e) {
    std::string m = escapeNonPrintable(e.what());
    err_(m + (m.ends_with("\n") ? "" : "\n"));
  }
  return false;
}

void CommandInterpreter::dispatch(const std::string& cmd, const std::string& args) {
  auto needNoArgs = [&] {
    if (!args.empty() && !isInt(args)) throw UserError(fmt::format("Junk after {}: '{}'.", cmd, args));
  };
  auto repeat = [&](auto fn) {
    int n = args.empty() ? 1 : std::stoi(args);
    StopEvent e;
    for (int k = 0; k < n; ++k) {
      e = fn();
      if (e.reason != StopEvent::Reason::Step) break;
    }
    reportStop(e);
  };
  if (cmd == "break" || cmd == "tbreak") {
    std::string spec = args, cond;
    if (size_t p = args.find(" if "); p != std::string::npos) {
      spec = args.substr(0, p);
      cond = trim(args.substr(p + 4));
    } else if (args.starts_with("if ")) {
      spec = "";
      cond = trim(args.substr(3));
    }
    const Breakpoint& b = s_.addBreakpoint(spec, cond, cmd == "tbreak");
    // gdb's shapes: one location names the file and line; several give FILE:LINE and their count.
    std::string what = !b.line ? "."
                       : b.addresses.size() > 1
                           ? fmt::format(": {}:{}. ({} locations)", s_.debugInfo().fileName(b.file), b.line, b.addresses.size())
                           : fmt::format(": file {}, line {}.", s_.debugInfo().fileName(b.file), b.line);
    out_(fmt::format("{}reakpoint {} at 0x{:x}{}\n", b.temporary ? "Temporary b" : "B", b.number, b.address, what));
  } else if (cmd == "delete") {
    std::string a = args;
    if (a.starts_with("breakpoints")) a = trim(a.substr(11));
    if (a.starts_with("display")) {
      std::string rest = trim(a.substr(7));
      if (rest.empty()) displays_.clear();
      for (size_t p = 0; p < rest.size();) {
        size_t q = rest.find(' ', p);
        std::string n = rest.substr(p, q == std::string::npos ? std::string::npos : q - p);
        if (!n.empty()) std::erase_if(displays_, [&](const auto& d) { return std::to_string(d.first) == n; });
        if (q == std::string::npos) break;
        p = q + 1;
      }
      return;
    }
    if (a.empty()) {
      s_.deleteAllBreakpoints();
      return;
    }
    for (size_t p = 0; p < a.size();) {
      size_t q = a.find(' ', p);
      std::string n = a.substr(p, q == std::string::npos ? std::string::npos : q - p);
      if (!n.empty()) {
        if (!isInt(n)) throw UserError(fmt::format("Convenience variable must have integer value.\nArguments must be breakpoint numbers: '{}'", n));
        s_.deleteBreakpoint(std::stoi(n));
      }
      if (q == std::string::npos) break;
      p = q + 1;
    }
  } else if (cmd == "undisplay") {
    dispatch("delete", "display " + args);
  } else if (cmd == "condition") {
    size_t sp = args.find(' ');
    std::string n = args.substr(0, sp);
    if (!isInt(n)) throw UserError("Argument required (breakpoint number).");
    s_.setBreakpointCondition(std::stoi(n), sp == std::string::npos ? "" : trim(args.substr(sp)));
  } else if (cmd == "enable" || cmd == "disable") {
    if (!isInt(args)) throw UserError("Argument required (breakpoint number).");
    s_.setBreakpointEnabled(std::stoi(args), cmd == "enable");
  } else if (cmd == "run" || cmd == "start") {
    if (cmd == "start") {
      StopEvent e = s_.run(true);
      reportStop(e);
      return;
    }
    reportStop(s_.run(false));
  } else if (cmd == "kill") {
    throw UserError("kill: use `run` to start the launch again.");
  } else if (cmd == "continue") {
    int n = isInt(args) ? std::stoi(args) : 1;
    StopEvent e = s_.cont();
    for (int k = 1; k < n && e.reason == StopEvent::Reason::Breakpoint; ++k) e = s_.cont();
    reportStop(e);
    lastRepeatable_ = "continue";
  } else if (cmd == "next" || cmd == "step" || cmd == "stepi" || cmd == "nexti") {
    needNoArgs();
    if (cmd == "next") repeat([&] { return s_.next(); });
    else if (cmd == "step") repeat([&] { return s_.step(); });
    else repeat([&] { return s_.stepi(); });
    lastRepeatable_ = cmd;
  } else if (cmd == "finish") {
    auto frames = s_.frames();
    size_t sel = static_cast<size_t>(s_.selectedFrame());
    StopEvent e = s_.finish();
    if (sel < frames.size()) out_(fmt::format("Run till exit from #{}  {} ()\n", sel, frames[sel].function));
    reportStop(e);
  } else if (cmd == "until" || cmd == "advance") {
    reportStop(s_.until(args));
  } else if (cmd == "reverse-stepi" || cmd == "reverse-nexti") {
    needNoArgs();
    repeat([&] { return s_.reverseStepi(); });
  } else if (cmd == "reverse-next") {
    needNoArgs();
    repeat([&] { return s_.reverseNext(); });
  } else if (cmd == "reverse-step") {
    needNoArgs();
    repeat([&] { return s_.reverseStep(); });
  } else if (cmd == "reverse-continue") {
    reportStop(s_.reverseContinue());
  } else if (cmd == "reverse-finish") {
    reportStop(s_.reverseFinish());
  } else if (cmd == "print" || cmd == "output") {
    print(args, cmd == "print");
  } else if (cmd == "display") {
    if (args.empty()) {
      showDisplays();
      return;
    }
    displays_.emplace_back(nextDisplay_++, args);
    if (s_.started() && !s_.exited()) {
      auto saved = displays_;
      displays_ = {displays_.back()};
      showDisplays();
      displays_ = saved;
    }
  } else if (cmd == "x") {
    examine(args);
  } else if (cmd == "list") {
    listSource(args);
  } else if (cmd == "disassemble") {
    disassemble(args);
  } else if (cmd == "watch") {
    const Watchpoint& w = s_.addWatchpoint(args);
    out_(fmt::format("Hardware watchpoint {}: {}\n", w.number, w.expression));
  } else if (cmd == "backtrace") {
    backtrace();
  } else if (cmd == "frame" || cmd == "up" || cmd == "down") {
    int n = s_.selectedFrame();
    if (cmd == "frame") n = args.empty() ? n : std::stoi(args);
    else n += (cmd == "up" ? 1 : -1) * (args.empty() ? 1 : std::stoi(args));
    if (cmd != "frame" && (n < 0 || n >= static_cast<int>(s_.frames().size())))
      throw UserError(cmd == "up" ? "Initial frame selected; you cannot go up." : "Bottom (innermost) frame selected; you cannot go down.");
    s_.selectFrame(n);
    auto frames = s_.frames();
    const Frame& f = frames[static_cast<size_t>(n)];
    out_(fmt::format("#{}  {} () at {}:{}\n", n, f.function, f.pos ? s_.debugInfo().fileName(f.pos->file) : "??", f.pos ? f.pos->line : 0));
    frameLine(false);
  } else if (cmd == "set") {
    std::string a = args;
    if (a.starts_with("var ")) a = trim(a.substr(4));
    else if (a.starts_with("variable ")) a = trim(a.substr(9));
    else if (a.starts_with("confirm") || a.starts_with("pagination") || a.starts_with("width") || a.starts_with("height") ||
             a.starts_with("print ") || a.starts_with("listsize"))
      return;  // gdb settings a script may carry; nothing to do here
    if (a.find('=') == std::string::npos) throw UserError("A syntax error in expression: `set var' needs NAME = VALUE.");
    s_.evaluate(a);
  } else if (cmd == "core") {
    if (args.empty()) {
      out_(fmt::format("[Current core is {}]\n", s_.focus()));
      return;
    }
    if (!isInt(args)) throw UserError(fmt::format("Invalid core number '{}'.", args));
    s_.setFocus(std::stoi(args));
    out_(fmt::format("[Switching to core {} ({})]\n", s_.focus(), coreStateName(s_.machine().state(s_.focus()))));
    frameLine(true);
  } else if (cmd == "info") {
    size_t sp = args.find(' ');
    std::string what = args.substr(0, sp);
    std::string rest = sp == std::string::npos ? "" : trim(args.substr(sp));
    if (what == "breakpoints" || what == "break" || what == "b" || what == "watchpoints") infoBreakpoints();
    else if (what == "registers" || what == "reg" || what == "r" || what == "all-registers") infoRegisters(rest);
    else if (what == "locals") variables(false);
    else if (what == "args") variables(true);
    else if (what == "line") infoLine(rest);
    else if (what == "cores" || what == "threads") infoCores();
    else if (what == "address") {
      // Where a variable lives at the pc of the selected frame: a register or local memory.
      const DebugInfo& d = s_.debugInfo();
      auto frames = s_.frames();
      const uint32_t scope = frames[static_cast<size_t>(s_.selectedFrame())].scope;
      const uint32_t pc = s_.pcOf(s_.focus());
      const VarRecord* r = d.locate(rest, scope, pc);
      if (!r) {
        if (d.typeOf(rest, scope).empty()) throw UserError(fmt::format("No symbol \"{}\" in current context.", rest));
        out_(fmt::format("Symbol \"{}\" is optimized out at 0x{:x}.\n", rest, pc));
      } else if (r->regFile == obj::kLocScalarLocal || r->regFile == obj::kLocVectorLocal) {
        out_(fmt::format("Symbol \"{}\" is a variable at {} local memory 0x{:x}.\n", rest,
                         r->regFile == obj::kLocVectorLocal ? "vector" : "scalar", r->localOffset));
      } else {
        out_(fmt::format("Symbol \"{}\" is a variable in register ${}{}.\n", rest,
                         isa::regFilePrefix(static_cast<isa::RegFile>(r->regFile)), r->regIndex));
      }
    }
    else if (what == "display") {
      for (auto& [n, e] : displays_) out_(fmt::format("{}:   y  {}\n", n, e));
    } else if (what == "frame") {
      auto frames = s_.frames();
      out_(fmt::format("Stack level {}, core {}, pc = 0x{:04x} in {}; {} frame(s)\n", s_.selectedFrame(), s_.focus(),
                       s_.pcOf(s_.focus()), frames[static_cast<size_t>(s_.selectedFrame())].function, frames.size()));
    } else if (what == "source") {
      out_(fmt::format("Kernel object {}; source files:\n", s_.objectPath()));
      for (const auto& f : s_.debugInfo().files()) out_("  " + f + "\n");
    } else throw UserError(fmt::format("Undefined info command: \"{}\".  Try \"help info\".", what));
  } else if (cmd == "whatis" || cmd == "ptype") {
    Value v = s_.evaluate(args);
    out_(fmt::format("type = {}\n", typeNameOf(v)));
  } else if (cmd == "echo") {
    std::string t = args;
    for (size_t p; (p = t.find("\\n")) != std::string::npos;) t.replace(p, 2, "\n");
    out_(t);
  } else if (cmd == "help") {
    out_("Commands: ");
    for (const auto& n : commandNames()) out_(n + " ");
    out_("\nSee docs/debugger.md for each command.\n");
  } else if (cmd == "quit") {
    quit_ = true;
  } else {
    throw UserError(fmt::format("Undefined command: \"{}\".  Try \"help\".", cmd));
  }
}

void CommandInterpreter::print(const std::string& argsIn, bool record) {
  std::string args = argsIn;
  char format = 0;
  bool summary = false;
  if (args.starts_with("/")) {
    size_t sp = args.find(' ');
    std::string f = args.substr(1, sp == std::string::npos ? std::string::npos : sp - 1);
    if (f != "x" && f != "d" && f != "f")
      throw UserError(fmt::format("Undefined output format \"{}\" (this debugger prints /x, /d and /f).", f));
    format = f[0];
    args = sp == std::string::npos ? "" : trim(args.substr(sp));
  }
  if (args.starts_with("-summary")) {
    summary = true;
    args = trim(args.substr(8));
    if (args.starts_with("--")) args = trim(args.substr(2));
  }
  if (args.empty()) {
    if (!record) throw UserError("Argument required (expression to compute).");
    args = "$";
  }
  Value v;
  try {
    v = s_.evaluate(args);
  } catch (const OptimizedOut&) {
    out_(record ? fmt::format("${} = <optimized out>\n", s_.record(Value{})) : "<optimized out>");
    return;
  }
  std::string text = summary ? formatSummary(v, format) : formatValue(v, format);
  if (v.kind == ValueKind::Table) text = fmt::format("{} {}[{}]:\n{}", typeNameOf(v), s_.tensorNames()[static_cast<size_t>(v.tensor)], args.substr(args.find('[') + 1, args.rfind(']') - args.find('[') - 1), text);
  if (record) out_(fmt::format("${} = {}\n", s_.record(v), text));
  else out_(text);
}

void CommandInterpreter::showDisplays() {
  if (!s_.started() || s_.exited()) return;
  for (auto& [n, e] : displays_) {
    std::string fmtPart, expr = e;
    if (e.starts_with("/")) {
      size_t sp = e.find(' ');
      fmtPart = e.substr(0, sp);
      expr = trim(e.substr(sp));
    }
    try {
      Value v = s_.evaluate(expr);
      out_(fmt::format("{}: {}{} = {}\n", n, fmtPart.empty() ? "" : fmtPart + " ", expr, formatValue(v, fmtPart.empty() ? 0 : fmtPart[1])));
    } catch (const OptimizedOut&) {
      out_(fmt::format("{}: {} = <optimized out>\n", n, expr));
    } catch (const std::exception& ex) {
      out_(fmt::format("{}: {} = <error: {}>\n", n, expr, ex.what()));
    }
  }
}

void CommandInterpreter::variables(bool arguments) {
  auto vars = s_.frameVariables(arguments);
  if (vars.empty()) {
    out_(arguments ? "No arguments.\n" : "No locals.\n");
    return;
  }
  for (auto& [name, v] : vars) out_(fmt::format("{} = {}\n", name, v ? formatValue(*v) : "<optimized out>"));
}

void CommandInterpreter::infoRegisters(const std::string& which) {
  Machine& m = s_.machine();
  sim::Core& core = m.core(s_.focus());
  auto row = [&](const std::string& name, const Value& v) {
    if (v.kind == ValueKind::Scalar) {
      out_(fmt::format("{:<15}{:<19}{}\n", name, formatValue(v, 'x'), formatValue(v)));
    } else {
      out_(fmt::format("{:<15}{}\n", name, formatSummary(v)));
    }
  };
  if (!which.empty() && which[0] == '$') {
    for (size_t p = 0; p < which.size();) {
      size_t q = which.find(' ', p);
      std::string r = which.substr(p, q == std::string::npos ? std::string::npos : q - p);
      if (!r.empty()) row(r.substr(r[0] == '$' ? 1 : 0), s_.evaluate(r[0] == '$' ? r : "$" + r));
      if (q == std::string::npos) break;
      p = q + 1;
    }
    return;
  }
  struct FileRow {
    const char* key;
    isa::RegFile file;
    int count;
  };
  const FileRow files[] = {{"s", isa::RegFile::S, isa::kNumSRegs},   {"i", isa::RegFile::I, isa::kNumIRegs},
                           {"sp", isa::RegFile::SP, isa::kNumSPRegs}, {"ad", isa::RegFile::AD, isa::kNumADRegs},
                           {"v", isa::RegFile::V, isa::kNumVRegs},   {"vp", isa::RegFile::VP, isa::kNumVPRegs}};
  bool any = false;
  if (which.empty()) out_(fmt::format("{:<15}{:<19}{}\n", "pc", fmt::format("0x{:x}", core.pcAddress()), core.pcAddress()));
  for (const FileRow& f : files) {
    if (!which.empty() && which != f.key) continue;
    any = true;
    for (int k = 0; k < f.count; ++k)
      row(fmt::format("{}{}", f.key, k), readRegister(core, f.file, k, f.file == isa::RegFile::V ? DType::F32 : DType::I32));
  }
  if (!which.empty() && !any) throw UserError(fmt::format("Invalid register group `{}' (s, v, i, sp, vp, ad).", which));
}

void CommandInterpreter::infoCores() {
  Machine& m = s_.machine();
  out_(fmt::format("  {:<5} {:<40} {:<12} {:<7} {}\n", "Core", "Index-space slice", "State", "PC", "Line"));
  for (int c = 0; c < m.numCores(); ++c) {
    const sim::IndexBox& b = m.box(c);
    std::string slice = "[";
    for (int k = 0; k < 5; ++k) slice += fmt::format("{}{}:{}", k ? ", " : "", b.offset[k], b.offset[k] + b.size[k]);
    slice += "]";
    CoreState st = m.state(c);
    std::string state = coreStateName(st);
    if (st == CoreState::Faulted) state = "faulted";
    out_(fmt::format("{} {:<5} {:<40} {:<12} 0x{:04x}  {}\n", c == s_.focus() ? '*' : ' ', c, slice, state,
                     m.core(c).pcAddress(), st == CoreState::Idle ? "-" : where(c)));
  }
}

void CommandInterpreter::infoBreakpoints() {
  const auto& bps = s_.breakpoints();
  const auto& wps = s_.watchpoints();
  if (bps.empty() && wps.empty()) {
    out_("No breakpoints or watchpoints.\n");
    return;
  }
  out_("Num     Type           Disp Enb Address            What\n");
  for (const Breakpoint& b : bps) {
    std::string what = b.line ? fmt::format("in {} at {}:{}", s_.object().kernelName, s_.debugInfo().fileName(b.file), b.line) : "";
    if (b.addresses.size() > 1) {
      // gdb lists a breakpoint with several locations as N, then N.1, N.2, ...
      out_(fmt::format("{:<7} {:<14} {:<4} {:<3} {:<18} \n", b.number, "breakpoint", b.temporary ? "del" : "keep",
                       b.enabled ? "y" : "n", "<MULTIPLE>"));
      for (size_t k = 0; k < b.addresses.size(); ++k)
        out_(fmt::format("{:<7} {:<14} {:<4} {:<3} 0x{:016x} {}\n", fmt::format("{}.{}", b.number, k + 1), "", "",
                         b.enabled ? "y" : "n", b.addresses[k], what));
    } else {
      out_(fmt::format("{:<7} {:<14} {:<4} {:<3} 0x{:016x} {}\n", b.number, "breakpoint", b.temporary ? "del" : "keep",
                       b.enabled ? "y" : "n", b.address, what));
    }
    if (!b.condition.empty()) out_(fmt::format("\tstop only if {}\n", b.condition));
    if (b.hits) out_(fmt::format("\tbreakpoint already hit {} time{}\n", b.hits, b.hits == 1 ? "" : "s"));
  }
  for (const Watchpoint& w : wps) {
    out_(fmt::format("{:<7} {:<14} {:<4} {:<3} {:<18} {}\n", w.number, "hw watchpoint", "keep", "y", "", w.expression));
    if (w.hits) out_(fmt::format("\tbreakpoint already hit {} time{}\n", w.hits, w.hits == 1 ? "" : "s"));
  }
}

void CommandInterpreter::infoLine(const std::string& args) {
  const DebugInfo& d = s_.debugInfo();
  uint32_t file = 0, line = 0;
  if (args.empty()) {
    auto p = s_.positionOf(s_.focus());
    if (!p) throw UserError("No line number information available.");
    file = p->file;
    line = p->line;
  } else {
    std::string spec = args;
    if (size_t c = spec.rfind(':'); c != std::string::npos) {
      auto f = d.findFile(spec.substr(0, c));
      if (!f) throw UserError(fmt::format("No source file named {}.", spec.substr(0, c)));
      file = *f;
      spec = spec.substr(c + 1);
    }
    if (spec.starts_with("*")) {
      uint32_t a = static_cast<uint32_t>(std::strtoul(spec.c_str() + 1, nullptr, 0));
      auto p = d.lineAt(a);
      if (!p) throw UserError(fmt::format("No line number information available for address 0x{:x}", a));
      out_(fmt::format("Line {} of \"{}\" contains address 0x{:x}.\n", p->line, d.fileName(p->file), a));
      return;
    }
    if (!isInt(spec)) throw UserError(fmt::format("Function \"{}\" not defined.", spec));
    line = static_cast<uint32_t>(std::stoul(spec));
  }
  uint32_t resolved = 0;
  auto a = d.addressOfLine(file, line, &resolved);
  if (!a || resolved != line) {
    out_(fmt::format("Line {} of \"{}\" is at address 0x{:x} but contains no code.\n", line, d.fileName(file), a.value_or(0)));
    return;
  }
  uint32_t end = *a + isa::kBundleBytes;
  while (end < d.textSize()) {
    auto p = d.lineAt(end);
    if (!p || p->line != line || p->file != file) break;
    end += isa::kBundleBytes;
  }
  out_(fmt::format("Line {} of \"{}\" starts at address 0x{:x} <{}+{}> and ends at 0x{:x} <{}+{}>.\n", line,
                   d.fileName(file), *a, s_.object().kernelName, *a, end, s_.object().kernelName, end));
}

void CommandInterpreter::listSource(const std::string& args) {
  const DebugInfo& d = s_.debugInfo();
  if (d.files().empty()) throw UserError("No symbol table is loaded (compile with -g).");
  uint32_t first = listNext_;
  if (!args.empty()) {
    std::string spec = args;
    if (size_t c = spec.rfind(':'); c != std::string::npos) {
      auto f = d.findFile(spec.substr(0, c));
      if (!f) throw UserError(fmt::format("No source file named {}.", spec.substr(0, c)));
      listFile_ = *f;
      spec = spec.substr(c + 1);
    }
    if (isInt(spec)) {
      uint32_t l = static_cast<uint32_t>(std::stoul(spec));
      first = l > 5 ? l - 5 : 1;
    } else if (auto a = d.addressOfFunction(spec)) {
      auto p = d.lineAt(*a);
      uint32_t l = p ? p->line : 1;
      first = l > 5 ? l - 5 : 1;
    } else {
      throw UserError(fmt::format("Function \"{}\" not defined.", spec));
    }
  } else if (first == 0) {
    if (s_.started() && !s_.exited())
      if (auto p = s_.positionOf(s_.focus())) {
        listFile_ = p->file;
        first = p->line > 5 ? p->line - 5 : 1;
      }
    if (first == 0) first = 1;
  }
  const std::string& name = d.fileName(listFile_);
  size_t count = sources_.lineCount(name);
  if (count == 0) throw UserError(fmt::format("{}: No such file or directory.", name));
  if (first > count) throw UserError(fmt::format("Line number {} out of range; \"{}\" has {} lines.", first, name, count));
  uint32_t last = std::min<uint32_t>(first + 9, static_cast<uint32_t>(count));
  for (uint32_t l = first; l <= last; ++l) out_(sourceLineText(listFile_, l) + "\n");
  listNext_ = last + 1;
}

void CommandInterpreter::disassemble(const std::string& argsIn) {
  std::string args = argsIn;
  bool raw = false;
  while (args.starts_with("/")) {
    size_t sp = args.find(' ');
    std::string mods = args.substr(1, sp == std::string::npos ? std::string::npos : sp - 1);
    if (mods.find('r') != std::string::npos) raw = true;
    args = sp == std::string::npos ? "" : trim(args.substr(sp));
  }
  (void)raw;
  const DebugInfo& d = s_.debugInfo();
  const auto& text = s_.object().text;
  const size_t n = text.size() / isa::kBundleBytes;
  const bool running = s_.started() && !s_.exited();
  const uint32_t pc = running ? s_.pcOf(s_.focus()) : 0xffffffffu;
  size_t lo = 0, hi = n;
  if (!args.empty()) {
    // "START,END" or "START,+LEN" in bytes.
    size_t comma = args.find(',');
    lo = std::strtoul(args.c_str(), nullptr, 0) / isa::kBundleBytes;
    if (comma != std::string::npos) {
      std::string e = trim(args.substr(comma + 1));
      size_t end = e.starts_with("+") ? lo * isa::kBundleBytes + std::strtoul(e.c_str() + 1, nullptr, 0) : std::strtoul(e.c_str(), nullptr, 0);
      hi = std::min(n, (end + isa::kBundleBytes - 1) / isa::kBundleBytes);
    } else {
      hi = std::min(n, lo + 1);
    }
  }
  out_(fmt::format("Dump of assembler code for function {}:\n", s_.object().kernelName));
  uint32_t lastLine = 0, lastFile = 0xffffffffu;
  for (size_t k = lo; k < hi; ++k) {
    const uint32_t a = static_cast<uint32_t>(k * isa::kBundleBytes);
    if (auto p = d.lineAt(a); p && (p->line != lastLine || p->file != lastFile)) {
      out_(sourceLineText(p->file, p->line) + "\n");
      lastLine = p->line;
      lastFile = p->file;
    }
    isa::Bundle b;
    std::string why;
    std::string asmText = isa::decodeBundle(text.data() + a, &b, &why) ? isa::formatBundle(b) : "(bad bundle: " + why + ")";
    out_(fmt::format("{}0x{:04x} <+{}>:\t{}\n", a == pc ? "=> " : "   ", a, a, asmText));
  }
  out_("End of assembler dump.\n");
}

void CommandInterpreter::examine(const std::string& argsIn) {
  // x/NFU ADDRESS, ADDRESS: a global address (tensor memory), or slm:OFFSET / vlm:OFFSET for the focused
  // core's local memories. U: b h w (1, 2, 4 bytes); F: x d u f.
  std::string args = argsIn;
  int count = 1;
  char format = 'x', unit = 'w';
  if (args.starts_with("/")) {
    size_t sp = args.find(' ');
    std::string f = args.substr(1, sp == std::string::npos ? std::string::npos : sp - 1);
    size_t k = 0;
    while (k < f.size() && std::isdigit(static_cast<unsigned char>(f[k]))) ++k;
    if (k) count = std::stoi(f.substr(0, k));
    for (; k < f.size(); ++k) {
      if (std::strchr("xduf", f[k])) format = f[k];
      else if (std::strchr("bhw", f[k])) unit = f[k];
      else throw UserError(fmt::format("Invalid format letter '{}' (x/NFU with F in x d u f, U in b h w).", f[k]));
    }
    args = sp == std::string::npos ? "" : trim(args.substr(sp));
  }
  if (args.empty()) throw UserError("Argument required (starting display address).");
  if (count < 1 || count > 4096) throw UserError("x: count must be 1 to 4096.");
  Location l;
  l.space = Location::Space::Global;
  std::string addrExpr = args;
  if (args.starts_with("slm:")) l.space = Location::Space::ScalarLocal, addrExpr = args.substr(4);
  else if (args.starts_with("vlm:")) l.space = Location::Space::VectorLocal, addrExpr = args.substr(4);
  Value a = s_.evaluate(addrExpr);
  if (a.kind != ValueKind::Scalar) throw UserError("x: the address must be a number.");
  const int size = unit == 'b' ? 1 : unit == 'h' ? 2 : 4;
  l.elem = format == 'f' ? (size == 4 ? DType::F32 : size == 2 ? DType::BF16 : DType::U8)
                         : format == 'd' ? (size == 4 ? DType::I32 : size == 2 ? DType::I16 : DType::I8)
                                         : (size == 4 ? DType::U32 : size == 2 ? DType::U16 : DType::U8);
  uint64_t base = static_cast<uint64_t>(a.number());
  sim::Core& core = s_.machine().core(s_.focus());
  const int perLine = format == 'f' ? 4 : 8 / (size == 4 ? 2 : 1);
  for (int k = 0; k < count; ++k) {
    l.address = base + static_cast<uint64_t>(k * size);
    if (k % perLine == 0) out_(fmt::format("{}0x{:x}:", k ? "\n" : "", l.address));
    out_(fmt::format("\t{}", formatLane(readLocation(core, l), l.elem, false, format == 'u' ? 0 : (format == 'x' ? 'x' : 0))));
  }
  out_("\n");
}

void CommandInterpreter::backtrace() {
  auto frames = s_.frames();
  for (size_t k = 0; k < frames.size(); ++k) {
    const Frame& f = frames[k];
    std::string at = f.pos ? fmt::format(" at {}:{}", s_.debugInfo().fileName(f.pos->file), f.pos->line) : "";
    std::string pc = k == 0 && !s_.debugInfo().isLineStart(s_.pcOf(s_.focus())) ? fmt::format("0x{:04x} in ", s_.pcOf(s_.focus())) : "";
    out_(fmt::format("#{}  {}{} (){}{}\n", k, pc, f.function, at, k + 1 == frames.size() ? fmt::format(" [core {}]", s_.focus()) : ""));
  }
}

std::vector<std::string> CommandInterpreter::complete(const std::string& lineSoFar, const std::string& prefix) {
  std::vector<std::string> out;
  std::string before = trim(lineSoFar.substr(0, lineSoFar.size() - prefix.size()));
  if (before.empty()) {
    for (const auto& n : commandNames())
      if (n.starts_with(prefix)) out.push_back(n);
    return out;
  }
  if (before == "info" || before == "i") {
    for (const char* w : {"breakpoints", "registers", "locals", "args", "line", "cores", "display", "frame", "source", "watchpoints"})
      if (std::string(w).starts_with(prefix)) out.push_back(w);
    return out;
  }
  std::vector<std::string> names;
  if (s_.started() && !s_.exited()) {
    try {
      for (auto& v : s_.frameVariables(false)) names.push_back(v.first);
      for (auto& v : s_.frameVariables(true)) names.push_back(v.first);
    } catch (...) {
    }
  }
  for (const obj::Param& p : s_.object().params) names.push_back(p.name);
  for (const char* r : {"$s0", "$v0", "$i0", "$sp0", "$vp0", "$ad0", "$pc", "$core", "$idx", "$box", "$boxsize"})
    names.push_back(r);
  for (const std::string& f : s_.debugInfo().files()) names.push_back(f.substr(f.rfind('/') == std::string::npos ? 0 : f.rfind('/') + 1));
  for (const auto& n : names)
    if (n.starts_with(prefix) && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  return out;
}

}  // namespace tpc::dbg
