#include "tpc/dbg/dap_server.h"

#include <unistd.h>

#include <set>

#include <fmt/format.h>

#include "tpc/dbg/core_state.h"
#include "tpc/dbg/expression.h"
#include "tpc/dbg/format.h"
#include "tpc/isa/asm_text.h"
#include "tpc/isa/encoding.h"
#include "tpc/support/error.h"

namespace tpc::dbg {

namespace {

// Frame ids carry the core and the frame level.
int frameId(int core, int frame) { return core * 256 + frame + 1; }
int coreOfFrame(int id) { return (id - 1) / 256; }
int levelOfFrame(int id) { return (id - 1) % 256; }

std::string base64(const std::vector<uint8_t>& bytes) {
  static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += t[v >> 18];
    out += t[(v >> 12) & 63];
    out += t[(v >> 6) & 63];
    out += t[v & 63];
  }
  if (i + 1 == bytes.size()) {
    uint32_t v = bytes[i] << 16;
    out += t[v >> 18];
    out += t[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    uint32_t v = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += t[v >> 18];
    out += t[(v >> 12) & 63];
    out += t[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

// A JSON field of the expected type, or an error naming it.
template <class T> T field(const nlohmann::json& obj, const char* name, const T& fallback, bool required = false) {
  if (!obj.is_object() || !obj.contains(name)) {
    if (required) throw UserError(fmt::format("missing argument '{}'", name));
    return fallback;
  }
  try {
    return obj.at(name).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw UserError(fmt::format("argument '{}' has the wrong type", name));
  }
}

}  // namespace

DapServer::DapServer(Send send) : send_(std::move(send)) {}
DapServer::~DapServer() = default;

bool DapServer::isPauseRequest(const std::string& body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  return j.is_object() && j.value("type", "") == "request" && j.contains("command") && j["command"].is_string() &&
         j["command"] == "pause";
}

void DapServer::interrupt() { pauseRequested_ = true; }

void DapServer::respond(const json& req, bool success, json body, const std::string& message) {
  json r = {{"seq", seq_++}, {"type", "response"}, {"request_seq", req.is_object() && req.contains("seq") && req["seq"].is_number_integer() ? req["seq"] : json(0)},
            {"success", success}, {"command", req.is_object() && req.contains("command") && req["command"].is_string() ? req["command"] : json("unknown")}};
  if (!body.is_null() && !body.empty()) r["body"] = std::move(body);
  if (!success) {
    r["message"] = escapeNonPrintable(message);
    r["body"] = {{"error", {{"id", 1}, {"format", escapeNonPrintable(message)}, {"showUser", true}}}};
  }
  send_(r.dump(-1, ' ', false, json::error_handler_t::replace));
}

void DapServer::event(const std::string& name, json body) {
  json e = {{"seq", seq_++}, {"type", "event"}, {"event", name}};
  if (!body.empty()) e["body"] = std::move(body);
  send_(e.dump(-1, ' ', false, json::error_handler_t::replace));
}

void DapServer::handle(const std::string& body) {
  json req = json::parse(body, nullptr, false);
  if (req.is_discarded()) {
    respond(json::object(), false, {}, "invalid JSON in message body");
    return;
  }
  if (!req.is_object() || !req.contains("type") || req["type"] != "request" || !req.contains("command") ||
      !req["command"].is_string()) {
    respond(req, false, {}, "not a request (expected {\"type\": \"request\", \"command\": ...})");
    return;
  }
  try {
    dispatch(req);
  } catch (const std::exception& ex) {
    respond(req, false, {}, ex.what());
  }
}

void DapServer::requireSession(const std::string& command) {
  if (!session_) throw UserError(fmt::format("'{}' before a successful 'launch'", command));
}

void DapServer::reportStop(const StopEvent& e) {
  handles_.clear();
  using R = StopEvent::Reason;
  lastStopWasPause_ = e.reason == R::Pause;
  if (e.reason == R::Exited) {
    for (const std::string& f : e.written) event("output", {{"category", "console"}, {"output", fmt::format("wrote {}\n", f)}});
    event("exited", {{"exitCode", e.exitCode}});
    event("terminated");
    return;
  }
  json b = {{"threadId", e.core + 1}, {"allThreadsStopped", true}};
  switch (e.reason) {
    case R::Breakpoint:
      b["reason"] = "breakpoint";
      b["hitBreakpointIds"] = json::array({e.number});
      b["description"] = fmt::format("Breakpoint {}, core {}", e.number, e.core);
      if (!e.message.empty())
        event("output", {{"category", "stderr"},
                         {"output", escapeNonPrintable(fmt::format("Error in testing condition for breakpoint {}: {}\n",
                                                                   e.number, e.message))}});
      break;
    case R::Watchpoint:
      b["reason"] = "data breakpoint";
      b["hitBreakpointIds"] = json::array({e.number});
      b["description"] = fmt::format("{}: {} -> {}", e.expression, e.oldValue, e.newValue);
      break;
    case R::Fault:
      b["reason"] = "exception";
      b["description"] = "Kernel fault";
      b["text"] = e.message;
      break;
    case R::Entry: b["reason"] = "entry"; break;
    case R::Pause: b["reason"] = "pause"; break;
    case R::NoHistory:
      b["reason"] = "step";
      b["description"] = "No more reverse-execution history";
      break;
    default: b["reason"] = "step"; break;
  }
  event("stopped", b);
}

int DapServer::handleFor(Handle h) {
  handles_.push_back(std::move(h));
  return static_cast<int>(handles_.size());  // 0 means "no children" in DAP
}

void DapServer::withFrame(int core, int frame) {
  requireSession("variables");
  session_->setFocus(core);
  session_->selectFrame(std::min<int>(frame, static_cast<int>(session_->frames().size()) - 1));
}

nlohmann::json DapServer::variableJson(const std::string& name, const Value& v, const std::string& evaluateName, int core,
                                       int frame) {
  json j = {{"name", name}, {"value", formatSummary(v)}, {"type", typeNameOf(v)}, {"variablesReference", 0}};
  if (!evaluateName.empty()) j["evaluateName"] = evaluateName;
  if (v.kind == ValueKind::Vector || v.kind == ValueKind::Predicate || v.kind == ValueKind::Index) {
    j["variablesReference"] = handleFor({Handle::Kind::Value, core, frame, evaluateName, 0});
    j["indexedVariables"] = v.elementLanes > 0 ? v.lanes.size() / static_cast<size_t>(v.elementLanes) : v.lanes.size();
    if (v.kind == ValueKind::Index) j["value"] = formatValue(v);
    if (v.elementLanes > 0) j["value"] = fmt::format("{} x {}", j["indexedVariables"].get<size_t>(), typeNameOf(v).substr(0, typeNameOf(v).find('[')));
  } else if (v.kind == ValueKind::Tensor) {
    j["value"] = v.typeName;
    j["variablesReference"] = handleFor({Handle::Kind::Value, core, frame, evaluateName, 0});
    const sim::TensorDesc& d = session_->machine().tensor(v.tensor);
    j["indexedVariables"] = d.numElements();
  }
  if (v.location) j["memoryReference"] = v.location->space == Location::Space::Global ? fmt::format("0x{:x}", v.location->address) : "";
  if (j.contains("memoryReference") && j["memoryReference"] == "") j.erase("memoryReference");
  return j;
}

nlohmann::json DapServer::variablesOf(const Handle& h, int start, int count) {
  json out = json::array();
  withFrame(h.core, h.frame);
  switch (h.kind) {
    case Handle::Kind::Locals:
    case Handle::Kind::Arguments:
      for (bool args : {true, false}) {
        if (h.kind == Handle::Kind::Arguments && !args) continue;
        for (auto& [name, v] : session_->frameVariables(args)) {
          if (!v) out.push_back({{"name", name}, {"value", "<optimized out>"}, {"variablesReference", 0}});
          else out.push_back(variableJson(name, *v, name, h.core, h.frame));
        }
      }
      return out;
    case Handle::Kind::Registers: {
      const std::pair<const char*, isa::RegFile> files[] = {{"s", isa::RegFile::S},   {"i", isa::RegFile::I},
                                                            {"sp", isa::RegFile::SP}, {"ad", isa::RegFile::AD},
                                                            {"v", isa::RegFile::V},   {"vp", isa::RegFile::VP}};
      for (auto [name, file] : files)
        out.push_back({{"name", name}, {"value", fmt::format("${}0..", name)}, {"variablesReference",
                        handleFor({Handle::Kind::RegisterFile, h.core, h.frame, "", static_cast<int>(file)})}});
      out.push_back({{"name", "pc"}, {"value", fmt::format("0x{:x}", session_->pcOf(h.core))}, {"variablesReference", 0}});
      return out;
    }
    case Handle::Kind::RegisterFile: {
      auto file = static_cast<isa::RegFile>(h.file);
      int n = file == isa::RegFile::S ? isa::kNumSRegs : file == isa::RegFile::I ? isa::kNumIRegs : file == isa::RegFile::SP ? isa::kNumSPRegs
            : file == isa::RegFile::AD ? isa::kNumADRegs : file == isa::RegFile::V ? isa::kNumVRegs : isa::kNumVPRegs;
      for (int k = 0; k < n; ++k) {
        std::string name = fmt::format("${}{}", isa::regFilePrefix(file), k);
        out.push_back(variableJson(name, session_->evaluate(name), name, h.core, h.frame));
      }
      return out;
    }
    case Handle::Kind::Tensors: {
      std::vector<std::string> names = session_->tensorNames();
      for (size_t n = 0; n < names.size(); ++n)
        out.push_back(variableJson(names[n], session_->tensorValue(static_cast<int>(n)), names[n], h.core, h.frame));
      return out;
    }
    case Handle::Kind::Value: {
      Value v = session_->evaluate(h.expression);
      if (v.kind == ValueKind::Tensor) {
        const sim::TensorDesc& d = session_->machine().tensor(v.tensor);
        const int64_t total = d.numElements();
        int64_t first = std::max(0, start), last = count > 0 ? std::min<int64_t>(total, first + count) : std::min<int64_t>(total, first + 1000);
        for (int64_t e = first; e < last; ++e) {
          int64_t rest = e;
          std::string coords;
          for (int k = 0; k < 5; ++k) {
            coords += fmt::format("{}{}", k ? "," : "", rest % d.sizes[k]);
            rest /= d.sizes[k];
          }
          std::string expr = fmt::format("{}[{}]", h.expression, coords);
          out.push_back(variableJson(fmt::format("[{}]", coords), session_->evaluate(expr), expr, h.core, h.frame));
        }
        return out;
      }
      if (v.elementLanes > 0) {
        // An array of vectors: its elements, each a vector that expands to lanes.
        const int elements = static_cast<int>(v.lanes.size()) / v.elementLanes;
        int first = std::max(0, start), last = count > 0 ? std::min(elements, first + count) : elements;
        for (int k = first; k < last; ++k) {
          std::string expr = fmt::format("{}[{}]", h.expression, k);
          out.push_back(variableJson(fmt::format("[{}]", k), session_->evaluate(expr), expr, h.core, h.frame));
        }
        return out;
      }
      const int n = static_cast<int>(v.lanes.size());
      int first = std::max(0, start), last = count > 0 ? std::min(n, first + count) : n;
      for (int k = first; k < last; ++k) {
        Value lane = Value::scalar(v.elem, v.lanes[static_cast<size_t>(k)], v.isBool && v.kind != ValueKind::Predicate);
        if (v.kind == ValueKind::Predicate) lane.elem = DType::I32;
        std::string expr = fmt::format("{}[{}]", h.expression, k + v.firstLane);
        out.push_back(variableJson(fmt::format("[{}]", k + v.firstLane), lane, expr, h.core, h.frame));
      }
      return out;
    }
  }
  return out;
}

nlohmann::json DapServer::setLineBreakpoints(const std::string& path, const json& bps) {
  for (int n : lineBreakpoints_[path]) {
    try {
      session_->deleteBreakpoint(n);
    } catch (const std::exception&) {
    }
  }
  lineBreakpoints_[path].clear();
  json result = json::array();
  if (!bps.is_array()) return result;
  for (const json& bp : bps) {
    int line = field<int>(bp, "line", 0, true);
    std::string cond = field<std::string>(bp, "condition", "");
    try {
      const Breakpoint& b = session_->addBreakpoint(fmt::format("{}:{}", path, line), cond);
      lineBreakpoints_[path].push_back(b.number);
      result.push_back({{"id", b.number}, {"verified", true}, {"line", b.line},
                        {"instructionReference", fmt::format("0x{:x}", b.address)}});
    } catch (const std::exception& ex) {
      result.push_back({{"verified", false}, {"line", line}, {"message", escapeNonPrintable(ex.what())}});
    }
  }
  return result;
}

void DapServer::dispatch(const json& req) {
  const std::string cmd = req["command"];
  static const std::set<std::string> known = {
      "initialize", "launch", "disconnect", "terminate", "setBreakpoints", "setExceptionBreakpoints", "threads",
      "setInstructionBreakpoints", "dataBreakpointInfo", "setDataBreakpoints", "configurationDone", "continue", "next",
      "stepIn", "stepOut", "stepBack", "reverseContinue", "pause", "stackTrace", "scopes", "variables", "setVariable",
      "evaluate", "exceptionInfo", "disassemble", "readMemory"};
  if (!known.count(cmd)) throw UserError(fmt::format("unknown command '{}'", cmd));
  const json args = req.contains("arguments") && req["arguments"].is_object() ? req["arguments"] : json::object();

  if (cmd == "initialize") {
    initialized_ = true;
    respond(req, true,
            {{"supportsConfigurationDoneRequest", true}, {"supportsConditionalBreakpoints", true},
             {"supportsInstructionBreakpoints", true}, {"supportsDataBreakpoints", true},
             {"supportsSetVariable", true}, {"supportsStepBack", true}, {"supportsSteppingGranularity", true},
             {"supportsDisassembleRequest", true}, {"supportsReadMemoryRequest", true},
             {"supportsEvaluateForHovers", true}, {"supportsTerminateRequest", true},
             {"supportsExceptionInfoRequest", true}, {"supportsValueFormattingOptions", false}});
    return;
  }
  if (!initialized_ && cmd != "disconnect") throw UserError(fmt::format("'{}' before 'initialize'", cmd));

  if (cmd == "launch") {
    if (session_) throw UserError("the debugger is already launched");
    std::string program = field<std::string>(args, "program", "", true);
    std::vector<std::string> simArgs;
    if (args.contains("args")) {
      if (!args["args"].is_array()) throw UserError("argument 'args' must be a list of strings");
      for (const json& a : args["args"]) {
        if (!a.is_string()) throw UserError("argument 'args' must be a list of strings");
        simArgs.push_back(a.get<std::string>());
      }
    }
    std::string cwd = field<std::string>(args, "cwd", "");
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) throw UserError(fmt::format("cwd '{}': cannot change to it", cwd));
    stopOnEntry_ = field<bool>(args, "stopOnEntry", false);
    session_ = std::make_unique<Session>(program, simArgs);
    session_->useInterruptFlag(&pauseRequested_);
    cli_ = std::make_unique<CommandInterpreter>(
        *session_, [this](const std::string& s) { cliOut_ += s; }, [this](const std::string& s) { cliOut_ += s; });
    session_->setPrintfSink([this](int core, const std::string& text) {
      event("output", {{"category", "stdout"}, {"output", text}, {"data", {{"core", core}}}});
    });
    applyPendingBreakpoints();
    respond(req, true);
    event("initialized");
    return;
  }
  if (cmd == "disconnect" || cmd == "terminate") {
    respond(req, true);
    // terminate ends the debuggee; the client still sends disconnect, which ends the session.
    if (cmd == "terminate") event("terminated");
    else finished_ = true;
    return;
  }
  if (cmd == "setBreakpoints") {
    json source = args.contains("source") && args["source"].is_object() ? args["source"] : json::object();
    std::string path = field<std::string>(source, "path", "");
    if (path.empty()) path = field<std::string>(source, "name", "", true);
    json bps = args.contains("breakpoints") ? args["breakpoints"] : json::array();
    if (!session_) {
      pendingBreakpoints_[path] = bps;
      json result = json::array();
      if (bps.is_array())
        for (const json& bp : bps) result.push_back({{"verified", false}, {"line", field<int>(bp, "line", 0)}});
      respond(req, true, {{"breakpoints", result}});
      return;
    }
    respond(req, true, {{"breakpoints", setLineBreakpoints(path, bps)}});
    return;
  }
  if (cmd == "setExceptionBreakpoints") {
    respond(req, true, {{"breakpoints", json::array()}});
    return;
  }
  if (cmd == "threads") {
    json threads = json::array();
    if (session_ && session_->started())
      for (int c = 0; c < session_->machine().numCores(); ++c) threads.push_back({{"id", c + 1}, {"name", fmt::format("core {}", c)}});
    else
      threads.push_back({{"id", 1}, {"name", "core 0"}});
    respond(req, true, {{"threads", threads}});
    return;
  }
  requireSession(cmd);
  Session& s = *session_;

  if (cmd == "setInstructionBreakpoints") {
    for (int n : instructionBreakpoints_) {
      try {
        s.deleteBreakpoint(n);
      } catch (const std::exception&) {
      }
    }
    instructionBreakpoints_.clear();
    json result = json::array();
    if (args.contains("breakpoints") && args["breakpoints"].is_array())
      for (const json& bp : args["breakpoints"]) {
        std::string ref = field<std::string>(bp, "instructionReference", "", true);
        long long offset = field<long long>(bp, "offset", 0);
        char* end = nullptr;
        long long a = std::strtoll(ref.c_str(), &end, 0) + offset;
        try {
          if (ref.empty() || *end) throw UserError(fmt::format("instructionReference '{}' is not an address", ref));
          const Breakpoint& b = s.addBreakpoint(fmt::format("*{}", a), field<std::string>(bp, "condition", ""));
          instructionBreakpoints_.push_back(b.number);
          result.push_back({{"id", b.number}, {"verified", true}, {"instructionReference", fmt::format("0x{:x}", b.address)}});
        } catch (const std::exception& ex) {
          result.push_back({{"verified", false}, {"message", escapeNonPrintable(ex.what())}});
        }
      }
    respond(req, true, {{"breakpoints", result}});
    return;
  }
  if (cmd == "dataBreakpointInfo") {
    std::string name = field<std::string>(args, "name", "", true);
    int ref = field<int>(args, "variablesReference", 0);
    std::string expr = name;
    if (ref > 0 && ref <= static_cast<int>(handles_.size())) {
      const Handle& h = handles_[static_cast<size_t>(ref - 1)];
      if (h.kind == Handle::Kind::Value) expr = h.expression + name;  // a lane "[3]" of a vector
      withFrame(h.core, h.frame);
    }
    if (!s.started()) {
      respond(req, true, {{"dataId", nullptr}, {"description", "not running"}});
      return;
    }
    try {
      Value v = s.evaluate(expr);
      if (!v.location) throw EvalError("not a single element");
      respond(req, true, {{"dataId", expr}, {"description", expr}, {"accessTypes", json::array({"write"})}, {"canPersist", false}});
    } catch (const std::exception& ex) {
      respond(req, true, {{"dataId", nullptr}, {"description", escapeNonPrintable(ex.what())}});
    }
    return;
  }
  if (cmd == "setDataBreakpoints") {
    for (int n : dataBreakpoints_) {
      try {
        s.deleteBreakpoint(n);
      } catch (const std::exception&) {
      }
    }
    dataBreakpoints_.clear();
    json result = json::array();
    if (args.contains("breakpoints") && args["breakpoints"].is_array())
      for (const json& bp : args["breakpoints"]) {
        try {
          const Watchpoint& w = s.addWatchpoint(field<std::string>(bp, "dataId", "", true));
          dataBreakpoints_.push_back(w.number);
          result.push_back({{"id", w.number}, {"verified", true}});
        } catch (const std::exception& ex) {
          result.push_back({{"verified", false}, {"message", escapeNonPrintable(ex.what())}});
        }
      }
    respond(req, true, {{"breakpoints", result}});
    return;
  }
  if (cmd == "configurationDone") {
    if (configured_) throw UserError("configurationDone was already sent");
    configured_ = true;
    respond(req, true);
    reportStop(s.run(stopOnEntry_));
    return;
  }
  if (!s.started()) throw UserError(fmt::format("'{}' before 'configurationDone' (the kernel is not running)", cmd));

  const int thread = field<int>(args, "threadId", s.focus() + 1);
  auto focusThread = [&] {
    if (thread < 1 || thread > s.machine().numCores()) throw UserError(fmt::format("no thread {} (cores are threads 1 to {})", thread, s.machine().numCores()));
    s.setFocus(thread - 1);
  };
  const bool instruction = field<std::string>(args, "granularity", "") == "instruction";
  if (cmd == "continue" || cmd == "next" || cmd == "stepIn" || cmd == "stepOut" || cmd == "stepBack" ||
      cmd == "reverseContinue") {
    if (s.exited()) throw UserError("the kernel has finished");
    if (cmd != "continue" && cmd != "reverseContinue") focusThread();
    respond(req, true, cmd == "continue" ? json{{"allThreadsContinued", true}} : json::object());
    StopEvent e;
    try {
      if (cmd == "continue") e = s.cont();
      else if (cmd == "reverseContinue") e = s.reverseContinue();
      else if (cmd == "next") e = instruction ? s.stepi() : s.next();
      else if (cmd == "stepIn") e = instruction ? s.stepi() : s.step();
      else if (cmd == "stepBack") e = instruction ? s.reverseStepi() : s.reverseNext();
      else {
        try {
          e = s.finish();
        } catch (const UserError&) {
          e = s.next();  // the outermost frame: step out finishes the line, as VS Code users expect
        }
      }
    } catch (const std::exception& ex) {
      event("output", {{"category", "stderr"}, {"output", escapeNonPrintable(ex.what()) + "\n"}});
      e.reason = StopEvent::Reason::Step;
      e.core = s.focus();
    }
    reportStop(e);
    return;
  }
  if (cmd == "pause") {
    respond(req, true);
    pauseRequested_ = false;
    if (s.exited()) return;
    // A run this pause interrupted has reported its stop already; otherwise nothing was running (requests
    // run one at a time): report the stop the client asked for.
    if (!lastStopWasPause_) {
      StopEvent e;
      e.reason = StopEvent::Reason::Pause;
      e.core = s.focus();
      reportStop(e);
    }
    return;
  }
  if (s.exited() && cmd != "evaluate" && cmd != "disassemble" && cmd != "readMemory")
    throw UserError(fmt::format("'{}': the kernel has finished", cmd));
  if (cmd == "stackTrace") {
    focusThread();
    auto frames = s.frames();
    json out = json::array();
    const uint32_t pc = s.pcOf(thread - 1);
    for (size_t k = 0; k < frames.size(); ++k) {
      const Frame& f = frames[k];
      json j = {{"id", frameId(thread - 1, static_cast<int>(k))}, {"name", f.function}, {"line", f.pos ? f.pos->line : 0},
                {"column", f.pos ? std::max<uint32_t>(1, f.pos->column) : 0}};
      if (k == 0) j["instructionPointerReference"] = fmt::format("0x{:x}", pc);
      if (f.pos) {
        std::string file = s.debugInfo().fileName(f.pos->file);
        std::string base = file.substr(file.rfind('/') == std::string::npos ? 0 : file.rfind('/') + 1);
        j["source"] = {{"name", base}, {"path", file}};
      }
      out.push_back(j);
    }
    respond(req, true, {{"stackFrames", out}, {"totalFrames", out.size()}});
    return;
  }
  if (cmd == "scopes") {
    int id = field<int>(args, "frameId", 0, true);
    int core = coreOfFrame(id), level = levelOfFrame(id);
    if (id < 1 || core >= s.machine().numCores()) throw UserError(fmt::format("no frame {}", id));
    withFrame(core, level);
    json scopes = json::array({
        {{"name", "Locals"}, {"presentationHint", "locals"}, {"variablesReference", handleFor({Handle::Kind::Locals, core, level, "", 0})}, {"expensive", false}},
        {{"name", "Registers"}, {"presentationHint", "registers"}, {"variablesReference", handleFor({Handle::Kind::Registers, core, level, "", 0})}, {"expensive", false}},
        {{"name", "Tensors"}, {"variablesReference", handleFor({Handle::Kind::Tensors, core, level, "", 0})}, {"expensive", false}}});
    respond(req, true, {{"scopes", scopes}});
    return;
  }
  if (cmd == "variables") {
    int ref = field<int>(args, "variablesReference", 0, true);
    if (ref < 1 || ref > static_cast<int>(handles_.size())) throw UserError(fmt::format("no variables reference {}", ref));
    Handle h = handles_[static_cast<size_t>(ref - 1)];
    respond(req, true, {{"variables", variablesOf(h, field<int>(args, "start", 0), field<int>(args, "count", 0))}});
    return;
  }
  if (cmd == "setVariable") {
    int ref = field<int>(args, "variablesReference", 0, true);
    std::string name = field<std::string>(args, "name", "", true);
    std::string value = field<std::string>(args, "value", "", true);
    if (ref < 1 || ref > static_cast<int>(handles_.size())) throw UserError(fmt::format("no variables reference {}", ref));
    Handle h = handles_[static_cast<size_t>(ref - 1)];
    withFrame(h.core, h.frame);
    std::string target = h.kind == Handle::Kind::Value ? h.expression + name : name;
    Value v = s.evaluate(fmt::format("{} = ({})", target, value));
    respond(req, true, {{"value", formatSummary(v)}, {"type", typeNameOf(v)}});
    return;
  }
  if (cmd == "evaluate") {
    std::string expr = field<std::string>(args, "expression", "", true);
    std::string context = field<std::string>(args, "context", "");
    int id = field<int>(args, "frameId", 0);
    if (id > 0 && !s.exited()) withFrame(coreOfFrame(id), levelOfFrame(id));
    if (context == "repl") {
      // The debug console takes gdb commands too ("info cores", "x/4f ..."); anything else is an expression.
      std::string first = expr.substr(0, expr.find_first_of(" /"));
      static const std::vector<std::string> commands = {"info", "x", "list", "disassemble", "break", "tbreak", "delete", "display",
                                                        "backtrace", "bt", "core", "p", "print", "set", "watch", "whatis", "ptype"};
      if (std::find(commands.begin(), commands.end(), first) != commands.end()) {
        cliOut_.clear();
        cli_->execute(expr);
        respond(req, true, {{"result", cliOut_}, {"variablesReference", 0}});
        return;
      }
    }
    if (s.exited()) throw UserError("the kernel has finished");
    try {
      Value v = s.evaluate(expr);
      json var = variableJson(expr, v, expr, s.focus(), s.selectedFrame());
      json body = {{"result", v.kind == ValueKind::Table ? json(formatValue(v)) : var["value"]}, {"type", var["type"]}, {"variablesReference", var["variablesReference"]}};
      if (var.contains("indexedVariables")) body["indexedVariables"] = var["indexedVariables"];
      respond(req, true, body);
    } catch (const OptimizedOut&) {
      respond(req, true, {{"result", "<optimized out>"}, {"variablesReference", 0}});
    }
    return;
  }
  if (cmd == "exceptionInfo") {
    focusThread();
    const auto& f = s.machine().core(thread - 1).fault();
    respond(req, true, {{"exceptionId", "fault"}, {"description", f ? f->message : "no fault"}, {"breakMode", "always"}});
    return;
  }
  if (cmd == "disassemble") {
    std::string ref = field<std::string>(args, "memoryReference", "", true);
    long long base = std::strtoll(ref.c_str(), nullptr, 0) + field<long long>(args, "offset", 0);
    long long first = base / isa::kBundleBytes + field<long long>(args, "instructionOffset", 0);
    long long count = field<long long>(args, "instructionCount", 0, true);
    if (count < 0 || count > 100000) throw UserError("instructionCount must be 0 to 100000");
    const auto& text = s.object().text;
    const long long n = static_cast<long long>(text.size() / isa::kBundleBytes);
    json out = json::array();
    for (long long k = first; k < first + count; ++k) {
      uint32_t a = static_cast<uint32_t>(std::max(0LL, k) * isa::kBundleBytes);
      json ins = {{"address", fmt::format("0x{:x}", k * isa::kBundleBytes)}};
      if (k < 0 || k >= n) {
        ins["instruction"] = "??";
        ins["presentationHint"] = "invalid";
      } else {
        isa::Bundle b;
        std::string why;
        ins["instruction"] = isa::decodeBundle(text.data() + a, &b, &why) ? isa::formatBundle(b) : "(bad bundle)";
        if (auto p = s.debugInfo().lineAt(a)) {
          ins["line"] = p->line;
          ins["location"] = {{"path", s.debugInfo().fileName(p->file)}, {"name", s.debugInfo().fileName(p->file)}};
        }
      }
      out.push_back(ins);
    }
    respond(req, true, {{"instructions", out}});
    return;
  }
  if (cmd == "readMemory") {
    std::string ref = field<std::string>(args, "memoryReference", "", true);
    long long count = field<long long>(args, "count", 0, true);
    if (count < 0 || count > (1 << 20)) throw UserError("count must be 0 to 1048576");
    Location l;
    l.space = Location::Space::Global;
    l.elem = DType::U8;
    std::string num = ref;
    if (ref.starts_with("slm:")) l.space = Location::Space::ScalarLocal, num = ref.substr(4);
    else if (ref.starts_with("vlm:")) l.space = Location::Space::VectorLocal, num = ref.substr(4);
    uint64_t address = std::strtoull(num.c_str(), nullptr, 0) + static_cast<uint64_t>(field<long long>(args, "offset", 0));
    std::vector<uint8_t> bytes;
    sim::Core& core = s.machine().core(s.focus());
    for (long long k = 0; k < count; ++k) {
      l.address = address + static_cast<uint64_t>(k);
      try {
        bytes.push_back(static_cast<uint8_t>(readLocation(core, l)));
      } catch (const std::exception&) {
        break;
      }
    }
    json body = {{"address", fmt::format("0x{:x}", address)}, {"data", base64(bytes)}};
    if (static_cast<long long>(bytes.size()) < count) body["unreadableBytes"] = count - static_cast<long long>(bytes.size());
    respond(req, true, body);
    return;
  }
  throw UserError(fmt::format("unknown command '{}'", cmd));
}

void DapServer::applyPendingBreakpoints() {
  for (auto& [path, bps] : pendingBreakpoints_) {
    json result = setLineBreakpoints(path, bps);
    for (const json& b : result)
      if (b.contains("id")) event("breakpoint", {{"reason", "changed"}, {"breakpoint", b}});
  }
  pendingBreakpoints_.clear();
}

}  // namespace tpc::dbg
