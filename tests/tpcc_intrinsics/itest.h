// Helpers of the test_tpcc_intrinsics suite: compile a TPC-C kernel with the real tpc-clang (as a user runs
// it), load the object's code into libtpcsim and run it with strict hazard checking, and host references
// written here, independently of intrinsics/semantics: float formats rounded by bit manipulation with
// every rounding mode, integer saturation by hand.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tpc/isa/isa.h"
#include "tpc/native/native_kernel.h"
#include "tpc/object/kernel_object.h"
#include "tpc/sim/launch.h"
#include "tpc/sim/program.h"

namespace itest {

namespace fs = std::filesystem;
using tpc::DType;

// ---------------------------------------------------------------------------------------------- types

struct Fmt {
  int expBits = 0, mantBits = 0;
  int bias() const { return (1 << (expBits - 1)) - 1; }
  uint32_t signBit() const { return 1u << (expBits + mantBits); }
  uint32_t expField() const { return (1u << expBits) - 1u; }
  uint32_t mantMask() const { return (1u << mantBits) - 1u; }
  uint32_t inf() const { return expField() << mantBits; }
  uint32_t nan() const { return inf() | (1u << (mantBits - 1)); }
  uint32_t maxFinite() const { return ((expField() - 1) << mantBits) | mantMask(); }
};
inline constexpr Fmt kF32{8, 23}, kBF16{8, 7}, kF16{5, 10};

// One TPC-C data type: its tag in intrinsic names, vector, scalar and bool-vector types.
struct Type {
  const char* tag;
  const char* vec;
  const char* scalar;
  const char* boolv;
  DType dt;
  int size;  // bytes per element
  bool isFloat;
  bool isSigned;
  Fmt fmt;
  int lanes() const { return 256 / size; }
  uint32_t mask() const { return size == 4 ? 0xffffffffu : (1u << (8 * size)) - 1u; }
  // The value of an integer element's raw bits.
  int64_t intValue(uint32_t bits) const {
    bits &= mask();
    if (isSigned && size < 4 && (bits >> (8 * size - 1))) return static_cast<int64_t>(bits) - (int64_t{1} << (8 * size));
    if (isSigned && size == 4) return static_cast<int32_t>(bits);
    return bits;
  }
  int64_t minValue() const { return isSigned ? -(int64_t{1} << (8 * size - 1)) : 0; }
  int64_t maxValue() const { return isSigned ? (int64_t{1} << (8 * size - 1)) - 1 : (int64_t{1} << (8 * size)) - 1; }
};

inline const std::vector<Type>& allTypes() {
  static const std::vector<Type> t = {
      {"f32", "float64", "float", "bool64", DType::F32, 4, true, true, kF32},
      {"bf16", "bfloat128", "bf16", "bool128", DType::BF16, 2, true, true, kBF16},
      {"f16", "half128", "half", "bool128", DType::F16, 2, true, true, kF16},
      {"i32", "int64", "int32_t", "bool64", DType::I32, 4, false, true, {}},
      {"u32", "uint64", "uint32_t", "bool64", DType::U32, 4, false, false, {}},
      {"i16", "short128", "int16_t", "bool128", DType::I16, 2, false, true, {}},
      {"u16", "ushort128", "uint16_t", "bool128", DType::U16, 2, false, false, {}},
      {"i8", "char256", "int8_t", "bool256", DType::I8, 1, false, true, {}},
      {"u8", "uchar256", "uint8_t", "bool256", DType::U8, 1, false, false, {}},
  };
  return t;
}
inline const Type& type(const std::string& tag) {
  for (const Type& t : allTypes())
    if (tag == t.tag) return t;
  throw std::logic_error("no type " + tag);
}

// ---------------------------------------------------------------------------------------------- floats

enum class Rm { RHNE, RZ, RU, RD, RHAZ };

inline bool isNan(uint32_t bits, Fmt f) {
  return ((bits >> f.mantBits) & f.expField()) == f.expField() && (bits & f.mantMask());
}

// The value of a float's bits; denormal inputs read as signed zero, as the core reads them.
inline double decode(uint32_t bits, Fmt f) {
  bool neg = bits & f.signBit();
  uint32_t e = (bits >> f.mantBits) & f.expField(), m = bits & f.mantMask();
  double v;
  if (e == f.expField()) v = m ? NAN : INFINITY;
  else if (e == 0) v = 0.0;
  else v = std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -f.mantBits), static_cast<int>(e) - f.bias());
  return neg ? -v : v;
}

