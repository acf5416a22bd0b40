#include "tpc/harness/transport.h"

#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "tpc/harness/inproc_comm.h"
#include "tpc/harness/mpi_comm.h"
#include "tpc/support/error.h"

namespace tpc::harness {

Transport parseTransport(const std::string& text) {
  if (text == "inproc") return Transport::InProc;
  if (text == "mpi") {
    if (!mpiBuilt()) throw UserError("--transport mpi: this build has no MPI (configure with -DTPC_WITH_MPI=ON)");
    return Transport::Mpi;
  }
  throw UserError(fmt::format("--transport '{}': expected inproc or mpi", text));
}

int launcherRank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char* v = std::getenv(name)) return std::atoi(v);
  return 0;
}

void runOnDevices(Transport transport, int devices, const std::string& devicesOption, double timeoutSeconds,
                  const std::function<void(Communicator&)>& body, bool* isRoot) {
  if (transport == Transport::InProc) {
    *isRoot = true;
    runInProcess(devices, timeoutSeconds, body);
    return;
  }
#ifdef TPC_WITH_MPI
  // Kept alive when body throws: finalizing would wait for the other ranks; the caller ends them all with
  // abortAllRanks instead.
  static std::unique_ptr<MpiSession> session;
  session = std::make_unique<MpiSession>(nullptr, nullptr);
  *isRoot = session->worldRank() == 0;
  const int world = session->worldSize();
  if (world != devices) {
    // Every rank sees the same mismatch and finalizes cleanly; rank 0 only after it has printed the message
    // (its session ends at exit), since MPI_Finalize waits for every rank and mpirun stops the job as soon as
    // one rank exits non-zero: a rank that left first could take the message with it.
    if (!*isRoot) session.reset();
    throw UserError(fmt::format("{} {}: the MPI world has {} rank(s) (start the ranks with mpirun -np {})",
                                devicesOption, devices, world, devices));
  }
  {
    std::unique_ptr<Communicator> comm = session->communicator(timeoutSeconds);
    body(*comm);
    comm->flush();
    barrier(*comm);
  }
  session.reset();
#else
  throw UserError("--transport mpi: this build has no MPI");
#endif
}

void abortAllRanks(Transport transport, int code) {
#ifdef TPC_WITH_MPI
  if (transport == Transport::Mpi) MpiSession::abort(code);
#endif
}

}  // namespace tpc::harness
