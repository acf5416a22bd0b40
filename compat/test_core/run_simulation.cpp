// tpc_tests::RunSimulation: a glue-code instantiation run on the simulator over the caller's tensors.
// Checks first (nothing runs and nothing is written unless the request is consistent), then one launch.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "caller_memory.h"
#include "descriptor_view.h"
#include "tpc/object/kernel_object.h"
#include "tpc/sim/kernel_binding.h"
#include "tpc/sim/launch.h"
#include "tpc/support/text.h"
#include "tpc_test_core_api.h"

namespace tpc::test_core {
namespace {

using tpc_lib_api::HabanaKernelInstantiation;
using tpc_lib_api::HabanaKernelParams;

// A kernel that loops forever stops here (per core); TPC_TEST_CORE_MAX_CYCLES overrides it.
constexpr uint64_t kDefaultMaxCycles = 1ull << 32;

const char* deviceArch(tpc_lib_api::DeviceId id) {
  switch (id) {
    case tpc_lib_api::DEVICE_ID_GAUDI: return "gaudi";
    case tpc_lib_api::DEVICE_ID_GAUDI2: return "gaudi2";
    case tpc_lib_api::DEVICE_ID_GAUDI3: return "gaudi3";
    default: return nullptr;
  }
}

// What descriptor n is to the node: an input, an output or an auxiliary tensor (in the kernel's order).
std::string roleOf(int n, const HabanaKernelParams& p, const HabanaKernelInstantiation& k) {
  int in = static_cast<int>(p.inputTensorNr), out = static_cast<int>(p.outputTensorNr);
  if (n < in) return fmt::format("descriptor {} (input {})", n, n);
  if (n < in + out) return fmt::format("descriptor {} (output {})", n, n - in);
  if (n < in + out + static_cast<int>(k.auxiliaryTensorNr))
    return fmt::format("descriptor {} (auxiliary tensor {})", n, n - in - out);
  return fmt::format("descriptor {}", n);
}

// The node's geometry of the tensor descriptor n stands for, when the node has one.
const tpc_lib_api::TensorGeometry* nodeGeometry(int n, const HabanaKernelParams& p, const HabanaKernelInstantiation& k,
                                                std::string* field) {
  int in = static_cast<int>(p.inputTensorNr), out = static_cast<int>(p.outputTensorNr);
  if (n < in && p.inputTensors) {
    *field = fmt::format("params.inputTensors[{}].geometry", n);
    return &p.inputTensors[n].geometry;
  }
  if (n >= in && n < in + out && p.outputTensors) {
    *field = fmt::format("params.outputTensors[{}].geometry", n - in);
    return &p.outputTensors[n - in].geometry;
  }
  int aux = n - in - out;
  if (aux >= 0 && aux < static_cast<int>(k.auxiliaryTensorNr) && k.auxiliaryTensors) {
    *field = fmt::format("instance.auxiliaryTensors[{}].geometry", aux);
    return &k.auxiliaryTensors[aux].geometry;
  }
  return nullptr;
}

// The descriptor must describe the tensor the glue code was asked about.
void checkAgainstNode(const DescriptorView& v, const tpc_lib_api::TensorGeometry& g, const std::string& field) {
  if (g.dims == 0) return;  // the node does not say
  if (g.dims > tpc_lib_api::MAX_TENSOR_DIM)
    throw Refusal(fmt::format("{}: {}.dims is {}, more than {}", v.role, field, g.dims, tpc_lib_api::MAX_TENSOR_DIM));
  for (uint32_t d = 0; d < g.dims; ++d) {
    int64_t have = d < static_cast<uint32_t>(sim::kMaxDims) ? v.tensor.sizes[d] : 1;
    if (static_cast<uint64_t>(have) != g.maxSizes[d])
      throw Refusal(fmt::format("{}: dimDescriptors[{}].size is {}, but {}.maxSizes[{}] is {}", v.role, d, have, field,
                                d, g.maxSizes[d]));
  }
}

// Fills every element of view n with the access pattern's memsetValue, in the copy the kernel will see.
void memsetView(CallerMemory& memory, const DescriptorView& v, const tpc_lib_api::ElementValue& value) {
  uint64_t offset = 0;
  std::vector<uint8_t>& bytes = memory.regionOf(v.number, &offset);
  const size_t size = dtypeSize(v.tensor.dtype);
  const auto& s = v.tensor.sizes;
  const auto& st = v.tensor.strides;
  for (int64_t c4 = 0; c4 < s[4]; ++c4)
    for (int64_t c3 = 0; c3 < s[3]; ++c3)
      for (int64_t c2 = 0; c2 < s[2]; ++c2)
        for (int64_t c1 = 0; c1 < s[1]; ++c1)
          for (int64_t c0 = 0; c0 < s[0]; ++c0) {
            uint64_t e = static_cast<uint64_t>(c0 * st[0] + c1 * st[1] + c2 * st[2] + c3 * st[3] + c4 * st[4]);
            std::memcpy(bytes.data() + offset + e * size, &value, size);
          }
}

// Loads outside every tensor ran (the hardware would read whatever memory follows); the caller is told which
// tensor the first one passed, and stats.status becomes 3.
void reportUnguardedReads(const sim::LaunchResult& result, const sim::Launch& launch,
                          const std::vector<DescriptorView>& views, VPEStats& stats) {
  const sim::CoreStats* first = nullptr;
  int firstCore = 0;
  for (size_t c = 0; c < result.cores.size(); ++c) {
    stats.unguardedReads += result.cores[c].unguardedReads;
    if (result.cores[c].unguardedReads && !first) {
      first = &result.cores[c];
      firstCore = static_cast<int>(c);
    }
  }
  if (!first) return;
  // The tensor whose memory ends closest below the address.
  const DescriptorView* past = nullptr;
  uint64_t pastEnd = 0;
  for (const DescriptorView& v : views) {
    uint64_t end = launch.tensorAddress(v.number) + v.spanBytes;
    if (v.spanBytes && end <= first->firstUnguardedAddress && (!past || end > pastEnd)) {
      past = &v;
      pastEnd = end;
    }
  }
  std::string where = past ? fmt::format("{} bytes past the end of {}", first->firstUnguardedAddress - pastEnd, past->role)
                           : std::string("before the first tensor");
  std::string text = fmt::format(
      "tpc_tests::RunSimulation: warning: the kernel read memory outside every tensor {} time(s): first core {}, "
      "bundle 0x{:x}, {}; the index space reaches past that tensor where the kernel does not guard its global "
      "loads, and the hardware would read whatever memory follows",
      stats.unguardedReads, firstCore, first->firstUnguardedBundle, where);
  std::fprintf(stderr, "%s\n", text.c_str());
  stats.status = 3;
  std::snprintf(stats.errorMessage, sizeof stats.errorMessage, "%s", text.c_str());
}

uint64_t maxCyclesFromEnvironment() {
  const char* text = std::getenv("TPC_TEST_CORE_MAX_CYCLES");
  if (!text || !*text) return kDefaultMaxCycles;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text, &end, 10);
  if (*end || v == 0)
    throw Refusal(fmt::format("TPC_TEST_CORE_MAX_CYCLES={}: expected a positive number of cycles",
                              quoteCString(text)));
  return v;
}

struct Outcome {
  uint64_t cycles = 0;
};

Outcome run(const HabanaKernelParams& params, const HabanaKernelInstantiation& instance,
            const std::vector<tpc_tests::TensorDesc2>& descriptors, VPEStats& stats) {
  // The program.
  if (!instance.kernel.kernelElf || instance.kernel.elfSize == 0)
    throw Refusal(fmt::format("instance.kernel: kernelElf is {} and elfSize is {}: no kernel to run",
                              instance.kernel.kernelElf ? "set" : "null", instance.kernel.elfSize));
  obj::KernelObject object;
  try {
    object = obj::readObject({static_cast<const uint8_t*>(instance.kernel.kernelElf), instance.kernel.elfSize},
                             "instance.kernel.kernelElf");
  } catch (const obj::ObjectError& e) {
    throw Refusal(e.what());
  }
  const isa::ArchInfo* arch = isa::findArch(object.arch);
  if (!arch) throw Refusal(fmt::format("instance.kernel.kernelElf: unknown architecture {}", quoteCString(object.arch)));
  if (const char* device = deviceArch(params.deviceId); device && object.arch != device)
    throw Refusal(fmt::format("params.deviceId is {}, but the kernel ELF was compiled for {}", device, object.arch));
  sim::Program program;
  std::string why;
  if (!program.load(object.text, &why, arch) || !program.setPrintfFormats(object.printfFormats, &why))
    throw Refusal(fmt::format("instance.kernel.kernelElf: {}", why));

  // The kernel's parameters: tensors take the descriptors, scalars the scalar words, each in order.
  int numTensors = 0, numScalars = 0;
  for (const obj::Param& p : object.params) ++(p.kind == obj::ParamKind::Tensor ? numTensors : numScalars);
  if (descriptors.size() != static_cast<size_t>(numTensors))
    throw Refusal(fmt::format("descriptors: the kernel {} takes {} tensor(s), {} descriptor(s) were given",
                              quoteCString(object.kernelName), numTensors, descriptors.size()));
  if (instance.kernel.paramsNr > tpc_lib_api::MAX_SCALAR_PARAMS)
    throw Refusal(fmt::format("instance.kernel.paramsNr is {}, more than {}", instance.kernel.paramsNr,
                              tpc_lib_api::MAX_SCALAR_PARAMS));
  if (instance.kernel.paramsNr < static_cast<uint32_t>(numScalars))
    throw Refusal(fmt::format("instance.kernel.paramsNr is {}, but the kernel {} takes {} scalar parameter(s)",
                              instance.kernel.paramsNr, quoteCString(object.kernelName), numScalars));
  std::vector<uint32_t> scalars(instance.kernel.scalarParams, instance.kernel.scalarParams + numScalars);

  // The index space.
  int rank = static_cast<int>(instance.indexSpaceRank);
  if (rank < 1 || rank > sim::kMaxDims)
    throw Refusal(fmt::format("instance.indexSpaceRank is {}: expected 1 to {}", rank, sim::kMaxDims));
  sim::Dims5 space{1, 1, 1, 1, 1};
  for (int d = 0; d < rank; ++d) {
    if (instance.indexSpaceGeometry[d] > static_cast<uint64_t>(INT32_MAX))
      throw Refusal(fmt::format("instance.indexSpaceGeometry[{}] is {}: too large", d, instance.indexSpaceGeometry[d]));
    space[d] = static_cast<int64_t>(instance.indexSpaceGeometry[d]);
  }

  // The tensors: decoded, checked against the node and the access patterns, overlap-free where stored to.
  std::vector<DescriptorView> views;
  for (size_t n = 0; n < descriptors.size(); ++n)
    views.push_back(decodeDescriptor(descriptors[n], static_cast<int>(n), roleOf(static_cast<int>(n), params, instance)));
  std::vector<bool> stored = sim::tensorsStoredTo(program, numTensors);
  std::vector<bool> writeBack = stored;
  const int in = static_cast<int>(params.inputTensorNr), out = static_cast<int>(params.outputTensorNr);
  for (DescriptorView& v : views) {
    std::string field;
    if (const tpc_lib_api::TensorGeometry* g = nodeGeometry(v.number, params, instance, &field))
      checkAgainstNode(v, *g, field);
    if (stored[static_cast<size_t>(v.number)]) checkNoOverlap(v);
  }
  uint64_t maxCycles = maxCyclesFromEnvironment();

  // The caller's memory, copied in; outputs that ask for it are filled first.
  CallerMemory memory(views);
  for (DescriptorView& v : views) {
    if (v.number < in || v.number >= in + out || !instance.outputTensorAccessPattern || v.spanBytes == 0) continue;
    const tpc_lib_api::TensorAccessPattern& ap = instance.outputTensorAccessPattern[v.number - in];
    if (!ap.memsetBeforeExecution) continue;
    memsetView(memory, v, ap.memsetValue);
    writeBack[static_cast<size_t>(v.number)] = true;
  }

  sim::LaunchOptions options;
  options.arch = arch;
  options.cores = params.maxAvailableTpc > 0 ? static_cast<int>(std::min<uint32_t>(params.maxAvailableTpc, 4096)) : 0;
  options.maxCycles = maxCycles;
  // A load past a tensor through gen_addr reads what follows, as on the hardware, and is reported below.
  options.allowUnguardedReads = true;
  // The glue's hint, as a graph compiler takes it (splitIndexSpace).
  if (instance.preferredSplitDim >= 1 && instance.preferredSplitDim <= 5)
    options.preferredSplitDim = static_cast<int>(instance.preferredSplitDim) - 1;  // d + 1, 0 none
  sim::Launch launch(program, options);
  memory.bind(launch);
  launch.setScalars(scalars);
  launch.setIndexSpace(space);
  sim::LaunchResult result = launch.run();

  // What the kernel printed, as the cores printed it.
  for (const std::string& text : result.printf) std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);

