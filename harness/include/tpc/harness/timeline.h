// One engine of a modelled device (an MME, the TPC cores, a link): its busy intervals. Work is booked at the
// earliest gap that starts no sooner than its inputs are ready and is long enough, so work booked later
// (an allreduce's reductions) may still run before work booked earlier but ready later.
#pragma once

#include <string>
#include <vector>

namespace tpc::harness {

struct Interval {
  double start, end;
  std::string name;
};

class Timeline {
 public:
  // Books `duration` microseconds at or after `ready`; returns the start.
  double book(double ready, double duration, std::string name);
  double busy() const;        // the sum of the booked durations
  double end() const;         // the end of the last interval (0 when empty)
  const std::vector<Interval>& intervals() const { return intervals_; }
  void clear() { intervals_.clear(); }

 private:
  std::vector<Interval> intervals_;  // sorted by start, disjoint
};

}  // namespace tpc::harness
