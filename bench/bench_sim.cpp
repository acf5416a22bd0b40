// bench-sim: simulator speed on a streaming elementwise kernel over a 64 MiB f32 tensor.
// Reports bundles_per_second (simulated bundles per second of host time) and lane_ops_per_second, with one
// and with two host threads. Target (issue: foundation): >= 20e6 bundles/s per thread, >= 1.6x with two.
// BM_ElementwiseNative runs the same computation compiled from TPC-C (bench/kernels/elementwise_f32.c)
// through the native reference and, once, on the simulator: native and simulated CPU seconds per run and
// their ratio (the simulator's overhead over host execution).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "tpc/asm/assembler.h"
#include "tpc/isa/isa.h"
#include "tpc/native/native_kernel.h"
#include "tpc/object/kernel_object.h"
#include "tpc/sim/launch.h"

namespace {

// y = relu(x) * 2 + x over [COLS, ROWS] f32: each index-space point is one vector of one row. A hardware
// loop walks the columns; each bundle of the body keeps two or three slots busy, like compiled code.
const char* kElementwise = R"(
.kernel main
.arch gaudi2
.param tensor x
.param tensor y
main:
  nop ; mov_irf_dim.i32 s0, i0 dim=0 ; nop ; nop
  nop ; mov_irf_dim.i32 s1, i1 dim=0 ; nop ; nop
  nop ; mov_irf_dim.i32 s2, i0 dim=1 ; nop ; nop
  nop ; mov_irf_dim.i32 s3, i1 dim=1 ; nop ; nop
  nop ; add.i32 s1, s0, s1 ; nop ; nop
  nop ; add.i32 s3, s2, s3 ; nop ; nop
  nop ; shl.i32 s0, s0, 6 ; nop ; nop
  nop ; i_mov.i32 i2, 0 dmask=0b11111 ; nop ; nop
  nop ; shl.i32 s1, s1, 6 ; nop ; nop
  nop ; loop.i32 s10, s2, s3, 1 end=row_end ; nop ; nop
  nop ; i_mov.i32 i2, s10 dmask=0b00010 ; nop ; nop
  nop ; i_mov.i32 i3, s10 dmask=0b00010 ; nop ; nop
  nop ; i_mov.i32 i2, s0 dmask=0b00001 ; nop ; nop
  nop ; loop.i32 s11, s0, s1, 64 end=col_end ; nop ; nop
  ld_tnsr.f32 v0, i2 tnsr=0 ; i_mov.i32 i3, s11 dmask=0b00001 ; nop ; nop
  nop ; i_add.i32 i2, 64, i2 dmask=0b00001 ; max.f32 v1, v0, 0.0 ; nop
  nop ; nop ; mul.f32 v1, v1, 2.0 ; nop
  nop ; nop ; add.f32 v1, v1, v0 ; nop
col_end:
  nop ; nop ; nop ; st_tnsr.f32 i3, v1 tnsr=1
row_end:
  nop ; nop ; nop ; nop
  nop ; halt ; nop ; nop
)";

constexpr int64_t kCols = 65536;  // 256 KiB per row
constexpr int64_t kRows = 256;    // 64 MiB in all

// CPU seconds of the process (all its threads): steadier than wall time on a machine shared with other work.
double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// The inputs of the elementwise kernel and a check of its output.
void addElementwiseTensors(tpc::sim::Launch& launch) {
  std::vector<uint8_t> x(kCols * kRows * 4), y(kCols * kRows * 4);
  for (size_t i = 0; i < x.size() / 4; ++i) reinterpret_cast<float*>(x.data())[i] = float(int(i % 97) - 48);
  launch.addTensor(tpc::DType::F32, {kCols, kRows, 1, 1, 1}, std::move(x));
  launch.addTensor(tpc::DType::F32, {kCols, kRows, 1, 1, 1}, std::move(y));
  launch.setIndexSpace({kCols / 64, kRows, 1, 1, 1});
}
bool elementwiseCorrect(const tpc::sim::Launch& launch) {
  auto in = launch.tensorData(0), out = launch.tensorData(1);
  for (size_t i = 0; i < in.size() / 4; i += 4099) {
    float xv = reinterpret_cast<const float*>(in.data())[i], yv = reinterpret_cast<const float*>(out.data())[i];
    if (yv != (xv > 0 ? xv : 0.0f) * 2.0f + xv) return false;
  }
  return true;
}

