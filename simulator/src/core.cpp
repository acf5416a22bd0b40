#include "tpc/sim/core.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "exec_common.h"
#include "tpc/isa/asm_text.h"

namespace tpc::sim {

namespace {
std::span<const uint8_t> watchedBytes(Core& c, const Watch& w);
void rememberWatched(Core& c, Watch& w);
}  // namespace

std::string Fault::describe() const {
  std::string s = fmt::format("core {}: fault at 0x{:x}", core, address);
  if (!where.empty()) s += fmt::format(" ({})", where);
  return s + ": " + message;
}

Core::Core(const CoreEnv& env, int id) : env_(env), id_(id) {
  slm_.assign(env.arch->scalarLocalBytes, 0);
  vlm_.assign(env.arch->vectorLocalBytes, 0);
  breakpoints_.assign(env.program->size(), 0);
  r.clear();
}

void Core::reset(const IndexBox& box, std::span<const uint32_t> scalarParams) {
  r.clear();
  std::fill(slm_.begin(), slm_.end(), 0);
  std::fill(vlm_.begin(), vlm_.end(), 0);
  pc_ = 0;
  cycle_ = 0;
  halted_ = false;
  ready_.fill(0);
  loopDepth_ = 0;
  stats_ = CoreStats{};
  fault_.reset();
  control = Control::None;
  rng_ = 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(id_ + 1);
  mmio = MmioRegisters{};
  for (size_t k = 0; k < scalarParams.size() && k < static_cast<size_t>(isa::kNumSRegs); ++k) r.s[k] = scalarParams[k];
  for (int k = 0; k < 5; ++k) {
    r.i[isa::kIndexSpaceOffsetReg][k] = static_cast<int32_t>(box.offset[k]);
    r.i[isa::kIndexSpaceSizeReg][k] = static_cast<int32_t>(box.size[k]);
  }
  box_ = box;
  skipBreakpointOnce_ = false;
  for (Watch& w : watches_) rememberWatched(*this, w);
}

void Core::setBreakpoint(uint32_t address, bool enabled) {
  uint32_t index = address / static_cast<uint32_t>(isa::kBundleBytes);
  if (index < breakpoints_.size()) breakpoints_[index] = enabled;
  anyBreakpoint_ = std::any_of(breakpoints_.begin(), breakpoints_.end(), [](uint8_t b) { return b != 0; });
}

void Core::clearBreakpoints() {
  std::fill(breakpoints_.begin(), breakpoints_.end(), 0);
  anyBreakpoint_ = false;
}

int Core::addWatch(Watch w) {
  rememberWatched(*this, w);
  watches_.push_back(std::move(w));
  watchActive_.push_back(true);
  return static_cast<int>(watches_.size()) - 1;
}

void Core::removeWatch(int number) {
  if (number >= 0 && number < static_cast<int>(watchActive_.size())) watchActive_[number] = false;
}

const TensorDesc& Core::tensor(uint32_t n) const {
  if (n >= env_.tensors->size() || !(*env_.tensors)[n].valid)
    throw ExecError(fmt::format("tensor {} is not bound to the kernel", n));
  return (*env_.tensors)[n];
}

uint8_t* Core::scalarLocalAt(uint64_t address, uint32_t bytes) {
  if (address % bytes || address + bytes > slm_.size())
    throw ExecError(fmt::format("scalar local memory access of {} bytes at 0x{:x} is {} (size {} bytes)", bytes,
                                address, address % bytes ? "misaligned" : "out of range", slm_.size()));
  return slm_.data() + address;
}

uint8_t* Core::vectorLocalAt(uint64_t address) {
  if (address % isa::kVectorBytes || address + isa::kVectorBytes > vlm_.size())
    throw ExecError(fmt::format("vector local memory access at 0x{:x} is {} (size {} bytes, 256-byte aligned)",
                                address, address % isa::kVectorBytes ? "misaligned" : "out of range", vlm_.size()));
  return vlm_.data() + address;
}

const uint8_t* Core::globalForRead(uint64_t address, uint32_t bytes) {
  if (env_.allowUnguardedReads && !env_.global->contains(address, bytes) && env_.global->inArena(address, bytes)) {
    if (stats_.unguardedReads++ == 0) {
      stats_.firstUnguardedAddress = address;
      stats_.firstUnguardedBundle = static_cast<uint32_t>(pc() * isa::kBundleBytes);
    }
    return env_.global->hostPtr(address);
  }
  return globalAt(address, bytes);
}

uint8_t* Core::globalAt(uint64_t address, uint32_t bytes) {
  if (!env_.global->contains(address, bytes))
    throw ExecError(fmt::format("global memory access of {} bytes at 0x{:x} is outside every tensor", bytes, address));
  return env_.global->hostPtr(address);
}

namespace {
// The MMIO register at `offset`, or a fault that says which registers this architecture models.
uint32_t* mmioRegister(const isa::ArchInfo& arch, MmioRegisters& regs, uint64_t offset, const char* access) {
  if (arch.convRoundCsr != 0 && offset == arch.convRoundCsr) return &regs.convRoundCsr;
  if (arch.semaphore != 0 && offset == arch.semaphore) return &regs.semaphore;
  if (arch.convRoundCsr == 0 && arch.semaphore == 0)
    throw ExecError(fmt::format("{} of MMIO offset 0x{:x}: no MMIO register is modelled on {}", access, offset,
                                arch.name));
  throw ExecError(fmt::format("{} of MMIO offset 0x{:x}: not a modelled register (CONV_ROUND_CSR is 0x{:x}, "
                              "SEMAPHORE 0x{:x} on {})",
                              access, offset, arch.convRoundCsr, arch.semaphore, arch.name));
}
}  // namespace

uint32_t Core::readMmio(uint64_t offset) { return *mmioRegister(*env_.arch, mmio, offset, "ld_l"); }

void Core::writeMmio(uint64_t offset, uint32_t value) {
  uint32_t* reg = mmioRegister(*env_.arch, mmio, offset, "st_l");
  if (reg != &mmio.convRoundCsr) {
    *reg = value;
    return;
  }
  // CONV_ROUND_CSR keeps 3 bits: a rounding code, which may not itself say "take it from the CSR".
  const uint32_t mode = value & 7u;
  if (isa::roundingModeFromVendor(mode) == isa::RoundingMode::CSR)
    throw ExecError(fmt::format("st_l of CONV_ROUND_CSR: mode {} (csr) is not a rounding mode", mode));
  *reg = mode;
}

uint32_t Core::nextRandom() {
  rng_ ^= rng_ >> 12;
  rng_ ^= rng_ << 25;
  rng_ ^= rng_ >> 27;
  return static_cast<uint32_t>((rng_ * 0x2545F4914F6CDD1Dull) >> 32);
}

bool Core::predicateTrue(const DecodedSlot& d) const { return (r.sp[d.predIndex] != 0) != d.predNegate; }

StopReason Core::raise(std::string message) {
  fault_ = Fault{id_, pcAddress(), std::move(message), {}};
  return StopReason::Fault;
}

namespace {

// The bytes a watch looks at now; empty when its range lies outside the memory.
std::span<const uint8_t> watchedBytes(Core& c, const Watch& w) {
  const RegisterFile& r = c.r;
  auto bytesOf = [](const auto& x) { return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&x), sizeof x); };
  switch (w.space) {
    case Watch::Space::Register:
      switch (w.file) {
        case isa::RegFile::V: return bytesOf(r.v[w.index].bytes);
        case isa::RegFile::S: return bytesOf(r.s[w.index]);
        case isa::RegFile::I: return bytesOf(r.i[w.index]);
        case isa::RegFile::SP: return bytesOf(r.sp[w.index]);
        case isa::RegFile::VP: return bytesOf(r.vp[w.index]);
        case isa::RegFile::AD: return bytesOf(r.ad[w.index]);
        default: return {};
      }
    case Watch::Space::ScalarLocal:
      if (w.address + w.bytes <= c.scalarLocal().size()) return c.scalarLocal().subspan(w.address, w.bytes);
      return {};
    case Watch::Space::VectorLocal:
      if (w.address + w.bytes <= c.vectorLocal().size()) return c.vectorLocal().subspan(w.address, w.bytes);
      return {};
    case Watch::Space::Global:
      if (c.global().contains(w.address, w.bytes)) return {c.global().hostPtr(w.address), w.bytes};
      return {};
  }
  return {};
}

