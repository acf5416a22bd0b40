#include "tpc/sim/launch.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace tpc::sim {

uint64_t LaunchResult::maxCycles() const {
  uint64_t m = 0;
  for (const CoreStats& c : cores) m = std::max(m, c.cycles);
  return m;
}

uint64_t LaunchResult::totalBundles() const {
  uint64_t t = 0;
  for (const CoreStats& c : cores) t += c.bundles;
  return t;
}

int launchThreads(int threads, int cores) {
  int t = threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
  return std::clamp(t, 1, std::max(cores, 1));
}

Launch::Launch(const Program& program, LaunchOptions options)
    : program_(program), options_(options), numCores_(options.cores > 0 ? options.cores : options.arch->cores) {}

void Launch::addTensor(DType dtype, const std::array<int64_t, kMaxDims>& sizes, std::vector<uint8_t> bytes,
                       uint32_t padding) {
  TensorDesc d = TensorDesc::dense(dtype, sizes);
  if (static_cast<uint64_t>(d.numElements()) * dtypeSize(dtype) != bytes.size())
    throw std::invalid_argument("tensor data size does not match its shape");
  d.padding = padding;
  addTensorView(d, addRegion(std::move(bytes)), 0);
}

int Launch::addRegion(std::vector<uint8_t> bytes) {
  if (laidOut_) throw std::logic_error("memory regions are added before the first run");
  regionSize_.push_back(bytes.size());
  regionBytes_.push_back(std::move(bytes));
  return static_cast<int>(regionBytes_.size()) - 1;
}

void Launch::addTensorView(const TensorDesc& view, int region, uint64_t byteOffset) {
  if (laidOut_) throw std::logic_error("tensors are bound before the first run");
  if (descs_.size() >= static_cast<size_t>(isa::kNumTensors))
    throw std::invalid_argument("a kernel takes at most 16 tensors");
  if (region < 0 || static_cast<size_t>(region) >= regionSize_.size())
    throw std::invalid_argument("no such memory region");
  // The last element's offset bounds the view (strides are non-negative); an empty view needs no room.
  for (int k = 0; k < kMaxDims; ++k)
    if (view.sizes[k] < 0 || view.strides[k] < 0) throw std::invalid_argument("negative tensor size or stride");
  const bool empty = view.numElements() == 0;
  uint64_t lastElement = 0;
  for (int k = 0; k < kMaxDims && !empty; ++k)
    lastElement += static_cast<uint64_t>(view.sizes[k] - 1) * static_cast<uint64_t>(view.strides[k]);
  uint64_t end = empty ? byteOffset : byteOffset + (lastElement + 1) * dtypeSize(view.dtype);
  if (byteOffset > regionSize_[static_cast<size_t>(region)] || end > regionSize_[static_cast<size_t>(region)])
    throw std::invalid_argument("tensor view reaches past its memory region");
  TensorDesc d = view;
  d.valid = true;
  descs_.push_back(d);
  views_.push_back({region, byteOffset});
}

std::span<const uint8_t> Launch::regionData(int region) const {
  if (!laidOut_) return regionBytes_[static_cast<size_t>(region)];
  return {global_.hostPtr(regionBase_[static_cast<size_t>(region)]), regionSize_[static_cast<size_t>(region)]};
}

LaunchResult Launch::run() {
  if (!laidOut_) {
    // Lay the regions out in global memory once; later runs start from what the last one left.
    for (uint64_t size : regionSize_) regionBase_.push_back(global_.allocate(size));
    global_.finalize();
    for (size_t r = 0; r < regionBytes_.size(); ++r) {
      if (!regionBytes_[r].empty()) std::memcpy(global_.hostPtr(regionBase_[r]), regionBytes_[r].data(), regionSize_[r]);
      std::vector<uint8_t>().swap(regionBytes_[r]);
    }
    for (size_t n = 0; n < descs_.size(); ++n) {
      descs_[n].base = regionBase_[static_cast<size_t>(views_[n].region)] + views_[n].byteOffset;
      descs_[n].host = global_.hostPtr(descs_[n].base);
      bound_[n] = descs_[n];
    }
    laidOut_ = true;
  }

  LaunchResult result;
  result.boxes = splitIndexSpace(indexSpace_, numCores_, options_.preferredSplitDim);
  CoreEnv env;
  env.arch = options_.arch;
  env.program = &program_;
  env.tensors = &bound_;
  env.global = &global_;
  env.strictHazards = options_.strictHazards;
  env.maxCycles = options_.maxCycles;
  env.allowUnguardedReads = options_.allowUnguardedReads;
  cores_.clear();
  for (int c = 0; c < numCores_; ++c) cores_.push_back(std::make_unique<Core>(env, c));
  std::vector<std::string> traces(static_cast<size_t>(numCores_));

  // Cores with an empty box do not run. Each core's run depends only on its own box (and, with
  // read-modify-write stores, on the cores before it: see below), so the results are the same for any
  // number of host threads.
  std::atomic<int> nextCore{0};
  auto worker = [&](int hostThread) {
    for (int c; (c = nextCore.fetch_add(1)) < numCores_;) {
      Core& core = *cores_[static_cast<size_t>(c)];
      core.reset(result.boxes[static_cast<size_t>(c)], scalars_);
      if (result.boxes[static_cast<size_t>(c)].volume() == 0) continue;
      if (options_.runner) {
        options_.runner->runCore(core, hostThread);
        continue;
      }
      if (options_.trace) core.setTrace(&traces[static_cast<size_t>(c)]);
      core.run();
    }
  };
  // Read-modify-write stores of several cores may update the same elements (an atomic add of partial
  // sums): one host thread runs the cores in order, so the updates happen in the same order every run
  // (float adds do not commute in rounding) and never race.
  int threads = program_.hasReadModifyWriteStores() ? 1 : launchThreads(options_.threads, numCores_);
  if (threads == 1) {
    worker(0);
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker, t);
    for (std::thread& t : pool) t.join();
  }

  for (int c = 0; c < numCores_; ++c) {
    Core& core = *cores_[static_cast<size_t>(c)];
    result.cores.push_back(core.stats());
    result.printf.push_back(core.printfOutput());
    if (core.fault() && !result.fault) result.fault = core.fault();
    result.trace += traces[static_cast<size_t>(c)];
  }
  return result;
}

std::span<const uint8_t> Launch::tensorData(int n) const {
  const TensorDesc& d = descs_[static_cast<size_t>(n)];
  size_t bytes = static_cast<size_t>(d.numElements()) * dtypeSize(d.dtype);
  if (!laidOut_) return regionBytes_[static_cast<size_t>(views_[static_cast<size_t>(n)].region)];
  return {d.host, bytes};
}

}  // namespace tpc::sim
