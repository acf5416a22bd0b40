#include "tpc/sim/report.h"

#include <string_view>

#include <nlohmann/json.hpp>

namespace tpc::sim {

std::string statsJson(const LaunchResult& r, const Dims5& space) {
  using nlohmann::json;
  static const char* kSlots[] = {"load", "spu", "vpu", "store"};
  json cores = json::array();
  uint64_t stalls = 0;
  for (size_t c = 0; c < r.cores.size(); ++c) {
    const CoreStats& s = r.cores[c];
    json util = json::object();
    for (int k = 0; k < 4; ++k) util[kSlots[k]] = s.bundles ? double(s.slotBusy[k]) / double(s.bundles) : 0.0;
    cores.push_back({{"core", c},
                     {"cycles", s.cycles},
                     {"bundles", s.bundles},
                     {"stalls", s.stalls},
                     {"branch_cycles", s.branchCycles},
                     {"slot_utilization", util},
                     {"load_bytes", s.loadBytes},
                     {"store_bytes", s.storeBytes},
                     {"vector_lane_ops", s.vectorLaneOps},
                     {"index_box", {{"offset", r.boxes[c].offset}, {"size", r.boxes[c].size}}}});
    stalls += s.stalls;
  }
  json doc{{"cycles", r.maxCycles()},
           {"total_bundles", r.totalBundles()},
           {"total_stalls", stalls},
           {"index_space", space},
           {"cores", cores}};
  return doc.dump(2) + "\n";
}

void printStats(const LaunchResult& r, std::FILE* out) {
  std::fprintf(out, "%-5s %10s %10s %8s %6s %6s %6s %6s\n", "core", "cycles", "bundles", "stalls", "load", "spu", "vpu",
               "store");
  for (size_t c = 0; c < r.cores.size(); ++c) {
    const CoreStats& s = r.cores[c];
    if (s.bundles == 0) continue;
    auto pct = [&](int k) { return 100.0 * double(s.slotBusy[k]) / double(s.bundles); };
    std::fprintf(out, "%-5zu %10llu %10llu %8llu %5.1f%% %5.1f%% %5.1f%% %5.1f%%\n", c, (unsigned long long)s.cycles,
                 (unsigned long long)s.bundles, (unsigned long long)s.stalls, pct(0), pct(1), pct(2), pct(3));
  }
}

void printKernelOutput(const LaunchResult& r, std::FILE* out) {
  for (size_t c = 0; c < r.printf.size(); ++c) {
    std::string_view text = r.printf[c];
    while (!text.empty()) {
      size_t nl = text.find('\n');
      std::string_view line = text.substr(0, nl);
      std::fprintf(out, "core %zu: %.*s\n", c, static_cast<int>(line.size()), line.data());
      text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    }
  }
}

}  // namespace tpc::sim
