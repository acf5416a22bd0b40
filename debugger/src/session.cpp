#include "tpc/dbg/session.h"

#include <cmath>
#include <algorithm>
#include <cstring>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

#include "tpc/dbg/core_state.h"
#include "tpc/dbg/expression.h"
#include "tpc/dbg/format.h"
#include "tpc/support/error.h"

namespace tpc::dbg {

// Expressions see the focused core and the selected frame.
class FocusContext : public EvalContext {
 public:
  explicit FocusContext(Session& s) : s_(s) {}

  Value variable(const std::string& name) override {
    Machine& m = s_.machine();
    sim::Core& core = m.core(s_.focus_);
    const uint32_t pc = core.pcAddress();
    std::vector<Frame> frames = s_.debug_.framesAt(pc);
    const uint32_t scope = frames[std::min<size_t>(static_cast<size_t>(s_.frame_), frames.size() - 1)].scope;
    if (const VarRecord* rec = s_.debug_.locate(name, scope, pc)) return readVariable(core, *rec);
    if (!s_.debug_.typeOf(name, scope).empty()) throw OptimizedOut();
    // Parameters: tensors by name; scalars keep the value they were launched with.
    int tensor = 0, scalar = 0;
    for (const obj::Param& p : s_.object_.params) {
      if (p.kind == obj::ParamKind::Tensor) {
        if (p.name == name) return s_.tensorValue(tensor);
        ++tensor;
      } else {
        if (p.name == name && scope == 0) {
          uint32_t bits = m.scalars()[static_cast<size_t>(scalar)];
          double x;
          if (p.scalarType == DType::F32) {
            float f;
            std::memcpy(&f, &bits, 4);
            x = f;
          } else if (p.scalarType == DType::U32) {
            x = bits;
          } else {
            x = convertToType(static_cast<int32_t>(bits), p.scalarType);
          }
          Value v = Value::scalar(p.scalarType, x);
          return v;
        }
        ++scalar;
      }
    }
    throw EvalError(fmt::format("No symbol \"{}\" in current context.", name));
  }

  Value dollar(const std::string& name) override {
    Machine& m = s_.machine();
    sim::Core& core = m.core(s_.focus_);
    if (name == "core") return Value::scalar(DType::I32, s_.focus_);
    if (name == "pc") {
      Value v = Value::scalar(DType::U32, core.pcAddress());
      return v;
    }
    if (name == "idx") {  // all five coordinates: each must be known
      Value v;
      v.kind = ValueKind::Index;
      for (int k = 0; k < 5; ++k) v.lanes.push_back(static_cast<double>(indexCoordinate(k)));
      return v;
    }
    if (name.size() == 6 && name.starts_with("idx[") && name[4] >= '0' && name[4] <= '4' && name[5] == ']')
      return Value::scalar(DType::I32, static_cast<double>(indexCoordinate(name[4] - '0')));  // $idx[k] alone
    if (name == "box" || name == "boxsize") {
      Value v;
      v.kind = ValueKind::Index;
      const sim::IndexBox& b = m.box(s_.focus_);
      for (int k = 0; k < 5; ++k) v.lanes.push_back(static_cast<double>(name == "box" ? b.offset[k] : b.size[k]));
      return v;
    }
    if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos) {
      size_t n = std::strtoul(name.c_str(), nullptr, 10);
      if (n == 0 || n > s_.history_.size()) throw EvalError(fmt::format("History has not yet reached ${}.", name));
      return s_.history_[n - 1];
    }
    if (name.empty()) {
      if (s_.history_.empty()) throw EvalError("History is empty.");
      return s_.history_.back();
    }
    if (auto r = parseRegisterName(name)) return readRegister(core, r->file, r->index, r->view);
    throw EvalError(fmt::format("Invalid register or convenience variable ${}", name));
  }

