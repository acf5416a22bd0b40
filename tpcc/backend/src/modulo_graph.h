// The dependence graph of a loop body as the modulo schedulers see it (modsched.cpp builds it; the
// iterative and the swing scheduler place it).
#pragma once

#include <vector>

#include "tpc/cc/passes.h"

namespace tpc::cc {

// t[to] >= t[from] + latency - distance * II.
struct ModuloEdge {
  int from, to, latency, distance;
};

// Earliest times that satisfy every dependence at this II, or empty when a recurrence does not fit.
std::vector<int> earliestTimes(int n, const std::vector<ModuloEdge>& edges, int ii);

// Swing modulo scheduling at this II: times per instruction, or empty when it finds no schedule (see
// swing_schedule.cpp).
std::vector<int> swingSchedule(const std::vector<MInst>& body, const std::vector<ModuloEdge>& edges, int ii);

}  // namespace tpc::cc
