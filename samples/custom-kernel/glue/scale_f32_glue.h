// Glue code of the scale_f32 kernel: checks a node and fills its instantiation, as a graph compiler asks.
#pragma once

#include "tpc_kernel_lib_interface.h"

// The node's parameters (passed as HabanaKernelParams::nodeParams).
struct ScaleParams {
  float factor;
  float bias;
};

class ScaleF32Glue {
 public:
  static const char* guid() { return "scale_fwd_f32"; }
  tpc_lib_api::GlueCodeReturn instantiate(const tpc_lib_api::HabanaKernelParams& params,
                                          tpc_lib_api::HabanaKernelInstantiation& instance) const;
};
