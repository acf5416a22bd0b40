// The tpc-sim arguments after `--` on tpc-gdb's command line (or a DAP launch's `args`): the same options
// and meanings as tpc-sim (DESIGN.md section 3), parsed into what the debugger's machine needs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tpc/sim/index_space.h"

namespace tpc::dbg {

struct LaunchSetup {
  std::string arch;                   // empty: the object's
  int cores = 0;                      // 0: the architecture's count
  tpc::sim::Dims5 indexSpace{1, 1, 1, 1, 1};
  bool indexSpaceGiven = false;
  std::vector<std::string> tensors;   // -t arguments
  std::vector<std::string> scalars;   // -s arguments
  bool strictHazards = false;
  uint64_t maxCycles = 0;
};

// Throws UserError naming the argument on anything tpc-sim would reject (and on --native, --json and
// --trace, which have no meaning under the debugger).
LaunchSetup parseLaunchArguments(const std::vector<std::string>& args);

}  // namespace tpc::dbg