  // The index-space coordinate along dimension k of the iteration the focused core is at: the value / scale
  // of the kernel's loop variable over that dimension (.tpc.debug_index), found from the selected frame
  // outwards; where the kernel has none, the core's slice start when the slice is one wide.
  long long indexCoordinate(int k) {
    Machine& m = s_.machine();
    sim::Core& core = m.core(s_.focus_);
    const uint32_t pc = core.pcAddress();
    const std::vector<Frame> frames = s_.debug_.framesAt(pc);
    std::string optimizedOut;
    for (size_t f = std::min<size_t>(static_cast<size_t>(s_.frame_), frames.size() - 1); f < frames.size(); ++f)
      for (const obj::IndexSpaceVar& v : s_.object_.debug.indexVars) {
        if (v.dim != k || v.scope != frames[f].scope) continue;
        if (const VarRecord* rec = s_.debug_.locate(v.name, v.scope, pc))
          return static_cast<long long>(std::floor(readVariable(core, *rec).number() / v.scale));
        if (optimizedOut.empty()) optimizedOut = v.name;
      }
    const sim::IndexBox& b = m.box(s_.focus_);
    if (b.size[static_cast<size_t>(k)] == 1) return b.offset[static_cast<size_t>(k)];
    if (!optimizedOut.empty())
      throw EvalError(fmt::format("$idx[{}]: the loop variable '{}' over index-space dimension {} is optimized out here",
                                  k, optimizedOut, k));
    throw EvalError(fmt::format("$idx[{}]: no loop variable over index-space dimension {} here (one that starts at "
                                "get_index_space_offset()[{}] * step and moves by multiples of step)", k, k, k));
  }

  Value tensorElement(int tensor, const std::vector<long long>& coords) override {
    const sim::TensorDesc& d = s_.machine().tensor(tensor);
    uint64_t offset = 0;
    for (size_t k = 0; k < coords.size() && k < 5; ++k) offset += static_cast<uint64_t>(coords[k] * d.strides[k]);
    Location l;
    l.space = Location::Space::Global;
    l.elem = d.dtype;
    l.address = d.base + offset * dtypeSize(d.dtype);
    Value v = Value::scalar(d.dtype, readLocation(s_.machine().core(s_.focus_), l));
    v.location = l;
    return v;
  }

  std::vector<long long> tensorSizes(int tensor) override {
    const sim::TensorDesc& d = s_.machine().tensor(tensor);
    return std::vector<long long>(d.sizes.begin(), d.sizes.end());
  }

  double load(const Location& where) override { return readLocation(s_.machine().core(s_.focus_), where); }

  void store(const Location& where, double v) override {
    Machine& m = s_.machine();
    writeLocation(m.core(s_.focus_), where, v);
    if (where.space == Location::Space::Global) m.touchGlobal();
    else m.touchCore(s_.focus_);
    // A watched location the user writes is not a change the kernel made: the watches start from the new value.
    for (Watchpoint& w : s_.watchpoints_) {
      const int owner = w.where.space == Location::Space::Global ? s_.focus_ : w.core;
      w.lastValue = formatValue(Value::scalar(w.where.elem, readLocation(m.core(owner), w.where), w.where.isBool));
    }
    s_.syncWatches();
  }

 private:
  Session& s_;
};

OptimizedOut::OptimizedOut() : EvalError("<optimized out>") {}

Session::Session(const std::string& objectPath, const std::vector<std::string>& simArgs)
    : path_(objectPath), object_(obj::readObjectFile(objectPath)), debug_(object_),
      setup_(parseLaunchArguments(simArgs)) {
  // Bind the tensors and scalars now, so that a wrong argument is reported at start, not at `run`; the
  // first run uses this machine.
  prepared_ = std::make_unique<Machine>(object_, path_, setup_);
}

Session::~Session() = default;

Machine& Session::machine() {
  if (!machine_) throw UserError("The program is not being run.");
  return *machine_;
}

// ------------------------------------------------------------------------------------ breakpoints

