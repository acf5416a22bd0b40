// tpc-allreduce-perf: the ring allreduce's bandwidth over N modelled devices, printed as nccl-tests'
// all_reduce_perf prints it (DESIGN.md, "Pipeline"). time is modelled device time; #wrong counts the
// elements that differ from the sum computed on the host.
// Exit status: 0 success, 1 bad usage or a failed device, 3 wrong results.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <thread>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tpc/harness/allreduce.h"
#include "tpc/harness/device.h"
#include "tpc/harness/mme.h"
#include "tpc/harness/topology.h"
#include "tpc/harness/transport.h"
#include "tpc/support/atomic_file.h"
#include "tpc/support/error.h"

namespace {

using namespace tpc::harness;
using tpc::DType;
using tpc::UserError;

struct Args {
  std::string minBytes = "8", maxBytes = "64M", dtype = "f32", transport = "inproc", json;
  double factor = 2;
  int devices = 0;
  double chunkKb = 1024;
  bool hostReduce = false;
  double timeout = 0;
  int rings = 0;
};

size_t parseSize(const std::string& option, const std::string& text) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (...) {
    used = 0;
  }
  std::string suffix = text.substr(used);
  double mult = 1;
  if (suffix == "K" || suffix == "k") mult = 1024;
  else if (suffix == "M" || suffix == "m") mult = 1024.0 * 1024;
  else if (suffix == "G" || suffix == "g") mult = 1024.0 * 1024 * 1024;
  else if (!suffix.empty()) used = 0;
  if (used == 0 || v < 0 || !std::isfinite(v))
    throw UserError(fmt::format("{} '{}': expected a size in bytes, optionally with K, M or G", option, text));
  return static_cast<size_t>(v * mult);
}

// Rank r's element i: small integers, so that every partial sum is exact in f32 and bf16 whatever the order.
float valueOf(int r, size_t i) { return static_cast<float>(static_cast<int>((i * 7 + static_cast<size_t>(r) * 13) % 17) - 8); }

