#include "tpc/support/host_tensor.h"

#include <fmt/format.h>

#include <new>
#include <stdexcept>

#include "tpc/support/error.h"

namespace tpc {

size_t HostTensor::numElements() const {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

HostTensor makeZeroTensor(DType dtype, std::vector<int64_t> shape) {
  HostTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  size_t bytes = t.numBytes();
  // A huge shape from the command line should be reported, not end the program with std::bad_alloc.
  try {
    t.data.assign(bytes, 0);
  } catch (const std::bad_alloc&) {
    throw UserError(fmt::format("cannot allocate {} bytes for a {} tensor of shape {}", bytes, dtypeName(dtype),
                                formatShape(t.shape)));
  } catch (const std::length_error&) {
    throw UserError(fmt::format("cannot allocate {} bytes for a {} tensor of shape {}", bytes, dtypeName(dtype),
                                formatShape(t.shape)));
  }
  return t;
}

std::string formatShape(std::span<const int64_t> shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

}  // namespace tpc
