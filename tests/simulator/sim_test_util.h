// Helpers shared by the test_simulator suite: assemble kernels from text, run them through a Launch or a
// single Core, and host-side reference arithmetic written independently of intrinsics/semantics (bf16
// rounding by hand, flush-to-zero, lane layouts).
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tpc/asm/assembler.h"
#include "tpc/isa/isa.h"
#include "tpc/sim/core.h"
#include "tpc/sim/index_space.h"
#include "tpc/sim/launch.h"
#include "tpc/sim/memory.h"
#include "tpc/sim/program.h"

namespace simtest {

using tpc::DType;
using tpc::sim::Core;
using tpc::sim::CoreStats;
using tpc::sim::Dims5;
using tpc::sim::Launch;
using tpc::sim::LaunchOptions;
using tpc::sim::LaunchResult;
using tpc::sim::Program;
using tpc::sim::StopReason;

inline const tpc::isa::ArchInfo* gaudi2() { return tpc::isa::findArch("gaudi2"); }

inline std::string readSourceFile(const std::string& relative) {
  std::ifstream in(std::string(TPC_SOURCE_DIR) + "/" + relative, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << relative;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Assembles text; a failure is a test failure (and returns empty code).
inline std::vector<uint8_t> assembleText(const std::string& text, const std::string& name = "test.s") {
  try {
    return tpc::assembler::assemble(text, name).text;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "assembly failed: " << e.what() << "\n" << text;
    return {};
  }
}

// A program loaded from assembly text; heap-allocated so that a Launch or Core may keep a reference.
inline std::unique_ptr<Program> loadProgram(const std::string& text) {
  auto p = std::make_unique<Program>();
  std::string why;
  std::vector<uint8_t> code = assembleText(text);
  EXPECT_TRUE(p->load(code, &why)) << why << "\n" << text;
  return p;
}

// Loads raw code and returns the error (empty when it loads).
inline std::string loadError(const std::vector<uint8_t>& code) {
  Program p;
  std::string why;
  if (p.load(code, &why)) return {};
  EXPECT_FALSE(why.empty());
  return why.empty() ? "?" : why;
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ---------------------------------------------------------------------------------------------------
// Host tensors as raw bytes.

template <class T> std::vector<uint8_t> toBytes(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}
template <class T> std::vector<T> fromBytes(std::span<const uint8_t> b) {
  std::vector<T> out(b.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), b.data(), out.size() * sizeof(T));
  return out;
}

inline std::array<int64_t, 5> sizes5(std::initializer_list<int64_t> s) {
  std::array<int64_t, 5> out{1, 1, 1, 1, 1};
  size_t k = 0;
  for (int64_t v : s) out[k++] = v;
  return out;
}

// ---------------------------------------------------------------------------------------------------
// A kernel run on a Launch (one core and one host thread unless told otherwise).

struct SimRun {
  std::unique_ptr<Program> program;
  std::unique_ptr<Launch> launch;
  LaunchResult result;

  explicit SimRun(const std::string& text, LaunchOptions opt = {}) : program(loadProgram(text)) {
    if (!opt.arch) opt.arch = gaudi2();
    if (opt.cores == 0) opt.cores = 1;
    if (opt.threads == 0) opt.threads = 1;
    launch = std::make_unique<Launch>(*program, opt);
  }
  template <class T> void addTensor(DType dt, std::array<int64_t, 5> sizes, const std::vector<T>& data,
                                    uint32_t padding = 0) {
    launch->addTensor(dt, sizes, toBytes(data), padding);
  }
  const LaunchResult& run(std::vector<uint32_t> scalars = {}, Dims5 space = {1, 1, 1, 1, 1}) {
    launch->setScalars(std::move(scalars));
    launch->setIndexSpace(space);
    result = launch->run();
    return result;
  }
  Core& core(int n = 0) { return launch->core(n); }
  const CoreStats& stats(int n = 0) const { return result.cores[static_cast<size_t>(n)]; }
  template <class T> std::vector<T> tensor(int n) const { return fromBytes<T>(launch->tensorData(n)); }
  template <class T> std::vector<T> vreg(int reg, int core = 0) {
    const T* p = launch->core(core).r.v[static_cast<size_t>(reg)].template lanes<T>();
    return std::vector<T>(p, p + 256 / sizeof(T));
  }
  uint32_t sreg(int reg, int core = 0) { return launch->core(core).r.s[static_cast<size_t>(reg)]; }
  std::string faultText() const { return result.fault ? result.fault->describe() : std::string(); }
};

// Asserts a run ended without a fault.
#define EXPECT_NO_FAULT(run) EXPECT_FALSE((run).result.fault.has_value()) << (run).faultText()

// ---------------------------------------------------------------------------------------------------
// A single Core driven through its control API, with tensors laid out by hand (any strides).

struct SingleCore {
  std::unique_ptr<Program> program;
  std::array<tpc::sim::TensorDesc, tpc::isa::kNumTensors> tensors{};
  tpc::sim::GlobalMemory global;
  tpc::sim::CoreEnv env;
  std::unique_ptr<Core> core;
  std::vector<std::pair<int, std::vector<uint8_t>>> pending;

  explicit SingleCore(const std::string& text, bool strict = false, uint64_t maxCycles = 0)
      : program(loadProgram(text)) {
    env.arch = gaudi2();
    env.program = program.get();
    env.tensors = &tensors;
    env.global = &global;
    env.strictHazards = strict;
    env.maxCycles = maxCycles;
  }
  // Binds tensor n with the given geometry; `elements` is how many elements the backing store holds.
  void bindTensor(int n, tpc::sim::TensorDesc d, std::vector<uint8_t> backing) {
    d.base = global.allocate(backing.size());
    d.valid = true;
    tensors[static_cast<size_t>(n)] = d;
    pending.emplace_back(n, std::move(backing));
  }
  // Lays out global memory and creates the core; call once, after bindTensor.
  Core& start(const tpc::sim::IndexBox& box = {{0, 0, 0, 0, 0}, {1, 1, 1, 1, 1}},
              std::vector<uint32_t> scalars = {}) {
    global.finalize();
    for (auto& [n, bytes] : pending) {
      auto& d = tensors[static_cast<size_t>(n)];
      d.host = global.hostPtr(d.base);
      if (!bytes.empty()) std::memcpy(d.host, bytes.data(), bytes.size());
    }
    core = std::make_unique<Core>(env, 0);
    core->reset(box, scalars);
    return *core;
  }
  template <class T> std::vector<T> tensorElements(int n, size_t count) const {
    const auto& d = tensors[static_cast<size_t>(n)];
    std::vector<T> out(count);
    std::memcpy(out.data(), d.host, count * sizeof(T));
    return out;
  }
};

// ---------------------------------------------------------------------------------------------------
// Host reference arithmetic.

inline uint32_t bitsOf(float f) { return std::bit_cast<uint32_t>(f); }
inline float floatOf(uint32_t b) { return std::bit_cast<float>(b); }

// f32 result as the core writes it: denormals flushed to signed zero, NaNs canonical.
inline float f32Out(float x) {
  uint32_t b = bitsOf(x);
  if (std::isnan(x)) return floatOf(0x7fc00000u);
  if ((b & 0x7f800000u) == 0) return floatOf(b & 0x80000000u);
  return x;
}
inline float f32In(float x) {
  uint32_t b = bitsOf(x);
  return (b & 0x7f800000u) == 0 ? floatOf(b & 0x80000000u) : x;
}

inline bool bf16IsNan(uint16_t h) { return (h & 0x7f80u) == 0x7f80u && (h & 0x7fu) != 0; }

// bf16 -> f32: exact; denormal inputs flushed.
inline float bf16ToFloat(uint16_t h) {
  if ((h & 0x7f80u) == 0) return floatOf(static_cast<uint32_t>(h & 0x8000u) << 16);
  return floatOf(static_cast<uint32_t>(h) << 16);
}

// An exact value -> bf16 by hand: round half to even at 8 significant bits (long-hand, not the bit trick),
// results below the smallest normal flushed to signed zero, overflow to infinity, NaN canonical (0x7fc0).
inline uint16_t doubleToBf16(double v) {
  uint16_t sign = std::signbit(v) ? 0x8000u : 0;
  if (std::isnan(v)) return 0x7fc0u;
  if (std::isinf(v)) return static_cast<uint16_t>(sign | 0x7f80u);
  double mag = std::fabs(v);
  if (mag == 0) return sign;
  int e;
  double m = std::frexp(mag, &e);  // mag = m * 2^e, m in [0.5, 1)
  // bf16 has 8 significant bits: scale so that the kept bits are the integer part.
  double scaled = std::ldexp(m, 8);
  double fl = std::floor(scaled), rest = scaled - fl;
  double kept = fl;
  if (rest > 0.5 || (rest == 0.5 && std::fmod(fl, 2.0) != 0)) kept = fl + 1;
  double rounded = std::ldexp(kept, e - 8);
  if (rounded < std::ldexp(1.0, -126)) return sign;  // flushed
  if (rounded >= std::ldexp(1.0, 128)) return static_cast<uint16_t>(sign | 0x7f80u);
  return static_cast<uint16_t>(sign | (bitsOf(static_cast<float>(rounded)) >> 16));
}
inline uint16_t floatToBf16(float f) { return doubleToBf16(static_cast<double>(f)); }

// Deterministic random data.
struct Rng {
  std::mt19937 gen;
  explicit Rng(uint32_t seed) : gen(seed) {}
  float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(gen); }
  int64_t integer(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen); }
  std::vector<float> floats(size_t n, float lo, float hi) {
    std::vector<float> v(n);
    for (float& x : v) x = uniform(lo, hi);
    return v;
  }
  template <class T> std::vector<T> ints(size_t n, int64_t lo, int64_t hi) {
    std::vector<T> v(n);
    for (T& x : v) x = static_cast<T>(integer(lo, hi));
    return v;
  }
};

// ---------------------------------------------------------------------------------------------------
// Vector kernels: inputs are loaded into v0, v1, ... (input k from tensor k at coordinates 0), then the
// body runs, then the core halts. Latencies are covered by stalls (no --strict-hazards).

struct VecInput {
  DType dt;
  std::vector<uint8_t> bytes;  // 256 bytes: one vector
};
template <class T> VecInput vin(DType dt, const std::vector<T>& lanes) {
  EXPECT_EQ(lanes.size() * sizeof(T), 256u);
  return VecInput{dt, toBytes(lanes)};
}

inline std::unique_ptr<SimRun> runVector(const std::vector<VecInput>& inputs, const std::string& body,
                                      std::vector<uint32_t> scalars = {}) {
  std::string text;
  for (size_t k = 0; k < inputs.size(); ++k)
    text += "ld_tnsr." + std::string(tpc::dtypeName(inputs[k].dt)) + " v" + std::to_string(k) + ", i2 tnsr=" +
            std::to_string(k) + " ; nop ; nop ; nop\n";
  text += body;
  text += "nop ; halt ; nop ; nop\n";
  auto r = std::make_unique<SimRun>(text);
  for (const VecInput& in : inputs)
    r->launch->addTensor(in.dt, sizes5({static_cast<int64_t>(256 / tpc::dtypeSize(in.dt))}), in.bytes);
  r->run(std::move(scalars));
  EXPECT_NO_FAULT(*r);
  return r;
}

// Lane-by-lane bitwise comparison; reports the first few differing lanes.
template <class T> ::testing::AssertionResult lanesEqual(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "lane count " << got.size() << " != " << want.size();
  int bad = 0;
  std::ostringstream msg;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) == 0) continue;
    if (bad++ < 6) {
      if constexpr (std::is_floating_point_v<T>)
        msg << " lane " << i << ": got " << got[i] << " (0x" << std::hex << bitsOf(got[i]) << ") want " << want[i]
            << " (0x" << bitsOf(want[i]) << std::dec << ");";
      else
        msg << " lane " << i << ": got " << static_cast<int64_t>(got[i]) << " want " << static_cast<int64_t>(want[i])
            << ";";
    }
  }
  if (!bad) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " lane(s) differ:" << msg.str();
}

// Lanes of one vector computed from other vectors lane by lane.
template <class R, class F> std::vector<R> mapLanes(size_t n, F f) {
  std::vector<R> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = f(i);
  return out;
}

// Kernel text: lines joined with newlines.
inline std::string lines(std::initializer_list<std::string> ls) {
  std::string s;
  for (const auto& l : ls) s += l + "\n";
  return s;
}

}  // namespace simtest