const Breakpoint& Session::addBreakpoint(const std::string& specIn, const std::string& condition, bool temporary) {
  std::string spec = specIn;
  while (!spec.empty() && spec.back() == ' ') spec.pop_back();
  while (!spec.empty() && spec.front() == ' ') spec.erase(spec.begin());
  Breakpoint b;
  b.spec = spec;
  b.condition = condition;
  b.temporary = temporary;
  auto isNumber = [](const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; };
  if (spec.empty()) {
    if (!machine_) throw UserError("No default breakpoint location: the program is not being run.");
    b.kind = Breakpoint::Kind::Address;
    b.address = pcOf(focus_);
  } else if (spec[0] == '*') {
    b.kind = Breakpoint::Kind::Address;
    char* end = nullptr;
    std::string num = spec.substr(1);
    while (!num.empty() && num.front() == ' ') num.erase(num.begin());
    unsigned long long a = std::strtoull(num.c_str(), &end, 0);
    if (num.empty() || *end) throw UserError(fmt::format("Invalid address '{}'.", spec));
    if (a % isa::kBundleBytes || a >= object_.text.size())
      throw UserError(fmt::format("Address 0x{:x} is not the start of a bundle in the kernel's code (0x0..0x{:x}, "
                                  "64-byte bundles).", a, object_.text.empty() ? 0 : object_.text.size() - 64));
    b.address = static_cast<uint32_t>(a);
  } else {
    size_t colon = spec.rfind(':');
    std::string fileName, lineText = spec;
    if (colon != std::string::npos) {
      fileName = spec.substr(0, colon);
      lineText = spec.substr(colon + 1);
    }
    if (isNumber(lineText)) {
      b.kind = Breakpoint::Kind::Line;
      if (!debug_.hasLines()) throw UserError(fmt::format("No line number information in {} (compile with -g).", path_));
      uint32_t file = 0;
      if (!fileName.empty()) {
        auto f = debug_.findFile(fileName);
        if (!f) throw UserError(fmt::format("No source file named {}.", fileName));
        file = *f;
      } else if (machine_) {
        if (auto p = positionOf(focus_)) file = p->file;
      }
      uint32_t line = static_cast<uint32_t>(std::strtoul(lineText.c_str(), nullptr, 10));
      uint32_t resolved = 0;
      b.addresses = debug_.addressesOfLine(file, line, &resolved);
      if (b.addresses.empty())
        throw UserError(fmt::format("Line {} out of range; \"{}\" has no code at or after it.", line, debug_.fileName(file)));
      b.address = b.addresses.front();
      b.file = file;
      b.line = resolved;
    } else {
      b.kind = Breakpoint::Kind::Function;
      auto a = debug_.addressOfFunction(spec);
      if (!a) throw UserError(fmt::format("Function \"{}\" not defined.", spec));
      b.address = *a;
    }
  }
  if (b.addresses.empty()) b.addresses = {b.address};
  if (b.line == 0)
    if (auto p = debug_.lineAt(b.address)) {
      b.file = p->file;
      b.line = p->line;
    }
  if (!condition.empty()) parseExpression(condition);  // a syntax error is reported now, as gdb does
  b.number = nextNumber_++;
  breakpoints_.push_back(b);
  syncBreakpoints();
  return breakpoints_.back();
}

void Session::deleteBreakpoint(int number) {
  auto it = std::find_if(breakpoints_.begin(), breakpoints_.end(), [&](const Breakpoint& b) { return b.number == number; });
  if (it != breakpoints_.end()) {
    breakpoints_.erase(it);
    syncBreakpoints();
    return;
  }
  auto w = std::find_if(watchpoints_.begin(), watchpoints_.end(), [&](const Watchpoint& x) { return x.number == number; });
  if (w == watchpoints_.end()) throw UserError(fmt::format("No breakpoint number {}.", number));
  watchpoints_.erase(w);
  syncWatches();
}

void Session::deleteAllBreakpoints() {
  breakpoints_.clear();
  watchpoints_.clear();
  syncBreakpoints();
  syncWatches();
}

void Session::setBreakpointCondition(int number, const std::string& condition) {
  for (Breakpoint& b : breakpoints_)
    if (b.number == number) {
      if (!condition.empty()) parseExpression(condition);
      b.condition = condition;
      return;
    }
  throw UserError(fmt::format("No breakpoint number {}.", number));
}

void Session::setBreakpointEnabled(int number, bool enabled) {
  for (Breakpoint& b : breakpoints_)
    if (b.number == number) {
      b.enabled = enabled;
      syncBreakpoints();
      return;
    }
  throw UserError(fmt::format("No breakpoint number {}.", number));
}

void Session::syncBreakpoints() {
  if (!machine_) return;
  std::set<uint32_t> addresses;
  for (const Breakpoint& b : breakpoints_)
    if (b.enabled) addresses.insert(b.addresses.begin(), b.addresses.end());
  machine_->setBreakpoints(addresses);
}

const Watchpoint& Session::addWatchpoint(const std::string& expression) {
  Value v = evaluate(expression);
  if (!v.location)
    throw UserError(fmt::format("Cannot watch '{}': it is not a single element in a register, local memory or a "
                                "tensor (watch a lane x[3] or an element in[0,1]).", expression));
  Watchpoint w;
  w.number = nextNumber_++;
  w.expression = expression;
  w.where = *v.location;
  w.core = focus_;
  w.lastValue = formatValue(v);
  watchpoints_.push_back(w);
  syncWatches();
  return watchpoints_.back();
}

