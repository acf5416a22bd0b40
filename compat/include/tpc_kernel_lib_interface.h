// The kernel-library ("glue code") interface between a graph compiler and a TPC kernel library, as the
// vendor's custom-kernel projects use it: namespace tpc_lib_api, the entry points GetKernelGuids and
// InstantiateTpcKernel, and the structures they fill. Written for the open TPC-C SDK from the names,
// field types and values that public code relies on; docs/vendor-compat.md describes each structure.
// Valid C++11; nothing here needs the SDK's other headers.
#ifndef TPC_KERNEL_LIB_INTERFACE_H
#define TPC_KERNEL_LIB_INTERFACE_H

#include <stdint.h>

// Direction markers on parameters and fields: read by the callee, written by it, or both.
#define _IN_
#define _OUT_
#define _INOUT_

namespace tpc_lib_api {

// Names under which a graph compiler looks the entry points up with dlsym.
#define KERNEL_GUIDS_ENTRY_POINT_NAME "GetKernelGuids"
#define KERNEL_INSTANTIATION_ENTRY_POINT_NAME "InstantiateTpcKernel"
#define GET_SUPPORTED_DATA_LAYOUTS_ENTRY_POINT_NAME "GetSupportedDataLayouts"
#define GET_SHAPE_INFERENCE_ENTRY_POINT_NAME "GetShapeInference"
#define GET_LIB_VERSION_ENTRY_POINT_NAME "GetLibVersion"

static const uint32_t MAX_SCALAR_PARAMS = 32;        // 32-bit words of scalar kernel arguments
static const uint32_t MAX_NODE_NAME = 64;            // bytes of a GUID, with its terminating NUL
static const uint32_t MAX_INDEX_SPACE_DIM_SIZE = 5;  // rank of the index space
static const uint32_t MAX_TENSOR_DIM = 25;           // dimensions a tensor geometry can describe

typedef enum _DeviceId {
  DEVICE_ID_GAUDI = 1,
  DEVICE_ID_GRECO = 2,
  DEVICE_ID_GAUDI2 = 3,
  DEVICE_ID_GAUDI3 = 4,
  DEVICE_ID_MAX = 5  // one past the last device
} DeviceId;

// What an entry point reports. The INCOMPATIBLE_* codes name the first check of the node that failed;
// the INSUFFICIENT_* codes come with the size that is needed written back into the request.
typedef enum _GlueCodeReturn {
  GLUE_SUCCESS = 0,
  GLUE_NODE_NOT_FOUND = 1,
  GLUE_INSUFFICIENT_ISA_BUFFER = 2,
  GLUE_INCOMPATIBLE_INPUT_COUNT = 3,
  GLUE_INCOMPATIBLE_INPUT_SIZE = 4,
  GLUE_INCOMPATIBLE_OUTPUT_COUNT = 5,
  GLUE_INCOMPATIBLE_OUTPUT_SIZE = 6,
  GLUE_INCOMPATIBLE_DATA_TYPE = 7,
  GLUE_UNSUPPORTED_LAYER_CONFIGURATION = 8,
  GLUE_INSUFFICIENT_AUX_BUFFER_SIZE = 9,
  GLUE_UNSUPPORTED_QUANT_PARAMS = 10,
  GLUE_UNSUPPORTED_BROADCAST_MODE = 11,
  GLUE_UNSUPPORTED_API_VERSION = 12,
  GLUE_NON_STATIC_INPUT_TENSOR = 13,
  GLUE_KERNEL_REQUIRE_REDUCIBLE_TENSOR = 14,
  GLUE_INVALID_SHAPE_INFERENCE_ID = 15,
  GLUE_KERNEL_INVALID_SCALAR_ARGUMENT = 16,
  GLUE_UNSUPPORTED_LOW_FCD_INPUT = 17,
  GLUE_INSUFFICIENT_ELF_BUFFER = 18,
  GLUE_MISSING_PRIVATE_STRUCTURE = 19,
  GLUE_UNSUPPORTED_5D_TENSORS = 20,
  GLUE_CGUID_GRAPH_UNCHANGED = 21,
  GLUE_SIF_NULL_PTR = 22,
  GLUE_UNSUPPORTED_DYNAMIC_SHAPE = 23,
  GLUE_UNSUPPORTED_HUGE_TENSORS = 24,
  GLUE_FAILED = 400
} GlueCodeReturn;

// Element types, one bit each so that a kernel can advertise a set of them.
typedef enum _TensorDataType {
  DATA_I4 = 1 << 0,
  DATA_U4 = 1 << 1,
  DATA_I8 = 1 << 2,
  DATA_U8 = 1 << 3,
  DATA_F8_152 = 1 << 4,
  DATA_F8_143 = 1 << 5,
  DATA_I16 = 1 << 6,
  DATA_U16 = 1 << 7,
  DATA_BF16 = 1 << 8,
  DATA_F16 = 1 << 9,
  DATA_I32 = 1 << 10,
  DATA_U32 = 1 << 11,
  DATA_F32 = 1 << 12,
  DATA_I64 = 1 << 13,
  DATA_U64 = 1 << 14,
  NUM_DATATYPES = 15
} TensorDataType;

// A layout string per dimension ("NHWC"-style letters), or all 'x' for a layout-agnostic kernel.
typedef struct _TensorDataLayout {
  char layout[MAX_TENSOR_DIM];
} TensorDataLayout;

typedef struct _NodeDataLayouts {
  TensorDataLayout* inputs;
  uint32_t inputTensorNr;
  TensorDataLayout* outputs;
  uint32_t outputTensorNr;
  TensorDataLayout* shapeTensors;
  uint32_t shapeTensorNr;
} NodeDataLayouts;

// An optional hash of a GUID that the library may hand out to speed up its own lookups.
typedef struct _UniqueShapeInferenceHash {
  union {
    struct {
      uint64_t hashValue : 56;
      uint64_t sharedObjectId : 8;  // the graph compiler's
    };
    uint64_t Value;
  };
} UniqueShapeInferenceHash;

typedef struct _GuidInfo {
  char name[MAX_NODE_NAME];  // e.g. "relu_fwd_f32", NUL-terminated
  UniqueShapeInferenceHash nameHash;
  union {
    struct {
      uint32_t supportsDynamicShapes : 1;
      uint32_t supports64bit : 1;
      uint32_t : 30;
    };
    uint32_t kernelProperties;
  };
} GuidInfo;

// The node's own parameter structure, defined by each kernel family.
typedef struct _UserParams {
  void* nodeParams;
  uint32_t nodeParamsSize;
} UserParams;

typedef union _ElementValue {
  float fValue;
  uint32_t u32Value;
  int32_t i32Value;
  uint16_t u16Value;
  int16_t i16Value;
  uint8_t u8Value;
  int8_t i8Value;
  uint64_t u64Value;
  int64_t i64Value;
} ElementValue;

// Rank, sizes (dimension 0, the fastest-varying, first) and element type. A static shape has
// minSizes == maxSizes; the index space is always computed from maxSizes.
typedef struct _TensorGeometry {
  uint32_t dims;
  uint64_t maxSizes[MAX_TENSOR_DIM];
  uint64_t minSizes[MAX_TENSOR_DIM];
  TensorDataType dataType;
} TensorGeometry;

// Quantization of 8- and 16-bit integer and fp8 tensors.
typedef struct _TensorQuantizationParam {
  union {
    int8_t zeroPoint;
    uint8_t zeroPointU8;
    int8_t fp8bias;
  };
  double scale;
} TensorQuantizationParam;

typedef struct _Tensor {
  TensorGeometry geometry;
  TensorQuantizationParam quantizationParam;
  TensorDataLayout layout;
  union {
    struct {
      uint32_t Reducible : 1;  // lives in memory that can reduce on store
      uint32_t Null : 1;       // an optional tensor that the node does not have
      uint32_t : 30;
    };
    uint32_t flags;
  };
  const void* pData;                     // the contents, when they are constant at compile time
  uint32_t permutation[MAX_TENSOR_DIM];  // transposition applied since the node was created
  uint32_t reserved[6];
} Tensor;

// A tensor the library asks the graph compiler to create for the kernel (a lookup table, scratch memory):
// the library fills geometry and, into pData, the contents; bufferSize is the room pData has, in bytes.
typedef struct _AuxTensor {
  _OUT_ TensorGeometry geometry;
  _IN_ void* pData;
  _INOUT_ uint64_t bufferSize;
  union {
    struct {
      uint32_t sramAlloc : 1;  // place it in SRAM
      uint32_t noInit : 1;     // scratch memory: pData is not read
      uint32_t : 30;
    };
    uint32_t flags;
  };
  uint32_t reserved[6];
} AuxTensor;

// How one tensor dimension depends on one index-space dimension i: the elements
// [a*i + start_b, a*i + end_b] are accessed by the index-space point i.
typedef struct _DimIndexSpaceMapping {
  uint32_t indexSpaceDim;
  float a;
  float start_b;
  float end_b;
  bool allRequired;  // every point may access the whole dimension
} DimIndexSpaceMapping;

typedef struct _TensorAccessPattern {
  union {
    struct {
      uint32_t allRequired : 1;              // any point may access any part of the tensor
      uint32_t memsetBeforeExecution : 1;    // fill the tensor with memsetValue before the launch
      uint32_t inputsReusability : 16;       // outputs: inputs whose memory this output may reuse
      uint32_t inputReusabilityBinding : 1;  // ... and must reuse
      uint32_t sparseAccess : 1;
      uint32_t noRmwAccess : 1;
      uint32_t fullyAccessedOnce : 1;
      uint32_t fullyWritten : 1;
      uint32_t : 8;
    };
    uint32_t Value;
  };
  DimIndexSpaceMapping mapping[MAX_TENSOR_DIM];
  ElementValue memsetValue;
  uint32_t reserved[6];
} TensorAccessPattern;

// The node a graph compiler asks the library to instantiate.
typedef struct _HabanaKernelParams {
  _IN_ int apiVersion;
  _IN_ DeviceId deviceId;
  _IN_ GuidInfo guid;
  _IN_ UserParams nodeParams;
  _IN_ Tensor* inputTensors;
  _IN_ uint32_t inputTensorNr;
  _IN_ Tensor* outputTensors;
  _IN_ uint32_t outputTensorNr;
  _IN_ uint32_t maxAvailableTpc;   // cores the kernel will run on
  _IN_ uint32_t useDeterministic;  // ask for a deterministic program
  _IN_ uint64_t uniqueNodeId;      // for logs
  _IN_ uint32_t debugFlags;
  _IN_ uint16_t validInputTensors;   // bit n: input n is present
  _IN_ uint16_t validOutputTensors;  // bit n: output n is present
  uint32_t reserved[24];
} HabanaKernelParams;

// The program to launch: the ELF is copied into the caller's buffer of elfSize bytes; elfSize comes back
// as the size needed (with GLUE_INSUFFICIENT_ELF_BUFFER when the buffer was too small).
typedef struct _DeviceKernel {
  _IN_ void* kernelElf;
  _INOUT_ uint32_t elfSize;
  _OUT_ uint32_t scalarParams[MAX_SCALAR_PARAMS];  // the kernel's scalar arguments, word by word
  _OUT_ uint32_t paramsNr;                         // words used in scalarParams
} DeviceKernel;

// Everything needed to launch the node: the index space, each tensor's access pattern (arrays of
// inputTensorNr and outputTensorNr entries, allocated by the caller), auxiliary tensors (the caller
// provides an array and sets auxiliaryTensorNr to its length; the library sets the number it uses), and
// the program.
typedef struct _HabanaKernelInstantiation {
  _OUT_ uint32_t indexSpaceRank;
  _OUT_ uint64_t indexSpaceGeometry[MAX_INDEX_SPACE_DIM_SIZE];
  _OUT_ TensorAccessPattern* inputTensorAccessPattern;
  _OUT_ TensorAccessPattern* outputTensorAccessPattern;
  _INOUT_ AuxTensor* auxiliaryTensors;
  _INOUT_ uint32_t auxiliaryTensorNr;
  _INOUT_ DeviceKernel kernel;
  _OUT_ uint32_t preferredSplitDim;  // 0: none; d + 1: split dimension d into slices of one
  uint32_t reserved[15];
} HabanaKernelInstantiation;

typedef struct _NodeTensorPermutation {
  uint32_t permutation[MAX_TENSOR_DIM];
} NodeTensorPermutation;

// Shape inference: the output shapes of a node from its input shapes.
typedef struct _TensorShapeInfo {
  TensorGeometry geometry;
  uint32_t* hostAddress;  // the contents of a shape tensor, or null
  uint32_t reserved[8];
} TensorShapeInfo;

typedef struct _ShapeInferenceParams {
  int apiVersion;
  uint64_t uniqueNodeId;
  GuidInfo guid;
  TensorShapeInfo** inputTensors;
  uint32_t inputTensorsNr;
  UserParams nodeParams;
  uint32_t outputTensorsNr;
  NodeTensorPermutation* inputPermutations;   // null: all identities
  NodeTensorPermutation* outputPermutations;  // null: all identities
  GuidInfo* pGuid;
  uint32_t maxAvailableTpc;
  uint32_t reserved[3];
} ShapeInferenceParams;

typedef struct _ShapeInferenceOutput {
  TensorShapeInfo** outputTensors;
  uint32_t* invalidMask;  // bit n set: output n has no valid shape (the caller clears it)
  uint32_t reserved[6];
} ShapeInferenceOutput;

// Entry point types. GetKernelGuids with guids == null only sets *kernelCount.
typedef GlueCodeReturn (*pfnGetKernelGuids)(_IN_ DeviceId deviceId, _INOUT_ uint32_t* kernelCount,
                                            _OUT_ GuidInfo* guids);
typedef GlueCodeReturn (*pfnInstantiateTpcKernel)(_IN_ const HabanaKernelParams* params,
                                                  _INOUT_ HabanaKernelInstantiation* instance);
typedef GlueCodeReturn (*pfnGetSupportedDataLayout)(_IN_ const HabanaKernelParams* params,
                                                    _OUT_ NodeDataLayouts* supportedLayouts,
                                                    _INOUT_ uint32_t* layoutCount);
typedef GlueCodeReturn (*pfnGetShapeInference)(_IN_ DeviceId deviceId, _IN_ const ShapeInferenceParams* inputParams,
                                               _OUT_ ShapeInferenceOutput* outputData);
typedef uint64_t (*pfnGetLibVersion)();

}  // namespace tpc_lib_api

#endif  // TPC_KERNEL_LIB_INTERFACE_H
