// The Debug Adapter Protocol server over a Session: requests in, responses and events out (JSON through
// nlohmann-json). Cores are threads (id = core + 1); scopes are Locals, Registers and Tensors; vectors
// expand to lanes (paged); kernel printf becomes output events; a fault stops with reason "exception".
// handle() takes one message body and never throws: malformed JSON, unknown commands and requests out of
// order get an error response.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tpc/dbg/cli.h"
#include "tpc/dbg/session.h"

namespace tpc::dbg {

class DapServer {
 public:
  using Send = std::function<void(const std::string& body)>;
  explicit DapServer(Send send);
  ~DapServer();

  void handle(const std::string& body);
  // From the reader thread while a request runs: a pause request stops the run between bundles.
  void interrupt();
  bool finished() const { return finished_; }
  // Whether a message body is a "pause" request (the reader thread checks before queueing it).
  static bool isPauseRequest(const std::string& body);

 private:
  using json = nlohmann::json;
  struct Handle {  // what a variablesReference stands for
    enum class Kind { Locals, Arguments, Registers, RegisterFile, Tensors, Value } kind;
    int core = 0, frame = 0;
    std::string expression;  // Value: the expression whose lanes or elements are the children
    int file = 0;            // RegisterFile: isa::RegFile
  };

  void dispatch(const json& req);
  void respond(const json& req, bool success, json body = json::object(), const std::string& message = "");
  void event(const std::string& name, json body = json::object());
  void reportStop(const StopEvent& e);
  void requireSession(const std::string& command);
  int handleFor(Handle h);
  json variableJson(const std::string& name, const Value& v, const std::string& evaluateName, int core, int frame);
  json variablesOf(const Handle& h, int start, int count);
  void withFrame(int core, int frame);
  void applyPendingBreakpoints();
  json setLineBreakpoints(const std::string& path, const json& bps);

  Send send_;
  int seq_ = 1;
  std::unique_ptr<Session> session_;
  std::unique_ptr<CommandInterpreter> cli_;
  std::string cliOut_;
  bool lastStopWasPause_ = false;
  bool initialized_ = false, configured_ = false, stopOnEntry_ = false, finished_ = false, running_ = false;
  std::map<std::string, std::vector<int>> lineBreakpoints_;  // source path -> breakpoint numbers
  std::map<std::string, json> pendingBreakpoints_;           // set before launch
  std::vector<int> instructionBreakpoints_;
  std::vector<int> dataBreakpoints_;
  std::vector<Handle> handles_;
  std::atomic<bool> pauseRequested_{false};
};

}  // namespace tpc::dbg