void Session::deleteWatchpoint(int number) { deleteBreakpoint(number); }

void Session::syncWatches() {
  if (!machine_) return;
  std::vector<sim::Watch> ws;
  for (const Watchpoint& w : watchpoints_) {
    sim::Watch s;
    switch (w.where.space) {
      case Location::Space::Register: s.space = sim::Watch::Space::Register; break;
      case Location::Space::ScalarLocal: s.space = sim::Watch::Space::ScalarLocal; break;
      case Location::Space::VectorLocal: s.space = sim::Watch::Space::VectorLocal; break;
      case Location::Space::Global: s.space = sim::Watch::Space::Global; break;
    }
    s.file = w.where.file;
    s.index = static_cast<uint8_t>(w.where.index);
    s.address = w.where.address;
    s.bytes = locationBytes(w.where);
    ws.push_back(s);
  }
  machine_->setWatches(ws);
}

// ------------------------------------------------------------------------------------ focus

void Session::setFocus(int core) {
  if (core < 0 || core >= machine().numCores())
    throw UserError(fmt::format("Invalid core {}: the launch has cores 0 to {}.", core, machine().numCores() - 1));
  focus_ = core;
  frame_ = 0;
}

void Session::selectFrame(int frame) {
  int n = static_cast<int>(frames().size());
  if (frame < 0 || frame >= n) throw UserError(fmt::format("No frame at level {}.", frame));
  frame_ = frame;
}

std::vector<Frame> Session::frames() { return debug_.framesAt(pcOf(focus_)); }

std::optional<SourcePos> Session::positionOf(int core) { return debug_.lineAt(pcOf(core)); }

uint32_t Session::pcOf(int core) { return machine().core(core).pcAddress(); }

Value Session::evaluate(const std::string& expression) {
  if (!machine_) {
    // Before the run only constants evaluate; anything else needs a core.
    struct NoCore : EvalContext {
      Value variable(const std::string&) override { throw UserError("No frame selected (the program is not being run)."); }
      Value dollar(const std::string& n) override {
        throw UserError(fmt::format("${} is not available: the program is not being run.", n));
      }
      Value tensorElement(int, const std::vector<long long>&) override { throw UserError("The program is not being run."); }
      std::vector<long long> tensorSizes(int) override { throw UserError("The program is not being run."); }
      void store(const Location&, double) override { throw UserError("The program is not being run."); }
      double load(const Location&) override { throw UserError("The program is not being run."); }
    } none;
    return tpc::dbg::evaluate(expression, none);
  }
  FocusContext ctx(*this);
  return tpc::dbg::evaluate(expression, ctx);
}

int Session::record(const Value& v) {
  history_.push_back(v);
  return static_cast<int>(history_.size());
}

std::vector<std::pair<std::string, std::optional<Value>>> Session::frameVariables(bool arguments) {
  std::vector<std::pair<std::string, std::optional<Value>>> out;
  sim::Core& core = machine().core(focus_);
  const uint32_t pc = core.pcAddress();
  std::vector<Frame> fs = debug_.framesAt(pc);
  const uint32_t scope = fs[std::min<size_t>(static_cast<size_t>(frame_), fs.size() - 1)].scope;
  for (const std::string& name : debug_.variablesOfScope(scope, arguments)) {
    const VarRecord* rec = debug_.locate(name, scope, pc);
    if (rec) out.emplace_back(name, readVariable(core, *rec));
    else out.emplace_back(name, std::nullopt);
  }
  if (arguments && scope == 0) {
    // Parameters the debug info does not locate: tensors, and scalars at their launch values.
    for (const obj::Param& p : object_.params) {
      if (std::any_of(out.begin(), out.end(), [&](const auto& e) { return e.first == p.name; })) continue;
      FocusContext ctx(*this);
      out.emplace_back(p.name, ctx.variable(p.name));
    }
  }
  return out;
}

std::vector<std::string> Session::tensorNames() const {
  std::vector<std::string> names;
  for (const obj::Param& p : object_.params)
    if (p.kind == obj::ParamKind::Tensor) names.push_back(p.name);
  return names;
}

Value Session::tensorValue(int n) {
  const sim::TensorDesc& d = machine().tensor(n);
  Value v;
  v.kind = ValueKind::Tensor;
  v.tensor = n;
  v.elem = d.dtype;
  std::vector<std::string> names = tensorNames();
  v.typeName = fmt::format("tensor {} '{}': {} [{}, {}, {}, {}, {}] at 0x{:x}", n, names[static_cast<size_t>(n)],
                           dtypeName(d.dtype), d.sizes[0], d.sizes[1], d.sizes[2], d.sizes[3], d.sizes[4], d.base);
  return v;
}

