#include "tpc/harness/communicator.h"

#include <cstdlib>
#include <cstring>

namespace tpc::harness {

namespace {

template <class Op> double reduceOverRanks(Communicator& comm, double value, Op op) {
  std::vector<uint8_t> bytes(sizeof value);
  std::memcpy(bytes.data(), &value, sizeof value);
  std::vector<std::vector<uint8_t>> all = gatherToRoot(comm, bytes);
  double sum = value;
  bool first = true;
  if (comm.rank() == 0) {
    for (const auto& b : all) {
      if (first) {
        first = false;
        continue;
      }
      double v;
      std::memcpy(&v, b.data(), sizeof v);
      sum = op(sum, v);
    }
    std::memcpy(bytes.data(), &sum, sizeof sum);
    for (int r = 1; r < comm.size(); ++r) comm.send(r, kTagControl, bytes);
  } else {
    bytes = comm.recv(0, kTagControl);
    std::memcpy(&sum, bytes.data(), sizeof sum);
  }
  return sum;
}

}  // namespace

double sumOverRanks(Communicator& comm, double value) {
  return reduceOverRanks(comm, value, [](double a, double b) { return a + b; });
}
double maxOverRanks(Communicator& comm, double value) {
  return reduceOverRanks(comm, value, [](double a, double b) { return a > b ? a : b; });
}

std::vector<std::vector<uint8_t>> gatherToRoot(Communicator& comm, std::vector<uint8_t> bytes) {
  std::vector<std::vector<uint8_t>> all;
  if (comm.rank() != 0) {
    comm.send(0, kTagControl, std::move(bytes));
    return all;
  }
  all.push_back(std::move(bytes));
  for (int r = 1; r < comm.size(); ++r) all.push_back(comm.recv(r, kTagControl));
  return all;
}

void barrier(Communicator& comm) { sumOverRanks(comm, 0.0); }

double defaultCommTimeoutSeconds() {
  if (const char* s = std::getenv("TPC_COMM_TIMEOUT")) {
    char* end = nullptr;
    const double v = std::strtod(s, &end);
    if (end != s && v > 0) return v;
  }
  return 60.0;
}

}  // namespace tpc::harness
