#include "runtime.h"

#include <csetjmp>
#include <cstddef>
#include <cstring>
#include <string>

#include "tpc/sim/fault.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define TPC_NATIVE_MXCSR 1
#endif

namespace tpc::native {

namespace {

// Plain C arithmetic of the kernel runs as host floating point; the core flushes denormal inputs and
// results to zero, and so does the host while kernel code runs (SSE/AVX FTZ and DAZ). The semantics
// functions run in the host's normal mode, exactly as in the simulator.
class HostFloatMode {
 public:
#ifdef TPC_NATIVE_MXCSR
  static constexpr unsigned kFlushBits = 0x8040u;  // FTZ | DAZ
  HostFloatMode() : saved_(_mm_getcsr()) {}
  void kernel() const { _mm_setcsr(saved_ | kFlushBits); }
  void host() const { _mm_setcsr(saved_); }

 private:
  unsigned saved_;
#else
  void kernel() const {}
  void host() const {}
#endif
};

struct ThreadState {
  sim::Core* core = nullptr;
  std::jmp_buf* escape = nullptr;
  std::string fault;
  const HostFloatMode* mode = nullptr;
};
// initial-exec: the library is linked into executables, and the thunks reach this on every call.
thread_local ThreadState tls __attribute__((tls_model("initial-exec")));

// Runs the steps; returns false with tls.fault set when the semantics faulted.
bool execute(sim::Core& c, const CallPlan& plan, uint32_t tensor) {
  try {
    for (const PlanStep& step : plan.steps) {
      const sim::DecodedSlot* d = &step.slot;
      sim::DecodedSlot withTensor;
      if (step.runtimeTensor) {
        withTensor = step.slot;
        withTensor.sw = isa::switchField(isa::SwitchField::Tensor).set(withTensor.sw, tensor & 0xffu);
        d = &withTensor;
      }
      // The execution loop tests scalar predicates; vector predicates are applied per lane by the semantics.
      if (!d->always && !d->predVector && (c.r.sp[d->predIndex] != 0) == d->predNegate) continue;
      d->fn(c, *d);
    }
    return true;
  } catch (const std::exception& e) {
    tls.fault = plan.name + ": " + e.what();
    return false;
  }
}

// f32 -> bf16 rounded to nearest even, NaN kept quiet; exact for values that came from bf16. The result
// is returned as the compiler-rt function does: the 16 bits in the low half of xmm0, where _Float16 is.
_Float16 bf16Result(uint32_t f32bits) {
  uint16_t b = (f32bits & 0x7fffffffu) > 0x7f800000u
                   ? static_cast<uint16_t>((f32bits >> 16) | 0x40u)
                   : static_cast<uint16_t>((f32bits + 0x7fffu + ((f32bits >> 16) & 1u)) >> 16);
  _Float16 r;
  std::memcpy(&r, &b, sizeof r);
  return r;
}
_Float16 truncsfbf2(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bf16Result(bits);
}
_Float16 truncdfbf2(double x) { return truncsfbf2(static_cast<float>(x)); }

}  // namespace

const std::vector<Libcall>& runtimeLibcalls() {
  static const std::vector<Libcall> calls = {
      {"__truncsfbf2", reinterpret_cast<void*>(&truncsfbf2)},
      {"__truncdfbf2", reinterpret_cast<void*>(&truncdfbf2)},
  };
  return calls;
}

size_t registerOffset(isa::RegFile file, uint8_t reg) {
  using isa::RegFile;
  switch (file) {
    case RegFile::V: return offsetof(sim::RegisterFile, v) + reg * sizeof(sim::VReg);
    case RegFile::S: return offsetof(sim::RegisterFile, s) + reg * sizeof(uint32_t);
    case RegFile::I: return offsetof(sim::RegisterFile, i) + reg * sizeof(sim::IReg);
    case RegFile::SP: return offsetof(sim::RegisterFile, sp) + reg * sizeof(uint8_t);
    case RegFile::VP: return offsetof(sim::RegisterFile, vp) + reg * sizeof(sim::VPReg);
    case RegFile::AD: return offsetof(sim::RegisterFile, ad) + reg * sizeof(uint64_t);
    default: return 0;
  }
}

extern "C" void* tpc_native_registers() { return &tls.core->r; }

extern "C" int64_t tpc_native_global_delta() {
  const uint8_t* base = tls.core->global().hostPtr(sim::GlobalMemory::kBase);
  return static_cast<int64_t>(reinterpret_cast<uintptr_t>(base) - sim::GlobalMemory::kBase);
}

extern "C" void tpc_native_exec(const CallPlan* plan, uint32_t tensor) {
  tls.mode->host();
  bool ok = execute(*tls.core, *plan, tensor);
  tls.mode->kernel();
  if (!ok) std::longjmp(*tls.escape, 1);
}

void runProtected(sim::Core& core, const std::function<void()>& body) {
  std::jmp_buf escape;
  HostFloatMode mode;
  tls.core = &core;
  tls.escape = &escape;
  tls.mode = &mode;
  tls.fault.clear();
  if (setjmp(escape) == 0) {
    mode.kernel();
    body();
    mode.host();
  } else {
    mode.host();
    core.recordFault("native run: " + tls.fault);
  }
  tls.mode = nullptr;
  tls.core = nullptr;
  tls.escape = nullptr;
}

}  // namespace tpc::native
