#include "descriptor_view.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace tpc::test_core {

namespace {

// The element type in the low four bits of the configuration word. Codes 0-2 are also the element-size
// codes (1, 2, 4 bytes) of the older descriptor format, so both formats read the same way; the simulator
// needs only the size, the instructions say how to interpret the bits.
DType elementType(uint32_t configuration, const std::string& role) {
  switch (configuration & 0xFu) {
    case 0: return DType::I8;
    case 1: return DType::I16;
    case 2: return DType::I32;
    case 3: return DType::U8;
    case 4: return DType::U16;
    case 5: return DType::U32;
    case 6: return DType::BF16;
    case 7: return DType::F32;
    case 8: return DType::F16;
    case 9: case 10: return DType::U8;  // fp8 formats: bytes to the simulator
    default:
      throw Refusal(fmt::format("{}: configuration 0x{:x}: element type code {} is not one of 0-10 (8-byte "
                                "elements are not supported)", role, configuration, configuration & 0xFu));
  }
}

}  // namespace

DescriptorView decodeDescriptor(const tpc_tests::TensorDesc2& d, int n, const std::string& role) {
  DescriptorView v;
  v.number = n;
  v.role = role;
  v.tensor.dtype = elementType(d.configuration, role);
  v.tensor.padding = d.paddingValue;
  v.base = d.baseAddrUnion.baseAddr;
  // Valid dimensions: the mask when it is set, otherwise 0 .. lastDim. The others have size 1.
  uint32_t mask = TPC_DESC_VALID_DIM_MASK(d.configuration);
  if (mask == 0) mask = (2u << TPC_DESC_LAST_DIM(d.configuration)) - 1;
  uint64_t last = 0;  // offset of the last element, in elements
  bool empty = false;
  for (int k = 0; k < sim::kMaxDims; ++k) {
    bool valid = (mask >> k) & 1;
    v.tensor.sizes[k] = valid ? d.dimDescriptors[k].size : 1;
    v.tensor.strides[k] = valid ? d.dimDescriptors[k].stride : 0;
    if (v.tensor.sizes[k] == 0) empty = true;
    else last += static_cast<uint64_t>(v.tensor.sizes[k] - 1) * static_cast<uint64_t>(v.tensor.strides[k]);
  }
  if (!empty) {
    if (v.base == 0) throw Refusal(fmt::format("{}: baseAddr is null", role));
    v.spanBytes = (last + 1) * dtypeSize(v.tensor.dtype);
    if (v.base + v.spanBytes < v.base)
      throw Refusal(fmt::format("{}: baseAddr 0x{:x} plus the tensor's extent of {} bytes passes the end of the "
                                "address space", role, v.base, v.spanBytes));
  }
  return v;
}

void checkNoOverlap(const DescriptorView& v) {
  if (v.spanBytes == 0) return;
  // Dimensions with more than one element, by stride: each must step past the whole of the previous one.
  std::vector<int> dims;
  for (int k = 0; k < sim::kMaxDims; ++k)
    if (v.tensor.sizes[k] > 1) dims.push_back(k);
  std::sort(dims.begin(), dims.end(), [&](int a, int b) { return v.tensor.strides[a] < v.tensor.strides[b]; });
  int64_t needed = 1;  // the smallest stride that does not overlap what came before
  int previous = -1;
  for (int k : dims) {
    if (v.tensor.strides[k] < needed) {
      if (previous < 0)
        throw Refusal(fmt::format("{}: dimDescriptors[{}].stride is 0 with size {}: its elements overlap", v.role, k,
                                  v.tensor.sizes[k]));
      throw Refusal(fmt::format("{}: dimDescriptors[{}].stride {} overlaps dimension {} (size {}, stride {}): "
                                "expected at least {}", v.role, k, v.tensor.strides[k], previous,
                                v.tensor.sizes[previous], v.tensor.strides[previous], needed));
    }
    needed = v.tensor.strides[k] * v.tensor.sizes[k];
    previous = k;
  }
}

}  // namespace tpc::test_core
