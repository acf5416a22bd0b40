// Binding a kernel object's parameters to command-line arguments: which tensors the code may store to,
// scalar values parsed by their declared type, and the default index space.
#pragma once

#include <string>
#include <vector>

#include "tpc/object/kernel_object.h"
#include "tpc/sim/index_space.h"
#include "tpc/sim/program.h"
#include "tpc/support/host_tensor.h"

namespace tpc::sim {

// Tensor numbers the program may write: targets of tensor stores, and tensors whose addresses gen_addr
// takes (a global store may go through them).
std::vector<bool> tensorsStoredTo(const Program& program, int numTensors);

// Parses a scalar argument as a value of type t into its 32-bit register form; throws UserError naming
// the text and the expected type.
uint32_t parseScalarArgument(const std::string& text, DType t);

// The TPC sizes (dimension 0 first) of a tensor with a NumPy shape (last axis first): (2,3,256) -> [256,3,2,1,1].
std::array<int64_t, 5> tpcSizes(const std::vector<int64_t>& numpyShape);

// Default index space: from the first tensor the kernel stores to, dimension 0 is its size 0 divided by
// the lanes of one vector of its type (rounded up), the others its sizes. Without stored tensors, the
// first tensor; without tensors, one point.
Dims5 defaultIndexSpace(const std::vector<HostTensor>& tensors, const std::vector<bool>& stored);

// "FILE:LINE:COLUMN" of the bundle at byte `address` from the object's line table; empty without one.
std::string sourceLineOf(const obj::KernelObject& object, uint32_t address);

}  // namespace tpc::sim
