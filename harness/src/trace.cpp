#include "tpc/harness/trace.h"

#include <fmt/format.h>

namespace tpc::harness {

namespace {

constexpr const char* kLaneNames[] = {"MME", "TPC", "link"};

}  // namespace

void appendDeviceEvents(const Device& device, double offsetUs, const std::string& stepLabel, nlohmann::json& events) {
  const Timeline* lanes[] = {&device.mmeLane, &device.tpcLane, &device.linkLane};
  for (int lane = 0; lane < 3; ++lane)
    for (const Interval& i : lanes[lane]->intervals())
      events.push_back({{"name", i.name}, {"cat", kLaneNames[lane]}, {"ph", "X"}, {"pid", device.id}, {"tid", lane},
                        {"ts", offsetUs + i.start}, {"dur", i.end - i.start}, {"args", {{"step", stepLabel}}}});
}

nlohmann::json chromeTrace(int devices, const nlohmann::json& events) {
  nlohmann::json all = nlohmann::json::array();
  for (int d = 0; d < devices; ++d) {
    all.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", d}, {"args", {{"name", fmt::format("device {}", d)}}}});
    all.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", d}, {"args", {{"sort_index", d}}}});
    for (int lane = 0; lane < 3; ++lane)
      all.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", d}, {"tid", lane}, {"args", {{"name", kLaneNames[lane]}}}});
  }
  for (const auto& e : events) all.push_back(e);
  return {{"traceEvents", all}, {"displayTimeUnit", "ns"}};
}

}  // namespace tpc::harness
