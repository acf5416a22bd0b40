#include "tpc/dbg/machine.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "tpc/sim/kernel_binding.h"
#include "tpc/support/error.h"
#include "tpc/support/npy.h"

namespace tpc::dbg {

namespace {
// Checkpoints kept at once; older ones are thinned out (re-execution covers the gaps).
constexpr size_t kMaxSnapshots = 256;
}  // namespace

const char* coreStateName(CoreState s) {
  switch (s) {
    case CoreState::NotStarted: return "not started";
    case CoreState::Running: return "stopped";
    case CoreState::Halted: return "halted";
    case CoreState::Faulted: return "faulted";
    case CoreState::Idle: return "idle";
  }
  return "?";
}

Machine::Machine(const obj::KernelObject& o, const std::string& path, const LaunchSetup& setup) {
  arch_ = isa::findArch(setup.arch.empty() ? o.arch : setup.arch);
  if (!arch_) throw UserError(fmt::format("--arch '{}': expected gaudi, gaudi2 or gaudi3", setup.arch));
  std::string why;
  if (!program_.load(o.text, &why, arch_) || !program_.setPrintfFormats(o.printfFormats, &why))
    throw UserError(fmt::format("{}: {}", path, why));

  std::vector<const obj::Param*> tensorParams, scalarParams;
  for (const auto& p : o.params) (p.kind == obj::ParamKind::Tensor ? tensorParams : scalarParams).push_back(&p);
  auto names = [](const std::vector<const obj::Param*>& ps) {
    std::string s;
    for (const auto* p : ps) s += (s.empty() ? "" : ", ") + p->name;
    return s;
  };
  if (setup.tensors.size() != tensorParams.size())
    throw UserError(fmt::format("kernel '{}' takes {} tensor(s) ({}), but {} -t argument(s) were given", o.kernelName,
                                tensorParams.size(), names(tensorParams), setup.tensors.size()));
  if (setup.scalars.size() != scalarParams.size())
    throw UserError(fmt::format("kernel '{}' takes {} scalar(s) ({}), but {} -s argument(s) were given", o.kernelName,
                                scalarParams.size(), names(scalarParams), setup.scalars.size()));
  for (const std::string& t : setup.tensors) {
    specs_.push_back(parseTensorSpec(t));
    tensors_.push_back(materialize(specs_.back()));
  }
  for (size_t k = 0; k < setup.scalars.size(); ++k)
    scalars_.push_back(sim::parseScalarArgument(setup.scalars[k], scalarParams[k]->scalarType));
  stored_ = sim::tensorsStoredTo(program_, static_cast<int>(tensors_.size()));
  indexSpace_ = setup.indexSpaceGiven ? setup.indexSpace : sim::defaultIndexSpace(tensors_, stored_);

  // Global memory laid out as the simulator's launch does it: one allocation per tensor.
  std::vector<uint64_t> bases;
  for (const HostTensor& t : tensors_) bases.push_back(global_.allocate(t.data.size()));
  global_.finalize();
  for (size_t n = 0; n < tensors_.size(); ++n) {
    sim::TensorDesc d = sim::TensorDesc::dense(tensors_[n].dtype, sim::tpcSizes(tensors_[n].shape));
    d.base = bases[n];
    d.host = global_.hostPtr(bases[n]);
    d.valid = true;
    if (!tensors_[n].data.empty()) std::memcpy(d.host, tensors_[n].data.data(), tensors_[n].data.size());
    descs_.push_back(d);
    bound_[n] = d;
  }

  const int numCores = setup.cores > 0 ? setup.cores : arch_->cores;
  boxes_ = sim::splitIndexSpace(indexSpace_, numCores);
  sim::CoreEnv env;
  env.arch = arch_;
  env.program = &program_;
  env.tensors = &bound_;
  env.global = &global_;
  env.strictHazards = setup.strictHazards;
  env.maxCycles = setup.maxCycles;
  for (int c = 0; c < numCores; ++c) {
    cores_.push_back(std::make_unique<sim::Core>(env, c));
    cores_.back()->reset(boxes_[static_cast<size_t>(c)], scalars_);
  }
  parked_.assign(static_cast<size_t>(numCores), false);
  dirty_.assign(static_cast<size_t>(numCores), true);
  saved_.resize(static_cast<size_t>(numCores));
  printfShown_.assign(static_cast<size_t>(numCores), 0);
  checkpoint();
}

Machine::~Machine() = default;

CoreState Machine::state(int c) const {
  const sim::Core& k = *cores_[static_cast<size_t>(c)];
  if (boxes_[static_cast<size_t>(c)].volume() == 0) return CoreState::Idle;
  if (k.fault()) return CoreState::Faulted;
  if (k.halted()) return CoreState::Halted;
  if (k.stats().bundles == 0) return CoreState::NotStarted;
  return CoreState::Running;
}

bool Machine::finished(int c) const {
  CoreState s = state(c);
  return s == CoreState::Halted || s == CoreState::Faulted || s == CoreState::Idle;
}

bool Machine::allFinished() const {
  for (int c = 0; c < numCores(); ++c)
    if (!finished(c)) return false;
  return true;
}

void Machine::logBundles(int c, uint64_t before) {
  sim::Core& k = core(c);
  uint64_t ran = k.stats().bundles - before;
  dirty_[static_cast<size_t>(c)] = true;
  globalDirty_ = true;  // a store may have landed; the copy is cheap next to re-execution
  parked_[static_cast<size_t>(c)] = true;
  if (ran == 0) return;
  if (!log_.empty() && log_.back().core == c && log_.back().start + log_.back().count == time_)
    log_.back().count += ran;
  else
    log_.push_back(Segment{c, time_, ran});
  time_ += ran;
}

sim::StopReason Machine::stepCore(int c) {
  if (finished(c)) return core(c).fault() ? sim::StopReason::Fault : sim::StopReason::Halted;
  uint64_t before = core(c).stats().bundles;
  sim::StopReason r = core(c).step();
  logBundles(c, before);
  return r;
}

sim::StopReason Machine::runCore(int c) {
  if (finished(c)) return core(c).fault() ? sim::StopReason::Fault : sim::StopReason::Halted;
  sim::Core& k = core(c);
  if (parked_[static_cast<size_t>(c)] && breakpoints_.count(k.pcAddress())) {
    sim::StopReason r = stepCore(c);
    if (r != sim::StopReason::StepDone) return r;
  }
  uint64_t before = k.stats().bundles;
  sim::StopReason r = k.run();
  logBundles(c, before);
  return r;
}

void Machine::applyBreakpointsAndWatches(int c) {
  sim::Core& k = core(c);
  k.clearBreakpoints();
  for (uint32_t a : breakpoints_) k.setBreakpoint(a, true);
  k.clearWatches();
  for (const sim::Watch& w : watches_) k.addWatch(w);
}

void Machine::setBreakpoints(const std::set<uint32_t>& addresses) {
  breakpoints_ = addresses;
  for (int c = 0; c < numCores(); ++c) {
    core(c).clearBreakpoints();
    for (uint32_t a : breakpoints_) core(c).setBreakpoint(a, true);
  }
}

void Machine::setWatches(const std::vector<sim::Watch>& watches) {
  watches_ = watches;
  for (int c = 0; c < numCores(); ++c) {
    core(c).clearWatches();
    for (const sim::Watch& w : watches_) core(c).addWatch(w);
  }
}

void Machine::checkpoint() {
  if (!snapshots_.empty() && snapshots_.back().time == time_) snapshots_.pop_back();
  Snapshot s;
  s.time = time_;
  for (int c = 0; c < numCores(); ++c) {
    auto& saved = saved_[static_cast<size_t>(c)];
    if (dirty_[static_cast<size_t>(c)] || !saved) saved = std::make_shared<const sim::Core>(core(c));
    dirty_[static_cast<size_t>(c)] = false;
    s.cores.push_back(saved);
  }
  if (globalDirty_ || !savedGlobal_) {
    const uint8_t* p = global_.hostPtr(sim::GlobalMemory::kBase);
    savedGlobal_ = std::make_shared<const std::vector<uint8_t>>(p, p + global_.size());
    globalDirty_ = false;
  }
  s.global = savedGlobal_;
  s.printfShown = printfShown_;
  snapshots_.push_back(std::move(s));
  if (snapshots_.size() > kMaxSnapshots) {
    // Keep the first; drop every other one of the older half.
    std::vector<Snapshot> kept;
    for (size_t k = 0; k < snapshots_.size(); ++k)
      if (k == 0 || k >= snapshots_.size() / 2 || k % 2 == 0) kept.push_back(std::move(snapshots_[k]));
    snapshots_ = std::move(kept);
  }
}

void Machine::restore(const Snapshot& s) {
  for (int c = 0; c < numCores(); ++c) {
    *cores_[static_cast<size_t>(c)] = *s.cores[static_cast<size_t>(c)];
    saved_[static_cast<size_t>(c)] = s.cores[static_cast<size_t>(c)];
    dirty_[static_cast<size_t>(c)] = false;
  }
  if (!s.global->empty()) std::memcpy(global_.hostPtr(sim::GlobalMemory::kBase), s.global->data(), s.global->size());
  savedGlobal_ = s.global;
  globalDirty_ = false;
  time_ = s.time;
}

uint64_t Machine::earliestTime() const { return snapshots_.empty() ? 0 : snapshots_.front().time; }

void Machine::goTo(uint64_t target, const Observer& observe) {
  if (target > time_) target = time_;
  const uint64_t end = target;
  const Snapshot* from = nullptr;
  for (const Snapshot& s : snapshots_)
    if (s.time <= target) from = &s;
  if (!from) return;
  restore(*from);
  bool stopped = false;
  for (const Segment& seg : log_) {
    if (stopped) break;
    if (seg.start + seg.count <= time_ || seg.start >= end) continue;
    sim::Core& k = core(seg.core);
    uint64_t stop = std::min(seg.start + seg.count, end);
    for (uint64_t t = std::max(seg.start, time_); t < stop; ++t) {
      if (observe && !observe(t, seg.core, false)) {
        stopped = true;
        break;
      }
      k.step();
      dirty_[static_cast<size_t>(seg.core)] = true;
      globalDirty_ = true;
      time_ = t + 1;
      if (observe && !observe(t + 1, seg.core, true)) {
        stopped = true;
        break;
      }
    }
  }
  // The future after this moment is gone; re-running forward recreates it (deterministically).
  while (!log_.empty() && log_.back().start >= time_) log_.pop_back();
  if (!log_.empty() && log_.back().start + log_.back().count > time_) log_.back().count = time_ - log_.back().start;
  while (!snapshots_.empty() && snapshots_.back().time > time_) snapshots_.pop_back();
  for (int c = 0; c < numCores(); ++c) {
    applyBreakpointsAndWatches(c);
    parked_[static_cast<size_t>(c)] = core(c).stats().bundles > 0;
    printfShown_[static_cast<size_t>(c)] = core(c).printfOutput().size();
  }
}

void Machine::replayAll(const Observer& observe) {
  const uint64_t now = time_;
  std::vector<Segment> log = log_;
  std::vector<Snapshot> snaps = snapshots_;
  // Re-execute from the first checkpoint to now; the observer sees every bundle but cannot stop early.
  snapshots_.resize(std::min<size_t>(1, snapshots_.size()));
  goTo(now, [&](uint64_t t, int c, bool after) {
    observe(t, c, after);
    return true;
  });
  log_ = std::move(log);
  snapshots_ = std::move(snaps);
}

std::optional<uint64_t> Machine::timeOfCoreBundle(int c, uint64_t bundle) const {
  // The core's bundles are numbered in the order of its segments; those before the first checkpoint are
  // not in the log when they ran before the debugger started it (never: the log starts at time 0).
  uint64_t seen = 0;
  for (const Segment& s : log_) {
    if (s.core != c) continue;
    if (bundle < seen + s.count) return s.start + (bundle - seen);
    seen += s.count;
  }
  return std::nullopt;
}

std::string Machine::takeNewPrintf(int c) {
  const std::string& all = core(c).printfOutput();
  size_t& shown = printfShown_[static_cast<size_t>(c)];
  if (shown > all.size()) shown = all.size();
  std::string fresh = all.substr(shown);
  shown = all.size();
  return fresh;
}

std::vector<std::string> Machine::writeOutputs() {
  std::vector<std::string> written;
  for (size_t n = 0; n < tensors_.size(); ++n) {
    if (!stored_[n]) continue;
    const sim::TensorDesc& d = descs_[n];
    tensors_[n].data.assign(d.host, d.host + tensors_[n].data.size());
    writeNpy(specs_[n].path, tensors_[n]);
    written.push_back(specs_[n].path);
  }
  return written;
}

}  // namespace tpc::dbg
