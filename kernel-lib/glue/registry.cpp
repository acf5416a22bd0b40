// The families, the GUIDs they provide, and the instantiation of a node: the node checked into a Node, the
// family's plan, then the plan and the kernel object copied into the caller's instantiation.
#include <algorithm>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "embedded_kernels.h"
#include "glue.h"

namespace tpc::kernels {

using namespace tpc_lib_api;

const std::vector<std::unique_ptr<Family>>& families() {
  static const std::vector<std::unique_ptr<Family>> all = [] {
    std::vector<std::unique_ptr<Family>> v;
    for (auto* make : {&elementwiseFamilies, &reductionFamilies, &softmaxFamilies, &normFamilies, &crossEntropyFamilies, &gemmFamilies, &randomFamilies, &optimizerFamilies,
                       &activationFamilies, &movementFamilies,
                       &logicFamilies, &lossFamilies, &poolingFamilies, &chnormFamilies, &scanFamilies,
                       &embeddingBwdFamilies, &resizeFamilies, &convFamilies})
      for (auto& f : make()) v.push_back(std::move(f));
    return v;
  }();
  return all;
}

namespace {

const Family* familyOf(std::string_view guid, const std::string& arch) {
  for (const auto& f : families()) {
    auto names = f->guids(arch);
    if (std::find(names.begin(), names.end(), guid) != names.end()) return f.get();
  }
  return nullptr;
}

const EmbeddedKernel* embeddedKernel(const std::string& name, const std::string& arch) {
  for (size_t k = 0; k < kNumEmbeddedKernels; ++k)
    if (name == kEmbeddedKernels[k].name && arch == kEmbeddedKernels[k].arch) return &kEmbeddedKernels[k];
  return nullptr;
}

bool knownType(TensorDataType t) {
  switch (t) {
    case DATA_I8: case DATA_U8: case DATA_I16: case DATA_U16: case DATA_BF16: case DATA_F16: case DATA_I32:
    case DATA_U32: case DATA_F32: return true;
    default: return false;
  }
}

// The tensors as views; `sizeCode` is the glue code of a shape the library cannot take.
GlueResult viewOf(const Tensor* tensors, uint32_t count, const char* what, GlueCodeReturn sizeCode,
                  std::vector<TensorView>& out) {
  if (count > 0 && !tensors) return fail(GLUE_FAILED, fmt::format("{} {} tensors but no array", count, what));
  for (uint32_t k = 0; k < count; ++k) {
    const TensorGeometry& g = tensors[k].geometry;
    if (g.dims > 5)
      return fail(sizeCode, fmt::format("{} {} has {} dimensions (at most 5)", what, k, g.dims));
    if (!knownType(g.dataType))
      return fail(GLUE_INCOMPATIBLE_DATA_TYPE, fmt::format("{} {} has the data type 0x{:x}", what, k, static_cast<unsigned>(g.dataType)));
    TensorView t;
    t.dims = g.dims;
    t.type = g.dataType;
    for (uint32_t d = 0; d < g.dims; ++d) t.sizes[d] = g.maxSizes[d];
    out.push_back(t);
  }
  return {};
}

}  // namespace

std::vector<std::string> guids(DeviceId device) {
  std::vector<std::string> out;
  const char* arch = archOf(device);
  if (!arch) return out;
  for (const auto& f : families())
    for (const std::string& g : f->guids(arch)) out.push_back(g);
  return out;
}

const ParamSchema* paramSchema(std::string_view guid) {
  for (const char* arch : {"gaudi2", "gaudi3", "gaudi"})
    if (const Family* f = familyOf(guid, arch)) return &f->params();
  return nullptr;
}

GlueResult instantiate(const HabanaKernelParams& params, HabanaKernelInstantiation& instance) {
  const char* arch = archOf(params.deviceId);
  const std::string guid(params.guid.name, strnlen(params.guid.name, MAX_NODE_NAME));
  if (!arch) return fail(GLUE_NODE_NOT_FOUND, fmt::format("device id {} is not gaudi (1), gaudi2 (3) or gaudi3 (4)",
                                                          static_cast<int>(params.deviceId)));
  const Family* family = familyOf(guid, arch);
  if (!family) return fail(GLUE_NODE_NOT_FOUND, fmt::format("no kernel '{}' on {} (tpc-kernels list --arch {})", guid, arch, arch));

  Node node;
  node.guid = guid;
  node.arch = arch;
  if (GlueResult r = viewOf(params.inputTensors, params.inputTensorNr, "input", GLUE_INCOMPATIBLE_INPUT_SIZE, node.inputs); !r.ok()) return r;
  if (GlueResult r = viewOf(params.outputTensors, params.outputTensorNr, "output", GLUE_INCOMPATIBLE_OUTPUT_SIZE, node.outputs); !r.ok()) return r;
  const ParamSchema& schema = family->params();
  node.params.assign(std::max<size_t>(schema.size, 1), 0);
  if (schema.setDefaults) schema.setDefaults(node.params.data());
  if (params.nodeParams.nodeParams) {
    if (params.nodeParams.nodeParamsSize != schema.size)
      return fail(GLUE_UNSUPPORTED_LAYER_CONFIGURATION,
                  fmt::format("{} takes node parameters of {} bytes (tpc_kernels/params.h), not {}", guid, schema.size,
                              params.nodeParams.nodeParamsSize));
    std::memcpy(node.params.data(), params.nodeParams.nodeParams, schema.size);
  }

  LaunchPlan plan;
  if (GlueResult r = family->plan(node, plan); !r.ok()) return r;
  const EmbeddedKernel* object = embeddedKernel(plan.kernel, arch);
  if (!object) return fail(GLUE_FAILED, fmt::format("{}: the kernel object '{}' for {} is missing", guid, plan.kernel, arch));
  if (plan.scalars.size() > MAX_SCALAR_PARAMS) return fail(GLUE_FAILED, fmt::format("{}: too many scalars", guid));
  if ((params.inputTensorNr && !instance.inputTensorAccessPattern) || (params.outputTensorNr && !instance.outputTensorAccessPattern))
    return fail(GLUE_FAILED, "the instantiation has no access-pattern arrays");

  instance.indexSpaceRank = plan.rank;
  for (size_t d = 0; d < MAX_INDEX_SPACE_DIM_SIZE; ++d) instance.indexSpaceGeometry[d] = d < plan.rank ? plan.geometry[d] : 0;
  for (size_t k = 0; k < plan.inputs.size(); ++k) instance.inputTensorAccessPattern[k] = plan.inputs[k];
  for (size_t k = 0; k < plan.outputs.size(); ++k) instance.outputTensorAccessPattern[k] = plan.outputs[k];
  instance.auxiliaryTensorNr = 0;
  int split = plan.preferredSplitDim;
  if (split < 0) {
    split = 0;
    for (uint32_t d = 1; d < plan.rank; ++d)
      if (plan.geometry[d] > 1 && plan.geometry[d] > plan.geometry[static_cast<size_t>(split)] * (split == 0 ? 0 : 1)) split = static_cast<int>(d);
  }
  instance.preferredSplitDim = static_cast<uint32_t>(split) + 1;  // the interface's d + 1 (0: none)
  std::copy(plan.scalars.begin(), plan.scalars.end(), instance.kernel.scalarParams);
  instance.kernel.paramsNr = static_cast<uint32_t>(plan.scalars.size());

  const uint32_t size = static_cast<uint32_t>(object->end - object->begin);
  const uint32_t room = instance.kernel.elfSize;
  instance.kernel.elfSize = size;
  if (room < size || !instance.kernel.kernelElf)
    return fail(GLUE_INSUFFICIENT_ELF_BUFFER,
                fmt::format("{} needs an ELF buffer of {} bytes, the instantiation has {}", guid, size, room));
  std::memcpy(instance.kernel.kernelElf, object->begin, size);
  return {};
}

}  // namespace tpc::kernels
