// The vendor's C entry points of a kernel library (tpc_kernel_lib_interface.h), over the registry.
#include <cstring>

#include "glue.h"

using namespace tpc_lib_api;

extern "C" {

__attribute__((visibility("default"))) GlueCodeReturn GetKernelGuids(DeviceId deviceId, uint32_t* kernelCount,
                                                                     GuidInfo* guids) {
  if (!kernelCount) return GLUE_FAILED;
  const std::vector<std::string> names = tpc::kernels::guids(deviceId);
  if (!guids) {
    *kernelCount = static_cast<uint32_t>(names.size());
    return GLUE_SUCCESS;
  }
  const uint32_t room = *kernelCount;
  *kernelCount = static_cast<uint32_t>(names.size());
  for (uint32_t k = 0; k < names.size() && k < room; ++k) {
    std::memset(&guids[k], 0, sizeof guids[k]);
    std::strncpy(guids[k].name, names[k].c_str(), MAX_NODE_NAME - 1);
  }
  return room < names.size() ? GLUE_FAILED : GLUE_SUCCESS;
}

__attribute__((visibility("default"))) GlueCodeReturn InstantiateTpcKernel(const HabanaKernelParams* params,
                                                                           HabanaKernelInstantiation* instance) {
  if (!params || !instance) return GLUE_FAILED;
  return tpc::kernels::instantiate(*params, *instance).code;
}

}  // extern "C"