struct Row {
  size_t bytes, count;
  double timeUs, algbw, busbw;
  uint64_t wrong;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tpc-allreduce-perf: ring allreduce bandwidth over modelled Gaudi2 devices (nccl-tests' table)"};
  Args a;
  app.add_option("-b,--minbytes", a.minBytes, "smallest message (bytes, K, M, G; default 8)");
  app.add_option("-e,--maxbytes", a.maxBytes, "largest message (default 64M)");
  app.add_option("-f,--stepfactor", a.factor, "multiply the size by this from one row to the next (default 2)");
  app.add_option("-g,--ngpus", a.devices, "devices (with --transport mpi: the MPI world size)")->required();
  app.add_option("-d,--datatype", a.dtype, "f32 or bf16 (default f32)");
  app.add_option("--transport", a.transport, "inproc (threads, default) or mpi (ranks of mpirun)");
  app.add_option("--json", a.json, "write the rows as JSON");
  app.add_option("--chunk-kb", a.chunkKb, "the largest message of the ring in KiB (default 1024)");
  app.add_flag("--host-reduce", a.hostReduce,
               "sum on the host, each chunk's time from the add kernel simulated once per chunk shape (large runs)");
  app.add_option("--rings", a.rings,
                 "rings on disjoint links, at most what the all-to-all links allow (6 at 8 devices); default 0: by message size");
  app.add_option("--timeout", a.timeout, "seconds a device waits for a peer before failing (default 60)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  Transport transport = Transport::InProc;
  std::vector<Row> rows;
  DType dtype = DType::F32;
  try {
    transport = parseTransport(a.transport);
    if (a.devices < 1 || a.devices > 64) throw UserError(fmt::format("-g {}: expected 1 to 64 devices", a.devices));
    if (a.dtype == "bf16") dtype = DType::BF16;
    else if (a.dtype != "f32") throw UserError(fmt::format("-d '{}': expected f32 or bf16", a.dtype));
    const size_t lo = parseSize("-b", a.minBytes), hi = parseSize("-e", a.maxBytes);
    if (lo > hi) throw UserError(fmt::format("-b {} is above -e {}", a.minBytes, a.maxBytes));
    if (!(a.factor > 1)) throw UserError(fmt::format("-f {}: expected a factor above 1", a.factor));
    if (!(a.chunkKb > 0)) throw UserError(fmt::format("--chunk-kb {}: expected a positive size", a.chunkKb));
    if (a.rings < 0) throw UserError(fmt::format("--rings {}: expected 0 (all) or a positive count", a.rings));
    const double timeout = a.timeout > 0 ? a.timeout : defaultCommTimeoutSeconds();
    std::vector<size_t> sizes;
    for (double s = static_cast<double>(lo); s <= static_cast<double>(hi); s *= a.factor) {
      sizes.push_back(static_cast<size_t>(s));
      if (s == 0) break;
    }
    AllreduceOptions opt;
    opt.chunkBytes = static_cast<size_t>(a.chunkKb * 1024);
    opt.hostReduce = a.hostReduce;
    opt.rings = a.rings;
    const int ringCount = static_cast<int>(ringsFor(std::numeric_limits<size_t>::max(), a.devices, opt).size());
    const auto hostStart = std::chrono::steady_clock::now();
    uint64_t kernelRuns = 0;
    bool root = false;
    const tpc::harness::DeviceModel& model = gaudi2();
    runOnDevices(transport, a.devices, "-g", timeout, [&](Communicator& comm) {
      useOneBlasThread();
      // Fault injection for the tests (docs/pipeline.md): this rank stops answering, or dies.
      if (const char* stall = std::getenv("TPC_FAULT_STALL_RANK"); stall && std::atoi(stall) == comm.rank())
        std::this_thread::sleep_for(std::chrono::hours(1));
      if (const char* die = std::getenv("TPC_FAULT_EXIT_RANK"); die && std::atoi(die) == comm.rank()) std::_Exit(9);
      Device device(model, comm.rank());
      const size_t esize = tpc::dtypeSize(dtype);
      std::vector<Row> mine;
      for (size_t bytes : sizes) {
        const size_t count = bytes / esize;
        std::vector<uint8_t> data(count * esize);
        for (size_t i = 0; i < count; ++i) {
          const float v = valueOf(comm.rank(), i);
          if (dtype == DType::F32) std::memcpy(data.data() + 4 * i, &v, 4);
          else {
            const uint16_t h = toBf16(v);
            std::memcpy(data.data() + 2 * i, &h, 2);
          }
        }
        device.clearTimelines();
        const AllreduceResult res = ringAllreduce(comm, device, data.data(), count, dtype, 0.0, opt);
        uint64_t wrong = 0;
        for (size_t i = 0; i < count; ++i) {
          float want = 0;
          for (int r = 0; r < comm.size(); ++r) want += valueOf(r, i);
          float got;
          if (dtype == DType::F32) std::memcpy(&got, data.data() + 4 * i, 4);
          else {
            uint16_t h;
            std::memcpy(&h, data.data() + 2 * i, 2);
            got = fromBf16(h);
          }
          if (got != want) ++wrong;
        }
        const double timeUs = maxOverRanks(comm, res.end - res.start);
        const double allWrong = sumOverRanks(comm, static_cast<double>(wrong));
        const double runs = sumOverRanks(comm, static_cast<double>(res.kernelRuns));
        if (comm.rank() == 0) {
          const double algbw = timeUs > 0 ? static_cast<double>(count * esize) / (timeUs * 1e-6) / 1e9 : 0;
          const int n = comm.size();
          mine.push_back(Row{count * esize, count, timeUs, algbw, algbw * 2.0 * (n - 1) / n, static_cast<uint64_t>(allWrong)});
          kernelRuns += static_cast<uint64_t>(runs);
        }
      }
      if (comm.rank() == 0) rows = std::move(mine);
    }, &root);
    if (!root) return 0;
    const double hostSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - hostStart).count();
    const char* typeName = dtype == DType::F32 ? "float" : "bfloat16";
    std::printf("# tpc-allreduce-perf: %d modelled Gaudi2 device(s), transport %s, ring allreduce (reduce-scatter + allgather)\n",
                a.devices, a.transport.c_str());
    std::printf("# link: %d x 100 GbE per peer = %.1f GB/s per direction, latency %.1f us; up to %d ring(s) on disjoint links = %.1f GB/s\n",
                model.portsPerPeer, model.linkBytesPerSecond() / 1e9, model.linkLatencyUs, ringCount,
                ringCount * model.linkBytesPerSecond() / 1e9);
    std::printf("# chunks of %.0f KiB; reductions: %s\n", a.chunkKb,
                a.hostReduce ? "host sums, add kernel cycles per chunk shape" : "add kernel on the simulator");
    std::printf("#\n#%12s %14s %9s %7s %11s %8s %8s %7s\n", "size", "count", "type", "redop", "time", "algbw", "busbw", "#wrong");
    std::printf("#%12s %14s %9s %7s %11s %8s %8s %7s\n", "(B)", "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)", "");
    double busSum = 0;
    uint64_t wrongTotal = 0;
    for (const Row& r : rows) {
      std::printf(" %12zu %14zu %9s %7s %11.2f %8.2f %8.2f %7llu\n", r.bytes, r.count, typeName, "sum", r.timeUs, r.algbw,
                  r.busbw, static_cast<unsigned long long>(r.wrong));
      busSum += r.busbw;
      wrongTotal += r.wrong;
    }
    const double avg = rows.empty() ? 0 : busSum / static_cast<double>(rows.size());
    std::printf("# Out of bounds values : %llu %s\n", static_cast<unsigned long long>(wrongTotal), wrongTotal ? "ERROR" : "OK");
    std::printf("# Avg bus bandwidth    : %.3f\n", avg);
    std::printf("# host time %.2f s, add kernels simulated %llu\n", hostSeconds, static_cast<unsigned long long>(kernelRuns));
    if (!a.json.empty()) {
      nlohmann::json j;
      j["devices"] = a.devices;
      j["transport"] = a.transport;
      j["type"] = typeName;
      j["link_GBps"] = model.linkBytesPerSecond() / 1e9;
      j["rings"] = ringCount;
      j["ring_GBps"] = ringCount * model.linkBytesPerSecond() / 1e9;
      j["host_reduce"] = a.hostReduce;
      j["rows"] = nlohmann::json::array();
      for (const Row& r : rows)
        j["rows"].push_back({{"size", r.bytes}, {"count", r.count}, {"type", typeName}, {"redop", "sum"},
                             {"time_us", r.timeUs}, {"algbw_GBps", r.algbw}, {"busbw_GBps", r.busbw}, {"wrong", r.wrong}});
      j["avg_busbw_GBps"] = avg;
      j["host_seconds"] = hostSeconds;
      const std::string text = j.dump(2) + "\n";
      tpc::writeFileAtomically(a.json, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    }
    return wrongTotal ? 3 : 0;
  } catch (const UserError& e) {
    if (tpc::harness::launcherRank() == 0) std::fprintf(stderr, "tpc-allreduce-perf: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tpc-allreduce-perf: %s\n", e.what());
    abortAllRanks(transport, 1);
    return 1;
  }
}
