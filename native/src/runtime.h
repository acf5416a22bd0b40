// The runtime side of the native reference: the core a host thread is running, the entry point that the
// JIT-compiled thunks call for every intrinsic, and faults. A core's run is bracketed by runProtected(),
// which catches a fault raised inside the kernel (the semantics throw sim::ExecError) and records it on
// the core.
#pragma once

#include <functional>
#include <vector>

#include "call_plan.h"
#include "tpc/sim/core.h"

namespace tpc::native {

// Called by the kernel's code. The thunk of a call stores its arguments into the current core's registers
// (tpc_native_registers(), fetched once per kernel invocation), runs the plan's steps with
// tpc_native_exec (`tensor`: the tensor number of a step whose tensor comes from the call) and loads the
// result from a register. tpc_native_global_delta() is a host pointer into global memory minus the global
// address it stands for.
extern "C" void* tpc_native_registers();
extern "C" int64_t tpc_native_global_delta();
extern "C" void tpc_native_exec(const CallPlan* plan, uint32_t tensor);

// Helper functions that host code generation may call and the process does not provide, by name:
// __truncsfbf2 and __truncdfbf2 (the x86 backend keeps bf16 values in f32 registers and rounds them back
// with these; plain C bf16 conversions and arithmetic are instructions of the core, see module_rewrite.cpp).
struct Libcall {
  const char* name;
  void* address;
};
const std::vector<Libcall>& runtimeLibcalls();

// Runs `body` with `core` as this thread's current core. A fault inside stops the body (the kernel's
// frames are left with longjmp; they hold nothing to destroy) and is recorded on the core.
void runProtected(sim::Core& core, const std::function<void()>& body);

}  // namespace tpc::native
