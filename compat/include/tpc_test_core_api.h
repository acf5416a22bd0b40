// The TPC test core: runs a glue-code instantiation on the simulator, over tensors in the caller's memory.
#ifndef TPC_TEST_CORE_API_H
#define TPC_TEST_CORE_API_H

#include <vector>

#include "tpc_kernel_lib_interface.h"
#include "tpc_test_core_types.h"

namespace tpc_tests {

// Runs the kernel ELF of `instance` (kernel.kernelElf, kernel.elfSize bytes) over its index space
// (indexSpaceRank, indexSpaceGeometry) on every core of the kernel's architecture (or params.maxAvailableTpc
// cores, when set), with kernel.scalarParams as its scalar arguments. descriptors[n] binds the kernel's
// tensor n: inputs, then outputs, then auxiliary tensors, as the kernel declares them. Tensors are read
// from and written to the caller's memory through the descriptors' base addresses; outputs with
// memsetBeforeExecution are first filled with their memsetValue.
//
// Returns the cycle count of the slowest core, and fills stats. When the request is inconsistent (too few
// descriptors, a null base, overlapping strides, sizes that differ from the node's tensors, an index space
// past a tensor) or the kernel faults, it prints a message naming the tensor and field (or the core and
// bundle) on stderr, returns 0, and sets stats.status and stats.errorMessage; after a refusal no memory
// was written, after a fault tensors may be partly written.
unsigned int RunSimulation(const tpc_lib_api::HabanaKernelParams& params,
                           const tpc_lib_api::HabanaKernelInstantiation& instance,
                           std::vector<TensorDesc2>& descriptors, VPEStats& stats);

}  // namespace tpc_tests

#endif  // TPC_TEST_CORE_API_H
