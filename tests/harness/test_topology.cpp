// The rings of the all-to-all server: each visits every device once, no two use the same directed link, and
// there are as many as Walecki's decomposition gives (1 at 2 devices, n - 1 for odd n, n - 2 for even n).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>

#include "tpc/harness/topology.h"

namespace tpc::harness {
namespace {

TEST(Topology, RingsVisitEveryDeviceOnceAndShareNoDirectedLink) {
  EXPECT_TRUE(directedRings(1).empty());
  for (int n = 2; n <= 16; ++n) {
    SCOPED_TRACE(testing::Message() << n << " devices");
    const auto rings = directedRings(n);
    const size_t expected = n == 2 ? 1 : static_cast<size_t>(n % 2 ? n - 1 : n - 2);
    EXPECT_EQ(rings.size(), expected);
    std::set<std::pair<int, int>> links;
    for (const auto& ring : rings) {
      std::vector<int> sorted = ring;
      std::sort(sorted.begin(), sorted.end());
      for (int k = 0; k < n; ++k) ASSERT_EQ(sorted[static_cast<size_t>(k)], k);
      for (size_t k = 0; k < ring.size(); ++k) {
        const std::pair<int, int> link{ring[k], ring[(k + 1) % ring.size()]};
        EXPECT_NE(link.first, link.second);
        EXPECT_TRUE(links.insert(link).second) << link.first << " -> " << link.second << " used twice";
      }
    }
    // Undirected: every cycle's edges are distinct too (a cycle and its reverse are the only sharers).
    const auto cycles = hamiltonianCycles(n);
    std::set<std::pair<int, int>> edges;
    if (n > 2) {
      for (const auto& c : cycles)
        for (size_t k = 0; k < c.size(); ++k)
          EXPECT_TRUE(edges.insert(std::minmax(c[k], c[(k + 1) % c.size()])).second);
    }
    EXPECT_EQ(directedRings(n, 1).size(), 1u);
  }
}

}  // namespace
}  // namespace tpc::harness
