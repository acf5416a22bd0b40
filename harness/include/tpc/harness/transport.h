// Running the same per-device body on every device, whichever the transport: one thread per device in
// this process, or this process as one MPI rank of `mpirun -np N`.
#pragma once

#include <functional>
#include <string>

#include "tpc/harness/communicator.h"

namespace tpc::harness {

enum class Transport { InProc, Mpi };

// Parses "inproc" or "mpi"; throws UserError naming --transport otherwise (or when MPI is not built).
Transport parseTransport(const std::string& text);

// In-process: runs body on `devices` threads and rethrows the first failure. MPI: initializes MPI,
// checks that the world has `devices` ranks (UserError naming `devicesOption` otherwise), runs body as
// this rank and finalizes. `isRoot` is set to whether this process prints and writes the outputs.
void runOnDevices(Transport transport, int devices, const std::string& devicesOption, double timeoutSeconds,
                  const std::function<void(Communicator&)>& body, bool* isRoot);

// The MPI world's rank of this process when it was started by mpirun (from the environment), else 0;
// usable before MPI is initialized (to print a bad-input message once).
int launcherRank();

// After a failure in MPI mode: every other rank is ended (MPI_Abort) with `code`. In-process: no-op.
void abortAllRanks(Transport transport, int code);

}  // namespace tpc::harness
