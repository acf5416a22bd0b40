// tpc-kernels: a node of the kernel library made from command-line arguments: the tensors of -t (inputs,
// then outputs, in the kernel's order) and the node parameters of -p NAME=VALUE.
#pragma once

#include <string>
#include <vector>

#include "tpc/support/host_tensor.h"
#include "tpc/support/tensor_spec.h"
#include "tpc_kernels/library.h"

namespace tpc::kernels::tool {

// The node's tensors: -t arguments that read a file are inputs, those that create one (FILE.npy=DTYPE[...])
// outputs; inputs come first. Throws UserError naming the argument.
struct NodeTensors {
  std::vector<TensorSpec> specs;
  std::vector<HostTensor> tensors;  // inputs, then outputs
  size_t inputs = 0;
};
NodeTensors readNodeTensors(const std::vector<std::string>& args);

// The GUID's parameter structure with its defaults and each -p NAME=VALUE applied; throws UserError.
std::vector<unsigned char> nodeParams(const std::string& guid, const std::vector<std::string>& assignments);

}  // namespace tpc::kernels::tool