// ------------------------------------------------------------------------------------ execution

void Session::ensureRunning() {
  if (!machine_) throw UserError("The program is not being run.");
  if (exited_) throw UserError("The program is not being run.");
}

void Session::emitPrintf(int core) {
  if (!machine_) return;
  std::string text = machine_->takeNewPrintf(core);
  if (!text.empty() && printfSink_) printfSink_(core, text);
}

StopEvent Session::stopAt(StopEvent e) {
  if (machine_ && e.reason != StopEvent::Reason::Exited) {
    focus_ = e.core;
    frame_ = 0;
    e.address = pcOf(e.core);
    machine_->checkpoint();
  }
  return e;
}

StopEvent Session::exitedEvent() {
  exited_ = true;
  StopEvent e;
  e.reason = StopEvent::Reason::Exited;
  // A faulted launch writes no outputs, as tpc-sim (its fault stopped the run when it happened).
  for (int c = 0; c < machine_->numCores(); ++c)
    if (machine_->core(c).fault()) {
      e.exitCode = 2;
      e.message = fmt::format("core {} faulted", c);
      return e;
    }
  e.written = machine_->writeOutputs();
  return e;
}

StopEvent Session::run(bool stopOnEntry) {
  machine_ = prepared_ ? std::move(prepared_) : std::make_unique<Machine>(object_, path_, setup_);
  exited_ = false;
  focus_ = 0;
  frame_ = 0;
  for (Breakpoint& b : breakpoints_) b.hits = 0;
  for (int c = 0; c < machine_->numCores(); ++c) machine_->core(c).setInterrupt(interrupt_);
  syncBreakpoints();
  syncWatches();
  if (stopOnEntry) {
    StopEvent e;
    e.reason = StopEvent::Reason::Entry;
    int first = 0;
    while (first + 1 < machine_->numCores() && machine_->finished(first)) ++first;
    e.core = first;
    return stopAt(e);
  }
  return resumeAll();
}

bool Session::conditionTrue(int core, const std::string& condition, std::string* error) {
  if (condition.empty()) return true;
  int savedFocus = focus_, savedFrame = frame_;
  focus_ = core;
  frame_ = 0;
  bool result = true;
  try {
    Value v = evaluate(condition);
    result = v.kind == ValueKind::Scalar ? v.number() != 0 : true;
  } catch (const std::exception& ex) {
    result = true;  // gdb stops when a condition cannot be evaluated, so the user sees why
    if (error) *error = ex.what();
  }
  focus_ = savedFocus;
  frame_ = savedFrame;
  return result;
}

bool Session::breakpointHitAt(int core, uint32_t address, int* number, bool* temporary, std::string* error) {
  for (Breakpoint& b : breakpoints_) {
    if (!b.enabled || !b.hasLocation(address)) continue;
    if (!conditionTrue(core, b.condition, error)) continue;
    ++b.hits;
    *number = b.number;
    *temporary = b.temporary;
    return true;
  }
  return false;
}

