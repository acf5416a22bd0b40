// A graph compiler's use of the kernel library: load libtpc_kernels.so with dlopen, find the vendor's two
// entry points with dlsym, list the GUIDs, instantiate softmax_fwd_f32 for a shape (ELF size first, then the
// ELF), and run it through the test core on tensors in this program's memory; the result is checked
// against a softmax computed here.
//   softmax_dlopen [LIBRARY] [ROWS COLUMNS]     (default: the SDK's lib/libtpc_kernels.so, 4 x 1000)
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tpc_kernel_lib_interface.h"
#include "tpc_kernels/params.h"
#include "tpc_test_core_api.h"

#ifndef TPC_KERNELS_LIBRARY
#define TPC_KERNELS_LIBRARY "libtpc_kernels.so"
#endif

namespace {

using namespace tpc_lib_api;

Tensor f32Tensor(unsigned columns, unsigned rows) {
  Tensor t;
  std::memset(&t, 0, sizeof t);
  t.geometry.dims = 2;
  t.geometry.dataType = DATA_F32;
  t.geometry.maxSizes[0] = t.geometry.minSizes[0] = columns;  // TPC dimension 0: the last NumPy axis
  t.geometry.maxSizes[1] = t.geometry.minSizes[1] = rows;
  return t;
}

tpc_tests::TensorDesc2 descriptorOf(float* data, unsigned columns, unsigned rows) {
  tpc_tests::TensorDesc2 d;
  std::memset(&d, 0, sizeof d);
  d.baseAddrUnion.baseAddr = reinterpret_cast<uint64_t>(data);
  d.configuration = TPC_DESC_CONFIGURATION(2u, 0x3u, 1u);  // 4-byte elements, dimensions 0 and 1
  d.dimDescriptors[0].size = columns;
  d.dimDescriptors[0].stride = 1;
  d.dimDescriptors[1].size = rows;
  d.dimDescriptors[1].stride = columns;
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  const char* library = argc > 1 ? argv[1] : TPC_KERNELS_LIBRARY;
  const unsigned rows = argc > 3 ? unsigned(std::atoi(argv[2])) : 4, columns = argc > 3 ? unsigned(std::atoi(argv[3])) : 1000;
  if (rows == 0 || columns == 0) {
    std::fprintf(stderr, "softmax_dlopen: ROWS and COLUMNS must be positive\n");
    return 2;
  }

  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    std::fprintf(stderr, "softmax_dlopen: %s\n", dlerror());
    return 1;
  }
  auto getGuids = reinterpret_cast<pfnGetKernelGuids>(dlsym(handle, KERNEL_GUIDS_ENTRY_POINT_NAME));
  auto instantiate = reinterpret_cast<pfnInstantiateTpcKernel>(dlsym(handle, KERNEL_INSTANTIATION_ENTRY_POINT_NAME));
  if (!getGuids || !instantiate) {
    std::fprintf(stderr, "softmax_dlopen: %s lacks the entry points\n", library);
    return 1;
  }

  // The GUIDs on gaudi2: the count, then the names.
  uint32_t count = 0;
  getGuids(DEVICE_ID_GAUDI2, &count, nullptr);
  std::vector<GuidInfo> guids(count);
  if (getGuids(DEVICE_ID_GAUDI2, &count, guids.data()) != GLUE_SUCCESS) return 1;
  std::printf("%u kernels on gaudi2; the softmax family:", count);
  for (const GuidInfo& g : guids)
    if (std::strstr(g.name, "softmax")) std::printf(" %s", g.name);
  std::printf("\n");

  // The node: softmax along TPC dimension 0 of a rows x columns f32 tensor.
  Tensor in = f32Tensor(columns, rows), out = f32Tensor(columns, rows);
  tpc_kernels_reduce_params reduce = {0, 0, 0};
  HabanaKernelParams params;
  std::memset(&params, 0, sizeof params);
  params.deviceId = DEVICE_ID_GAUDI2;
  std::strcpy(params.guid.name, "softmax_fwd_f32");
  params.inputTensors = &in;
  params.inputTensorNr = 1;
  params.outputTensors = &out;
  params.outputTensorNr = 1;
  params.nodeParams.nodeParams = &reduce;
  params.nodeParams.nodeParamsSize = sizeof reduce;

  TensorAccessPattern patterns[2];
  std::memset(patterns, 0, sizeof patterns);
  HabanaKernelInstantiation instance;
  std::memset(&instance, 0, sizeof instance);
  instance.inputTensorAccessPattern = &patterns[0];
  instance.outputTensorAccessPattern = &patterns[1];
  if (instantiate(&params, &instance) != GLUE_INSUFFICIENT_ELF_BUFFER) {
    std::fprintf(stderr, "softmax_dlopen: expected GLUE_INSUFFICIENT_ELF_BUFFER with no ELF buffer\n");
    return 1;
  }
  std::vector<char> elf(instance.kernel.elfSize);
  instance.kernel.kernelElf = elf.data();
  const GlueCodeReturn code = instantiate(&params, &instance);
  if (code != GLUE_SUCCESS) {
    std::fprintf(stderr, "softmax_dlopen: InstantiateTpcKernel returned %d\n", int(code));
    return 1;
  }
  std::printf("softmax_fwd_f32 on (%u, %u): ELF of %u bytes, index space [", rows, columns, instance.kernel.elfSize);
  for (unsigned d = 0; d < instance.indexSpaceRank; ++d)
    std::printf("%s%llu", d ? "," : "", (unsigned long long)instance.indexSpaceGeometry[d]);
  std::printf("]\n");

  // Run it through the test core on this program's memory.
  std::vector<float> x(size_t(rows) * columns), y(x.size(), 0.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(std::sin(0.37 * double(i))) * 6.0f;
  std::vector<tpc_tests::TensorDesc2> descriptors = {descriptorOf(x.data(), columns, rows), descriptorOf(y.data(), columns, rows)};
  VPEStats stats;
  const unsigned cycles = tpc_tests::RunSimulation(params, instance, descriptors, stats);
  if (stats.status != 0) {
    std::fprintf(stderr, "softmax_dlopen: RunSimulation: %s\n", stats.errorMessage);
    return 1;
  }

  // The reference, in double.
  double worst = 0;
  for (unsigned r = 0; r < rows; ++r) {
    const float* row = &x[size_t(r) * columns];
    double m = row[0], s = 0;
    for (unsigned c = 0; c < columns; ++c) m = std::fmax(m, row[c]);
    for (unsigned c = 0; c < columns; ++c) s += std::exp(row[c] - m);
    for (unsigned c = 0; c < columns; ++c) {
      const double want = std::exp(row[c] - m) / s;
      worst = std::fmax(worst, std::fabs(y[size_t(r) * columns + c] - want) / want);
    }
  }
  std::printf("ran in %u cycles on %u cores; largest relative error %.3g\n", cycles, stats.coresUsed, worst);
  dlclose(handle);
  // f32: exp and the reciprocal to a few ulp, the sum to columns x 2^-24.
  return worst <= (double(columns) + 16) * 0x1p-24 ? 0 : 1;
}
