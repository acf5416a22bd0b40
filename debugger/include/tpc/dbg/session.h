// A debugging session: one kernel object and one launch, driven like gdb drives an inferior. Breakpoints
// (line, address, function; conditions; temporary), watchpoints, stepping by line and by bundle, reverse
// execution, expression evaluation in the focused core and frame. All-stop: cores run one at a time (the
// lowest-numbered unfinished core first); stepping moves only the focused core. The CLI and the DAP server
// are thin layers over this class.
#pragma once

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tpc/dbg/debug_info.h"
#include "tpc/dbg/launch_setup.h"
#include "tpc/dbg/machine.h"
#include "tpc/dbg/value.h"
#include "tpc/object/kernel_object.h"

namespace tpc::dbg {

struct Breakpoint {
  int number = 0;
  enum class Kind { Line, Address, Function } kind = Kind::Line;
  std::string spec;        // as given
  uint32_t address = 0;              // the first location
  std::vector<uint32_t> addresses;   // every location (a line may have several in optimized code)
  uint32_t file = 0, line = 0;  // resolved source line (0: none)
  std::string condition;
  bool temporary = false;
  bool enabled = true;
  int hits = 0;

  bool hasLocation(uint32_t a) const { return std::find(addresses.begin(), addresses.end(), a) != addresses.end(); }
};

struct Watchpoint {
  int number = 0;
  std::string expression;
  Location where;
  int core = 0;            // registers and local memory are per core
  std::string lastValue;   // formatted, for "Old value"
  int hits = 0;
};

struct StopEvent {
  enum class Reason { Breakpoint, Watchpoint, Step, Fault, Exited, Entry, Pause, NoHistory, Error } reason = Reason::Step;
  int core = 0;
  int number = 0;            // breakpoint or watchpoint number
  bool temporary = false;
  std::string oldValue, newValue, expression;  // watchpoint
  std::string message;       // fault or error text; at a breakpoint, why its condition could not be evaluated
  uint32_t address = 0;
  std::vector<std::string> written;  // output files written when the run ended
  int exitCode = 0;                  // Exited: 0, or 2 when a core faulted (no outputs written)
};

class Session {
 public:
  // Reads the object (throws UserError/ObjectError naming the file) and checks the tpc-sim arguments.
  Session(const std::string& objectPath, const std::vector<std::string>& simArgs);
  ~Session();

  const DebugInfo& debugInfo() const { return debug_; }
  const obj::KernelObject& object() const { return object_; }
  const std::string& objectPath() const { return path_; }

  // Kernel printf text, as it is produced.
  void setPrintfSink(std::function<void(int core, const std::string&)> sink) { printfSink_ = std::move(sink); }
  // Set from another thread (Ctrl-C, DAP pause) to stop a run between bundles.
  std::atomic<bool>& interruptFlag() { return *interrupt_; }
  // Uses a flag owned by the caller instead (set before run(); the DAP reader thread raises it).
  void useInterruptFlag(std::atomic<bool>* flag) { interrupt_ = flag; }

  // --- breakpoints: "FILE:LINE", "LINE", "*ADDR", "FUNCTION"; throws UserError with gdb's wording.
  const Breakpoint& addBreakpoint(const std::string& spec, const std::string& condition = "", bool temporary = false);
  void deleteBreakpoint(int number);  // throws if unknown
  void deleteAllBreakpoints();
  void setBreakpointCondition(int number, const std::string& condition);
  void setBreakpointEnabled(int number, bool enabled);
  const std::vector<Breakpoint>& breakpoints() const { return breakpoints_; }
  // Watch an lvalue expression in the focused core (local memory, tensor element, register).
  const Watchpoint& addWatchpoint(const std::string& expression);
  void deleteWatchpoint(int number);
  const std::vector<Watchpoint>& watchpoints() const { return watchpoints_; }

  // --- execution; each returns where it stopped.
  bool started() const { return machine_ != nullptr; }
  bool exited() const { return exited_; }
  // (Re)starts the launch; stopOnEntry stops before core 0's first bundle.
  StopEvent run(bool stopOnEntry = false);
  StopEvent cont();
  StopEvent next();
  StopEvent step();
  StopEvent stepi();
  StopEvent nexti() { return stepi(); }
  StopEvent finish();
  StopEvent until(const std::string& location = "");
  StopEvent reverseStepi();
  StopEvent reverseNext();
  StopEvent reverseStep();
  StopEvent reverseContinue();
  StopEvent reverseFinish();

  // --- focus
  int focus() const { return focus_; }
  void setFocus(int core);  // throws UserError for an unknown core
  int selectedFrame() const { return frame_; }
  void selectFrame(int frame);
  Machine& machine();  // throws UserError("The program is not being run.") before run
  std::vector<Frame> frames();  // of the focused core
  std::optional<SourcePos> positionOf(int core);
  uint32_t pcOf(int core);

  // --- values in the focused core and selected frame
  Value evaluate(const std::string& expression);
  // Value history ($1, $2, ...): records a printed value and returns its number.
  int record(const Value& v);
  // Names of the variables of the selected frame (arguments or locals), and their values (an optimized-out
  // variable gives nullopt).
  std::vector<std::pair<std::string, std::optional<Value>>> frameVariables(bool arguments);
  // Scalar kernel parameters and tensor parameters, by name.
  std::vector<std::string> tensorNames() const;
  Value tensorValue(int n);

 private:
  friend class FocusContext;
  StopEvent resumeAll();
  StopEvent lineStep(int mode);  // 0 next, 1 step, 2 until
  StopEvent stopAt(StopEvent e);
  StopEvent onRunStop(int core, sim::StopReason r, bool* keepGoing);
  // A condition that cannot be evaluated counts as true (gdb stops, so the user sees why); its message goes
  // to *error.
  bool breakpointHitAt(int core, uint32_t address, int* number, bool* temporary, std::string* error = nullptr);
  bool conditionTrue(int core, const std::string& condition, std::string* error = nullptr);
  void syncBreakpoints();
  void syncWatches();
  void emitPrintf(int core);
  void ensureRunning();
  StopEvent reverseLine(bool stepInto);
  StopEvent exitedEvent();

  std::string path_;
  obj::KernelObject object_;
  DebugInfo debug_;
  LaunchSetup setup_;
  std::unique_ptr<Machine> machine_;
  std::unique_ptr<Machine> prepared_;  // bound at construction, taken by the first run()
  std::vector<Breakpoint> breakpoints_;
  std::vector<Watchpoint> watchpoints_;
  int nextNumber_ = 1;
  int focus_ = 0;
  int frame_ = 0;
  bool exited_ = false;
  std::vector<Value> history_;
  std::function<void(int, const std::string&)> printfSink_;
  std::atomic<bool> ownInterrupt_{false};
  std::atomic<bool>* interrupt_ = &ownInterrupt_;
};

}  // namespace tpc::dbg
