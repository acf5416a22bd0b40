// The native reference path: the kernel's LLVM bitcode (carried in the object) JIT-compiled for the host
// with LLVM ORC, its intrinsic calls executed by the simulator's own semantics functions on a scratch
// register context of the core, and its entry called through libffi with the kernel's parameter list.
// A NativeKernel plugs into sim::Launch as its CoreRunner, so the index-space split, the tensors in global
// memory, the host threads, printf output and faults are the simulator's. See docs/native.md.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tpc/object/kernel_object.h"
#include "tpc/sim/launch.h"
#include "tpc/sim/program.h"

namespace tpc::native {

class NativeKernel : public sim::CoreRunner {
 public:
  // Compiles the object's bitcode once per host thread (each copy has its own __local__ variables; the
  // cores a host thread runs use them one after another). `program` is the object's decoded code (for
  // the printf format table) and must outlive the kernel. Throws UserError, prefixed with `objectName`,
  // when the object carries no bitcode or its bitcode cannot run on the host.
  static std::unique_ptr<NativeKernel> compile(const obj::KernelObject& object, const sim::Program& program,
                                               int hostThreads, const std::string& objectName);
  ~NativeKernel() override;

  // The scalar arguments in parameter order, in their 32-bit register form (sim::parseScalarArgument).
  void setScalars(std::vector<uint32_t> scalars);

  // Runs the kernel over the core's box (sim::CoreRunner); a fault is recorded on the core.
  void runCore(sim::Core& core, int hostThread) override;

 private:
  struct Impl;
  explicit NativeKernel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tpc::native
