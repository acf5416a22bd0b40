#include "tpc/harness/allreduce.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "tpc/harness/mme.h"

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

}  // namespace

AllreduceResult ringAllreduce(Communicator& comm, Device& device, uint8_t* data, size_t count, DType dtype,
                              double ready, const AllreduceOptions& options) {
  if (dtype != DType::F32 && dtype != DType::BF16)
    throw std::invalid_argument("allreduce: the data type must be f32 or bf16");
  AllreduceResult result{ready, ready, 0, {}};
  const int n = comm.size(), r = comm.rank();
  if (n == 1 || count == 0) {
    result.segments.push_back({0, count, ready});
    return result;
  }
  const DeviceModel& model = device.model;
  const std::string guid = dtype == DType::F32 ? "add_fwd_f32" : "add_fwd_bf16";
  Layout L{count, static_cast<size_t>(n), dtypeSize(dtype), std::max<size_t>(1, options.chunkBytes / dtypeSize(dtype))};
  // When each chunk of each segment is ready on this device.
  std::vector<std::vector<double>> readyAt(L.parts);
  for (size_t s = 0; s < L.parts; ++s) readyAt[s].assign(L.chunks(s), ready);
  const int next = (r + 1) % n, prev = (r + n - 1) % n;
  const double bytesPerUs = model.linkBytesPerSecond() / 1e6;

  auto sendSegment = [&](size_t s, const char* phase) {
    for (size_t c = 0; c < L.chunks(s); ++c) {
      const size_t bytes = L.chunkLen(s, c) * L.esize;
      const double wire = static_cast<double>(bytes) / bytesPerUs;
      const double start = device.linkLane.book(readyAt[s][c], wire, fmt::format("{} {} seg {} chunk {}", options.name, phase, s, c));
      comm.send(next, kTagAllreduce, message(start + wire + model.linkLatencyUs, data + L.chunkStart(s, c) * L.esize, bytes));
    }
  };

  // Reduce-scatter: after step k this device holds the sum of k + 2 ranks' segment (r - k - 1).
  for (int k = 0; k < n - 1; ++k) {
    const size_t sendSeg = static_cast<size_t>((r - k + 2 * n) % n), recvSeg = static_cast<size_t>((r - k - 1 + 2 * n) % n);
    sendSegment(sendSeg, "reduce-scatter");
    for (size_t c = 0; c < L.chunks(recvSeg); ++c) {
      const size_t len = L.chunkLen(recvSeg, c), bytes = len * L.esize;
      const std::vector<uint8_t> m = comm.recv(prev, kTagAllreduce);
      const double arrival = arrivalOf(m, bytes, prev);
      uint8_t* mine = data + L.chunkStart(recvSeg, c) * L.esize;
      double us;
      if (options.hostReduce) {
        std::vector<HostTensor> shapeIn = {HostTensor{dtype, {static_cast<int64_t>(len)}, {}},
                                           HostTensor{dtype, {static_cast<int64_t>(len)}, {}}};
        std::vector<HostTensor> shapeOut = {HostTensor{dtype, {static_cast<int64_t>(len)}, {}}};
        us = device.tpc.timeOf(guid, shapeIn, shapeOut);
        hostAdd(mine, m.data() + sizeof(double), len, dtype);
      } else {
        std::vector<HostTensor> in(2), out(1);
        for (HostTensor* t : {&in[0], &in[1], &out[0]}) {
          t->dtype = dtype;
          t->shape = {static_cast<int64_t>(len)};
        }
        in[0].data.assign(mine, mine + bytes);
        in[1].data.assign(m.begin() + sizeof(double), m.end());
        out[0].data.assign(bytes, 0);
        us = device.tpc.run(guid, in, out);
        std::memcpy(mine, out[0].data.data(), bytes);
        ++result.kernelRuns;
      }
      const double start = device.tpcLane.book(std::max(arrival, readyAt[recvSeg][c]), us,
                                               fmt::format("{} add seg {} chunk {}", options.name, recvSeg, c));
      readyAt[recvSeg][c] = start + us;
    }
  }
  // Allgather: the reduced segments travel once more around the ring.
  for (int k = 0; k < n - 1; ++k) {
    const size_t sendSeg = static_cast<size_t>((r + 1 - k + 2 * n) % n), recvSeg = static_cast<size_t>((r - k + 2 * n) % n);
    sendSegment(sendSeg, "allgather");
    for (size_t c = 0; c < L.chunks(recvSeg); ++c) {
      const size_t bytes = L.chunkLen(recvSeg, c) * L.esize;
      const std::vector<uint8_t> m = comm.recv(prev, kTagAllreduce);
      readyAt[recvSeg][c] = arrivalOf(m, bytes, prev);
      if (bytes) std::memcpy(data + L.chunkStart(recvSeg, c) * L.esize, m.data() + sizeof(double), bytes);
    }
  }
  for (size_t s = 0; s < L.parts; ++s) {
    double segReady = ready;
    for (double t : readyAt[s]) segReady = std::max(segReady, t);
    result.segments.push_back({L.segStart(s), L.segLen(s), segReady});
    result.end = std::max(result.end, segReady);
  }
  return result;
}

}  // namespace tpc::harness
