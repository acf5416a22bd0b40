// One modelled device: the model's figures, the MME, TPC and link timelines, and the TPC that runs kernels.
#pragma once

#include "tpc/harness/device_model.h"
#include "tpc/harness/timeline.h"
#include "tpc/harness/tpc_exec.h"

namespace tpc::harness {

struct Device {
  explicit Device(const DeviceModel& m, int rank = 0) : model(m), id(rank), tpc(m) {}
  const DeviceModel& model;
  int id;
  Timeline mmeLane, tpcLane, linkLane;  // the link lane: this device's port(s) to the next device of the ring
  TpcExec tpc;

  void clearTimelines() {
    mmeLane.clear();
    tpcLane.clear();
    linkLane.clear();
  }
};

}  // namespace tpc::harness
