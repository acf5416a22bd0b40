// A launch's statistics as the tools print them: the --stats table and the --json document (DESIGN.md,
// tpc-sim: cycles, total_bundles, cores with cycles, bundles, stalls and slot_utilization), shared by
// tpc-sim and tpc-kernels.
#pragma once

#include <cstdio>
#include <string>

#include "tpc/sim/launch.h"

namespace tpc::sim {

// The JSON text (indented, with a final newline).
std::string statsJson(const LaunchResult& result, const Dims5& space);
// Per-core cycles, bundles, stalls and slot utilization, one line per core that ran.
void printStats(const LaunchResult& result, std::FILE* out = stdout);
// What the kernel printed, line by line, each prefixed with its core.
void printKernelOutput(const LaunchResult& result, std::FILE* out = stdout);

}  // namespace tpc::sim
