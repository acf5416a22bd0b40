#include "tpc/sim/index_space.h"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace tpc::sim {

int64_t IndexBox::volume() const {
  int64_t v = 1;
  for (int64_t s : size) v *= s;
  return v;
}

std::vector<IndexBox> splitIndexSpace(const Dims5& space, int cores, int preferredDim) {
  std::vector<IndexBox> boxes(static_cast<size_t>(std::max(cores, 1)));
  if (std::any_of(space.begin(), space.end(), [](int64_t s) { return s <= 0; })) return boxes;

  // Chunks per dimension: grow the dimension whose chunks are largest (outer dimensions first on ties)
  // while the total number of chunks stays within the core count.
  Dims5 chunks{1, 1, 1, 1, 1};
  int64_t total = 1;
  if (preferredDim >= 0 && preferredDim < 5) {
    chunks[static_cast<size_t>(preferredDim)] = std::min<int64_t>(space[static_cast<size_t>(preferredDim)], std::max(cores, 1));
    total = chunks[static_cast<size_t>(preferredDim)];
  }
  for (;;) {
    int best = -1;
    int64_t bestExtent = 0;
    for (int d = 4; d >= 0; --d) {
      if (chunks[d] >= space[d] || total / chunks[d] * (chunks[d] + 1) > cores) continue;
      int64_t extent = (space[d] + chunks[d] - 1) / chunks[d];
      if (extent > bestExtent) {
        best = d;
        bestExtent = extent;
      }
    }
    if (best < 0) break;
    total = total / chunks[best] * (chunks[best] + 1);
    ++chunks[best];
  }

  for (int64_t c = 0; c < total; ++c) {
    IndexBox& box = boxes[static_cast<size_t>(c)];
    int64_t rest = c;
    for (int d = 0; d < 5; ++d) {
      int64_t i = rest % chunks[d];
      rest /= chunks[d];
      int64_t base = space[d] / chunks[d], extra = space[d] % chunks[d];
      box.offset[d] = i * base + std::min(i, extra);
      box.size[d] = base + (i < extra ? 1 : 0);
    }
  }
  return boxes;
}

std::optional<Dims5> parseIndexSpace(std::string_view text) {
  Dims5 d{1, 1, 1, 1, 1};
  size_t k = 0, pos = 0;
  while (pos <= text.size()) {
    const size_t comma = text.find(',', pos);
    const std::string part(text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos));
    char* end = nullptr;
    const long long v = std::strtoll(part.c_str(), &end, 10);
    if (k >= 5 || part.empty() || *end != '\0' || v < 1 || v > (1ll << 31)) return std::nullopt;
    d[k++] = v;
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return d;
}

}  // namespace tpc::sim
