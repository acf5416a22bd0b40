// The rings an allreduce runs on. The devices of a server are connected all-to-all (Gaudi2: 3 ports to each
// peer), so several rings can run at once on disjoint links, as NCCL's channels do: each undirected
// Hamiltonian cycle of the complete graph, travelled in both directions, is two rings that share no
// directed link.
#pragma once

#include <vector>

namespace tpc::harness {

// Walecki's decomposition of the complete graph on n vertices into edge-disjoint Hamiltonian cycles: (n-1)/2
// cycles for odd n; for even n, (n-2)/2 cycles and a perfect matching that stays unused. Each cycle lists
// the n ranks in ring order. n = 2 gives the single cycle {0, 1}; n = 1 none.
std::vector<std::vector<int>> hamiltonianCycles(int n);

// The directed rings over n devices: every cycle above in both directions (for n = 2 the one ring 0 -> 1 ->
// 0), at most `limit` of them when limit > 0. No two rings use the same directed link.
std::vector<std::vector<int>> directedRings(int n, int limit = 0);

}  // namespace tpc::harness
