// Links every installed library and calls into each: the versions, and a request the test core refuses.
#include <cstdio>
#include <cstring>
#include <vector>

#include "gc_interface.h"
#include "tpc_kernel_lib_interface.h"
#include "tpc_test_core_api.h"
#include "tpc_test_core_types.h"

extern "C" const char* TpcSimVersion();
extern "C" const char* TpcElfReaderVersion();

int main() {
  tpc_lib_api::HabanaKernelParams params;
  tpc_lib_api::HabanaKernelInstantiation instance;
  std::memset(&params, 0, sizeof params);
  std::memset(&instance, 0, sizeof instance);
  std::vector<tpc_tests::TensorDesc2> descriptors;
  VPEStats stats;
  unsigned cycles = tpc_tests::RunSimulation(params, instance, descriptors, stats);
  bool ok = cycles == 0 && stats.status == 1 && std::strstr(stats.errorMessage, "instance.kernel") != nullptr &&
            std::strcmp(TpcSimVersion(), TpcElfReaderVersion()) == 0 && gcapi::MAX_TENSOR_DIM == 5;
  std::printf("sdk %s: %s\n", TpcSimVersion(), ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
