#include "tpc/harness/trace.h"

#include <fmt/format.h>

namespace tpc::harness {

namespace {

// Threads of a device's process: MME, TPC, then one link lane per peer (thread 2 + peer).
constexpr int kMmeTid = 0, kTpcTid = 1, kFirstLinkTid = 2;

void appendLane(const Timeline& lane, const char* category, int pid, int tid, double offsetUs,
                const std::string& stepLabel, nlohmann::json& events) {
  for (const Interval& i : lane.intervals())
    events.push_back({{"name", i.name}, {"cat", category}, {"ph", "X"}, {"pid", pid}, {"tid", tid},
                      {"ts", offsetUs + i.start}, {"dur", i.end - i.start}, {"args", {{"step", stepLabel}}}});
}

}  // namespace

void appendDeviceEvents(const Device& device, double offsetUs, const std::string& stepLabel, nlohmann::json& events) {
  appendLane(device.mmeLane, "MME", device.id, kMmeTid, offsetUs, stepLabel, events);
  appendLane(device.tpcLane, "TPC", device.id, kTpcTid, offsetUs, stepLabel, events);
  for (const auto& [peer, lane] : device.linkLanes)
    appendLane(lane, "link", device.id, kFirstLinkTid + peer, offsetUs, stepLabel, events);
}

nlohmann::json chromeTrace(int devices, const nlohmann::json& events) {
  nlohmann::json all = nlohmann::json::array();
  for (int d = 0; d < devices; ++d) {
    all.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", d}, {"args", {{"name", fmt::format("device {}", d)}}}});
    all.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", d}, {"args", {{"sort_index", d}}}});
    all.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", d}, {"tid", kMmeTid}, {"args", {{"name", "MME"}}}});
    all.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", d}, {"tid", kTpcTid}, {"args", {{"name", "TPC"}}}});
    for (int peer = 0; peer < devices; ++peer)
      if (peer != d)
        all.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", d}, {"tid", kFirstLinkTid + peer},
                       {"args", {{"name", fmt::format("link to device {}", peer)}}}});
  }
  for (const auto& e : events) all.push_back(e);
  return {{"traceEvents", all}, {"displayTimeUnit", "ns"}};
}

}  // namespace tpc::harness
