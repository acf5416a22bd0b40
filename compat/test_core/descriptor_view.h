// Reading the test core's tensor descriptors (TensorDesc2) as simulator tensors, and the consistency
// checks a descriptor must pass before anything runs.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "tpc/sim/memory.h"
#include "tpc_test_core_types.h"

namespace tpc::test_core {

// A request the test core refuses; the message names the tensor and the field.
class Refusal : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One descriptor, decoded: where its elements are in the caller's memory and their geometry.
struct DescriptorView {
  int number = 0;          // position in the descriptor list (= the kernel's tensor number)
  std::string role;        // "input 0", "output 1", "auxiliary tensor 0": for messages
  sim::TensorDesc tensor;  // data type, sizes (invalid dimensions are 1), strides, padding
  uint64_t base = 0;       // caller address of element (0,0,0,0,0)
  uint64_t spanBytes = 0;  // bytes from base to the end of the last element; 0 for an empty tensor
};

// Decodes descriptor `n` (role says what the kernel's tensor n is); throws Refusal for an unknown element
// type, a null base, sizes or strides whose span overflows.
DescriptorView decodeDescriptor(const tpc_tests::TensorDesc2& d, int n, const std::string& role);

// Throws Refusal when two elements of the tensor share an address (a store through it would be ambiguous).
void checkNoOverlap(const DescriptorView& v);

}  // namespace tpc::test_core
