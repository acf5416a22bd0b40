// A kernel fault: the run of a core stops, and the simulator reports the core, the bundle address and,
// with debug info, the source line (tpc-sim exit status 2).
#pragma once

#include <stdexcept>
#include <string>

namespace tpc::sim {

// Thrown by instruction semantics; the core adds where it happened.
class ExecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Fault {
  int core = -1;
  uint32_t address = 0;  // byte address of the faulting bundle
  std::string message;   // what went wrong, without the location
  std::string where;     // "relu.c:12:5" when debug info knows it
  std::string describe() const;
};

}  // namespace tpc::sim