// A watch compares against the value at the time it is set (or at the last reset), so that the very first
// bundle that changes it stops the run.
void rememberWatched(Core& c, Watch& w) {
  std::span<const uint8_t> now = watchedBytes(c, w);
  w.last.assign(now.begin(), now.end());
}

std::string regName(uint16_t id) {
  auto file = static_cast<isa::RegFile>(id / kRegIdsPerFile);
  return fmt::format("{}{}", isa::regFilePrefix(file), id % kRegIdsPerFile);
}

}  // namespace

StopReason Core::run() {
  bool slow = anyBreakpoint_ || trace_ != nullptr || !watches_.empty() || interrupt_ != nullptr;
  return slow ? runLoop<true>(false) : runLoop<false>(false);
}

StopReason Core::step() { return runLoop<true>(true); }

template <bool kSlow> StopReason Core::runLoop(bool single) {
  if (halted_) return StopReason::Halted;
  if (fault_) return StopReason::Fault;
  const Program& prog = *env_.program;
  const uint32_t n = static_cast<uint32_t>(prog.size());
  const uint64_t penalty = static_cast<uint64_t>(env_.arch->branchPenalty);
  const uint64_t maxCycles = env_.maxCycles;
  const bool strict = env_.strictHazards;
  // A run that resumes from a breakpoint, and a single step, run the bundle at pc even if it has a
  // breakpoint; any other run stops before it (a breakpoint at the entry stops the first run).
  const bool resuming = single || skipBreakpointOnce_;
  skipBreakpointOnce_ = false;
  bool first = true;
  try {
    for (;;) {
      if (pc_ >= n) return raise("execution ran past the end of the code (no halt)");
      if constexpr (kSlow) {
        // A breakpoint stops before its bundle runs; resuming from it runs that bundle.
        if (interrupt_ && !first && interrupt_->load(std::memory_order_relaxed)) return StopReason::Interrupted;
        if (anyBreakpoint_ && breakpoints_[pc_] && !(first && resuming)) {
          skipBreakpointOnce_ = true;
          return StopReason::Breakpoint;
        }
      }
      first = false;
      const DecodedBundle& b = prog.bundle(pc_);

      // Hazards: wait until every register read is ready and every write lands after the one in flight.
      uint64_t issue = cycle_;
      for (int k = 0; k < b.numReads; ++k) issue = std::max(issue, ready_[b.reads[k]]);
      for (int k = 0; k < b.numWrites; ++k) {
        const HazardWrite& w = b.writes[k];
        if (ready_[w.reg] >= w.latency) issue = std::max(issue, ready_[w.reg] - w.latency + 1);
      }
      if (issue != cycle_) {
        if (strict) {
          for (int k = 0; k < b.numReads; ++k)
            if (ready_[b.reads[k]] > cycle_)
              return raise(fmt::format("hazard: {} is read {} cycle(s) before its pending write lands "
                                       "(--strict-hazards)", regName(b.reads[k]), ready_[b.reads[k]] - cycle_));
          return raise("hazard: a register is overwritten before an earlier, longer-latency write to it lands "
                       "(--strict-hazards)");
        }
        stats_.stalls += issue - cycle_;
        cycle_ = issue;
      }
      if (maxCycles && cycle_ >= maxCycles)
        return raise(fmt::format("cycle limit of {} reached (--max-cycles)", maxCycles));

      for (int k = 0; k < b.numStaging; ++k) {
        const StagingCopy& s = b.staging[k];
        switch (s.file) {
          case isa::RegFile::V: r.v[s.to] = r.v[s.from]; break;
          case isa::RegFile::S: r.s[s.to] = r.s[s.from]; break;
          case isa::RegFile::I: r.i[s.to] = r.i[s.from]; break;
          case isa::RegFile::SP: r.sp[s.to] = r.sp[s.from]; break;
          case isa::RegFile::VP: r.vp[s.to] = r.vp[s.from]; break;
          case isa::RegFile::AD: r.ad[s.to] = r.ad[s.from]; break;
          default: break;
        }
      }

      control = Control::None;
      for (int s = 0; s < isa::kNumSlots; ++s) {
        const DecodedSlot& d = b.slots[s];
        if (!d.fn) continue;
        ++stats_.slotBusy[s];
        if (!d.always && !d.predVector && !predicateTrue(d)) continue;
        d.fn(*this, d);
        stats_.vectorLaneOps += d.vectorLanes;
      }
      for (int k = 0; k < b.numWrites; ++k) ready_[b.writes[k].reg] = cycle_ + b.writes[k].latency;
      const uint64_t issuedAt = cycle_;
      ++cycle_;
      ++stats_.bundles;

      uint32_t next = pc_ + 1;
      if (b.hasControl && control != Control::None) {
        switch (control) {
          case Control::Jump:
            next = controlTarget;
            cycle_ += penalty;
            stats_.branchCycles += penalty;
            // Leaving a hardware loop's body ends that loop.
            while (loopDepth_ > 0 && (next < loops_[loopDepth_ - 1].startPc || next > loops_[loopDepth_ - 1].endPc))
              --loopDepth_;
            break;
          case Control::LoopStart:
            if (loopDepth_ == static_cast<int>(loops_.size()))
              return raise(fmt::format("hardware loops nested deeper than {}", loops_.size()));
            pendingLoop.startPc = pc_ + 1;
            loops_[loopDepth_++] = pendingLoop;
            break;
          case Control::LoopSkip: next = controlTarget; break;
          case Control::Halt: halted_ = true; break;
          case Control::None: break;
        }
      } else if (b.isLoopEnd) {
        // End of a loop body: step the innermost loop ending here; a finished loop may end an outer one too.
        while (loopDepth_ > 0 && loops_[loopDepth_ - 1].endPc == pc_) {
          LoopFrame& f = loops_[loopDepth_ - 1];
          int32_t it = static_cast<int32_t>(static_cast<uint32_t>(r.s[f.iterReg]) + static_cast<uint32_t>(f.step));
          r.s[f.iterReg] = static_cast<uint32_t>(it);
          ready_[regId(isa::RegFile::S, f.iterReg)] = cycle_;
          if (exec::loopIterationContinues(f, it)) {
            next = f.startPc;
            break;
          }
          --loopDepth_;
        }
      }

      if constexpr (kSlow) {
        if (trace_) traceBundle(b, pc_, issuedAt);
      }
      pc_ = next;
      stats_.cycles = cycle_;
      if (halted_) return StopReason::Halted;
      if constexpr (kSlow) {
        if (!watches_.empty() && checkWatches()) return StopReason::Watchpoint;
      }
      if (single) return StopReason::StepDone;
    }
  } catch (const ExecError& e) {
    stats_.cycles = cycle_;
    return raise(e.what());
  }
}

