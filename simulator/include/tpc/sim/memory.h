// Global memory and tensor descriptors. All tensors of a launch live in one global-memory arena shared by
// the cores; a descriptor gives a tensor's 5-D geometry inside it.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "tpc/support/dtype.h"

namespace tpc::sim {

inline constexpr int kMaxDims = 5;

struct TensorDesc {
  DType dtype = DType::F32;
  std::array<int64_t, kMaxDims> sizes{1, 1, 1, 1, 1};    // dimension 0 varies fastest
  std::array<int64_t, kMaxDims> strides{1, 1, 1, 1, 1};  // in elements
  uint64_t base = 0;                                     // global address of element (0,0,0,0,0)
  uint32_t padding = 0;                                  // raw bits returned for reads outside the tensor
  uint8_t* host = nullptr;                               // host pointer of `base` (set by GlobalMemory)
  bool valid = false;

  int64_t numElements() const;
  static TensorDesc dense(DType t, const std::array<int64_t, kMaxDims>& sizes);
};

class GlobalMemory {
 public:
  // Global addresses start above zero so that a null address faults.
  static constexpr uint64_t kBase = 0x100000000ull;

  // Reserves room for `bytes` bytes (aligned to 256) and returns its global address.
  uint64_t allocate(uint64_t bytes);
  // Fixes the arena's size; pointers from hostPtr() stay valid afterwards.
  void finalize();
  uint8_t* hostPtr(uint64_t address) { return data_.data() + (address - kBase); }
  const uint8_t* hostPtr(uint64_t address) const { return data_.data() + (address - kBase); }
  // Whether [address, address + bytes) lies inside the arena (tensors, the gaps between them, and a vector's
  // worth of zeros after the last).
  bool inArena(uint64_t address, uint64_t bytes) const {
    return address >= kBase && bytes <= data_.size() && address - kBase <= data_.size() - bytes;
  }
  // Whether [address, address + bytes) lies inside one allocation: an access past a tensor's memory (through
  // gen_addr, which the hardware does not bound) is caught even where another tensor follows.
  bool contains(uint64_t address, uint64_t bytes) const {
    for (const Allocation& a : allocations_)
      if (address >= a.address && bytes <= a.bytes && address - a.address <= a.bytes - bytes) return true;
    return false;
  }
  uint64_t size() const { return data_.size(); }

 private:
  struct Allocation {
    uint64_t address, bytes;
  };
  std::vector<uint8_t> data_;
  std::vector<Allocation> allocations_;
  uint64_t used_ = 0;
};

}  // namespace tpc::sim
