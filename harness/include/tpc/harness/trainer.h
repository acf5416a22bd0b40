// Data-parallel training of the MLP on every device: forward and backward through MME GEMMs and kernel-
// library TPC kernels (bias add, ReLU, softmax cross-entropy, bias-gradient reduce_sum, the optimizer),
// the gradients ring-allreduced in buckets that start as soon as their last gradient exists, so that
// communication overlaps the rest of the backward pass. Modelled time from each device's MME, TPC and
// link timelines (docs/pipeline.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tpc/harness/communicator.h"
#include "tpc/harness/mlp.h"
#include "tpc/support/dtype.h"

namespace tpc::harness {

struct TrainOptions {
  MlpSpec model;
  int64_t batch = 0;          // the global batch, split evenly over the devices
  int steps = 1;
  DType dtype = DType::F32;   // F32, or BF16: bf16 GEMM inputs (f32 accumulation) and bf16 gradients
  std::string optimizer = "sgd";  // sgd (momentum 0.9) or adamw
  float lr = 0.05f;
  double bucketMb = 25;
  uint64_t seed = 1;
  size_t chunkBytes = 64u << 10;  // the ring's largest message (tpc-pipeline --chunk-kb)
  int rings = 0;                 // rings per allreduce (AllreduceOptions::rings; 0: by size)
  bool trace = false;           // collect the trace events
};

struct StepTimes {
  double stepUs = 0, mmeUs = 0, tpcUs = 0, commUs = 0, exposedCommUs = 0, computeUs = 0;
};

// What rank 0 returns (the other ranks: the same losses and weights, no events).
struct TrainResult {
  std::vector<double> losses;          // the global batch's mean loss per step
  std::vector<StepTimes> steps;        // this device's modelled times per step (the slowest device's step time)
  std::vector<std::vector<float>> weights;  // W0, b0, W1, b1, ... after the last step
  nlohmann::json events = nlohmann::json::array();  // every device's trace events (rank 0 only)
  uint64_t kernelRuns = 0;             // TPC kernels simulated on this device
};

// Trains on this rank's share of each global batch. Throws UserError when the loss is not finite.
TrainResult trainOnDevice(Communicator& comm, const TrainOptions& options);

// The largest normwise relative difference between two weight sets: max over tensors of
// max|a - b| / max|b| (|b| at least 1e-30).
double maxRelDiff(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b);

// The tolerance of --check for a data type.
double checkTolerance(DType t);

}  // namespace tpc::harness
