#include "scale_f32_glue.h"

#include <cstring>
#include <initializer_list>

// The kernel object, linked in by objcopy (see CMakeLists.txt).
extern unsigned char _binary_scale_f32_o_start[];
extern unsigned char _binary_scale_f32_o_end[];

tpc_lib_api::GlueCodeReturn ScaleF32Glue::instantiate(const tpc_lib_api::HabanaKernelParams& params,
                                                      tpc_lib_api::HabanaKernelInstantiation& instance) const {
  using namespace tpc_lib_api;
  if (params.inputTensorNr != 1) return GLUE_INCOMPATIBLE_INPUT_COUNT;
  if (params.outputTensorNr != 1) return GLUE_INCOMPATIBLE_OUTPUT_COUNT;
  const TensorGeometry& in = params.inputTensors[0].geometry;
  const TensorGeometry& out = params.outputTensors[0].geometry;
  if (in.dataType != DATA_F32 || out.dataType != DATA_F32) return GLUE_INCOMPATIBLE_DATA_TYPE;
  if (in.dims == 0 || in.dims > 5) return GLUE_INCOMPATIBLE_INPUT_SIZE;
  if (out.dims != in.dims) return GLUE_INCOMPATIBLE_OUTPUT_SIZE;
  for (unsigned d = 0; d < in.dims; ++d)
    if (out.maxSizes[d] != in.maxSizes[d]) return GLUE_INCOMPATIBLE_OUTPUT_SIZE;
  if (!params.nodeParams.nodeParams || params.nodeParams.nodeParamsSize != sizeof(ScaleParams))
    return GLUE_UNSUPPORTED_LAYER_CONFIGURATION;

  // Index space: dimension 0 in vectors of 64 floats, the others one point per element.
  instance.indexSpaceRank = in.dims;
  for (unsigned d = 0; d < in.dims; ++d) {
    uint64_t points = d == 0 ? (in.maxSizes[0] + 63) / 64 : in.maxSizes[d];
    instance.indexSpaceGeometry[d] = points;
    // Point i of dimension d touches elements [a*i + start_b, a*i + end_b] of both tensors.
    for (TensorAccessPattern* p : {&instance.inputTensorAccessPattern[0], &instance.outputTensorAccessPattern[0]}) {
      p->mapping[d].indexSpaceDim = d;
      p->mapping[d].a = d == 0 ? 64.0f : 1.0f;
      p->mapping[d].start_b = 0.0f;
      p->mapping[d].end_b = d == 0 ? 63.0f : 0.0f;
    }
  }

  // Scalars in the kernel's parameter order.
  const ScaleParams* p = static_cast<const ScaleParams*>(params.nodeParams.nodeParams);
  std::memcpy(&instance.kernel.scalarParams[0], &p->factor, sizeof(float));
  std::memcpy(&instance.kernel.scalarParams[1], &p->bias, sizeof(float));
  instance.kernel.paramsNr = 2;
  instance.auxiliaryTensorNr = 0;

  // The ELF, when the caller's buffer is large enough; the size it needs either way.
  const uint32_t size = static_cast<uint32_t>(_binary_scale_f32_o_end - _binary_scale_f32_o_start);
  const uint32_t room = instance.kernel.elfSize;
  instance.kernel.elfSize = size;
  if (room < size || !instance.kernel.kernelElf) return GLUE_INSUFFICIENT_ELF_BUFFER;
  std::memcpy(instance.kernel.kernelElf, _binary_scale_f32_o_start, size);
  return GLUE_SUCCESS;
}
