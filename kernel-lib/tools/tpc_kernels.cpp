// tpc-kernels: lists the kernel library's GUIDs and runs one on the simulator the way a graph compiler
// would launch it: the node made from the -t tensors and -p parameters, instantiated by the library's glue
// code, and its kernel object run over the index space the glue returns (DESIGN.md, "Kernel library").
// Exit status: 0 success, 1 bad usage, input or a node the glue rejects, 2 kernel fault.
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "node_arguments.h"
#include "tpc/sim/report.h"
#include "tpc/support/atomic_file.h"
#include "tpc/support/error.h"
#include "tpc/support/npy.h"
#include "tpc_kernels/run.h"

namespace {

using tpc::UserError;
namespace kernels = tpc::kernels;

struct RunArgs {
  std::string guid, arch = "gaudi2", json, trace;
  int cores = 0, threads = 0;
  std::vector<std::string> tensors, params;
  bool stats = false, strict = false;
};

tpc_lib_api::DeviceId deviceFor(const std::string& arch) {
  tpc_lib_api::DeviceId d = kernels::deviceOf(arch);
  if (d == tpc_lib_api::DEVICE_ID_MAX) throw UserError(fmt::format("--arch '{}': expected gaudi, gaudi2 or gaudi3", arch));
  return d;
}

int list(const std::string& arch) {
  for (const std::string& g : kernels::guids(deviceFor(arch))) std::printf("%s\n", g.c_str());
  return 0;
}

int run(const RunArgs& a) {
  deviceFor(a.arch);
  if (!kernels::paramSchema(a.guid))
    throw UserError(fmt::format("GLUE_NODE_NOT_FOUND: no kernel '{}' (tpc-kernels list --arch {})", a.guid, a.arch));
  kernels::tool::NodeTensors tensors = kernels::tool::readNodeTensors(a.tensors);
  kernels::NodeRun node;
  node.guid = a.guid;
  node.arch = a.arch;
  node.inputs.assign(tensors.tensors.begin(), tensors.tensors.begin() + static_cast<long>(tensors.inputs));
  node.outputs.assign(tensors.tensors.begin() + static_cast<long>(tensors.inputs), tensors.tensors.end());
  node.params = kernels::tool::nodeParams(a.guid, a.params);
  node.cores = a.cores;
  node.threads = a.threads;
  node.strictHazards = a.strict;
  node.trace = !a.trace.empty();
  kernels::NodeRunResult r = kernels::runNode(node);
  if (!r.glue.ok()) throw UserError(fmt::format("{}: {}", kernels::glueCodeName(r.glue.code), r.glue.message));
  tpc::sim::printKernelOutput(r.launch);
  if (r.fault) {
    std::fprintf(stderr, "tpc-kernels: %s: %s\n", a.guid.c_str(), r.fault->describe().c_str());
    return 2;
  }
  // Outputs, and inputs the kernel updates in place.
  for (size_t n = 0; n < tensors.specs.size(); ++n) {
    const bool isInput = n < tensors.inputs;
    const tpc::HostTensor& t = isInput ? node.inputs[n] : node.outputs[n - tensors.inputs];
    if (isInput && !r.stored[n]) continue;
    tpc::writeNpy(tensors.specs[n].path, t);
  }
  if (!a.trace.empty())
    tpc::writeFileAtomically(a.trace, std::span(reinterpret_cast<const uint8_t*>(r.launch.trace.data()), r.launch.trace.size()));
  if (!a.json.empty()) {
    std::string text = tpc::sim::statsJson(r.launch, r.space);
    tpc::writeFileAtomically(a.json, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  }
  uint64_t stalls = 0;
  for (const auto& c : r.launch.cores) stalls += c.stalls;
  const auto& s = r.space;
  std::printf("%s on %s: %zu cores, index space [%lld,%lld,%lld,%lld,%lld]\n", a.guid.c_str(), a.arch.c_str(),
              r.launch.cores.size(), (long long)s[0], (long long)s[1], (long long)s[2], (long long)s[3], (long long)s[4]);
  std::printf("cycles %llu (slowest core), bundles %llu (all cores), stalls %llu\n",
              (unsigned long long)r.launch.maxCycles(), (unsigned long long)r.launch.totalBundles(),
              (unsigned long long)stalls);
  for (size_t n = 0; n < tensors.specs.size(); ++n) {
    const bool isInput = n < tensors.inputs;
    if (isInput && !r.stored[n]) continue;
    const tpc::HostTensor& t = isInput ? node.inputs[n] : node.outputs[n - tensors.inputs];
    std::printf("wrote %s (%s %s)\n", tensors.specs[n].path.c_str(), std::string(tpc::dtypeName(t.dtype)).c_str(),
                tpc::formatShape(t.shape).c_str());
  }
  if (a.stats) tpc::sim::printStats(r.launch);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tpc-kernels: list and run the kernels of the TPC kernel library"};
  app.require_subcommand(1);
  std::string listArch = "gaudi2";
  CLI::App* listCmd = app.add_subcommand("list", "print the GUIDs, one per line");
  listCmd->add_option("--arch", listArch, "gaudi, gaudi2 or gaudi3 (default gaudi2)");
  RunArgs r;
  CLI::App* runCmd = app.add_subcommand("run", "instantiate a GUID for the -t tensors and run it on the simulator");
  runCmd->add_option("guid", r.guid, "the kernel (see list)")->required();
  runCmd->add_option("--arch", r.arch, "gaudi, gaudi2 or gaudi3 (default gaudi2)");
  runCmd->add_option("--cores", r.cores, "simulated cores (default: the architecture's)")->check(CLI::Range(1, 4096));
  runCmd->add_option("--threads", r.threads, "host threads (default: all)")->check(CLI::Range(1, 1024));
  runCmd->add_option("-t", r.tensors,
                     "tensors in the kernel's order: inputs FILE.npy[:DTYPE], then outputs FILE.npy=DTYPE[S0,S1,...]");
  runCmd->add_option("-p", r.params, "a node parameter NAME=VALUE (docs/kernel-lib.md)");
  runCmd->add_flag("--stats", r.stats, "print per-core cycles, stalls and slot utilization");
  runCmd->add_option("--json", r.json, "write the statistics as JSON");
  runCmd->add_option("--trace", r.trace, "write one line per executed bundle (as tpc-sim --trace)");
  runCmd->add_flag("--strict-hazards", r.strict, "fault on reading a register whose write is in flight");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 1;
  }
  try {
    if (listCmd->parsed()) return list(listArch);
    return run(r);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tpc-kernels: %s\n", e.what());
    return 1;
  }
}
