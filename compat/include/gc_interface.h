// The older graph-compiler interface namespace, gcapi, as far as today's custom-kernel code still uses it:
// the number of dimensions of a TPC tensor. Everything else lives in tpc_kernel_lib_interface.h.
#ifndef GC_INTERFACE_H
#define GC_INTERFACE_H

#include <stdint.h>

#include "tpc_kernel_lib_interface.h"

namespace gcapi {

static const unsigned MAX_TENSOR_DIM = 5;            // dimensions a TPC tensor descriptor has
static const unsigned MAX_INDEX_SPACE_DIM_SIZE = 5;  // rank of the index space
static const unsigned MAX_NODE_NAME = tpc_lib_api::MAX_NODE_NAME;
static const unsigned MAX_SCALAR_PARAMS = tpc_lib_api::MAX_SCALAR_PARAMS;

}  // namespace gcapi

#endif  // GC_INTERFACE_H
