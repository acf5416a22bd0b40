// The kernel's 5-D index space and its split over the cores.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace tpc::sim {

using Dims5 = std::array<int64_t, 5>;

struct IndexBox {
  Dims5 offset{0, 0, 0, 0, 0};
  Dims5 size{0, 0, 0, 0, 0};
  int64_t volume() const;
};

// Splits `space` into at most `cores` boxes of nearly equal volume that cover every index exactly once.
// Cores beyond the number of boxes get an empty box. The split depends only on the arguments, so results
// are the same for any host thread count. `preferredDim` (0-4; -1 none) is split first, into as many
// chunks as it has points or the cores allow: the glue's HabanaKernelInstantiation::preferredSplitDim, so
// that a kernel whose inner loop runs along dimension 0 gets whole rows.
std::vector<IndexBox> splitIndexSpace(const Dims5& space, int cores, int preferredDim = -1);

}  // namespace tpc::sim