// x (exact in a double) rounded to format f by mode rm: results below the smallest normal are signed
// zeros, overflow gives infinity or the largest finite value as IEEE says for the mode (always the largest
// finite with sat), NaN the canonical NaN.
inline uint32_t encode(double x, Fmt f, Rm rm = Rm::RHNE, bool sat = false) {
  if (std::isnan(x)) return f.nan();
  bool neg = std::signbit(x);
  uint32_t sign = neg ? f.signBit() : 0;
  if (std::isinf(x)) return sign | (sat ? f.maxFinite() : f.inf());
  if (x == 0) return sign;
  double a = std::fabs(x);
  int e;
  std::frexp(a, &e);
  e -= 1;  // a = 1.xxx * 2^e
  double scaled = std::ldexp(a, f.mantBits - e);  // in [2^m, 2^(m+1))
  double q = std::floor(scaled), frac = scaled - q;
  bool up = false;
  switch (rm) {
    case Rm::RHNE: up = frac > 0.5 || (frac == 0.5 && std::fmod(q, 2.0) == 1.0); break;
    case Rm::RHAZ: up = frac >= 0.5; break;
    case Rm::RZ: up = false; break;
    case Rm::RU: up = frac > 0 && !neg; break;
    case Rm::RD: up = frac > 0 && neg; break;
  }
  if (up) q += 1;
  if (q >= std::ldexp(1.0, f.mantBits + 1)) {
    q /= 2;
    e += 1;
  }
  if (e > f.bias()) {
    bool toInf = !sat && (rm == Rm::RHNE || rm == Rm::RHAZ || (rm == Rm::RU && !neg) || (rm == Rm::RD && neg));
    return sign | (toInf ? f.inf() : f.maxFinite());
  }
  if (e < 1 - f.bias()) return sign;
  return sign | (static_cast<uint32_t>(e + f.bias()) << f.mantBits) | (static_cast<uint32_t>(q) & f.mantMask());
}

inline uint32_t bitsOf(float x) { return std::bit_cast<uint32_t>(x); }
inline float floatOf(uint32_t b) { return std::bit_cast<float>(b); }

// An integer rounded from x by mode rm.
inline double roundToInteger(double x, Rm rm) {
  switch (rm) {
    case Rm::RHNE: {
      double f = std::floor(x), d = x - f;
      if (d > 0.5 || (d == 0.5 && std::fmod(f, 2.0) != 0.0)) f += 1;
      return f;
    }
    case Rm::RZ: return std::trunc(x);
    case Rm::RU: return std::ceil(x);
    case Rm::RD: return std::floor(x);
    case Rm::RHAZ: return std::round(x);
  }
  return x;
}

// The raw bits of the element that `convert` from type `from` (bits) to type `to` produces.
inline uint32_t convertBits(uint32_t bits, const Type& from, const Type& to, Rm rm, bool sat) {
  if (from.isFloat) {
    double v = decode(bits, from.fmt);
    if (to.isFloat) return encode(v, to.fmt, rm, sat);
    if (std::isnan(v)) return 0;
    double r = std::isinf(v) ? v : roundToInteger(v, rm);
    r = std::fmax(static_cast<double>(to.minValue()), std::fmin(static_cast<double>(to.maxValue()), r));
    return static_cast<uint32_t>(static_cast<int64_t>(r)) & to.mask();
  }
  int64_t v = from.intValue(bits);
  if (to.isFloat) return encode(static_cast<double>(v), to.fmt, rm, false);
  if (sat) v = std::min(std::max(v, to.minValue()), to.maxValue());
  return static_cast<uint32_t>(v) & to.mask();
}

// ---------------------------------------------------------------------------------------------- tensors

struct Tensor {
  DType dtype = DType::F32;
  int size = 4;  // bytes per element
  std::array<int64_t, 5> sizes{1, 1, 1, 1, 1};
  std::vector<uint8_t> bytes;
  uint32_t padding = 0;  // the descriptor's pad value (raw bits): what reads outside the tensor return
  int64_t count() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
  uint32_t get(int64_t i) const {
    uint32_t v = 0;
    std::memcpy(&v, bytes.data() + i * size, static_cast<size_t>(size));
    return v;
  }
  void set(int64_t i, uint32_t v) { std::memcpy(bytes.data() + i * size, &v, static_cast<size_t>(size)); }
  // Element at (x, y, z) of a tensor of up to three dimensions.
  int64_t index(int64_t x, int64_t y = 0, int64_t z = 0) const { return x + sizes[0] * (y + sizes[1] * z); }
};

