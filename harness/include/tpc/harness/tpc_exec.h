// The TPC of a modelled device: kernel-library nodes run on the simulator for real (tpc_kernels/run.h),
// their simulated cycles (the slowest core's) being the TPC time. The simulator does not model HBM, so
// the time is at least the node's tensor bytes over the HBM bandwidth (docs/pipeline.md).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tpc/harness/device_model.h"
#include "tpc/support/host_tensor.h"

namespace tpc::harness {

class TpcExec {
 public:
  explicit TpcExec(const DeviceModel& model) : model_(model) {}

  // Runs the node: inputs are read (and updated when the kernel stores to them), outputs (dtype and shape
  // set) receive the results. Returns the modelled time in microseconds. Throws std::runtime_error when
  // the glue rejects the node or the kernel faults.
  double run(const std::string& guid, std::vector<HostTensor>& inputs, std::vector<HostTensor>& outputs,
             std::vector<unsigned char> params = {});

  // The modelled time of a node of these tensor types and shapes without its result: simulated once per
  // distinct (GUID, shapes, parameters) on zero-filled tensors, then remembered (used only where the
  // arithmetic is done on the host: tpc-allreduce-perf --host-reduce).
  double timeOf(const std::string& guid, const std::vector<HostTensor>& inputs,
                const std::vector<HostTensor>& outputs, std::vector<unsigned char> params = {});

  uint64_t simulatedRuns() const { return runs_; }
  uint64_t simulatedCycles() const { return cycles_; }

 private:
  double timeOfRun(uint64_t cycles, const std::vector<HostTensor>& inputs, const std::vector<HostTensor>& outputs) const;
  const DeviceModel& model_;
  std::map<std::string, double> cache_;
  uint64_t runs_ = 0, cycles_ = 0;
};

}  // namespace tpc::harness