void BM_Elementwise(benchmark::State& state) {
  static tpc::obj::KernelObject object = tpc::assembler::assemble(kElementwise, "bench_elementwise.s");
  tpc::sim::Program program;
  std::string error;
  if (!program.load(object.text, &error)) {
    state.SkipWithError(error.c_str());
    return;
  }
  tpc::sim::LaunchOptions options;
  options.arch = tpc::isa::findArch("gaudi2");
  options.threads = static_cast<int>(state.range(0));
  tpc::sim::Launch launch(program, options);
  addElementwiseTensors(launch);
  launch.run();  // lay out global memory outside the timed loop
  // The figure means nothing if the kernel computes the wrong thing: check a sample of the output.
  if (!elementwiseCorrect(launch)) {
    state.SkipWithError("the benchmark kernel computed a wrong result");
    return;
  }

  uint64_t bundles = 0, laneOps = 0;
  for (auto _ : state) {
    tpc::sim::LaunchResult r = launch.run();
    if (r.fault) {
      state.SkipWithError(r.fault->describe().c_str());
      return;
    }
    bundles += r.totalBundles();
    for (const auto& c : r.cores) laneOps += c.vectorLaneOps;
  }
  state.counters["bundles_per_second"] = benchmark::Counter(double(bundles), benchmark::Counter::kIsRate);
  state.counters["lane_ops_per_second"] = benchmark::Counter(double(laneOps), benchmark::Counter::kIsRate);
  state.counters["host_threads"] = double(state.range(0));
}

BENCHMARK(BM_Elementwise)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

void BM_ElementwiseNative(benchmark::State& state) {
  static tpc::obj::KernelObject object = tpc::obj::readObjectFile(TPC_BENCH_ELEMENTWISE_OBJECT);
  tpc::sim::Program program;
  std::string error;
  if (!program.load(object.text, &error) || !program.setPrintfFormats(object.printfFormats, &error)) {
    state.SkipWithError(error.c_str());
    return;
  }
  tpc::sim::LaunchOptions options;
  options.arch = tpc::isa::findArch("gaudi2");
  options.threads = static_cast<int>(state.range(0));
  int threads = tpc::sim::launchThreads(options.threads, options.arch->cores);
  std::unique_ptr<tpc::native::NativeKernel> kernel =
      tpc::native::NativeKernel::compile(object, program, threads, TPC_BENCH_ELEMENTWISE_OBJECT);

  // Simulated runs of the same object (same launch, same threads) for the comparison: the fastest of three.
  double simulated = 0;
  {
    tpc::sim::Launch sim(program, options);
    addElementwiseTensors(sim);
    sim.run();  // lay out global memory outside the timing, as below
    for (int k = 0; k < 3; ++k) {
      double t0 = cpuSeconds();
      tpc::sim::LaunchResult r = sim.run();
      double t = cpuSeconds() - t0;
      simulated = k == 0 ? t : std::min(simulated, t);
      if (r.fault || !elementwiseCorrect(sim)) {
        state.SkipWithError("the simulated run of the compiled kernel failed");
        return;
      }
    }
  }

  options.runner = kernel.get();
  tpc::sim::Launch launch(program, options);
  addElementwiseTensors(launch);
  launch.run();
  if (!elementwiseCorrect(launch)) {
    state.SkipWithError("the native run computed a wrong result");
    return;
  }
  double native = 0;
  int64_t runs = 0;
  for (auto _ : state) {
    double t0 = cpuSeconds();
    tpc::sim::LaunchResult r = launch.run();
    native += cpuSeconds() - t0;
    ++runs;
    if (r.fault) {
      state.SkipWithError(r.fault->describe().c_str());
      return;
    }
  }
  state.counters["native_cpu_seconds"] = native / double(runs);
  state.counters["simulated_cpu_seconds"] = simulated;
  state.counters["simulated_over_native"] = simulated / (native / double(runs));
  state.counters["host_threads"] = double(state.range(0));
}

BENCHMARK(BM_ElementwiseNative)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
