// The register files of one core. Every file has a few hidden scratch registers past the architectural
// ones: a bundle whose later slot reads what an earlier slot writes gets the old value copied there
// first, so every slot of a bundle reads the state before the bundle (see program.h).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "tpc/isa/isa.h"

namespace tpc::sim {

inline constexpr int kScratchRegs = 4;

struct alignas(64) VReg {
  alignas(64) uint8_t bytes[isa::kVectorBytes];
  template <class S> S* lanes() { return reinterpret_cast<S*>(bytes); }
  template <class S> const S* lanes() const { return reinterpret_cast<const S*>(bytes); }
};

// 256 predicate bits; lane i uses bit i.
struct VPReg {
  uint64_t w[4];
  bool bit(int i) const { return (w[i >> 6] >> (i & 63)) & 1u; }
  void set(int i, bool v) {
    uint64_t m = uint64_t{1} << (i & 63);
    w[i >> 6] = v ? (w[i >> 6] | m) : (w[i >> 6] & ~m);
  }
};

using IReg = std::array<int32_t, 5>;

struct RegisterFile {
  std::array<VReg, isa::kNumVRegs + kScratchRegs> v;
  std::array<uint32_t, isa::kNumSRegs + kScratchRegs> s;
  std::array<IReg, isa::kNumIRegs + kScratchRegs> i;
  std::array<uint8_t, isa::kNumSPRegs + kScratchRegs> sp;  // 0 or 1; SP0 is always 1
  std::array<VPReg, isa::kNumVPRegs + kScratchRegs> vp;
  std::array<uint64_t, isa::kNumADRegs + kScratchRegs> ad;

  void clear() {
    std::memset(static_cast<void*>(this), 0, sizeof(*this));
    sp[0] = 1;
  }
};

// One number per register for hazard tracking: file * 64 + index.
inline constexpr int kRegIdsPerFile = 64;
inline constexpr int kNumRegIds = 8 * kRegIdsPerFile;
inline constexpr uint16_t regId(isa::RegFile f, int index) {
  return static_cast<uint16_t>(static_cast<int>(f) * kRegIdsPerFile + index);
}

}  // namespace tpc::sim
