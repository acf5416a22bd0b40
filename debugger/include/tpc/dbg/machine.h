// The launch under the debugger: the program, the tensors in global memory and one simulated core per part
// of the index space, run one core at a time through the simulator's control API. Every bundle a core runs
// is logged, and the whole state is checkpointed (copy-on-write per core), so that any earlier moment can be
// restored by going back to a checkpoint and re-executing: the simulator is deterministic.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tpc/dbg/launch_setup.h"
#include "tpc/object/kernel_object.h"
#include "tpc/sim/core.h"
#include "tpc/sim/memory.h"
#include "tpc/sim/program.h"
#include "tpc/support/host_tensor.h"
#include "tpc/support/tensor_spec.h"

namespace tpc::dbg {

enum class CoreState { NotStarted, Running, Halted, Faulted, Idle };
const char* coreStateName(CoreState s);

class Machine {
 public:
  // Loads the program and binds the tensors and scalars; throws UserError naming the file or argument.
  Machine(const obj::KernelObject& object, const std::string& objectPath, const LaunchSetup& setup);
  ~Machine();

  int numCores() const { return static_cast<int>(cores_.size()); }
  sim::Core& core(int c) { return *cores_[static_cast<size_t>(c)]; }
  const sim::IndexBox& box(int c) const { return boxes_[static_cast<size_t>(c)]; }
  CoreState state(int c) const;
  bool finished(int c) const;  // halted, faulted or idle
  bool allFinished() const;
  const sim::Program& program() const { return program_; }
  const isa::ArchInfo& arch() const { return *arch_; }
  const sim::Dims5& indexSpace() const { return indexSpace_; }
  const std::vector<uint32_t>& scalars() const { return scalars_; }

  // Tensors in parameter order (descriptors in global memory).
  int numTensors() const { return static_cast<int>(tensors_.size()); }
  const sim::TensorDesc& tensor(int n) const { return descs_[static_cast<size_t>(n)]; }
  sim::GlobalMemory& global() { return global_; }

  // Execution of one core; every bundle is logged for time travel.
  sim::StopReason stepCore(int c);
  // Runs until a breakpoint, watchpoint, halt or fault. A core stopped at a breakpoint first runs the
  // bundle there (resuming), as gdb steps over a breakpoint at the pc.
  sim::StopReason runCore(int c);

  // Breakpoint addresses, on every core.
  void setBreakpoints(const std::set<uint32_t>& addresses);
  bool hasBreakpointAt(uint32_t address) const { return breakpoints_.count(address) != 0; }
  // Watches, on every core (each core watches its own registers and local memories; global memory is
  // shared). The index of a watch in `watches` is what lastWatchHit() reports.
  void setWatches(const std::vector<sim::Watch>& watches);
  // Marks state changed by the debugger (set var), so the next checkpoint copies it.
  void touchCore(int c) { dirty_[static_cast<size_t>(c)] = true; }
  void touchGlobal() { globalDirty_ = true; }

  // Time: the number of bundles all cores have run, in the order they ran them.
  uint64_t time() const { return time_; }
  void checkpoint();
  // Goes back to `target` (< time()): restores the latest checkpoint at or before it and re-executes.
  // `observe(time, core, afterBundle)` is called before (afterBundle false) and after each re-executed
  // bundle; returning false stops early (the machine is then at that moment).
  using Observer = std::function<bool(uint64_t time, int core, bool afterBundle)>;
  void goTo(uint64_t target, const Observer& observe = {});
  // Re-executes from the earliest checkpoint to now, calling observe; the machine ends where it was.
  void replayAll(const Observer& observe);
  // The global time at which core c ran its `bundle`-th bundle (0-based); nullopt if it never did.
  std::optional<uint64_t> timeOfCoreBundle(int c, uint64_t bundle) const;
  uint64_t earliestTime() const;

  // Kernel printf text not yet passed on, per core.
  std::string takeNewPrintf(int c);

  // Writes the tensors the kernel may store to, as tpc-sim does (after a run without a fault).
  std::vector<std::string> writeOutputs();

 private:
  struct Segment {
    int core;
    uint64_t start;  // global time of its first bundle
    uint64_t count;
  };
  struct Snapshot {
    uint64_t time;
    std::vector<std::shared_ptr<const sim::Core>> cores;
    std::shared_ptr<const std::vector<uint8_t>> global;
    std::vector<size_t> printfShown;
  };
  void logBundles(int c, uint64_t before);
  void restore(const Snapshot& s);
  void applyBreakpointsAndWatches(int c);

  const isa::ArchInfo* arch_ = nullptr;
  sim::Program program_;
  std::vector<TensorSpec> specs_;
  std::vector<HostTensor> tensors_;
  std::vector<bool> stored_;
  std::vector<uint32_t> scalars_;
  sim::Dims5 indexSpace_{};
  sim::GlobalMemory global_;
  std::array<sim::TensorDesc, isa::kNumTensors> bound_{};
  std::vector<sim::TensorDesc> descs_;
  std::vector<sim::IndexBox> boxes_;
  std::vector<std::unique_ptr<sim::Core>> cores_;
  std::vector<bool> parked_;  // the core was seen stopped where it is (resuming steps over a breakpoint there)
  std::set<uint32_t> breakpoints_;
  std::vector<sim::Watch> watches_;

  uint64_t time_ = 0;
  std::vector<Segment> log_;
  std::vector<Snapshot> snapshots_;
  std::vector<std::shared_ptr<const sim::Core>> saved_;
  std::shared_ptr<const std::vector<uint8_t>> savedGlobal_;
  std::vector<bool> dirty_;
  bool globalDirty_ = true;
  std::vector<size_t> printfShown_;
};

}  // namespace tpc::dbg
