// tpc-sim: runs a kernel object on the simulated cores, binding .npy tensors and scalars to its parameters.
// Exit status: 0 success, 1 bad usage or input, 2 kernel fault (see DESIGN.md, tpc-sim contract).
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "tpc/native/native_kernel.h"
#include "tpc/object/kernel_object.h"
#include "tpc/sim/kernel_binding.h"
#include "tpc/sim/launch.h"
#include "tpc/sim/report.h"
#include "tpc/support/atomic_file.h"
#include "tpc/support/error.h"
#include "tpc/support/npy.h"
#include "tpc/support/tensor_spec.h"
#include "tpc/support/text.h"

namespace {

using tpc::UserError;

struct Args {
  std::string kernel;
  std::string arch;
  int cores = 0, threads = 0;
  std::string indexSpace;
  bool indexSpaceGiven = false;  // an empty --index-space '' is an error, not the default
  std::vector<std::string> tensors, scalars;
  bool stats = false, strict = false, native = false;
  std::string json, trace;
  uint64_t maxCycles = 0;
};

tpc::sim::Dims5 parseIndexSpace(const std::string& text) {
  if (auto d = tpc::sim::parseIndexSpace(text)) return *d;
  throw UserError(fmt::format("--index-space '{}': expected 1 to 5 positive sizes D0,D1,...",
                              tpc::escapeNonPrintable(text)));
}

int run(const Args& a) {
  if (a.native && (!a.json.empty() || !a.trace.empty()))
    throw UserError(fmt::format("{}: --native runs the kernel on the host without a cycle model; it writes no "
                                "statistics or trace (use --stats for the host time)",
                                !a.json.empty() ? "--json" : "--trace"));
  tpc::obj::KernelObject o = tpc::obj::readObjectFile(a.kernel);
  const tpc::isa::ArchInfo* arch = tpc::isa::findArch(a.arch.empty() ? o.arch : a.arch);
  if (!arch) throw UserError(fmt::format("--arch '{}': expected gaudi, gaudi2 or gaudi3", a.arch));

  tpc::sim::Program program;
  std::string why;
  if (!program.load(o.text, &why, arch) || !program.setPrintfFormats(o.printfFormats, &why))
    throw UserError(fmt::format("{}: {}", a.kernel, why));

  // Parameters in source order: tensors take -t arguments, scalars -s arguments, each in order.
  std::vector<const tpc::obj::Param*> tensorParams, scalarParams;
  for (const auto& p : o.params) (p.kind == tpc::obj::ParamKind::Tensor ? tensorParams : scalarParams).push_back(&p);
  auto names = [](const std::vector<const tpc::obj::Param*>& ps) {
    std::string s;
    for (const auto* p : ps) s += (s.empty() ? "" : ", ") + p->name;
    return s;
  };
  if (a.tensors.size() != tensorParams.size())
    throw UserError(fmt::format("kernel '{}' takes {} tensor(s) ({}), but {} -t argument(s) were given", o.kernelName,
                                tensorParams.size(), names(tensorParams), a.tensors.size()));
  if (a.scalars.size() != scalarParams.size())
    throw UserError(fmt::format("kernel '{}' takes {} scalar(s) ({}), but {} -s argument(s) were given", o.kernelName,
                                scalarParams.size(), names(scalarParams), a.scalars.size()));

  std::vector<tpc::TensorSpec> specs;
  std::vector<tpc::HostTensor> tensors;
  for (const std::string& t : a.tensors) {
    specs.push_back(tpc::parseTensorSpec(t));
    tensors.push_back(tpc::materialize(specs.back()));
  }
  std::vector<uint32_t> scalars;
  for (size_t k = 0; k < a.scalars.size(); ++k)
    scalars.push_back(tpc::sim::parseScalarArgument(a.scalars[k], scalarParams[k]->scalarType));

  std::vector<bool> stored = tpc::sim::tensorsStoredTo(program, static_cast<int>(tensors.size()));
  tpc::sim::Dims5 space = !a.indexSpaceGiven ? tpc::sim::defaultIndexSpace(tensors, stored)
                                             : parseIndexSpace(a.indexSpace);

  tpc::sim::LaunchOptions opt;
  opt.arch = arch;
  opt.cores = a.cores;
  opt.threads = a.threads;
  opt.strictHazards = a.strict;
  opt.maxCycles = a.maxCycles;
  opt.trace = !a.trace.empty();
  // --native: the same launch (tensors, index-space split, host threads), with each core's part run by
  // the JIT-compiled kernel instead of the simulator.
  std::unique_ptr<tpc::native::NativeKernel> native;
  if (a.native) {
    int cores = a.cores > 0 ? a.cores : arch->cores;
    native = tpc::native::NativeKernel::compile(o, program, tpc::sim::launchThreads(a.threads, cores), a.kernel);
    native->setScalars(scalars);
    opt.runner = native.get();
  }
  tpc::sim::Launch launch(program, opt);
  for (tpc::HostTensor& t : tensors) launch.addTensor(t.dtype, tpc::sim::tpcSizes(t.shape), std::move(t.data));
  launch.setScalars(scalars);
  launch.setIndexSpace(space);
  auto started = std::chrono::steady_clock::now();
  tpc::sim::LaunchResult r = launch.run();
  double hostSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  // What the kernel printed, core by core (also when it faulted: it helps to see how far it got).
  tpc::sim::printKernelOutput(r);
  if (r.fault) {
    tpc::sim::Fault f = *r.fault;
    if (a.native) {  // no bundle address: the message names the intrinsic
      std::fprintf(stderr, "tpc-sim: core %d: fault: %s\n", f.core, f.message.c_str());
      return 2;
    }
    f.where = tpc::sim::sourceLineOf(o, f.address);
    std::fprintf(stderr, "tpc-sim: %s\n", f.describe().c_str());
    if (opt.trace) {
      // No output file after a fault; show the end of the trace instead.
      size_t start = r.trace.size() > 4000 ? r.trace.find('\n', r.trace.size() - 4000) + 1 : 0;
      std::fprintf(stderr, "last executed bundles:\n%s", r.trace.c_str() + start);
    }
    return 2;
  }

  for (size_t n = 0; n < tensors.size(); ++n) {
    if (!stored[n]) continue;
    auto data = launch.tensorData(static_cast<int>(n));
    tensors[n].data.assign(data.begin(), data.end());
    tpc::writeNpy(specs[n].path, tensors[n]);
  }
  if (!a.json.empty()) {
    std::string text = tpc::sim::statsJson(r, space);
    tpc::writeFileAtomically(a.json, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  }
  if (!a.trace.empty())
    tpc::writeFileAtomically(a.trace, std::span(reinterpret_cast<const uint8_t*>(r.trace.data()), r.trace.size()));

  int active = 0;
  for (const auto& b : r.boxes) active += b.volume() > 0;
  std::printf("%s on %s: %d cores (%d active), index space [%lld,%lld,%lld,%lld,%lld]\n", o.kernelName.c_str(),
              std::string(arch->name).c_str(), launch.numCores(), active, (long long)space[0], (long long)space[1],
              (long long)space[2], (long long)space[3], (long long)space[4]);
  uint64_t stalls = 0;
  for (const auto& c : r.cores) stalls += c.stalls;
  if (a.native)
    std::printf("native run: %.3f ms host time\n", hostSeconds * 1e3);
  else
    std::printf("cycles %llu (slowest core), bundles %llu (all cores), stalls %llu\n", (unsigned long long)r.maxCycles(),
                (unsigned long long)r.totalBundles(), (unsigned long long)stalls);
  for (size_t n = 0; n < tensors.size(); ++n)
    if (stored[n])
      std::printf("wrote %s (%s %s)\n", specs[n].path.c_str(), std::string(tpc::dtypeName(tensors[n].dtype)).c_str(),
                  tpc::formatShape(tensors[n].shape).c_str());
  if (a.stats && !a.native) tpc::sim::printStats(r);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tpc-sim: run a TPC kernel object on the instruction-level simulator"};
  Args a;
  app.add_option("kernel", a.kernel, "kernel object (KERNEL.o)")->required();
  app.add_option("--arch", a.arch, "gaudi, gaudi2 or gaudi3 (default: the object's)");
  app.add_option("--cores", a.cores, "simulated cores (default: the architecture's count)")->check(CLI::Range(1, 4096));
  app.add_option("--threads", a.threads, "host threads (default: all)")->check(CLI::Range(1, 1024));
  auto* indexSpaceOpt =
      app.add_option("--index-space", a.indexSpace, "index space D0,D1,D2,D3,D4 (default: from the first stored tensor)");
  app.add_option("-t", a.tensors,
                 "tensor argument, in parameter order: FILE.npy, FILE.npy:DTYPE, or FILE.npy=DTYPE[S0,S1,...] to create");
  app.add_option("-s", a.scalars, "scalar argument, in parameter order, parsed by the parameter's type");
  app.add_flag("--stats", a.stats, "print per-core cycles, stalls and slot utilization");
  app.add_option("--json", a.json, "write the statistics as JSON");
  app.add_option("--trace", a.trace, "write one line per executed bundle");
  app.add_option("--max-cycles", a.maxCycles, "fault when a core runs this many cycles")
      ->check(CLI::NonNegativeNumber);  // a negative value would wrap around to no limit
  app.add_flag("--native", a.native,
               "run the kernel's bitcode JIT-compiled on the host (native reference; no cycles, --stats shows the "
               "host time)");
  app.add_flag("--strict-hazards", a.strict, "fault on reading a register whose write is in flight, instead of stalling");
  try {
    app.parse(argc, argv);
    a.indexSpaceGiven = indexSpaceOpt->count() > 0;
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 1;
  }
  try {
    return run(a);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tpc-sim: %s\n", e.what());
    return 1;
  }
}
