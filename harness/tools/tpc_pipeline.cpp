// tpc-pipeline train: data-parallel training of an MLP over N modelled Gaudi2 devices (DESIGN.md,
// "Pipeline"; docs/pipeline.md). Prints the loss per step and the modelled step time with its parts;
// --json and --trace write them (atomically, only after a successful run); --check trains the same global
// batches on one device and compares the weights.
// Exit status: 0 success, 1 bad usage or input or a failed device, 4 --check beyond the tolerance.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tpc/harness/inproc_comm.h"
#include "tpc/harness/mme.h"
#include "tpc/harness/trace.h"
#include "tpc/harness/trainer.h"
#include "tpc/harness/transport.h"
#include "tpc/support/atomic_file.h"
#include "tpc/support/error.h"

namespace {

using namespace tpc::harness;
using tpc::DType;
using tpc::UserError;

struct Args {
  int devices = 0, steps = 0;
  std::string transport = "inproc", model, dtype = "f32", optimizer = "sgd", trace, json;
  int64_t batch = 0;
  double lr = 0.05, bucketMb = 25, chunkKb = 64, timeout = 0, tolerance = -1;
  int rings = 0;
  uint64_t seed = 1;
  bool check = false;
};

void writeJson(const std::string& path, const nlohmann::json& j) {
  const std::string text = j.dump(1) + "\n";
  tpc::writeFileAtomically(path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

int train(const Args& a, Transport& transport) {
  transport = parseTransport(a.transport);
  TrainOptions o;
  o.model = parseModelSpec(a.model);
  if (a.devices < 1 || a.devices > 64) throw UserError(fmt::format("--devices {}: expected 1 to 64", a.devices));
  if (a.batch < 1 || a.batch % a.devices != 0)
    throw UserError(fmt::format("--batch {}: the global batch must be a positive multiple of --devices {}", a.batch, a.devices));
  if (a.steps < 1) throw UserError(fmt::format("--steps {}: expected at least 1", a.steps));
  if (a.dtype == "f32") o.dtype = DType::F32;
  else if (a.dtype == "bf16") o.dtype = DType::BF16;
  else throw UserError(fmt::format("--dtype '{}': expected f32 or bf16", a.dtype));
  if (a.optimizer != "sgd" && a.optimizer != "adamw")
    throw UserError(fmt::format("--optimizer '{}': expected sgd or adamw", a.optimizer));
  if (!(a.lr > 0) || !std::isfinite(a.lr)) throw UserError(fmt::format("--lr {}: expected a positive number", a.lr));
  if (!(a.bucketMb > 0) || !std::isfinite(a.bucketMb))
    throw UserError(fmt::format("--bucket-mb {}: expected a size above 0 (MiB)", a.bucketMb));
  if (!(a.chunkKb > 0)) throw UserError(fmt::format("--chunk-kb {}: expected a size above 0", a.chunkKb));
  if (a.rings < 0) throw UserError(fmt::format("--rings {}: expected 0 (by size) or a positive count", a.rings));
  o.batch = a.batch;
  o.steps = a.steps;
  o.optimizer = a.optimizer;
  o.lr = static_cast<float>(a.lr);
  o.bucketMb = a.bucketMb;
  o.seed = a.seed;
  o.chunkBytes = static_cast<size_t>(a.chunkKb * 1024);
  o.rings = a.rings;
  o.trace = !a.trace.empty();
  const double timeout = a.timeout > 0 ? a.timeout : defaultCommTimeoutSeconds();

  const auto hostStart = std::chrono::steady_clock::now();
  const std::clock_t cpuStart = std::clock();
  TrainResult result;
  bool root = false;
  runOnDevices(transport, a.devices, "--devices", timeout, [&](Communicator& comm) {
    useOneBlasThread();
    TrainResult r = trainOnDevice(comm, o);
    if (comm.rank() == 0) result = std::move(r);
  }, &root);
  if (!root) return 0;
  const double hostPerStep = std::chrono::duration<double>(std::chrono::steady_clock::now() - hostStart).count() / a.steps;
  // CPU time of this process (all its device threads; under MPI, rank 0's only).
  const double cpuPerStep = static_cast<double>(std::clock() - cpuStart) / CLOCKS_PER_SEC / a.steps;

  for (size_t s = 0; s < result.losses.size(); ++s) std::printf("step %zu loss %.6f\n", s + 1, result.losses[s]);
  StepTimes mean;
  for (const StepTimes& t : result.steps) {
    mean.stepUs += t.stepUs / a.steps;
    mean.mmeUs += t.mmeUs / a.steps;
    mean.tpcUs += t.tpcUs / a.steps;
    mean.commUs += t.commUs / a.steps;
    mean.exposedCommUs += t.exposedCommUs / a.steps;
    mean.computeUs += t.computeUs / a.steps;
  }
  const double efficiency = mean.stepUs > 0 ? std::max(mean.computeUs, mean.commUs) / mean.stepUs : 1.0;
  std::printf("%d device(s) (%s), %s, global batch %lld, %s, %s: modelled step time %.1f us\n", a.devices,
              a.transport.c_str(), a.model.c_str(), static_cast<long long>(a.batch), a.dtype.c_str(), a.optimizer.c_str(),
              mean.stepUs);
  std::printf("  MME %.1f us, TPC %.1f us (compute %.1f us), communication %.1f us, exposed communication %.1f us\n",
              mean.mmeUs, mean.tpcUs, mean.computeUs, mean.commUs, mean.exposedCommUs);
  std::printf("  overlap efficiency %.3f (max(compute, communication) / step time)\n", efficiency);
  std::printf("  host time per step %.2f s wall, %.2f s CPU (rank 0: %llu TPC kernels simulated)\n", hostPerStep,
              cpuPerStep, static_cast<unsigned long long>(result.kernelRuns));

  nlohmann::json j;
  j["losses"] = result.losses;
  j["step_time_us"] = mean.stepUs;
  j["mme_us"] = mean.mmeUs;
  j["tpc_us"] = mean.tpcUs;
  j["comm_us"] = mean.commUs;
  j["exposed_comm_us"] = mean.exposedCommUs;
  j["compute_us"] = mean.computeUs;
  j["overlap_efficiency"] = efficiency;
  j["devices"] = a.devices;
  j["host_seconds_per_step"] = hostPerStep;
  j["host_cpu_seconds_per_step"] = cpuPerStep;
  int code = 0;
  if (a.check) {
    TrainOptions one = o;
    one.trace = false;
    TrainResult ref;
    runInProcess(1, timeout, [&](Communicator& comm) { ref = trainOnDevice(comm, one); });
    const double diff = maxRelDiff(result.weights, ref.weights);
    const double tol = a.tolerance >= 0 ? a.tolerance : checkTolerance(o.dtype);
    const bool ok = diff <= tol;
    std::printf("check: the same global batches on 1 device: max_rel_diff %.3g (tolerance %.3g): %s\n", diff, tol,
                ok ? "ok" : "MISMATCH");
    j["max_rel_diff"] = diff;
    if (!ok) code = 4;
  }
  if (!a.trace.empty()) writeJson(a.trace, chromeTrace(a.devices, result.events));
  if (!a.json.empty()) writeJson(a.json, j);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tpc-pipeline: data-parallel training over modelled Gaudi2 devices (docs/pipeline.md)"};
  app.require_subcommand(1);
  Args a;
  CLI::App* t = app.add_subcommand("train", "train an MLP on a synthetic task, gradients ring-allreduced in buckets");
  t->add_option("--devices", a.devices, "devices (with --transport mpi: the MPI world size)")->required();
  t->add_option("--transport", a.transport, "inproc (one thread per device, default) or mpi (ranks of mpirun)");
  t->add_option("--model", a.model, "mlp:IN,H1,...,OUT")->required();
  t->add_option("--batch", a.batch, "the global batch (a multiple of --devices)")->required();
  t->add_option("--steps", a.steps, "training steps")->required();
  t->add_option("--dtype", a.dtype, "f32 (default) or bf16 (bf16 GEMM inputs and gradients)");
  t->add_option("--optimizer", a.optimizer, "sgd (momentum 0.9, default) or adamw");
  t->add_option("--lr", a.lr, "learning rate (default 0.05)");
  t->add_option("--bucket-mb", a.bucketMb, "gradient bucket size in MiB (default 25)");
  t->add_option("--seed", a.seed, "seed of the weights and the synthetic data (default 1)");
  t->add_option("--trace", a.trace, "write a Chrome trace (Perfetto) of every device's MME, TPC and link");
  t->add_option("--json", a.json, "write the losses and the modelled times as JSON");
  t->add_flag("--check", a.check, "train the same global batches on one device and compare the weights (exit 4)");
  t->add_option("--check-tolerance", a.tolerance, "--check's tolerance (default 1e-4 f32, 5e-2 bf16)");
  t->add_option("--chunk-kb", a.chunkKb, "the ring allreduce's largest message in KiB (default 64: small chunks pipeline the ring's steps, which "
                "shortens the last bucket's allreduce)");
  t->add_option("--rings", a.rings,
                "rings per allreduce on disjoint links, at most what the all-to-all links allow (6 at 8 devices); "
                "default 0: by bucket size");
  t->add_option("--timeout", a.timeout, "seconds a device waits for a peer before failing (default 60)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  Transport transport = Transport::InProc;
  try {
    return train(a, transport);
  } catch (const UserError& e) {
    if (launcherRank() == 0) std::fprintf(stderr, "tpc-pipeline: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tpc-pipeline: %s\n", e.what());
    abortAllRanks(transport, 1);
    return 1;
  }
}
