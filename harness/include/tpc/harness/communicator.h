// How the devices of the pipeline talk: point-to-point byte messages between ranks (FIFO per sender,
// receiver and tag). Two implementations with the same behaviour: threads of one process (inproc_comm.h)
// and OpenMPI ranks (mpi_comm.h). Every wait has a deadline: a peer that died or stopped answering makes
// recv throw CommError within the timeout instead of hanging.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tpc::harness {

class CommError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Queues a message to `dst`; does not wait for the receiver.
  virtual void send(int dst, int tag, std::vector<uint8_t> bytes) = 0;
  // The next message from `src` with `tag`; throws CommError after the timeout or when a peer failed.
  virtual std::vector<uint8_t> recv(int src, int tag) = 0;
  // Waits until every send of this rank has been taken by the transport (MPI: completed).
  virtual void flush() {}
};

// Collectives on the host built from send and recv (control data only: losses, trace events, checks; the
// gradients go through ringAllreduce).
enum Tag : int { kTagAllreduce = 1, kTagControl = 2 };
double sumOverRanks(Communicator& comm, double value);
double maxOverRanks(Communicator& comm, double value);
// Every rank's bytes on rank 0 (in rank order); the other ranks get an empty list.
std::vector<std::vector<uint8_t>> gatherToRoot(Communicator& comm, std::vector<uint8_t> bytes);
void barrier(Communicator& comm);

// The default wait: TPC_COMM_TIMEOUT seconds from the environment, else 60.
double defaultCommTimeoutSeconds();

}  // namespace tpc::harness
