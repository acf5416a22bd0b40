// Running a node of the kernel library on the simulator the way a graph compiler launches it: the node's
// tensors and parameters given to the glue code (instantiate), then the returned kernel object run over the
// returned index space with the returned scalars, the tensors bound inputs first, then outputs. Used by
// tpc-kernels, the tests, the benchmarks and the pipeline.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tpc/sim/launch.h"
#include "tpc/support/host_tensor.h"
#include "tpc_kernels/library.h"

namespace tpc::kernels {

struct NodeRun {
  std::string guid;
  std::string arch = "gaudi2";
  std::vector<HostTensor> inputs;   // read; an input the kernel stores to is updated in place
  std::vector<HostTensor> outputs;  // their dtype and shape set; the contents are the result
  std::vector<unsigned char> params;  // the family's parameter structure; empty: its defaults
  int cores = 0, threads = 0;       // 0: the architecture's cores, all host threads
  bool strictHazards = false;
  bool trace = false;  // one line per executed bundle per core, in the result's launch.trace (tpc-sim --trace)
};

struct NodeRunResult {
  GlueResult glue;                    // not ok: nothing ran
  std::optional<sim::Fault> fault;    // the kernel faulted: outputs are undefined
  sim::LaunchResult launch;
  sim::Dims5 space{1, 1, 1, 1, 1};
  std::vector<bool> stored;           // per tensor (inputs, then outputs): the kernel may store to it
  bool ok() const { return glue.ok() && !fault; }
};

// The glue API's view of a host tensor: dims (at least 1), sizes in TPC order, the data type.
tpc_lib_api::Tensor glueTensor(const HostTensor& t);

// Instantiates and runs the node; on success inputs the kernel stores to and all outputs hold the results.
NodeRunResult runNode(NodeRun& node);

}  // namespace tpc::kernels
