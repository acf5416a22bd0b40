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
  // 256-byte aligned, with a vector's worth of unallocated zeros between tensors, so that a load just past
  // a tensor (through gen_addr) is seen as outside every tensor rather than as the next tensor's data.
  used_ = ((used_ + 255) & ~uint64_t{255}) + (allocations_.empty() ? 0 : 256);
  uint64_t address = kBase + used_;
  used_ += bytes;
  allocations_.push_back({address, bytes});
  return address;
}

// A vector's worth of zeros after the last allocation, for loads that overrun it (see Core::globalForRead).
void GlobalMemory::finalize() { data_.assign(used_ + 256, 0); }

}  // namespace tpc::sim
