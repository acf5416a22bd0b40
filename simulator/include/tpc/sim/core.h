// One simulated TPC core and its control API (used by the simulator's run loop, the debugger and tests).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tpc/isa/isa.h"
#include "tpc/sim/fault.h"
#include "tpc/sim/index_space.h"
#include "tpc/sim/memory.h"
#include "tpc/sim/program.h"
#include "tpc/sim/registers.h"

namespace tpc::sim {

struct CoreStats {
  uint64_t cycles = 0;
  uint64_t bundles = 0;
  uint64_t stalls = 0;        // cycles waited for a register whose write was in flight
  uint64_t branchCycles = 0;  // cycles lost to taken branches
  std::array<uint64_t, isa::kNumSlots> slotBusy{};  // non-nop instructions per slot
  uint64_t loadBytes = 0, storeBytes = 0;
  // Vector tensor accesses (ld_tnsr / st_tnsr and their partial forms) by tensor number.
  std::array<uint64_t, isa::kNumTensors> tensorLoads{}, tensorStores{};
  // Global loads outside every tensor's memory (allowed only with CoreEnv::allowUnguardedReads); the first.
  uint64_t unguardedReads = 0;
  uint64_t firstUnguardedAddress = 0;
  uint32_t firstUnguardedBundle = 0;
  uint64_t vectorLaneOps = 0;
};

enum class StopReason { Halted, Breakpoint, Watchpoint, StepDone, Fault, Interrupted };

// What the core needs from the launch: the architecture, the tensors and global memory (shared by all
// cores), and the limits.
struct CoreEnv {
  const isa::ArchInfo* arch = nullptr;
  const Program* program = nullptr;
  std::array<TensorDesc, isa::kNumTensors>* tensors = nullptr;
  GlobalMemory* global = nullptr;
  bool strictHazards = false;
  uint64_t maxCycles = 0;  // 0: no limit
  bool allowUnguardedReads = false;
};

// A watched register or memory range; the run stops after a bundle that changes it.
struct Watch {
  enum class Space { Register, ScalarLocal, VectorLocal, Global } space = Space::Register;
  isa::RegFile file = isa::RegFile::None;
  uint8_t index = 0;
  uint64_t address = 0;
  uint32_t bytes = 0;
  std::vector<uint8_t> last;
};

// The core's MMIO registers that kernels reach with ld_l/st_l mmio, at the offsets of the architecture's
// map (isa::ArchInfo). Reset with the core.
struct MmioRegisters {
  uint32_t convRoundCsr = 0;  // CONV_ROUND_CSR: the vendor's 3-bit rounding code of converts with rm=csr
  uint32_t semaphore = 0;     // SEMAPHORE: counted by aso
  uint64_t lutPointer = 0;    // the global address of the user lookup tables, set by set_lut
};

struct LoopFrame {
  uint32_t startPc, endPc;  // bundle indices of the first and last bundle of the body
  uint8_t iterReg;
  int32_t end, step;
  isa::LoopCmp cmp;
};

class Core {
 public:
  Core(const CoreEnv& env, int id);

  // Starts the kernel over `box` with scalar parameters in S0.. and I0/I1 = box offset/size.
  void reset(const IndexBox& box, std::span<const uint32_t> scalarParams);

  // Runs until halt, a fault, a breakpoint or a watchpoint.
  StopReason run();
  // Executes one bundle.
  StopReason step();

