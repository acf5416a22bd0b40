// A dense tensor held in host memory, as read from or written to a .npy file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tpc/support/dtype.h"

namespace tpc {

// The core's tensors have at most 5 dimensions, so host tensors do too.
inline constexpr int kMaxTensorDims = 5;

struct HostTensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;  // NumPy order: the last axis varies fastest; empty for a 0-d (scalar) tensor.
  std::vector<uint8_t> data;   // numElements() * dtypeSize(dtype) bytes, little-endian; copy out with memcpy.

  // Product of the dimensions; 1 for a 0-d tensor.
  size_t numElements() const;
  size_t numBytes() const { return numElements() * dtypeSize(dtype); }
};

// A zero-filled tensor. Throws UserError if it cannot be allocated.
HostTensor makeZeroTensor(DType dtype, std::vector<int64_t> shape);

// The shape as Python prints a tuple: (), (3,), (2, 3). Used in headers and in messages.
std::string formatShape(std::span<const int64_t> shape);

}  // namespace tpc
