#include "tpc/harness/timeline.h"

#include <algorithm>

namespace tpc::harness {

double Timeline::book(double ready, double duration, std::string name) {
  double start = ready;
  size_t at = 0;
  // Skip the intervals that end before `ready`; then walk the gaps.
  while (at < intervals_.size() && intervals_[at].end <= start) ++at;
  for (; at < intervals_.size(); ++at) {
    if (start + duration <= intervals_[at].start) break;  // fits in the gap before this interval
    start = std::max(start, intervals_[at].end);
  }
  intervals_.insert(intervals_.begin() + static_cast<long>(at), Interval{start, start + duration, std::move(name)});
  return start;
}

double Timeline::busy() const {
  double sum = 0;
  for (const Interval& i : intervals_) sum += i.end - i.start;
  return sum;
}

double Timeline::end() const {
  double e = 0;
  for (const Interval& i : intervals_) e = std::max(e, i.end);
  return e;
}

}  // namespace tpc::harness
