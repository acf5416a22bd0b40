// Ring allreduce (sum) over the ranks of a communicator: the data is split between several rings on
// disjoint links (harness/topology.h); on each, reduce-scatter then allgather, each of the N segments cut
// into chunks that flow through the ring one after another, so that a chunk's transfer
// overlaps the reduction of the one before. Every reduction is the kernel library's add kernel
// (add_fwd_f32 / add_fwd_bf16) run on the simulator; the modelled time comes from the device's link and
// TPC timelines, each message carrying the modelled time it arrives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tpc/harness/communicator.h"
#include "tpc/harness/device.h"

namespace tpc::harness {

struct AllreduceOptions {
  size_t chunkBytes = 1u << 20;  // the most bytes of one message
  // Sums on the host (f32 adds; bf16 added in f32 and rounded to nearest even) and takes each chunk's
  // time from the add kernel simulated once per distinct chunk shape: only for large performance runs.
  bool hostReduce = false;
  std::string name = "allreduce";  // names the trace intervals
  // How many rings run at once on disjoint links (docs/pipeline.md), at most what the all-to-all links of a
  // server allow (2 per Hamiltonian cycle of the complete graph: 6 at 8 devices). 0: by size, as NCCL picks
  // its channels: as many as keep each ring's segment at `minRingSegmentBytes` or more, at least one.
  int rings = 0;
  size_t minRingSegmentBytes = 64u << 10;
};

struct AllreduceResult {
  double start = 0, end = 0;  // modelled microseconds on this device
  uint64_t kernelRuns = 0;    // add kernels simulated
  // When each of the N segments (elements [first, first + count)) is complete on this device: work on a
  // segment (the optimizer) may start before the whole allreduce ends.
  struct Segment {
    size_t first, count;
    double ready;
  };
  std::vector<Segment> segments;
};

// The rings an allreduce of `bytes` over n ranks runs on (harness/topology.h).
std::vector<std::vector<int>> ringsFor(size_t bytes, int n, const AllreduceOptions& options);

// Sums `count` elements of `dtype` (F32 or BF16) at `data` over all ranks, in place; every rank ends with
// the same bits. `ready`: the modelled time at which this rank's data is ready.
AllreduceResult ringAllreduce(Communicator& comm, Device& device, uint8_t* data, size_t count, DType dtype,
                              double ready, const AllreduceOptions& options = {});

}  // namespace tpc::harness
