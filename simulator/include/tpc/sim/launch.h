// One kernel launch: a program, its tensors and scalars, the index space split over the cores, and the
// cores run on a pool of host threads. The tpc-sim CLI, the tests and the benchmarks all go through here.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tpc/sim/core.h"
#include "tpc/sim/index_space.h"
#include "tpc/sim/memory.h"
#include "tpc/sim/program.h"

namespace tpc::sim {

// Runs one core's part of the kernel in place of the simulator's execution loop (the native reference
// does so); the core is reset to its box and scalars. `hostThread` (0 .. threads-1) says which host
// thread runs it: cores on one host thread run one after another.
class CoreRunner {
 public:
  virtual ~CoreRunner() = default;
  virtual void runCore(Core& core, int hostThread) = 0;
};

struct LaunchOptions {
  const isa::ArchInfo* arch = nullptr;   // required
  int cores = 0;                          // 0: the architecture's core count
  int threads = 0;                        // 0: the host's hardware threads (at most one per core)
  bool strictHazards = false;
  uint64_t maxCycles = 0;                 // per core; 0: no limit
  bool trace = false;
  CoreRunner* runner = nullptr;           // nullptr: simulate
  bool allowUnguardedReads = false;       // see CoreEnv::allowUnguardedReads
  int preferredSplitDim = -1;             // the index-space dimension split first (splitIndexSpace)
};

// The number of host threads a launch uses: `threads` (0: the host's hardware threads), at least 1 and at
// most one per core.
int launchThreads(int threads, int cores);

struct LaunchResult {
  std::vector<CoreStats> cores;
  std::vector<IndexBox> boxes;
  std::optional<Fault> fault;  // the fault of the lowest-numbered faulting core
  std::string trace;           // per core, in core order
  std::vector<std::string> printf;  // what each core printed
  uint64_t maxCycles() const;
  uint64_t totalBundles() const;
};

class Launch {
 public:
  Launch(const Program& program, LaunchOptions options);

  // Binds the next tensor descriptor (tensors are numbered in parameter order) to a dense tensor of its
  // own. The bytes move into global memory at the first run(); tensorData() shows them there, as the
  // kernel left them.
  void addTensor(DType dtype, const std::array<int64_t, kMaxDims>& sizes, std::vector<uint8_t> bytes,
                 uint32_t padding = 0);

  // Memory that tensors view with strides of their own, several tensors possibly viewing one region (the
  // test core maps the caller's memory so). Returns the region's number; its bytes move into global
  // memory at the first run(), and regionData() shows them there.
  int addRegion(std::vector<uint8_t> bytes);
  // Binds the next tensor descriptor to `region` at `byteOffset`: `view` gives the data type, sizes,
  // non-negative strides (in elements) and padding. Throws std::invalid_argument when the view reaches
  // past the region.
  void addTensorView(const TensorDesc& view, int region, uint64_t byteOffset);
  std::span<const uint8_t> regionData(int region) const;
  void setScalars(std::vector<uint32_t> scalars) { scalars_ = std::move(scalars); }
  void setIndexSpace(const Dims5& space) { indexSpace_ = space; }

  LaunchResult run();

  // The global address of tensor n's element 0 (after the first run).
  uint64_t tensorAddress(int n) const { return descs_[static_cast<size_t>(n)].base; }
  // The bytes of a tensor bound by addTensor (dense).
  std::span<const uint8_t> tensorData(int n) const;
  int numCores() const { return numCores_; }
  // Cores of the last run, for inspection (the debugger drives a Core directly instead).
  Core& core(int n) { return *cores_[static_cast<size_t>(n)]; }

 private:
  const Program& program_;
  LaunchOptions options_;
  int numCores_;
  struct View {
    int region;
    uint64_t byteOffset;
  };
  std::vector<TensorDesc> descs_;
  std::vector<View> views_;                         // where each descriptor's element 0 lives
  std::vector<std::vector<uint8_t>> regionBytes_;   // until the first run
  std::vector<uint64_t> regionSize_, regionBase_;
  std::vector<uint32_t> scalars_;
  Dims5 indexSpace_{1, 1, 1, 1, 1};
  GlobalMemory global_;
  bool laidOut_ = false;
  std::array<TensorDesc, isa::kNumTensors> bound_{};
  std::vector<std::unique_ptr<Core>> cores_;
};

}  // namespace tpc::sim
