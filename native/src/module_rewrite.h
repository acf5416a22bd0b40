// Prepares the kernel's bitcode for the host: retargets it, turns every intrinsic and printf call into a
// thunk that stores the arguments in stack buffers and calls the runtime with its call plan, drops the
// compiler's hardware-loop markers, and adds the two functions the launcher calls (the entry with host
// parameter types and the reset of the __local__ variables).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <llvm/IR/Module.h>

#include "call_plan.h"
#include "tpc/object/kernel_object.h"
#include "tpc/sim/program.h"

namespace tpc::native {

// Names of the functions prepareModule adds.
inline constexpr const char* kEntryName = "__tpc_native_entry";
inline constexpr const char* kResetLocalsName = "__tpc_native_reset_locals";

// How a parameter of the entry is passed (libffi type).
enum class ParamAbi : uint8_t { I8, U8, I16, U16, I32, U32, F32, Bits16 };

struct PreparedModule {
  std::vector<ParamAbi> params;                  // the entry's parameters, in source order
  std::vector<std::unique_ptr<CallPlan>> plans;  // referenced by address from the module's code
};

// Rewrites `m` in place for the host (triple and data layout given). Throws UserError when the bitcode is
// not a kernel the native path can run (the message names what and where).
PreparedModule prepareModule(llvm::Module& m, const obj::KernelObject& object, const sim::Program& program,
                             const std::string& hostTriple, const llvm::DataLayout& hostLayout);

}  // namespace tpc::native
