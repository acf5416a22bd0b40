// The geometry of kernels that work along one dimension `dim` of their input (kernels/rows.h): the
// variant (NAME.lanes for dimension 0, NAME.outer otherwise), the index space and the access patterns.
#pragma once

#include <array>
#include <string>

#include "glue.h"

namespace tpc::kernels {

struct RowGeometry {
  int32_t dim = 0;
  uint32_t lanes = 64;  // elements per vector of the data type
  uint32_t n = 1;       // elements along dim
  uint32_t rank = 1;
  std::array<uint64_t, 5> space{1, 1, 1, 1, 1};
  // The variant, rank and index space into the plan.
  void fill(LaunchPlan& plan, const std::string& guid) const;
  // The access pattern of a tensor of the input's shape (wholeRow: every point reads all of dim) or of the
  // reduced shape (dim of size 1); width0 overrides the elements per point along dimension 0.
  tpc_lib_api::TensorAccessPattern pattern(bool wholeRow, uint32_t width0 = 0) const;
};

// dim names a dimension of x, and x has elements.
GlueResult checkRowDim(const Node& node, const TensorView& x, int32_t dim);
// x with dimension dim of size 1.
TensorView reducedShape(const TensorView& x, int32_t dim);
RowGeometry rowGeometry(const TensorView& x, int32_t dim, uint32_t lanes);
const ParamSchema& reduceSchema();

}  // namespace tpc::kernels
