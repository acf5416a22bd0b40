// Runs scale_fwd_f32 through its glue code and the test core on a padded 3-D tensor (rows longer than the
// data), compares with a host reference, and checks that the glue code refuses a wrong node.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "scale_f32_glue.h"
#include "tpc_test_core_api.h"

namespace {

tpc_lib_api::Tensor tensorOf(const unsigned* sizes, unsigned dims) {
  tpc_lib_api::Tensor t;
  std::memset(&t, 0, sizeof t);
  t.geometry.dims = dims;
  t.geometry.dataType = tpc_lib_api::DATA_F32;
  for (unsigned d = 0; d < dims; ++d) t.geometry.maxSizes[d] = t.geometry.minSizes[d] = sizes[d];
  return t;
}

// A dense 3-D f32 descriptor whose rows are `rowStride` floats apart.
tpc_tests::TensorDesc2 descriptorOf(float* data, const unsigned* sizes, unsigned rowStride) {
  tpc_tests::TensorDesc2 d;
  std::memset(&d, 0, sizeof d);
  d.baseAddrUnion.baseAddr = reinterpret_cast<uint64_t>(data);
  d.configuration = TPC_DESC_CONFIGURATION(2u, 0x7u, 2u);  // 4-byte elements, dimensions 0-2
  const unsigned strides[3] = {1, rowStride, rowStride * sizes[1]};
  for (unsigned k = 0; k < 3; ++k) {
    d.dimDescriptors[k].size = sizes[k];
    d.dimDescriptors[k].stride = strides[k];
  }
  return d;
}

}  // namespace

int main() {
  const unsigned sizes[3] = {130, 5, 3};  // 130 is not a multiple of the vector width
  const unsigned rowStride = 136;
  const size_t total = size_t(rowStride) * sizes[1] * sizes[2];
  std::vector<float> x(total), y(total, -1.0f);
  for (size_t i = 0; i < total; ++i) x[i] = std::sin(float(i)) * 10.0f;

  ScaleParams scale = {1.75f, -0.5f};
  tpc_lib_api::Tensor in = tensorOf(sizes, 3), out = tensorOf(sizes, 3);
  tpc_lib_api::HabanaKernelParams params;
  std::memset(&params, 0, sizeof params);
  params.deviceId = tpc_lib_api::DEVICE_ID_GAUDI2;
  std::strcpy(params.guid.name, ScaleF32Glue::guid());
  params.inputTensors = &in;
  params.inputTensorNr = 1;
  params.outputTensors = &out;
  params.outputTensorNr = 1;
  params.nodeParams.nodeParams = &scale;
  params.nodeParams.nodeParamsSize = sizeof scale;

  tpc_lib_api::TensorAccessPattern patterns[2];
  std::memset(patterns, 0, sizeof patterns);
  tpc_lib_api::HabanaKernelInstantiation instance;
  std::memset(&instance, 0, sizeof instance);
  instance.inputTensorAccessPattern = &patterns[0];
  instance.outputTensorAccessPattern = &patterns[1];

  // First ask for the ELF's size, then instantiate for real, as a graph compiler does.
  ScaleF32Glue glue;
  if (glue.instantiate(params, instance) != tpc_lib_api::GLUE_INSUFFICIENT_ELF_BUFFER || instance.kernel.elfSize == 0) {
    std::printf("FAIL: the glue code did not report the ELF size\n");
    return 1;
  }
  std::vector<char> elf(instance.kernel.elfSize);
  instance.kernel.kernelElf = elf.data();
  if (glue.instantiate(params, instance) != tpc_lib_api::GLUE_SUCCESS) {
    std::printf("FAIL: instantiation\n");
    return 1;
  }

  std::vector<tpc_tests::TensorDesc2> descriptors = {descriptorOf(x.data(), sizes, rowStride),
                                                     descriptorOf(y.data(), sizes, rowStride)};
  VPEStats stats;
  unsigned cycles = tpc_tests::RunSimulation(params, instance, descriptors, stats);
  if (stats.status != 0) {
    std::printf("FAIL: RunSimulation: %s\n", stats.errorMessage);
    return 1;
  }

  // Reference: C's x * factor + bias, rounded twice (never contracted); the padding stays untouched.
  int wrong = 0;
  for (unsigned d2 = 0; d2 < sizes[2]; ++d2)
    for (unsigned d1 = 0; d1 < sizes[1]; ++d1)
      for (unsigned d0 = 0; d0 < rowStride; ++d0) {
        size_t i = (size_t(d2) * sizes[1] + d1) * rowStride + d0;
        volatile float product = x[i] * scale.factor;  // volatile: no contraction into an fma
        float want = d0 < sizes[0] ? product + scale.bias : -1.0f;
        if (std::memcmp(&y[i], &want, sizeof want) != 0 && wrong++ < 5)
          std::printf("element [%u,%u,%u]: got %.9g, expected %.9g\n", d0, d1, d2, y[i], want);
      }
  std::printf("scale_fwd_f32 on [%u,%u,%u]: %u cycles on %u cores, %llu instructions, %d wrong elements\n", sizes[0],
              sizes[1], sizes[2], cycles, stats.coresUsed, (unsigned long long)stats.instructionsExecuted, wrong);

  // A node the kernel cannot take: the precise glue code.
  out.geometry.maxSizes[1] = 4;
  if (glue.instantiate(params, instance) != tpc_lib_api::GLUE_INCOMPATIBLE_OUTPUT_SIZE) {
    std::printf("FAIL: a wrong output shape was not refused\n");
    return 1;
  }
  return wrong == 0 ? 0 : 1;
}