StopEvent Session::onRunStop(int core, sim::StopReason r, bool* keepGoing) {
  *keepGoing = false;
  StopEvent e;
  e.core = core;
  switch (r) {
    case sim::StopReason::Breakpoint: {
      int number = 0;
      bool temporary = false;
      if (!breakpointHitAt(core, pcOf(core), &number, &temporary, &e.message)) {
        *keepGoing = true;
        return e;
      }
      e.reason = StopEvent::Reason::Breakpoint;
      e.number = number;
      e.temporary = temporary;
      if (temporary) deleteBreakpoint(number);
      return e;
    }
    case sim::StopReason::Watchpoint: {
      int hit = machine_->core(core).lastWatchHit();
      if (hit < 0 || hit >= static_cast<int>(watchpoints_.size())) {
        *keepGoing = true;
        return e;
      }
      Watchpoint& w = watchpoints_[static_cast<size_t>(hit)];
      // A register or local-memory watch belongs to the core it was set on.
      if (w.where.space != Location::Space::Global && w.core != core) {
        *keepGoing = true;
        return e;
      }
      e.reason = StopEvent::Reason::Watchpoint;
      e.number = w.number;
      e.expression = w.expression;
      e.oldValue = w.lastValue;
      Value now = Value::scalar(w.where.elem, readLocation(machine_->core(core), w.where), w.where.isBool);
      e.newValue = formatValue(now);
      w.lastValue = e.newValue;
      ++w.hits;
      return e;
    }
    case sim::StopReason::Fault:
      e.reason = StopEvent::Reason::Fault;
      e.message = machine_->core(core).fault()->message;
      return e;
    case sim::StopReason::Interrupted:
      *interrupt_ = false;
      e.reason = StopEvent::Reason::Pause;
      return e;
    case sim::StopReason::Halted:
      // The simulator returns at a halt before it compares watches: a store in the last bundle is
      // found here.
      for (Watchpoint& w : watchpoints_) {
        if (w.where.space != Location::Space::Global && w.core != core) continue;
        std::string now = formatValue(Value::scalar(w.where.elem, readLocation(machine_->core(core), w.where), w.where.isBool));
        if (now == w.lastValue) continue;
        e.reason = StopEvent::Reason::Watchpoint;
        e.number = w.number;
        e.expression = w.expression;
        e.oldValue = w.lastValue;
        e.newValue = now;
        w.lastValue = now;
        ++w.hits;
        return e;
      }
      *keepGoing = true;
      return e;
    case sim::StopReason::StepDone:
      *keepGoing = true;
      return e;
  }
  return e;
}

StopEvent Session::resumeAll() {
  *interrupt_ = false;
  for (;;) {
    int c = 0;
    while (c < machine_->numCores() && machine_->finished(c)) ++c;
    if (c == machine_->numCores()) return exitedEvent();
    sim::StopReason r = machine_->runCore(c);
    emitPrintf(c);
    bool keepGoing = false;
    StopEvent e = onRunStop(c, r, &keepGoing);
    if (!keepGoing) return stopAt(e);
    if (interrupt_->exchange(false)) {
      StopEvent p;
      p.reason = StopEvent::Reason::Pause;
      p.core = c;
      return stopAt(p);
    }
  }
}

StopEvent Session::cont() {
  ensureRunning();
  return resumeAll();
}

StopEvent Session::stepi() {
  ensureRunning();
  const int c = focus_;
  if (machine_->finished(c)) throw UserError(fmt::format("Core {} has {}; select another with `core N`.", c, coreStateName(machine_->state(c))));
  sim::StopReason r = machine_->stepCore(c);
  emitPrintf(c);
  StopEvent e;
  e.core = c;
  if (r == sim::StopReason::Fault) {
    e.reason = StopEvent::Reason::Fault;
    e.message = machine_->core(c).fault()->message;
  } else if (r == sim::StopReason::Halted) {
    bool keep = false;
    StopEvent w = onRunStop(c, r, &keep);
    if (!keep) return stopAt(w);
    if (machine_->allFinished()) return exitedEvent();
  } else if (r == sim::StopReason::Watchpoint) {
    bool keep = false;
    StopEvent w = onRunStop(c, r, &keep);
    if (!keep) return stopAt(w);
  }
  return stopAt(e);
}

