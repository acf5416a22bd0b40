#include "caller_memory.h"

#include <algorithm>
#include <cstring>
#include <new>

#include <fmt/format.h>

namespace tpc::test_core {

namespace {
// The simulator's global memory is one host allocation; more than this is refused rather than attempted.
constexpr uint64_t kMaxTotalBytes = 16ull << 30;
}  // namespace

CallerMemory::CallerMemory(const std::vector<DescriptorView>& views) : views_(views) {
  std::vector<int> order;
  for (size_t n = 0; n < views.size(); ++n)
    if (views[n].spanBytes) order.push_back(static_cast<int>(n));
  std::sort(order.begin(), order.end(), [&](int a, int b) { return views[a].base < views[b].base; });
  rangeOfView_.assign(views.size(), -1);
  uint64_t total = 0;
  for (int n : order) {
    const DescriptorView& v = views[static_cast<size_t>(n)];
    if (ranges_.empty() || v.base >= ranges_.back().end) {
      ranges_.push_back({v.base, v.base + v.spanBytes, {}});
    } else {
      ranges_.back().end = std::max(ranges_.back().end, v.base + v.spanBytes);
    }
    rangeOfView_[static_cast<size_t>(n)] = static_cast<int>(ranges_.size()) - 1;
  }
  for (const Range& r : ranges_) total += r.end - r.begin;
  if (total > kMaxTotalBytes)
    throw Refusal(fmt::format("the descriptors span {} bytes of memory in all (strides included); the simulator "
                              "holds at most {} bytes", total, kMaxTotalBytes));
  try {
    for (Range& r : ranges_) {
      r.bytes.resize(r.end - r.begin);
      std::memcpy(r.bytes.data(), reinterpret_cast<const void*>(r.begin), r.bytes.size());
    }
  } catch (const std::bad_alloc&) {
    throw Refusal(fmt::format("the descriptors span {} bytes of memory, more than this host could allocate", total));
  }
}

std::vector<uint8_t>& CallerMemory::regionOf(int view, uint64_t* byteOffset) {
  Range& r = ranges_[static_cast<size_t>(rangeOfView_[static_cast<size_t>(view)])];
  *byteOffset = views_[static_cast<size_t>(view)].base - r.begin;
  return r.bytes;
}

void CallerMemory::bind(sim::Launch& launch) {
  std::vector<int> region;
  for (Range& r : ranges_) region.push_back(launch.addRegion(std::move(r.bytes)));
  // An empty view gets an empty region of its own: nothing to copy, nothing to alias.
  for (size_t n = 0; n < views_.size(); ++n) {
    int range = rangeOfView_[n];
    if (range < 0) {
      launch.addTensorView(views_[n].tensor, launch.addRegion({}), 0);
      continue;
    }
    launch.addTensorView(views_[n].tensor, region[static_cast<size_t>(range)],
                         views_[n].base - ranges_[static_cast<size_t>(range)].begin);
  }
}

void CallerMemory::copyBack(const sim::Launch& launch, const std::vector<bool>& writeBack) const {
  std::vector<bool> done(ranges_.size(), false);
  for (size_t n = 0; n < views_.size(); ++n) {
    int range = rangeOfView_[n];
    if (range < 0 || !writeBack[n] || done[static_cast<size_t>(range)]) continue;
    done[static_cast<size_t>(range)] = true;
    const Range& r = ranges_[static_cast<size_t>(range)];
    // Regions were added in range order, before any empty-view region.
    std::span<const uint8_t> data = launch.regionData(range);
    std::memcpy(reinterpret_cast<void*>(r.begin), data.data(), data.size());
  }
}

}  // namespace tpc::test_core
