// One modelled device: the model's figures, the MME, TPC and link timelines, and the TPC that runs kernels.
#pragma once

#include <algorithm>
#include <map>

#include "tpc/harness/device_model.h"
#include "tpc/harness/timeline.h"
#include "tpc/harness/tpc_exec.h"

namespace tpc::harness {

struct Device {
  explicit Device(const DeviceModel& m, int rank = 0) : model(m), id(rank), tpc(m) {}
  const DeviceModel& model;
  int id;
  Timeline mmeLane, tpcLane;
  std::map<int, Timeline> linkLanes;  // by peer: this device's ports to that peer, one direction
  TpcExec tpc;

  Timeline& linkTo(int peer) { return linkLanes[peer]; }
  double end() const {
    double e = std::max(mmeLane.end(), tpcLane.end());
    for (const auto& [peer, lane] : linkLanes) e = std::max(e, lane.end());
    return e;
  }
  void clearTimelines() {
    mmeLane.clear();
    tpcLane.clear();
    linkLanes.clear();
  }
};

}  // namespace tpc::harness
