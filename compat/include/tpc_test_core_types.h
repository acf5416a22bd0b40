// Types of the TPC test core (libtpc_tests_core_ext.so): the tensor descriptor a test hands to
// tpc_tests::RunSimulation for each kernel tensor, and the statistics it gets back.
// Descriptor layout, configuration word and the statistics are described in docs/vendor-compat.md.
#ifndef TPC_TEST_CORE_TYPES_H
#define TPC_TEST_CORE_TYPES_H

#include <stdint.h>

// Dimensions of a tensor descriptor.
#define DEF_NUM_DIMS_IN_IRF 5
// Tensors a kernel can take.
#define TPC_TEST_CORE_MAX_TENSORS 16

// Fields of TensorDesc2::configuration:
//   bits 0-1   element size code: 0 = 1 byte, 1 = 2 bytes, 2 = 4 bytes (8-byte elements, code 11, are refused)
//   bits 8-12  valid-dimension mask, bit d for dimension d
//   bits 16-18 the last valid dimension
#define TPC_DESC_ELEMENT_SIZE_CODE(configuration) ((configuration) & 0x3u)
#define TPC_DESC_VALID_DIM_MASK(configuration) (((configuration) >> 8) & 0x1Fu)
#define TPC_DESC_LAST_DIM(configuration) (((configuration) >> 16) & 0x7u)
#define TPC_DESC_CONFIGURATION(sizeCode, validDimMask, lastDim) \
  (((sizeCode) & 0x3u) | (((validDimMask) & 0x1Fu) << 8) | (((lastDim) & 0x7u) << 16))

namespace tpc_tests {

// One dimension: its size in elements, and the distance between neighbours in elements.
struct TensorDimDesc {
  uint32_t size;
  uint32_t stride;
} __attribute__((__packed__));

// A tensor in the caller's memory: element (c0,...,c4) is at
// baseAddr + (c0*stride0 + ... + c4*stride4) * elementSize. Reads outside the sizes give paddingValue
// (its low bytes for narrow elements); stores outside are dropped.
struct TensorDesc2 {
  union {
    struct {
      uint32_t baseAddrLow;
      uint32_t baseAddrHigh;
    } baseAddrStruct;
    uint64_t baseAddr;
  } baseAddrUnion;
  uint32_t paddingValue;
  uint32_t configuration;
  TensorDimDesc dimDescriptors[DEF_NUM_DIMS_IN_IRF];
} __attribute__((__packed__));

}  // namespace tpc_tests

// What one RunSimulation did. status is 0 after a run; otherwise the run did not happen or faulted and
// errorMessage says why (the same text went to stderr).
struct VPEStats {
  int32_t status;               // 0 ok, 1 the request was refused (bad descriptors, ELF, ...), 2 kernel fault,
                                // 3 ran, but read memory outside every tensor (unguardedReads)
  char errorMessage[512];       // NUL-terminated
  uint64_t cycles;              // of the slowest core (also RunSimulation's return value)
  uint64_t instructionsExecuted;  // non-nop instructions, all cores
  uint64_t bundlesExecuted;     // all cores
  uint64_t stallCycles;         // all cores
  uint32_t coresUsed;           // cores with a non-empty part of the index space
  double slotUtilization[4];    // load, scalar, vector, store: busy share over all cores' cycles
  uint64_t unguardedReads;      // global loads outside every tensor's memory (see status 3)
  uint64_t loadBytes;           // bytes read from tensors, all cores
  uint64_t storeBytes;          // bytes written to tensors, all cores
  uint64_t vectorLoadPerTensor[TPC_TEST_CORE_MAX_TENSORS];   // vector loads (ld_tnsr) per tensor
  uint64_t vectorStorePerTensor[TPC_TEST_CORE_MAX_TENSORS];  // vector stores (st_tnsr) per tensor
  uint64_t scalarLoadPerTensor[TPC_TEST_CORE_MAX_TENSORS];   // scalar (global) loads through each tensor
  uint64_t scalarStorePerTensor[TPC_TEST_CORE_MAX_TENSORS];  // scalar (global) stores through each tensor
};

namespace tpc_tests {
typedef ::VPEStats VPEStats;
}

#endif  // TPC_TEST_CORE_TYPES_H
