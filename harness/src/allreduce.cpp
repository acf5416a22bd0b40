#include "tpc/harness/allreduce.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "tpc/harness/mme.h"
#include "tpc/harness/topology.h"

namespace tpc::harness {

namespace {

struct Layout {
  size_t count, parts, esize, chunkElems;
  size_t segStart(size_t s) const { return s * (count / parts) + std::min(s, count % parts); }
  size_t segLen(size_t s) const { return count / parts + (s < count % parts ? 1 : 0); }
  size_t chunks(size_t s) const { return (segLen(s) + chunkElems - 1) / chunkElems; }
  size_t chunkStart(size_t s, size_t c) const { return segStart(s) + c * chunkElems; }
  size_t chunkLen(size_t s, size_t c) const { return std::min(chunkElems, segLen(s) - c * chunkElems); }
};

std::vector<uint8_t> message(double arrival, const uint8_t* payload, size_t bytes) {
  std::vector<uint8_t> m(sizeof arrival + bytes);
  std::memcpy(m.data(), &arrival, sizeof arrival);
  if (bytes) std::memcpy(m.data() + sizeof arrival, payload, bytes);
  return m;
}

double arrivalOf(const std::vector<uint8_t>& m, size_t expectBytes, int from) {
  if (m.size() != sizeof(double) + expectBytes)
    throw CommError(fmt::format("allreduce: a message of {} bytes from rank {}, expected {}", m.size(), from,
                                sizeof(double) + expectBytes));
  double a;
  std::memcpy(&a, m.data(), sizeof a);
  return a;
}

void hostAdd(uint8_t* acc, const uint8_t* other, size_t n, DType t) {
  if (t == DType::F32) {
    float* a = reinterpret_cast<float*>(acc);
    const float* b = reinterpret_cast<const float*>(other);
    for (size_t i = 0; i < n; ++i) a[i] += b[i];
  } else {
    for (size_t i = 0; i < n; ++i) {
      uint16_t x, y;
      std::memcpy(&x, acc + 2 * i, 2);
      std::memcpy(&y, other + 2 * i, 2);
      const uint16_t s = toBf16(fromBf16(x) + fromBf16(y));
      std::memcpy(acc + 2 * i, &s, 2);
    }
  }
}

// One ring's pass over its slice of the data: `pos` is this rank's place in `ring`; segment s of the slice
// belongs, after the reduce-scatter, to the rank at ring position s + 1.
class RingPass {
 public:
  RingPass(Communicator& comm, Device& device, const std::vector<int>& ring, size_t ringIndex, uint8_t* data,
           size_t count, DType dtype, double ready, const AllreduceOptions& options, AllreduceResult& result)
      : comm_(comm), device_(device), n_(static_cast<int>(ring.size())), data_(data), dtype_(dtype),
        options_(options), result_(result), ringIndex_(ringIndex),
        L_{count, ring.size(), dtypeSize(dtype), std::max<size_t>(1, options.chunkBytes / dtypeSize(dtype))} {
    pos_ = static_cast<int>(std::find(ring.begin(), ring.end(), comm.rank()) - ring.begin());
    next_ = ring[static_cast<size_t>((pos_ + 1) % n_)];
    prev_ = ring[static_cast<size_t>((pos_ + n_ - 1) % n_)];
    readyAt_.resize(L_.parts);
    for (size_t s = 0; s < L_.parts; ++s) readyAt_[s].assign(L_.chunks(s), ready);
  }

  void run(size_t firstElement) {
    const int n = n_, p = pos_;
    // Reduce-scatter: after step k this rank holds the sum of k + 2 ranks' segment (p - k - 1).
    for (int k = 0; k < n - 1; ++k) {
      sendSegment(static_cast<size_t>((p - k + 2 * n) % n), "reduce-scatter");
      receiveAndReduce(static_cast<size_t>((p - k - 1 + 2 * n) % n));
    }
    // Allgather: the reduced segments travel once more around the ring.
    for (int k = 0; k < n - 1; ++k) {
      sendSegment(static_cast<size_t>((p + 1 - k + 2 * n) % n), "allgather");
      receiveCopy(static_cast<size_t>((p - k + 2 * n) % n));
    }
    for (size_t s = 0; s < L_.parts; ++s) {
      double segReady = result_.start;
      for (double t : readyAt_[s]) segReady = std::max(segReady, t);
      if (L_.segLen(s)) result_.segments.push_back({firstElement + L_.segStart(s), L_.segLen(s), segReady});
      result_.end = std::max(result_.end, segReady);
    }
  }

 private:
  std::string label(const char* what, size_t s, size_t c) const {
    return fmt::format("{} ring {} {} seg {} chunk {}", options_.name, ringIndex_, what, s, c);
  }