StopEvent Session::lineStep(int mode) {
  ensureRunning();
  *interrupt_ = false;
  const int c = focus_;
  if (machine_->finished(c)) throw UserError(fmt::format("Core {} has {}; select another with `core N`.", c, coreStateName(machine_->state(c))));
  sim::Core& core = machine_->core(c);
  const uint32_t startPc = core.pcAddress();
  const auto startPos = debug_.lineAt(startPc);
  // Stepping from a selected outer frame steps in that frame (gdb's `next` after `up`).
  const size_t startDepth = debug_.depthAt(startPc) - static_cast<size_t>(frame_);
  if (!startPos) return stepi();  // no line information: one bundle, as gdb steps an unknown function
  for (;;) {
    sim::StopReason r = machine_->stepCore(c);
    emitPrintf(c);
    StopEvent e;
    e.core = c;
    if (r == sim::StopReason::Fault) {
      e.reason = StopEvent::Reason::Fault;
      e.message = core.fault()->message;
      return stopAt(e);
    }
    if (r == sim::StopReason::Halted) {
      bool keep = false;
      StopEvent w = onRunStop(c, r, &keep);
      if (!keep) return stopAt(w);
      if (machine_->allFinished()) return exitedEvent();
      return stopAt(e);  // this core is done; the others wait
    }
    if (r == sim::StopReason::Watchpoint) {
      bool keep = false;
      StopEvent w = onRunStop(c, r, &keep);
      if (!keep) return stopAt(w);
    }
    if (interrupt_->exchange(false)) {
      e.reason = StopEvent::Reason::Pause;
      return stopAt(e);
    }
    const uint32_t pc = core.pcAddress();
    int number = 0;
    bool temporary = false;
    auto pos = debug_.lineAt(pc);
    const size_t depth = debug_.depthAt(pc);
    if (pos && pc != startPc && machine_->hasBreakpointAt(pc) && breakpointHitAt(c, pc, &number, &temporary, &e.message)) {
      e.reason = StopEvent::Reason::Breakpoint;
      e.number = number;
      e.temporary = temporary;
      if (temporary) deleteBreakpoint(number);
      return stopAt(e);
    }
    if (!pos || pos->line == 0) continue;
    if (mode == 3) {  // finish: out of the selected frame
      if (depth < startDepth) return stopAt(e);
      continue;
    }
    if (depth > startDepth) {
      if (mode == 1 && debug_.isLineStart(pc)) return stopAt(e);  // step: into the inlined function
      continue;                                                  // next: over it
    }
    const bool otherLine = pos->line != startPos->line || pos->file != startPos->file || depth < startDepth;
    if (otherLine) {
      if (mode == 2 && pc < startPc && depth == startDepth) continue;  // until: not back into the loop
      return stopAt(e);
    }
    // The same line again from its start after a jump back: the next iteration of a loop.
    if (mode != 2 && pc <= startPc && debug_.isLineStart(pc)) return stopAt(e);
  }
}

StopEvent Session::next() { return lineStep(0); }
StopEvent Session::step() { return lineStep(1); }

StopEvent Session::finish() {
  ensureRunning();
  if (static_cast<size_t>(frame_) + 1 >= frames().size())
    throw UserError("\"finish\" not meaningful in the outermost frame.");
  return lineStep(3);
}

StopEvent Session::until(const std::string& location) {
  ensureRunning();
  if (location.empty()) return lineStep(2);
  const Breakpoint& b = addBreakpoint(location, "", true);
  (void)b;
  return resumeAll();
}

// ------------------------------------------------------------------------------------ reverse

StopEvent Session::reverseStepi() {
  ensureRunning();
  const int c = focus_;
  const uint64_t n = machine_->core(c).stats().bundles;
  StopEvent e;
  e.core = c;
  if (n == 0) {
    e.reason = StopEvent::Reason::NoHistory;
    return stopAt(e);
  }
  auto t = machine_->timeOfCoreBundle(c, n - 1);
  if (!t) {
    e.reason = StopEvent::Reason::NoHistory;
    return stopAt(e);
  }
  exited_ = false;
  machine_->goTo(*t);
  return stopAt(e);
}

StopEvent Session::reverseLine(bool stepInto) {
  ensureRunning();
  const int c = focus_;
  const uint32_t pcNow = pcOf(c);
  const auto posNow = debug_.lineAt(pcNow);
  const size_t depthNow = debug_.depthAt(pcNow);
  // The focused core's bundles with the moment before each ran, from the start.
  std::vector<std::pair<uint64_t, uint32_t>> ran;
  machine_->replayAll([&](uint64_t t, int core, bool after) {
    if (!after && core == c) ran.emplace_back(t, machine_->core(c).pcAddress());
    return true;
  });
  StopEvent e;
  e.core = c;
  auto sameLine = [&](uint32_t pc, const std::optional<SourcePos>& p) {
    auto q = debug_.lineAt(pc);
    return q && p && q->line == p->line && q->file == p->file;
  };
  size_t k = ran.size();
  // Back over the rest of the current line (and what is inlined deeper, for reverse-next).
  while (k > 0 && (sameLine(ran[k - 1].second, posNow) || !debug_.lineAt(ran[k - 1].second) ||
                   (!stepInto && debug_.depthAt(ran[k - 1].second) > depthNow)))
    --k;
  if (k == 0) {
    exited_ = false;
    machine_->goTo(machine_->earliestTime());
    e.reason = StopEvent::Reason::NoHistory;
    return stopAt(e);
  }
  const uint32_t prevPc = ran[k - 1].second;
  const auto prevPos = debug_.lineAt(prevPc);
  const size_t prevDepth = debug_.depthAt(prevPc);
  size_t target = k - 1;
  // Then back to the first bundle of that line's run.
  while (target > 0 && (sameLine(ran[target - 1].second, prevPos) ||
                        (!stepInto && debug_.depthAt(ran[target - 1].second) > prevDepth) ||
                        !debug_.lineAt(ran[target - 1].second))) {
    --target;
    if (sameLine(ran[target].second, prevPos) && debug_.isLineStart(ran[target].second) &&
        !(target > 0 && sameLine(ran[target - 1].second, prevPos)))
      break;
  }
  while (target < k - 1 && !sameLine(ran[target].second, prevPos)) ++target;
  exited_ = false;
  machine_->goTo(ran[target].first);
  return stopAt(e);
}

