#include "tpc/harness/inproc_comm.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include <fmt/format.h>

namespace tpc::harness {

namespace {

struct World {
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::tuple<int, int, int>, std::deque<std::vector<uint8_t>>> boxes;  // (src, dst, tag)
  std::string failure;  // set by the first device that failed
  double timeout = 60;
};

class InProcComm final : public Communicator {
 public:
  InProcComm(World& w, int rank, int size) : world_(w), rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void send(int dst, int tag, std::vector<uint8_t> bytes) override {
    std::lock_guard lock(world_.mutex);
    world_.boxes[{rank_, dst, tag}].push_back(std::move(bytes));
    world_.changed.notify_all();
  }
  std::vector<uint8_t> recv(int src, int tag) override {
    std::unique_lock lock(world_.mutex);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(world_.timeout);
    auto& box = world_.boxes[{src, rank_, tag}];
    while (box.empty()) {
      if (!world_.failure.empty()) throw CommError(fmt::format("device {}: stopped: {}", rank_, world_.failure));
      if (world_.changed.wait_until(lock, deadline) == std::cv_status::timeout && box.empty())
        throw CommError(fmt::format("device {}: no message from device {} within {} s", rank_, src, world_.timeout));
    }
    std::vector<uint8_t> bytes = std::move(box.front());
    box.pop_front();
    return bytes;
  }

 private:
  World& world_;
  int rank_, size_;
};

}  // namespace

void runInProcess(int devices, double timeoutSeconds, const std::function<void(Communicator&)>& fn) {
  World world;
  world.timeout = timeoutSeconds;
  std::vector<std::exception_ptr> errors(static_cast<size_t>(devices));
  std::vector<std::thread> threads;
  for (int r = 0; r < devices; ++r)
    threads.emplace_back([&, r] {
      InProcComm comm(world, r, devices);
      try {
        fn(comm);
      } catch (const std::exception& e) {
        errors[static_cast<size_t>(r)] = std::current_exception();
        std::lock_guard lock(world.mutex);
        if (world.failure.empty()) world.failure = fmt::format("device {} failed: {}", r, e.what());
        world.changed.notify_all();
      } catch (...) {
        errors[static_cast<size_t>(r)] = std::current_exception();
        std::lock_guard lock(world.mutex);
        if (world.failure.empty()) world.failure = fmt::format("device {} failed", r);
        world.changed.notify_all();
      }
    });
  for (std::thread& t : threads) t.join();
  // The root cause first: a device whose error is not the CommError of a peer's failure.
  for (const auto& e : errors) {
    if (!e) continue;
    try {
      std::rethrow_exception(e);
    } catch (const CommError&) {
    } catch (...) {
      std::rethrow_exception(e);
    }
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace tpc::harness
