// The modelled device: Gaudi2's public figures (docs/pipeline.md lists each with its source) and the few
// assumptions the model adds, in one place. Times are microseconds of modelled device time.
#pragma once

#include <cstdint>

#include "tpc/support/dtype.h"

namespace tpc::harness {

struct DeviceModel {
  // MME: 2 engines of 256 x 256 multiply-accumulate units; bf16 dense peak 432 TFLOPS, which fixes the clock
  // at 432e12 / (2 * 256 * 256 * 2) = 1.648 GHz.
  int mmeCount = 2;
  int mmeRows = 256, mmeCols = 256;
  double bf16PeakFlops = 432e12;
  int f32CyclesPerK = 4;          // assumption: an f32 multiply-accumulate takes 4 bf16 slots
  // TPC: 24 cores (the simulator's gaudi2); clock assumed equal to the MME's.
  int tpcCores = 24;
  // HBM2E: 2.45 TB/s.
  double hbmBytesPerSecond = 2.45e12;
  // Links: 24 x 100 GbE RoCE ports; 21 connect the 8 devices of a server all-to-all, 3 per peer.
  int portsPerPeer = 3;
  double portBitsPerSecond = 100e9;
  double linkLatencyUs = 2.0;     // assumption: one RoCE message's latency (docs/pipeline.md)

  double clockHz() const { return bf16PeakFlops / (2.0 * mmeCount * mmeRows * mmeCols); }
  double mmePeakFlops(DType t) const { return t == DType::F32 ? bf16PeakFlops / f32CyclesPerK : bf16PeakFlops; }
  // One direction of the link between two neighbours of the ring (bytes per second).
  double linkBytesPerSecond() const { return portsPerPeer * portBitsPerSecond / 8.0; }
  double cyclesToUs(double cycles) const { return cycles / clockHz() * 1e6; }
};

const DeviceModel& gaudi2();

}  // namespace tpc::harness