template StopReason Core::runLoop<true>(bool);
template StopReason Core::runLoop<false>(bool);

bool Core::checkWatches() {
  bool hit = false;
  for (size_t k = 0; k < watches_.size(); ++k) {
    if (!watchActive_[k]) continue;
    Watch& w = watches_[k];
    std::span<const uint8_t> now = watchedBytes(*this, w);
    if (now.empty()) continue;
    if (w.last.size() != now.size()) {
      w.last.assign(now.begin(), now.end());  // first look: remember the value
      continue;
    }
    if (std::memcmp(w.last.data(), now.data(), now.size()) != 0) {
      w.last.assign(now.begin(), now.end());
      if (!hit) lastWatchHit_ = static_cast<int>(k);
      hit = true;
    }
  }
  return hit;
}

void Core::traceBundle(const DecodedBundle& b, uint32_t pc, uint64_t issueCycle) {
  std::string line = fmt::format("core {} cycle {} 0x{:04x}: {}", id_, issueCycle, pc * isa::kBundleBytes,
                                 isa::formatBundle(env_.program->raw(pc)));
  if (b.numWrites) {
    line += " | writes:";
    for (int k = 0; k < b.numWrites; ++k) {
      uint16_t id = b.writes[k].reg;
      auto file = static_cast<isa::RegFile>(id / kRegIdsPerFile);
      int index = id % kRegIdsPerFile;
      line += " " + regName(id);
      if (file == isa::RegFile::S) line += fmt::format("=0x{:08x}", r.s[index]);
      else if (file == isa::RegFile::SP) line += fmt::format("={}", r.sp[index]);
      else if (file == isa::RegFile::AD) line += fmt::format("=0x{:x}", r.ad[index]);
      else if (file == isa::RegFile::I)
        line += fmt::format("=[{},{},{},{},{}]", r.i[index][0], r.i[index][1], r.i[index][2], r.i[index][3], r.i[index][4]);
    }
  }
  *trace_ += line;
  *trace_ += '\n';
}

}  // namespace tpc::sim
