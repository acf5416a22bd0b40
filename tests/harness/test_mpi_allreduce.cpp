// The ring allreduce over MPI ranks (run by ctest as mpirun -np 3) against MPI_Allreduce, the independent
// reference: integer-valued data bit for bit, random data within the forward error of a sum of N terms;
// every rank ends with rank 0's bits. Only rank 0 prints; the exit status is the worst rank's.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "tpc/harness/allreduce.h"
#include "tpc/harness/mme.h"
#include "tpc/harness/mpi_comm.h"

namespace tpc::harness {
namespace {

int worldRank() {
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

const size_t kCounts[] = {0, 1, 2, 3, 5, 64, 1000, 4099};

TEST(MpiAllreduce, IntegersMatchMpiAllreduceBitForBit) {
  auto comm = mpiWorldCommunicator(30);
  ASSERT_GE(comm->size(), 2);
  for (size_t count : kCounts) {
    std::vector<float> v(count), ref(count);
    for (size_t i = 0; i < count; ++i) v[i] = static_cast<float>(static_cast<int>((i * 5 + static_cast<size_t>(comm->rank()) * 3) % 13) - 6);
    MPI_Allreduce(v.data(), ref.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    Device device(gaudi2(), comm->rank());
    AllreduceOptions opt;
    opt.chunkBytes = 64;
    const AllreduceResult r = ringAllreduce(*comm, device, reinterpret_cast<uint8_t*>(v.data()), count, DType::F32, 0, opt);
    EXPECT_GE(r.end, r.start);
    for (size_t i = 0; i < count; ++i) ASSERT_EQ(v[i], ref[i]) << count << " elements, element " << i;
    if (count >= static_cast<size_t>(comm->size())) {
      EXPECT_GT(device.tpc.simulatedRuns(), 0u) << "the reductions are the add kernel's";
    }
  }
}

TEST(MpiAllreduce, RandomDataWithinTheSumsErrorBoundAndEqualOnEveryRank) {
  auto comm = mpiWorldCommunicator(30);
  const int n = comm->size();
  for (size_t count : kCounts) {
    std::mt19937 rng(99 + static_cast<unsigned>(comm->rank()));
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> v(count), ref(count), mag(count), absv(count), root(count);
    for (size_t i = 0; i < count; ++i) {
      v[i] = u(rng);
      absv[i] = std::fabs(v[i]);
    }
    MPI_Allreduce(v.data(), ref.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(absv.data(), mag.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    Device device(gaudi2(), comm->rank());
    ringAllreduce(*comm, device, reinterpret_cast<uint8_t*>(v.data()), count, DType::F32, 0, {});
    for (size_t i = 0; i < count; ++i) ASSERT_LE(std::fabs(v[i] - ref[i]), 2.0 * n * 0x1p-24 * mag[i]) << i;
    root = v;
    MPI_Bcast(root.data(), static_cast<int>(count), MPI_FLOAT, 0, MPI_COMM_WORLD);
    EXPECT_TRUE(count == 0 || std::memcmp(root.data(), v.data(), count * 4) == 0) << "rank " << comm->rank() << " differs from rank 0";
  }
}

TEST(MpiAllreduce, Bf16MatchesMpiAllreduceOnExactValues) {
  auto comm = mpiWorldCommunicator(30);
  const size_t count = 333;
  std::vector<uint16_t> v(count);
  std::vector<float> f(count), ref(count);
  for (size_t i = 0; i < count; ++i) {
    f[i] = static_cast<float>(static_cast<int>((i + static_cast<size_t>(comm->rank()) * 7) % 9) - 4) * 0.5f;
    v[i] = toBf16(f[i]);
  }
  MPI_Allreduce(f.data(), ref.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  Device device(gaudi2(), comm->rank());
  ringAllreduce(*comm, device, reinterpret_cast<uint8_t*>(v.data()), count, DType::BF16, 0, {});
  for (size_t i = 0; i < count; ++i) ASSERT_EQ(fromBf16(v[i]), ref[i]) << i;
}

}  // namespace
}  // namespace tpc::harness

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  if (tpc::harness::worldRank() != 0) {
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int code = RUN_ALL_TESTS(), worst = 0;
  MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
