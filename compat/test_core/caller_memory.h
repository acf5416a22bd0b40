// The caller's memory as the simulator sees it: the byte ranges the descriptors span, merged where they
// overlap (so tensors that alias stay aliased), copied into launch regions and back.
#pragma once

#include <cstdint>
#include <vector>

#include "descriptor_view.h"
#include "tpc/sim/launch.h"

namespace tpc::test_core {

class CallerMemory {
 public:
  // Groups the views' byte ranges; refuses (Refusal) when the total is more than the simulator can hold.
  explicit CallerMemory(const std::vector<DescriptorView>& views);

  // Moves every range into a region of the launch and binds each view to its region, in order.
  void bind(sim::Launch& launch);
  // The copy of view n's memory before the launch (for memsetBeforeExecution): its region and offset.
  std::vector<uint8_t>& regionOf(int view, uint64_t* byteOffset);
  // After the run: copies back the regions that hold a view whose `writeBack` flag is set.
  void copyBack(const sim::Launch& launch, const std::vector<bool>& writeBack) const;

 private:
  struct Range {
    uint64_t begin = 0, end = 0;  // caller addresses
    std::vector<uint8_t> bytes;   // the contents, until bind() hands them to the launch
  };
  std::vector<Range> ranges_;
  std::vector<int> rangeOfView_;  // -1 for empty views
  const std::vector<DescriptorView>& views_;
};

}  // namespace tpc::test_core
