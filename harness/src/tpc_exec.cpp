#include "tpc/harness/tpc_exec.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "tpc_kernels/run.h"

namespace tpc::harness {

double TpcExec::timeOfRun(uint64_t cycles, const std::vector<HostTensor>& inputs,
                          const std::vector<HostTensor>& outputs) const {
  double bytes = 0;
  for (const HostTensor& t : inputs) bytes += static_cast<double>(t.numBytes());
  for (const HostTensor& t : outputs) bytes += static_cast<double>(t.numBytes());
  return std::max(model_.cyclesToUs(static_cast<double>(cycles)), bytes / model_.hbmBytesPerSecond * 1e6);
}

double TpcExec::run(const std::string& guid, std::vector<HostTensor>& inputs, std::vector<HostTensor>& outputs,
                    std::vector<unsigned char> params) {
  kernels::NodeRun node;
  node.guid = guid;
  node.inputs = std::move(inputs);
  node.outputs = std::move(outputs);
  node.params = std::move(params);
  node.cores = model_.tpcCores;
  node.threads = 1;  // the devices run on host threads of their own
  kernels::NodeRunResult r = kernels::runNode(node);
  inputs = std::move(node.inputs);
  outputs = std::move(node.outputs);
  if (!r.glue.ok())
    throw std::runtime_error(fmt::format("{}: {}: {}", guid, kernels::glueCodeName(r.glue.code), r.glue.message));
  if (r.fault) throw std::runtime_error(fmt::format("{}: {}", guid, r.fault->describe()));
  const uint64_t cycles = r.launch.maxCycles();
  ++runs_;
  cycles_ += cycles;
  return timeOfRun(cycles, inputs, outputs);
}

double TpcExec::timeOf(const std::string& guid, const std::vector<HostTensor>& inputs,
                       const std::vector<HostTensor>& outputs, std::vector<unsigned char> params) {
  std::string key = guid;
  for (const auto* list : {&inputs, &outputs})
    for (const HostTensor& t : *list) key += fmt::format("|{}{}", static_cast<int>(t.dtype), formatShape(t.shape));
  for (unsigned char c : params) key += fmt::format("{:02x}", c);
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  std::vector<HostTensor> in, out;
  for (const HostTensor& t : inputs) in.push_back(makeZeroTensor(t.dtype, t.shape));
  for (const HostTensor& t : outputs) out.push_back(makeZeroTensor(t.dtype, t.shape));
  const double us = run(guid, in, out, std::move(params));
  cache_.emplace(key, us);
  return us;
}

}  // namespace tpc::harness