  // Statistics, also after a fault (how far it got).
  stats.cycles = result.maxCycles();
  stats.bundlesExecuted = result.totalBundles();
  uint64_t allCycles = 0;
  std::array<uint64_t, isa::kNumSlots> busy{};
  for (const sim::CoreStats& c : result.cores) {
    if (c.bundles) ++stats.coresUsed;
    stats.stallCycles += c.stalls;
    stats.loadBytes += c.loadBytes;
    stats.storeBytes += c.storeBytes;
    allCycles += c.cycles;
    for (int s = 0; s < isa::kNumSlots; ++s) {
      busy[s] += c.slotBusy[s];
      stats.instructionsExecuted += c.slotBusy[s];
    }
    for (int t = 0; t < isa::kNumTensors && t < TPC_TEST_CORE_MAX_TENSORS; ++t) {
      stats.vectorLoadPerTensor[t] += c.tensorLoads[t];
      stats.vectorStorePerTensor[t] += c.tensorStores[t];
    }
  }
  for (int s = 0; s < isa::kNumSlots && s < 4; ++s)
    stats.slotUtilization[s] = allCycles ? static_cast<double>(busy[s]) / static_cast<double>(allCycles) : 0.0;

  if (result.fault) {
    sim::Fault f = *result.fault;
    f.where = sim::sourceLineOf(object, f.address);
    stats.status = 2;
    throw Refusal(f.describe());  // reported as a fault by the caller (status stays 2)
  }
  memory.copyBack(launch, writeBack);
  reportUnguardedReads(result, launch, views, stats);
  return {stats.cycles};
}

void report(VPEStats& stats, int status, const std::string& message) {
  std::string text = "tpc_tests::RunSimulation: " + message;
  std::fprintf(stderr, "%s\n", text.c_str());
  stats.status = status;
  std::snprintf(stats.errorMessage, sizeof stats.errorMessage, "%s", text.c_str());
}

}  // namespace
}  // namespace tpc::test_core

unsigned int tpc_tests::RunSimulation(const tpc_lib_api::HabanaKernelParams& params,
                                      const tpc_lib_api::HabanaKernelInstantiation& instance,
                                      std::vector<TensorDesc2>& descriptors, VPEStats& stats) {
  std::memset(&stats, 0, sizeof stats);
  try {
    uint64_t cycles = tpc::test_core::run(params, instance, descriptors, stats).cycles;
    return cycles > UINT_MAX ? UINT_MAX : static_cast<unsigned int>(cycles);
  } catch (const tpc::test_core::Refusal& e) {
    tpc::test_core::report(stats, stats.status == 2 ? 2 : 1, e.what());
  } catch (const std::exception& e) {  // the simulator's own argument checks, allocation failures
    tpc::test_core::report(stats, 1, e.what());
  }
  return 0;
}
