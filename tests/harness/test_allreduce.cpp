// The ring allreduce in-process: 1 to 8 devices, element counts that are 0, 1, below the device count,
// not multiples of it or of a vector, several chunks per segment; f32 against a host sum in long double
// (within the forward error of a sum of N terms) and bf16 on integers (exact); every device ends with the
// same bits; the reductions are the add kernel's. Failures end every device in bounded time.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "tpc/harness/allreduce.h"
#include "tpc/harness/inproc_comm.h"
#include "tpc/harness/mme.h"
#include "tpc/harness/topology.h"

namespace tpc::harness {
namespace {

std::vector<float> inputOf(int rank, size_t count) {
  std::mt19937 rng(1234 + static_cast<unsigned>(rank));
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(count);
  for (float& x : v) x = u(rng);
  return v;
}

TEST(Allreduce, F32MatchesTheHostSumOnEveryDeviceCountAndAwkwardSize) {
  // By size (one ring at these sizes), and every ring the links allow.
  for (int rings : {0, 64}) {
    for (int n = 1; n <= 8; ++n) {
      // Empty, one element, fewer elements than devices (empty segments), one more (uneven segments), not a
      // multiple of a vector; several chunks per segment at 4099 on 3 and 8 devices.
      std::vector<size_t> counts = {0, 1, static_cast<size_t>(n > 1 ? n - 1 : 2), static_cast<size_t>(n + 1), 1000};
      if (n == 3 || n == 8) counts.push_back(4099);
      for (size_t count : counts) {
        SCOPED_TRACE(testing::Message() << n << " devices, " << count << " elements, rings option " << rings);
        std::vector<std::vector<float>> out(static_cast<size_t>(n));
        std::vector<uint64_t> runs(static_cast<size_t>(n));
        runInProcess(n, 30, [&](Communicator& comm) {
          Device device(gaudi2(), comm.rank());
          std::vector<float> v = inputOf(comm.rank(), count);
          AllreduceOptions opt;
          opt.chunkBytes = 512 * 4;  // several chunks per segment at the larger sizes
          opt.rings = rings;
          const AllreduceResult r = ringAllreduce(comm, device, reinterpret_cast<uint8_t*>(v.data()), count, DType::F32, 5.0, opt);
          EXPECT_GE(r.end, r.start);
          if (n > 1 && count >= static_cast<size_t>(n)) {
            EXPECT_GT(r.end, r.start);
          }
          runs[static_cast<size_t>(comm.rank())] = device.tpc.simulatedRuns();
          out[static_cast<size_t>(comm.rank())] = std::move(v);
        });
        std::vector<std::vector<float>> inputs;
        for (int r = 0; r < n; ++r) inputs.push_back(inputOf(r, count));
        for (size_t i = 0; i < count; ++i) {
          long double exact = 0, mag = 0;
          for (int r = 0; r < n; ++r) {
            exact += inputs[static_cast<size_t>(r)][i];
            mag += std::fabs(inputs[static_cast<size_t>(r)][i]);
          }
          ASSERT_LE(std::fabs(out[0][i] - exact), n * 0x1p-24L * mag) << "element " << i;
          for (int r = 1; r < n; ++r) ASSERT_EQ(std::memcmp(&out[0][i], &out[static_cast<size_t>(r)][i], 4), 0) << "device " << r;
        }
        // Every device reduced: (n - 1) segments of its own per ring when every ring has a share of the
        // elements.
        const size_t ringCount = rings ? directedRings(n).size() : 1;
        if (n > 1 && count >= static_cast<size_t>(n) * ringCount) {
          for (int r = 0; r < n; ++r) EXPECT_GE(runs[static_cast<size_t>(r)], static_cast<uint64_t>(n - 1) * ringCount);
        }
      }
    }
  }
}

TEST(Allreduce, Bf16IntegersAreExactAndHostReduceAgrees) {
  for (int n : {2, 3, 8})
    for (bool host : {false, true}) {
      const size_t count = 777;
      std::vector<std::vector<uint16_t>> out(static_cast<size_t>(n));
      runInProcess(n, 30, [&](Communicator& comm) {
        Device device(gaudi2(), comm.rank());
        std::vector<uint16_t> v(count);
        for (size_t i = 0; i < count; ++i) v[i] = toBf16(static_cast<float>(static_cast<int>((i + 3 * comm.rank()) % 11) - 5));
        AllreduceOptions opt;
        opt.chunkBytes = 100;
        opt.hostReduce = host;
        ringAllreduce(comm, device, reinterpret_cast<uint8_t*>(v.data()), count, DType::BF16, 0, opt);
        out[static_cast<size_t>(comm.rank())] = v;
      });
      for (size_t i = 0; i < count; ++i) {
        float want = 0;
        for (int r = 0; r < n; ++r) want += static_cast<float>(static_cast<int>((i + 3 * r) % 11) - 5);
        for (int r = 0; r < n; ++r) ASSERT_EQ(fromBf16(out[static_cast<size_t>(r)][i]), want) << n << " " << host << " " << i;
      }
    }
}

TEST(Allreduce, TheReductionIsTheKernels) {
  // NaN + 1 through the add kernel is the core's canonical NaN (0x7fc00000) whatever the NaN's payload;
  // the host's addition would keep the payload.
  std::vector<std::vector<uint32_t>> out(2);
  runInProcess(2, 30, [&](Communicator& comm) {
    Device device(gaudi2(), comm.rank());
    std::vector<uint32_t> v(4, 0x3f800000u);
    if (comm.rank() == 0) v[0] = v[3] = 0x7f800123u;
    ringAllreduce(comm, device, reinterpret_cast<uint8_t*>(v.data()), 4, DType::F32, 0, {});
    EXPECT_EQ(device.tpc.simulatedRuns(), 1u);
    out[static_cast<size_t>(comm.rank())] = v;
  });
  EXPECT_EQ(out[0][1], 0x40000000u);
  EXPECT_EQ(out[1][0], 0x7fc00000u);
  EXPECT_EQ(out[1][3], 0x7fc00000u);
}

// The time model: large messages move at 90% or more of the links the rings use (all of them by default,
// one ring when asked), never faster; each device sends on as many peer links as it has rings.
TEST(Allreduce, LargeMessagesReachNinetyPercentOfTheRingsLinkBandwidth) {
  for (int n : {2, 4, 8}) {
    for (int rings : {0, 1}) {
      SCOPED_TRACE(testing::Message() << n << " devices, rings option " << rings);
      const size_t bytes = 64u << 20, count = bytes / 4;
      const double ringCount = static_cast<double>(directedRings(n, rings).size());  // 0 = by size: all here
      std::vector<double> time(static_cast<size_t>(n));
      std::vector<size_t> lanes(static_cast<size_t>(n));
      runInProcess(n, 60, [&](Communicator& comm) {
        Device device(gaudi2(), comm.rank());
        std::vector<float> v(count, 1.0f);
        AllreduceOptions opt;
        opt.hostReduce = true;  // the time model is what is tested here; the arithmetic elsewhere
        opt.rings = rings;
        const AllreduceResult r = ringAllreduce(comm, device, reinterpret_cast<uint8_t*>(v.data()), count, DType::F32, 0, opt);
        time[static_cast<size_t>(comm.rank())] = r.end - r.start;
        lanes[static_cast<size_t>(comm.rank())] = device.linkLanes.size();
        EXPECT_EQ(v[count - 1], static_cast<float>(n));
      });
      const double t = *std::max_element(time.begin(), time.end());
      const double busbw = bytes / (t * 1e-6) * 2.0 * (n - 1) / n;
      EXPECT_GE(busbw, 0.9 * ringCount * gaudi2().linkBytesPerSecond());
      EXPECT_LE(busbw, ringCount * gaudi2().linkBytesPerSecond());
      // A ring's two directions leave a device on different links; n = 2 has one ring and one link.
      for (size_t l : lanes) EXPECT_EQ(l, static_cast<size_t>(n == 2 ? 1 : ringCount));
    }
  }
  EXPECT_EQ(directedRings(8).size(), 6u);  // 3 Hamiltonian cycles of K8, both ways: 6 x 37.5 GB/s
}

// Several rings or one: the same sums on integers (exact in any order), and the segments cover the data.
TEST(Allreduce, OneRingAndAllRingsAgreeAndSegmentsCoverTheData) {
  for (int n : {3, 5, 8}) {
    const size_t count = 3001;
    std::vector<std::vector<float>> out[2];
    for (int rings : {64, 1}) {  // every ring the links allow, or one
      std::vector<std::vector<float>>& o = out[rings == 1];
      o.resize(static_cast<size_t>(n));
      runInProcess(n, 30, [&](Communicator& comm) {
        Device device(gaudi2(), comm.rank());
        std::vector<float> v(count);
        for (size_t i = 0; i < count; ++i) v[i] = static_cast<float>((i * 5 + static_cast<size_t>(comm.rank()) * 3) % 11);
        AllreduceOptions opt;
        opt.rings = rings;
        opt.chunkBytes = 256 * 4;
        const AllreduceResult r = ringAllreduce(comm, device, reinterpret_cast<uint8_t*>(v.data()), count, DType::F32, 1.0, opt);
        size_t next = 0;
        for (const auto& seg : r.segments) {
          EXPECT_EQ(seg.first, next);
          EXPECT_GE(seg.ready, 1.0);
          EXPECT_LE(seg.ready, r.end);
          next = seg.first + seg.count;
        }
        EXPECT_EQ(next, count);
        o[static_cast<size_t>(comm.rank())] = std::move(v);
      });
    }
    for (size_t i = 0; i < count; ++i) {
      float want = 0;
      for (int r = 0; r < n; ++r) want += static_cast<float>((i * 5 + static_cast<size_t>(r) * 3) % 11);
      for (int r = 0; r < n; ++r) {
        ASSERT_EQ(out[0][static_cast<size_t>(r)][i], want) << n << " devices, all rings, element " << i;
        EXPECT_EQ(directedRings(n).size(), static_cast<size_t>(n % 2 ? n - 1 : n - 2));
        ASSERT_EQ(out[1][static_cast<size_t>(r)][i], want) << n << " devices, one ring, element " << i;
      }
    }
  }
}

TEST(InProcess, AFailedDeviceEndsTheOthersAtOnce) {
  const auto start = std::chrono::steady_clock::now();
  try {
    runInProcess(4, 30, [&](Communicator& comm) {
      if (comm.rank() == 2) throw std::runtime_error("injected");
      comm.recv((comm.rank() + 3) % 4, kTagControl);
    });
    FAIL() << "no exception";
  } catch (const CommError& e) {
    FAIL() << "the root cause should come first, got " << e.what();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "injected");
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(InProcess, ASilentPeerTimesOut) {
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(runInProcess(2, 0.5, [&](Communicator& comm) {
    if (comm.rank() == 0) comm.recv(1, kTagControl);  // device 1 never sends
  }), CommError);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

}  // namespace
}  // namespace tpc::harness
