// The kernel's 5-D index space and its split over the cores.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
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

// "D0,D1,..." as on tpc-sim's command line (--index-space): 1 to 5 sizes in 1..2^31, the rest 1; nullopt
// when the text is not that.
std::optional<Dims5> parseIndexSpace(std::string_view text);

}  // namespace tpc::sim
