// The in-process transport: one thread per device, messages through mailboxes in shared memory.
#pragma once

#include <functional>
#include <memory>

#include "tpc/harness/communicator.h"

namespace tpc::harness {

// Runs fn on `devices` threads, each with its own Communicator (rank 0 .. devices-1). When one throws, the
// others' waits fail at once (CommError naming the device) and the first exception is rethrown here.
void runInProcess(int devices, double timeoutSeconds, const std::function<void(Communicator&)>& fn);

}  // namespace tpc::harness
