// The kernel objects compiled at build time (kernels.cmake), embedded into the library: a table generated
// by kernel-lib/CMakeLists.txt.
#pragma once

#include <cstddef>

namespace tpc::kernels {

struct EmbeddedKernel {
  const char* name;  // the variant's name (kernels.cmake), usually the GUID
  const char* arch;  // gaudi, gaudi2, gaudi3
  const unsigned char* begin;
  const unsigned char* end;
};

extern const EmbeddedKernel kEmbeddedKernels[];
extern const size_t kNumEmbeddedKernels;

}  // namespace tpc::kernels
