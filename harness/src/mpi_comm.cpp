#include "tpc/harness/mpi_comm.h"

#include <mpi.h>

#include <chrono>
#include <list>
#include <thread>

#include <fmt/format.h>

namespace tpc::harness {

namespace {

class MpiComm final : public Communicator {
 public:
  explicit MpiComm(double timeout) : timeout_(timeout) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiComm() override {
    try {
      flush();
    } catch (...) {
    }
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void send(int dst, int tag, std::vector<uint8_t> bytes) override {
    pending_.emplace_back();
    Pending& p = pending_.back();
    p.bytes = std::move(bytes);
    MPI_Isend(p.bytes.data(), static_cast<int>(p.bytes.size()), MPI_BYTE, dst, tag, MPI_COMM_WORLD, &p.request);
    reap();
  }

  std::vector<uint8_t> recv(int src, int tag) override {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_);
    int spins = 0;
    for (;;) {
      int found = 0;
      MPI_Message message;
      MPI_Status status;
      MPI_Improbe(src, tag, MPI_COMM_WORLD, &found, &message, &status);
      if (found) {
        int count = 0;
        MPI_Get_count(&status, MPI_BYTE, &count);
        std::vector<uint8_t> bytes(static_cast<size_t>(count));
        MPI_Mrecv(bytes.data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE);
        reap();
        return bytes;
      }
      reap();
      if (std::chrono::steady_clock::now() > deadline)
        throw CommError(fmt::format("rank {}: no message from rank {} within {} s (did it die?)", rank_, src, timeout_));
      if (++spins > 1000) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  void flush() override {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_);
    while (!pending_.empty()) {
      reap();
      if (pending_.empty()) break;
      if (std::chrono::steady_clock::now() > deadline)
        throw CommError(fmt::format("rank {}: sends not taken within {} s (did a peer die?)", rank_, timeout_));
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

 private:
  struct Pending {
    std::vector<uint8_t> bytes;
    MPI_Request request;
  };
  void reap() {
    for (auto it = pending_.begin(); it != pending_.end();) {
      int done = 0;
      MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
      it = done ? pending_.erase(it) : std::next(it);
    }
  }
  double timeout_;
  int rank_ = 0, size_ = 1;
  std::list<Pending> pending_;
};

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) MPI_Init(argc, argv);
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

int MpiSession::worldSize() const {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

int MpiSession::worldRank() const {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

std::unique_ptr<Communicator> MpiSession::communicator(double timeoutSeconds) const {
  return mpiWorldCommunicator(timeoutSeconds);
}

std::unique_ptr<Communicator> mpiWorldCommunicator(double timeoutSeconds) {
  return std::make_unique<MpiComm>(timeoutSeconds);
}

void MpiSession::abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace tpc::harness