  // Control API.
  uint32_t pc() const { return pc_; }  // bundle index
  uint32_t pcAddress() const { return pc_ * static_cast<uint32_t>(isa::kBundleBytes); }
  uint64_t cycle() const { return cycle_; }
  bool halted() const { return halted_; }
  int id() const { return id_; }
  const CoreStats& stats() const { return stats_; }
  const std::optional<Fault>& fault() const { return fault_; }
  // Records a fault found outside the execution loop (the native reference); the address is the pc's.
  void recordFault(std::string message) { raise(std::move(message)); }
  void setBreakpoint(uint32_t address, bool enabled);
  void clearBreakpoints();
  // Returns the watch's number.
  int addWatch(Watch w);
  void removeWatch(int number);
  // Forgets every watch (the debugger re-adds its own after restoring a checkpoint).
  void clearWatches() {
    watches_.clear();
    watchActive_.clear();
    lastWatchHit_ = -1;
  }
  int lastWatchHit() const { return lastWatchHit_; }
  // While set, the run stops (Interrupted, before a bundle) once *flag is true: the debugger's pause,
  // raised from another thread. Only the run loop with breakpoints checks it, so it costs the plain run
  // nothing.
  void setInterrupt(const std::atomic<bool>* flag) { interrupt_ = flag; }
  // One line per executed bundle is appended here while set (core, cycle, address, disassembly, writes).
  void setTrace(std::string* out) { trace_ = out; }
  // What the kernel printed with printf, in order.
  const std::string& printfOutput() const { return printf_; }
  void appendPrintf(const std::string& text) { printf_ += text; }
  std::span<uint8_t> scalarLocal() { return slm_; }
  std::span<uint8_t> vectorLocal() { return vlm_; }
  GlobalMemory& global() { return *env_.global; }
  const IndexBox& box() const { return box_; }

  // Architectural state, read and written directly by the instruction semantics and the debugger.
  RegisterFile r;
  MmioRegisters mmio;

  // Used by instruction semantics.
  const TensorDesc& tensor(uint32_t n) const;
  const Program& program() const { return *env_.program; }
  uint8_t* scalarLocalAt(uint64_t address, uint32_t bytes);
  uint8_t* vectorLocalAt(uint64_t address);
  // Global memory at `address` for a store: inside one tensor's memory, or a fault.
  uint8_t* globalAt(uint64_t address, uint32_t bytes);
  // The same for a load. With CoreEnv::allowUnguardedReads a load outside every tensor but inside the
  // launch's memory reads what lies there (as the hardware would) and is counted in unguardedReads.
  const uint8_t* globalForRead(uint64_t address, uint32_t bytes);
  uint32_t nextRandom();  // stochastic rounding
  // ld_l/st_l mmio: a register of the architecture's MMIO map; any other offset is a fault.
  uint32_t readMmio(uint64_t offset);
  void writeMmio(uint64_t offset, uint32_t value);
  // A convert's rounding mode: its rm field, or for rm=csr the mode CONV_ROUND_CSR holds.
  isa::RoundingMode roundingMode(const DecodedSlot& d) const {
    auto rm = static_cast<isa::RoundingMode>(d.field(isa::SwitchField::Rm));
    return rm == isa::RoundingMode::CSR ? isa::roundingModeFromVendor(mmio.convRoundCsr) : rm;
  }
  CoreStats& mutableStats() { return stats_; }
  // Control transfers requested by the SPU slot, applied at the end of the bundle.
  enum class Control : uint8_t { None, Jump, LoopStart, LoopSkip, Halt };
  Control control = Control::None;
  uint32_t controlTarget = 0;  // bundle index
  LoopFrame pendingLoop{};

 private:
  template <bool kSlow> StopReason runLoop(bool single);
  bool predicateTrue(const DecodedSlot& d) const;
  bool checkWatches();
  void traceBundle(const DecodedBundle& b, uint32_t pc, uint64_t issueCycle);
  StopReason raise(std::string message);

  CoreEnv env_;
  int id_;
  uint32_t pc_ = 0;
  uint64_t cycle_ = 0;
  bool halted_ = false;
  std::array<uint64_t, kNumRegIds> ready_{};  // cycle from which each register may be read
  std::array<LoopFrame, 8> loops_{};
  int loopDepth_ = 0;
  std::vector<uint8_t> slm_, vlm_;
  std::vector<uint8_t> breakpoints_;  // per bundle
  bool anyBreakpoint_ = false;
  std::vector<Watch> watches_;
  std::vector<bool> watchActive_;
  int lastWatchHit_ = -1;
  bool skipBreakpointOnce_ = false;
  std::string* trace_ = nullptr;
  const std::atomic<bool>* interrupt_ = nullptr;
  std::string printf_;
  CoreStats stats_;
  std::optional<Fault> fault_;
  uint64_t rng_ = 0;
  IndexBox box_;
};

}  // namespace tpc::sim
