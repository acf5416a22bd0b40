#include "tpc_kernels/run.h"

#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "tpc/object/kernel_object.h"
#include "tpc/sim/kernel_binding.h"

namespace tpc::kernels {

namespace {

tpc_lib_api::TensorDataType glueType(DType t) {
  switch (t) {
    case DType::F32: return tpc_lib_api::DATA_F32;
    case DType::BF16: return tpc_lib_api::DATA_BF16;
    case DType::F16: return tpc_lib_api::DATA_F16;
    case DType::I32: return tpc_lib_api::DATA_I32;
    case DType::U32: return tpc_lib_api::DATA_U32;
    case DType::I16: return tpc_lib_api::DATA_I16;
    case DType::U16: return tpc_lib_api::DATA_U16;
    case DType::I8: return tpc_lib_api::DATA_I8;
    case DType::U8: return tpc_lib_api::DATA_U8;
    default: return tpc_lib_api::DATA_F32;
  }
}

}  // namespace

tpc_lib_api::Tensor glueTensor(const HostTensor& t) {
  tpc_lib_api::Tensor g{};
  const size_t dims = t.shape.size();
  g.geometry.dims = static_cast<uint32_t>(std::max<size_t>(dims, 1));
  for (size_t d = 0; d < tpc_lib_api::MAX_TENSOR_DIM; ++d) {
    const uint64_t size = d < dims ? static_cast<uint64_t>(t.shape[dims - 1 - d]) : (d == 0 ? 1 : 0);
    g.geometry.maxSizes[d] = size;
    g.geometry.minSizes[d] = size;
  }
  g.geometry.dataType = glueType(t.dtype);
  return g;
}

NodeRunResult runNode(NodeRun& node) {
  NodeRunResult result;
  const tpc_lib_api::DeviceId device = deviceOf(node.arch);
  const isa::ArchInfo* arch = isa::findArch(node.arch);
  if (device == tpc_lib_api::DEVICE_ID_MAX || !arch) {
    result.glue = {tpc_lib_api::GLUE_NODE_NOT_FOUND, fmt::format("unknown architecture '{}'", node.arch)};
    return result;
  }
  std::vector<tpc_lib_api::Tensor> tensors;
  for (const HostTensor& t : node.inputs) tensors.push_back(glueTensor(t));
  for (const HostTensor& t : node.outputs) tensors.push_back(glueTensor(t));
  tpc_lib_api::HabanaKernelParams hp{};
  hp.apiVersion = 1;
  hp.deviceId = device;
  std::snprintf(hp.guid.name, sizeof hp.guid.name, "%s", node.guid.c_str());
  hp.inputTensors = tensors.data();
  hp.inputTensorNr = static_cast<uint32_t>(node.inputs.size());
  hp.outputTensors = tensors.data() + node.inputs.size();
  hp.outputTensorNr = static_cast<uint32_t>(node.outputs.size());
  hp.nodeParams.nodeParams = node.params.empty() ? nullptr : node.params.data();
  hp.nodeParams.nodeParamsSize = static_cast<uint32_t>(node.params.size());
  hp.maxAvailableTpc = static_cast<uint32_t>(node.cores > 0 ? node.cores : arch->cores);
  std::vector<tpc_lib_api::TensorAccessPattern> in(node.inputs.size()), out(node.outputs.size());
  std::vector<uint8_t> elf(64 * 1024);
  tpc_lib_api::HabanaKernelInstantiation inst{};
  inst.inputTensorAccessPattern = in.data();
  inst.outputTensorAccessPattern = out.data();
  for (int attempt = 0; attempt < 2; ++attempt) {
    inst.kernel.kernelElf = elf.data();
    inst.kernel.elfSize = static_cast<uint32_t>(elf.size());
    result.glue = instantiate(hp, inst);
    if (result.glue.code != tpc_lib_api::GLUE_INSUFFICIENT_ELF_BUFFER) break;
    elf.resize(inst.kernel.elfSize);
  }
  if (!result.glue.ok()) return result;
  // Outputs the plan asks to be filled before the launch (accumulated into by the kernel), as a graph
  // compiler would.
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    if (!out[k].memsetBeforeExecution) continue;
    HostTensor& t = node.outputs[k];
    const size_t size = dtypeSize(t.dtype);
    for (size_t at = 0; at + size <= t.data.size(); at += size) std::memcpy(t.data.data() + at, &out[k].memsetValue, size);
  }

  const obj::KernelObject o = obj::readObject(std::span(elf.data(), inst.kernel.elfSize), node.guid);
  sim::Program program;
  std::string why;
  if (!program.load(o.text, &why, arch) || !program.setPrintfFormats(o.printfFormats, &why)) {
    result.glue = {tpc_lib_api::GLUE_FAILED, fmt::format("{}: {}", node.guid, why)};
    return result;
  }
  for (uint32_t d = 0; d < inst.indexSpaceRank && d < 5; ++d)
    result.space[d] = static_cast<int64_t>(inst.indexSpaceGeometry[d]);
  sim::LaunchOptions opt;
  opt.arch = arch;
  opt.cores = node.cores;
  opt.threads = node.threads;
  opt.strictHazards = node.strictHazards;
  opt.trace = node.trace;
  opt.preferredSplitDim = static_cast<int>(inst.preferredSplitDim) - 1;  // d + 1, 0 none
  sim::Launch launch(program, opt);
  const int count = static_cast<int>(node.inputs.size() + node.outputs.size());
  result.stored = sim::tensorsStoredTo(program, count);
  auto tensor = [&](int n) -> HostTensor& {
    return n < static_cast<int>(node.inputs.size()) ? node.inputs[static_cast<size_t>(n)]
                                                    : node.outputs[static_cast<size_t>(n) - node.inputs.size()];
  };
  for (int n = 0; n < count; ++n) launch.addTensor(tensor(n).dtype, sim::tpcSizes(tensor(n).shape), tensor(n).data);
  launch.setScalars(std::vector<uint32_t>(inst.kernel.scalarParams, inst.kernel.scalarParams + inst.kernel.paramsNr));
  launch.setIndexSpace(result.space);
  result.launch = launch.run();
  if (result.launch.fault) {
    result.fault = *result.launch.fault;
    result.fault->where = sim::sourceLineOf(o, result.fault->address);
    return result;
  }
  for (int n = 0; n < count; ++n) {
    if (!result.stored[static_cast<size_t>(n)]) continue;
    auto data = launch.tensorData(n);
    tensor(n).data.assign(data.begin(), data.end());
  }
  return result;
}

}  // namespace tpc::kernels