  void sendSegment(size_t s, const char* phase) {
    const DeviceModel& model = device_.model;
    const double bytesPerUs = model.linkBytesPerSecond() / 1e6;
    for (size_t c = 0; c < L_.chunks(s); ++c) {
      const size_t bytes = L_.chunkLen(s, c) * L_.esize;
      const double wire = static_cast<double>(bytes) / bytesPerUs;
      const double start = device_.linkTo(next_).book(readyAt_[s][c], wire, label(phase, s, c));
      comm_.send(next_, kTagAllreduce,
                 message(start + wire + model.linkLatencyUs, data_ + L_.chunkStart(s, c) * L_.esize, bytes));
    }
  }

  void receiveAndReduce(size_t s) {
    const std::string guid = dtype_ == DType::F32 ? "add_fwd_f32" : "add_fwd_bf16";
    for (size_t c = 0; c < L_.chunks(s); ++c) {
      const size_t len = L_.chunkLen(s, c), bytes = len * L_.esize;
      const std::vector<uint8_t> m = comm_.recv(prev_, kTagAllreduce);
      const double arrival = arrivalOf(m, bytes, prev_);
      uint8_t* mine = data_ + L_.chunkStart(s, c) * L_.esize;
      double us;
      if (options_.hostReduce) {
        std::vector<HostTensor> shapeIn = {HostTensor{dtype_, {static_cast<int64_t>(len)}, {}},
                                           HostTensor{dtype_, {static_cast<int64_t>(len)}, {}}};
        std::vector<HostTensor> shapeOut = {HostTensor{dtype_, {static_cast<int64_t>(len)}, {}}};
        us = device_.tpc.timeOf(guid, shapeIn, shapeOut);
        hostAdd(mine, m.data() + sizeof(double), len, dtype_);
      } else {
        std::vector<HostTensor> in(2), out(1);
        for (HostTensor* t : {&in[0], &in[1], &out[0]}) {
          t->dtype = dtype_;
          t->shape = {static_cast<int64_t>(len)};
        }
        in[0].data.assign(mine, mine + bytes);
        in[1].data.assign(m.begin() + sizeof(double), m.end());
        out[0].data.assign(bytes, 0);
        us = device_.tpc.run(guid, in, out);
        std::memcpy(mine, out[0].data.data(), bytes);
        ++result_.kernelRuns;
      }
      const double start = device_.tpcLane.book(std::max(arrival, readyAt_[s][c]), us, label("add", s, c));
      readyAt_[s][c] = start + us;
    }
  }

  void receiveCopy(size_t s) {
    for (size_t c = 0; c < L_.chunks(s); ++c) {
      const size_t bytes = L_.chunkLen(s, c) * L_.esize;
      const std::vector<uint8_t> m = comm_.recv(prev_, kTagAllreduce);
      readyAt_[s][c] = arrivalOf(m, bytes, prev_);
      if (bytes) std::memcpy(data_ + L_.chunkStart(s, c) * L_.esize, m.data() + sizeof(double), bytes);
    }
  }

  Communicator& comm_;
  Device& device_;
  int n_, pos_ = 0, next_ = 0, prev_ = 0;
  uint8_t* data_;
  DType dtype_;
  const AllreduceOptions& options_;
  AllreduceResult& result_;
  size_t ringIndex_;
  Layout L_;
  std::vector<std::vector<double>> readyAt_;  // when each chunk of each segment is ready on this rank
};

}  // namespace

std::vector<std::vector<int>> ringsFor(size_t bytes, int n, const AllreduceOptions& options) {
  int limit = options.rings;
  if (limit == 0) {
    const size_t perRing = static_cast<size_t>(std::max(n, 1)) * std::max<size_t>(options.minRingSegmentBytes, 1);
    limit = static_cast<int>(std::clamp<size_t>(bytes / perRing, 1, 64));
  }
  return directedRings(n, limit);
}

AllreduceResult ringAllreduce(Communicator& comm, Device& device, uint8_t* data, size_t count, DType dtype,
                              double ready, const AllreduceOptions& options) {
  if (dtype != DType::F32 && dtype != DType::BF16)
    throw std::invalid_argument("allreduce: the data type must be f32 or bf16");
  AllreduceResult result{ready, ready, 0, {}};
  const int n = comm.size();
  if (n == 1 || count == 0) {
    result.segments.push_back({0, count, ready});
    return result;
  }
  // The rings share the data in contiguous slices; each runs the whole algorithm on its own links. A ring
  // only waits for messages of its own (every directed link belongs to one ring), so running them one
  // after another cannot deadlock; the timelines place their work where it fits.
  const std::vector<std::vector<int>> rings = ringsFor(count * dtypeSize(dtype), n, options);
  const size_t R = rings.size();
  for (size_t j = 0; j < R; ++j) {
    const size_t first = j * (count / R) + std::min(j, count % R), len = count / R + (j < count % R ? 1 : 0);
    if (len == 0) continue;
    RingPass(comm, device, rings[j], j, data + first * dtypeSize(dtype), len, dtype, ready, options, result)
        .run(first);
  }
  std::sort(result.segments.begin(), result.segments.end(),
            [](const AllreduceResult::Segment& a, const AllreduceResult::Segment& b) { return a.first < b.first; });
  return result;
}

}  // namespace tpc::harness