inline Tensor makeTensor(const Type& t, std::initializer_list<int64_t> sizes, const std::vector<uint32_t>& bits = {}) {
  Tensor r;
  r.dtype = t.dt;
  r.size = t.size;
  size_t k = 0;
  for (int64_t s : sizes) r.sizes[k++] = s;
  r.bytes.assign(static_cast<size_t>(r.count() * t.size), 0);
  for (int64_t i = 0; i < r.count() && i < static_cast<int64_t>(bits.size()); ++i) r.set(i, bits[static_cast<size_t>(i)]);
  return r;
}

// Deterministic element values of a type: a mix of ordinary values, negatives, extremes, halfway cases
// (floats) and, with specials, zeros, infinities and NaN.
inline std::vector<uint32_t> sampleBits(const Type& t, size_t n, uint32_t seed, bool specials = false) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t r = rng();
    if (t.isFloat) {
      double v;
      switch (r % 8) {
        case 0: v = static_cast<int>(rng() % 41) - 20 + 0.5; break;         // halfway
        case 1: v = (static_cast<int>(rng() % 2001) - 1000) * 0.125; break;  // exact small
        case 2: v = std::ldexp(static_cast<double>(rng() % 1000 + 1), static_cast<int>(rng() % 30) - 10) * ((rng() & 1) ? -1 : 1); break;
        case 3: v = (static_cast<double>(rng()) / 4294967296.0 - 0.5) * 300.0; break;
        case 4: v = std::ldexp(1.0 + (rng() % 256) / 256.0, static_cast<int>(rng() % 20) + 8) * ((rng() & 1) ? -1 : 1); break;
        case 5: v = (static_cast<double>(rng()) / 4294967296.0) * 3.0 - 1.0; break;
        default: v = (static_cast<int>(rng() % 401) - 200) * 0.75 + 0.25; break;
      }
      uint32_t b = encode(v, t.fmt, Rm::RHNE, true);
      if (specials && r % 13 == 0) {
        const uint32_t sp[] = {0, t.fmt.signBit(), t.fmt.inf(), t.fmt.signBit() | t.fmt.inf(), t.fmt.nan(),
                               t.fmt.maxFinite(), t.fmt.signBit() | t.fmt.maxFinite()};
        b = sp[(r >> 8) % 7];
      }
      out[i] = b;
    } else {
      uint32_t b;
      switch (r % 6) {
        case 0: b = static_cast<uint32_t>(t.minValue()); break;
        case 1: b = static_cast<uint32_t>(t.maxValue()); break;
        case 2: b = static_cast<uint32_t>(static_cast<int32_t>(rng() % 201) - 100); break;
        default: b = rng(); break;
      }
      out[i] = b & t.mask();
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------- tools

// The tools of this build; ITEST_TOOL_DIR overrides (to try another tpc-clang on the same tests).
inline std::string toolPath(const std::string& name) {
  const char* dir = std::getenv("ITEST_TOOL_DIR");
  return std::string(dir && *dir ? dir : TPC_TOOL_DIR) + "/" + name;
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "tpcc_intrinsics_XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

inline std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Compiled {
  int status = -1;
  std::string diagnostics;
  bool objectWritten = false;
  std::vector<uint8_t> text;
  tpc::obj::KernelObject object;
};

// tpc-clang OPT -c k.c -o k.o in a fresh directory.
inline Compiled compile(const std::string& source, const std::string& opt, const std::string& extra = "") {
  TempDir dir;
  fs::path src = dir.path() / "k.c", obj = dir.path() / "k.o", err = dir.path() / "err.txt";
  std::ofstream(src) << source;
  std::string cmd = "cd '" + dir.path().string() + "' && timeout 120 '" + toolPath("tpc-clang") + "' " + opt + " " +
                    extra + " -c k.c -o k.o 2> err.txt";
  int rc = std::system(cmd.c_str());
  Compiled c;
  c.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
  c.diagnostics = readText(err);
  c.objectWritten = fs::exists(obj);
  if (c.status == 0 && c.objectWritten) {
    c.object = tpc::obj::readObjectFile(obj.string());
    c.text = c.object.text;
  }
  return c;
}

struct RunResult {
  std::string fault;  // empty: no fault
  std::vector<Tensor> tensors;
};

// One launch of a loaded program: the tensors bound in order, the fault if any, the tensors as the kernel
// left them.
inline RunResult launchAndCollect(const tpc::sim::Program& program, const tpc::sim::LaunchOptions& opt,
                                  std::vector<Tensor> tensors, const std::vector<uint32_t>& scalars,
                                  tpc::sim::Dims5 space) {
  RunResult r;
  tpc::sim::Launch launch(program, opt);
  for (const Tensor& t : tensors) launch.addTensor(t.dtype, t.sizes, t.bytes, t.padding);
  launch.setScalars(scalars);
  launch.setIndexSpace(space);
  tpc::sim::LaunchResult res = launch.run();
  if (res.fault) r.fault = res.fault->describe();
  for (size_t k = 0; k < tensors.size(); ++k) {
    auto data = launch.tensorData(static_cast<int>(k));
    tensors[k].bytes.assign(data.begin(), data.end());
  }
  r.tensors = std::move(tensors);
  return r;
}

// Runs code over the index space on `cores` cores with strict hazard checking (a read of a register whose
// write is in flight faults).
inline RunResult run(const std::vector<uint8_t>& text, std::vector<Tensor> tensors, const std::vector<uint32_t>& scalars,
                     tpc::sim::Dims5 space, int cores = 3) {
  RunResult r;
  tpc::sim::Program program;
  std::string why;
  const tpc::isa::ArchInfo* arch = tpc::isa::findArch("gaudi2");
  if (!program.load(text, &why, arch)) {
    r.fault = "load: " + why;
    return r;
  }
  tpc::sim::LaunchOptions opt;
  opt.arch = arch;
  opt.cores = cores;
  opt.threads = 1;
  opt.strictHazards = true;
  opt.maxCycles = 20'000'000;
  return launchAndCollect(program, opt, std::move(tensors), scalars, space);
}

// The same launch through the native reference (tpc-sim --native): the object's bitcode JIT-compiled.
inline RunResult runNative(const tpc::obj::KernelObject& object, std::vector<Tensor> tensors,
                           const std::vector<uint32_t>& scalars, tpc::sim::Dims5 space, int cores) {
  RunResult r;
  tpc::sim::Program program;
  std::string why;
  const tpc::isa::ArchInfo* arch = tpc::isa::findArch("gaudi2");
  if (!program.load(object.text, &why, arch) || !program.setPrintfFormats(object.printfFormats, &why)) {
    r.fault = "load: " + why;
    return r;
  }
  std::unique_ptr<tpc::native::NativeKernel> kernel;
  try {
    kernel = tpc::native::NativeKernel::compile(object, program, 1, "k.o");
  } catch (const std::exception& e) {
    r.fault = std::string("native: ") + e.what();
    return r;
  }
  kernel->setScalars(scalars);
  tpc::sim::LaunchOptions opt;
  opt.arch = arch;
  opt.cores = cores;
  opt.threads = 1;
  opt.runner = kernel.get();
  return launchAndCollect(program, opt, std::move(tensors), scalars, space);
}

// Whether two runs left the same tensors, bit for bit (a NaN equals any NaN of the type).
inline void expectSameTensors(const RunResult& sim, const RunResult& native) {
  ASSERT_EQ(sim.tensors.size(), native.tensors.size());
  for (size_t k = 0; k < sim.tensors.size(); ++k) {
    const Tensor& a = sim.tensors[k];
    const Tensor& b = native.tensors[k];
    ASSERT_EQ(a.bytes.size(), b.bytes.size());
    const Type* t = nullptr;
    for (const Type& x : allTypes())
      if (x.dt == a.dtype) t = &x;
    int bad = 0;
    for (int64_t i = 0; i < a.count(); ++i) {
      uint32_t x = a.get(i), y = b.get(i);
      if (x == y || (t->isFloat && isNan(x, t->fmt) && isNan(y, t->fmt))) continue;
      if (++bad <= 4)
        ADD_FAILURE() << "tensor " << k << " element " << i << ": simulator 0x" << std::hex << x << ", native 0x" << y
                      << std::dec;
    }
    EXPECT_EQ(bad, 0) << "tensor " << k << ": " << bad << " elements differ between the simulator and --native";
  }
}

// Replaces every {KEY} of a template.
inline std::string fill(std::string s, const std::map<std::string, std::string>& values) {
  for (const auto& [k, v] : values) {
    std::string key = "{" + k + "}";
    for (size_t p = s.find(key); p != std::string::npos; p = s.find(key, p + v.size())) s.replace(p, key.size(), v);
  }
  return s;
}

inline std::map<std::string, std::string> typeKeys(const Type& t, const std::string& prefix = "") {
  return {{prefix + "T", t.tag}, {prefix + "VT", t.vec}, {prefix + "ST", t.scalar}, {prefix + "BT", t.boolv},
          {prefix + "LANES", std::to_string(t.lanes())}};
}

inline std::string hex(uint32_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

// Compares the elements of a result with expected bits (masked to the element size); reports the first
// few mismatches with their coordinates.
inline void expectElements(const Tensor& got, const std::vector<uint32_t>& want, const std::string& what) {
  ASSERT_EQ(static_cast<int64_t>(want.size()), got.count()) << what;
  uint32_t mask = got.size == 4 ? 0xffffffffu : (1u << (8 * got.size)) - 1u;
  int bad = 0;
  for (int64_t i = 0; i < got.count(); ++i) {
    uint32_t g = got.get(i) & mask, w = want[static_cast<size_t>(i)] & mask;
    if (g != w) {
      if (++bad <= 8)
        ADD_FAILURE() << what << ": element " << i << " (x=" << i % got.sizes[0] << ", y=" << (i / got.sizes[0]) % got.sizes[1]
                      << ", z=" << i / (got.sizes[0] * got.sizes[1]) << ") is " << hex(g) << ", expected " << hex(w);
    }
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << got.count() << " elements differ";
}

// The suite runs every kernel at -O0 and at -O2, by default on two cores: each core's loops over its part
// of the index space run several iterations (hardware loops, modulo schedules, values live across the
// back edge) and the split between cores is exercised too. ITEST_CORES=N runs every kernel on N cores.
inline constexpr int kDefaultCores = 2;

class IntrinsicsTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::vector<uint8_t> build(const std::string& source) {
    Compiled c = compile(source, GetParam());
    EXPECT_EQ(c.status, 0) << c.diagnostics << "\n--- source ---\n" << source;
    object_ = c.object;
    return c.text;
  }
  // By default two cores (see above).
  RunResult exec(const std::vector<uint8_t>& text, std::vector<Tensor> tensors, const std::vector<uint32_t>& scalars,
                 tpc::sim::Dims5 space, int cores = 0) {
    if (const char* env = std::getenv("ITEST_CORES"); cores == 0 && env && *env) cores = std::atoi(env);
    if (cores == 0) cores = kDefaultCores;
    // ITEST_NATIVE=1: every kernel also runs through the native reference, which must leave the same bits.
    const char* native = std::getenv("ITEST_NATIVE");
    std::vector<Tensor> inputs = native && *native == '1' ? tensors : std::vector<Tensor>{};
    RunResult r = run(text, std::move(tensors), scalars, space, cores);
    EXPECT_EQ(r.fault, "") << "the run faulted";
    if (native && *native == '1' && object_.text == text && r.fault.empty()) {
      RunResult n = runNative(object_, std::move(inputs), scalars, space, cores);
      EXPECT_EQ(n.fault, "") << "the native run faulted";
      if (n.fault.empty()) expectSameTensors(r, n);
    }
    return r;
  }

 private:
  tpc::obj::KernelObject object_;
};

#define ITEST_INSTANTIATE(Fixture)                                                 \
  INSTANTIATE_TEST_SUITE_P(Opt, Fixture, ::testing::Values("-O0", "-O2"), [](const auto& info) { \
    return info.param == "-O0" ? std::string("O0") : std::string("O2");                          \
  })

// The index-space size along dimension 0 for a tensor dimension of n elements in vectors of `lanes`.
inline int64_t vectors(int64_t n, int lanes) { return (n + lanes - 1) / lanes; }

}  // namespace itest
