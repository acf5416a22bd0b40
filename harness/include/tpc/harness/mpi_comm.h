// The OpenMPI transport: each device is an MPI rank (mpirun -np N). Sends are MPI_Isend; receives poll
// MPI_Improbe with a deadline, so a rank that died or stopped answering gives a CommError in bounded time
// instead of a hang (the tools then call MPI_Abort).
#pragma once

#include <memory>

#include "tpc/harness/communicator.h"

namespace tpc::harness {

// True when the harness was built with MPI (TPC_WITH_MPI).
constexpr bool mpiBuilt() {
#ifdef TPC_WITH_MPI
  return true;
#else
  return false;
#endif
}

#ifdef TPC_WITH_MPI

// MPI_Init on construction (once per process), MPI_Finalize on destruction.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int worldSize() const;
  int worldRank() const;
  std::unique_ptr<Communicator> communicator(double timeoutSeconds) const;
  // Ends every rank (MPI_Abort) with `code`.
  [[noreturn]] static void abort(int code);
};

// A communicator over MPI_COMM_WORLD (MPI already initialized).
std::unique_ptr<Communicator> mpiWorldCommunicator(double timeoutSeconds);
#endif

}  // namespace tpc::harness
