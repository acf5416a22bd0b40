#include "tpc/harness/topology.h"

#include <algorithm>

namespace tpc::harness {

namespace {

// i, i+1, i-1, i+2, i-2, ... (mod `mod`), `length` vertices: the zigzag path whose rotations are disjoint.
std::vector<int> zigzag(int i, int mod, int length) {
  std::vector<int> path{i % mod};
  for (int j = 1; static_cast<int>(path.size()) < length; ++j) {
    path.push_back((i + j) % mod);
    if (static_cast<int>(path.size()) < length) path.push_back(((i - j) % mod + mod) % mod);
  }
  return path;
}

}  // namespace

std::vector<std::vector<int>> hamiltonianCycles(int n) {
  if (n < 2) return {};
  if (n == 2) return {{0, 1}};
  // Vertex n-1 is the hub that closes every zigzag path on the other vertices into a cycle.
  const int mod = n - 1, cycles = n % 2 ? (n - 1) / 2 : (n - 2) / 2;
  std::vector<std::vector<int>> out;
  for (int i = 0; i < cycles; ++i) {
    std::vector<int> c{n - 1};
    for (int v : zigzag(i, mod, mod)) c.push_back(v);
    out.push_back(c);
  }
  return out;
}

std::vector<std::vector<int>> directedRings(int n, int limit) {
  std::vector<std::vector<int>> rings;
  for (const std::vector<int>& c : hamiltonianCycles(n)) {
    rings.push_back(c);
    if (n > 2) rings.emplace_back(c.rbegin(), c.rend());
  }
  if (limit > 0 && static_cast<int>(rings.size()) > limit) rings.resize(static_cast<size_t>(limit));
  return rings;
}

}  // namespace tpc::harness