StopEvent Session::reverseNext() { return reverseLine(false); }
StopEvent Session::reverseStep() { return reverseLine(true); }

StopEvent Session::reverseFinish() {
  ensureRunning();
  const int c = focus_;
  const size_t depth = debug_.depthAt(pcOf(c));
  if (depth <= 1) throw UserError("\"finish\" not meaningful in the outermost frame.");
  std::vector<std::pair<uint64_t, uint32_t>> ran;
  machine_->replayAll([&](uint64_t t, int core, bool after) {
    if (!after && core == c) ran.emplace_back(t, machine_->core(c).pcAddress());
    return true;
  });
  size_t k = ran.size();
  while (k > 0 && debug_.depthAt(ran[k - 1].second) >= depth) --k;
  StopEvent e;
  e.core = c;
  exited_ = false;
  if (k == 0) {
    machine_->goTo(machine_->earliestTime());
    e.reason = StopEvent::Reason::NoHistory;
  } else {
    machine_->goTo(ran[k - 1].first);
  }
  return stopAt(e);
}

StopEvent Session::reverseContinue() {
  ensureRunning();
  const uint64_t now = machine_->time();
  struct Hit {
    uint64_t time;
    int core;
    int number;
    bool watch;
    std::string oldValue, newValue;
  };
  std::optional<Hit> last;
  std::vector<double> before(watchpoints_.size());
  machine_->replayAll([&](uint64_t t, int core, bool after) {
    if (t > now || (t == now && !after)) return true;
    sim::Core& k = machine_->core(core);
    if (!after) {
      for (const Breakpoint& b : breakpoints_)
        if (b.enabled && b.hasLocation(k.pcAddress()) && t < now && conditionTrue(core, b.condition)) {
          last = Hit{t, core, b.number, false, {}, {}};
          break;
        }
      for (size_t w = 0; w < watchpoints_.size(); ++w) {
        const Watchpoint& wp = watchpoints_[w];
        const int owner = wp.where.space == Location::Space::Global ? core : wp.core;
        before[w] = readLocation(machine_->core(owner), wp.where);
      }
      return true;
    }
    for (size_t w = 0; w < watchpoints_.size(); ++w) {
      const Watchpoint& wp = watchpoints_[w];
      if (wp.where.space != Location::Space::Global && wp.core != core) continue;
      double v = readLocation(k, wp.where);
      if (v != before[w] && t <= now)
        last = Hit{t, core, wp.number, true, formatLane(before[w], wp.where.elem, wp.where.isBool),
                   formatLane(v, wp.where.elem, wp.where.isBool)};
    }
    return true;
  });
  StopEvent e;
  e.core = focus_;
  exited_ = false;
  if (!last || last->time >= now) {
    machine_->goTo(machine_->earliestTime());
    e.reason = StopEvent::Reason::NoHistory;
    int first = 0;
    while (first + 1 < machine_->numCores() && machine_->state(first) != CoreState::NotStarted &&
           machine_->core(first).stats().bundles == 0)
      ++first;
    e.core = first;
    return stopAt(e);
  }
  // A watch fired after its bundle; going back to just before that bundle shows the old value, as gdb's
  // reverse execution stops where the change is about to happen.
  machine_->goTo(last->watch ? last->time - 1 : last->time);
  e.core = last->core;
  e.number = last->number;
  if (last->watch) {
    e.reason = StopEvent::Reason::Watchpoint;
    e.oldValue = last->newValue;  // in reverse, the value goes from new back to old
    e.newValue = last->oldValue;
    for (const Watchpoint& w : watchpoints_)
      if (w.number == last->number) e.expression = w.expression;
  } else {
    e.reason = StopEvent::Reason::Breakpoint;
  }
  return stopAt(e);
}

}  // namespace tpc::dbg
