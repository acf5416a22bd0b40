// The glue code's internals: a node as the families see it, what they produce, and the family interface.
// Each family (elementwise.cpp, reduce.cpp, ...) validates a node and plans its launch: which kernel object,
// the index space, each tensor's access pattern and the scalar arguments; registry.cpp copies the plan
// into the caller's instantiation.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "tpc_kernels/library.h"
#include "tpc_kernels/params.h"

namespace tpc::kernels {

using tpc_lib_api::GlueCodeReturn;
using tpc_lib_api::TensorDataType;

// A tensor of the node: its rank and sizes (dimension 0 first, 1 past the rank) and element type.
struct TensorView {
  uint32_t dims = 0;
  std::array<uint64_t, 5> sizes{1, 1, 1, 1, 1};
  TensorDataType type = tpc_lib_api::DATA_F32;
  uint64_t elements() const { return sizes[0] * sizes[1] * sizes[2] * sizes[3] * sizes[4]; }
};

// The node a family validates: its GUID split into the operation (the family's key) and the data type,
// its tensors, and its parameter structure (the family's defaults when the caller gave none).
struct Node {
  std::string guid, arch;
  std::vector<TensorView> inputs, outputs;
  std::vector<unsigned char> params;
  template <class P> const P& param() const { return *reinterpret_cast<const P*>(params.data()); }
};

// What a family plans: the kernel object (a variant name of kernels.cmake), the index space, an access
// pattern per input and output, and the kernel's scalar arguments word by word.
struct LaunchPlan {
  std::string kernel;
  uint32_t rank = 1;
  std::array<uint64_t, 5> geometry{1, 1, 1, 1, 1};
  std::vector<tpc_lib_api::TensorAccessPattern> inputs, outputs;
  std::vector<uint32_t> scalars;
  // The dimension a graph compiler should split over the cores first; -1: registry.cpp picks the largest
  // dimension above 0, so that cores get whole rows of dimension 0, along which the kernels loop.
  int preferredSplitDim = -1;
  void addScalar(float v);
  void addScalar(int32_t v);
  void addScalar(uint32_t v);
};

class Family {
 public:
  virtual ~Family() = default;
  // The GUIDs of the family on an architecture.
  virtual std::vector<std::string> guids(const std::string& arch) const = 0;
  virtual const ParamSchema& params() const;  // default: no parameters
  virtual GlueResult plan(const Node& node, LaunchPlan& out) const = 0;
};

// The families, each made once (registry.cpp).
const std::vector<std::unique_ptr<Family>>& families();
std::vector<std::unique_ptr<Family>> elementwiseFamilies();
std::vector<std::unique_ptr<Family>> reductionFamilies();
std::vector<std::unique_ptr<Family>> softmaxFamilies();
std::vector<std::unique_ptr<Family>> normFamilies();
std::vector<std::unique_ptr<Family>> crossEntropyFamilies();
std::vector<std::unique_ptr<Family>> gemmFamilies();
std::vector<std::unique_ptr<Family>> randomFamilies();
std::vector<std::unique_ptr<Family>> optimizerFamilies();
std::vector<std::unique_ptr<Family>> activationFamilies();
std::vector<std::unique_ptr<Family>> movementFamilies();
std::vector<std::unique_ptr<Family>> logicFamilies();
std::vector<std::unique_ptr<Family>> lossFamilies();
std::vector<std::unique_ptr<Family>> poolingFamilies();
std::vector<std::unique_ptr<Family>> chnormFamilies();
std::vector<std::unique_ptr<Family>> scanFamilies();
std::vector<std::unique_ptr<Family>> embeddingBwdFamilies();
std::vector<std::unique_ptr<Family>> resizeFamilies();
std::vector<std::unique_ptr<Family>> convFamilies();

// ------------------------------------------------------------------------------------------ checks
// Each returns GLUE_SUCCESS, or the precise code with what was expected.

GlueResult fail(GlueCodeReturn code, std::string message);
GlueResult expectCounts(const Node& node, size_t inputs, size_t outputs);
GlueResult expectType(const Node& node, bool output, size_t index, TensorDataType type);
// The output must have exactly these dims and sizes.
GlueResult expectOutputShape(const Node& node, size_t index, const TensorView& shape);
// NumPy broadcasting of the inputs to one shape (rank the largest, each dimension equal or 1).
GlueResult broadcastShape(const Node& node, TensorView* shape);

const char* typeName(TensorDataType t);
// The data type named by a GUID's last part ("_f32", "_bf16", "_i32", "_u8", ...); false when none is.
bool typeOfGuid(const std::string& guid, TensorDataType* type);
// Every input and output of the node has this type.
GlueResult expectAllTypes(const Node& node, TensorDataType type);
std::string shapeText(const TensorView& t);  // NumPy order, "(2, 3, 256)"

// ------------------------------------------------------------------------------------------ plans

// The elementwise index space over `shape`: dimension 0 in vectors of `lanes` elements, the others one
// point per element; an empty tensor gives an empty index space.
void elementwiseSpace(const TensorView& shape, uint32_t lanes, LaunchPlan& plan);
// The access pattern of a tensor read or written elementwise over that space: point i of dimension d
// touches elements [lanes*i, lanes*i + lanes-1] of dimension 0 and element i of the others; a dimension
// the tensor broadcasts (size 1 where the space is larger) touches element 0.
tpc_lib_api::TensorAccessPattern elementwisePattern(const TensorView& tensor, const TensorView& shape, uint32_t rank,
                                                   uint32_t lanes);
// The elementwise plan over `shape`: its index space and every input's and output's pattern.
void fillElementwise(const Node& node, const TensorView& shape, uint32_t lanes, LaunchPlan& plan);
// Bit d set where `tensor` has size 1 and `shape` more.
// The last scalar of the elementwise kernels (kernels/common.h, FOR_EACH_POINT_FLAT) and of those along a
// dimension (FOR_DIMS_2_TO_4), `layout`: 0 when an input is broadcast (binary and where only), else 1, or 2
// when the index space also has one point in each of dimensions 2-4, so that no core need loop over them.
int32_t flatLayout(const LaunchPlan& plan, bool broadcasts = false);
uint32_t broadcastBits(const TensorView& tensor, const TensorView& shape);
// Elements of one vector of a type: 64 for 32-bit types, 128 for 16-bit, 256 for 8-bit.
uint32_t lanesOf(TensorDataType t);

}  // namespace tpc::kernels
