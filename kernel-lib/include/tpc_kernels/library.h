// The kernel library's C++ interface, beside its C entry points (GetKernelGuids, InstantiateTpcKernel in
// tpc_kernel_lib_interface.h): the same instantiation with the message that says why a node was rejected,
// and the node-parameter fields of each GUID by name (what `tpc-kernels run -p NAME=VALUE` sets).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tpc_kernel_lib_interface.h"

// The C entry points libtpc_kernels.so exports (the vendor's signatures; graph compilers find them with
// dlsym by KERNEL_GUIDS_ENTRY_POINT_NAME and KERNEL_INSTANTIATION_ENTRY_POINT_NAME).
extern "C" {
tpc_lib_api::GlueCodeReturn GetKernelGuids(tpc_lib_api::DeviceId deviceId, uint32_t* kernelCount,
                                           tpc_lib_api::GuidInfo* guids);
tpc_lib_api::GlueCodeReturn InstantiateTpcKernel(const tpc_lib_api::HabanaKernelParams* params,
                                                 tpc_lib_api::HabanaKernelInstantiation* instance);
}

namespace tpc::kernels {

// A glue code and, when it is not GLUE_SUCCESS, what the node needed.
struct GlueResult {
  tpc_lib_api::GlueCodeReturn code = tpc_lib_api::GLUE_SUCCESS;
  std::string message;
  bool ok() const { return code == tpc_lib_api::GLUE_SUCCESS; }
};

// "GLUE_INCOMPATIBLE_INPUT_SIZE", ...
const char* glueCodeName(tpc_lib_api::GlueCodeReturn code);

// The device of an architecture name ("gaudi", "gaudi2", "gaudi3"), and back; DEVICE_ID_MAX when unknown.
tpc_lib_api::DeviceId deviceOf(std::string_view arch);
const char* archOf(tpc_lib_api::DeviceId device);

// Every GUID the library provides on a device, in a stable order.
std::vector<std::string> guids(tpc_lib_api::DeviceId device);

// One field of a family's node-parameter structure (tpc_kernels/params.h); an array of `count` elements
// (a TPC dimension each) is set from a comma-separated list, its first elements first.
struct ParamField {
  enum Type { F32, I32, U64 } type;
  const char* name;
  size_t offset;
  size_t count = 1;
};
struct ParamSchema {
  size_t size = 0;                 // sizeof the structure; 0: the family takes no parameters
  std::vector<ParamField> fields;  // in declaration order
  void (*setDefaults)(void* params) = nullptr;
};
// The schema of a GUID's family; nullptr for an unknown GUID.
const ParamSchema* paramSchema(std::string_view guid);
// Sets field `name` of a parameter structure from text; returns false with `why` set when the name is not
// a field or the text not a value of its type.
bool setParam(const ParamSchema& schema, void* params, std::string_view name, std::string_view text, std::string* why);

// InstantiateTpcKernel with the reason of a rejection.
GlueResult instantiate(const tpc_lib_api::HabanaKernelParams& params, tpc_lib_api::HabanaKernelInstantiation& instance);

}  // namespace tpc::kernels
