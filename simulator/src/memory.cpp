#include "tpc/sim/memory.h"

#include <stdexcept>

namespace tpc::sim {

int64_t TensorDesc::numElements() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

TensorDesc TensorDesc::dense(DType t, const std::array<int64_t, kMaxDims>& sizes) {
  TensorDesc d;
  d.dtype = t;
  d.sizes = sizes;
  int64_t stride = 1;
  for (int k = 0; k < kMaxDims; ++k) {
    d.strides[k] = stride;
    stride *= sizes[k];
  }
  d.valid = true;
  return d;
}

uint64_t GlobalMemory::allocate(uint64_t bytes) {
  used_ = (used_ + 255) & ~uint64_t{255};
  uint64_t address = kBase + used_;
  used_ += bytes;
  return address;
}

void GlobalMemory::finalize() { data_.assign(used_, 0); }

}  // namespace tpc::sim
