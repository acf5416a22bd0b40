// The harness of the special-function accuracy tests: a function applied to input bit patterns by a TPC-C
// kernel compiled with `tpc-clang -O2` and run on `tpc-sim --strict-hazards`, the reference's rounding
// (long double, rounded once, flushed as the core flushes) and the distance in units in the last place.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tpc/support/host_tensor.h"
#include "tpc/support/npy.h"

namespace special {

namespace fs = std::filesystem;
using Ref1 = long double (*)(long double);
using Ref2 = long double (*)(long double, long double);

constexpr uint32_t kNan = 0x7fc00000u;
constexpr uint16_t kNanBF16 = 0x7fc0u;
constexpr int64_t kNoMatch = std::numeric_limits<int64_t>::max();

inline uint32_t bitsOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline float floatOf(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline bool isNan32(uint32_t b) { return (b & 0x7fffffffu) > 0x7f800000u; }
inline bool isNan16(uint16_t b) { return (b & 0x7fffu) > 0x7f80u; }
inline uint32_t ftz32(uint32_t b) { return (b & 0x7f800000u) ? b : (b & 0x80000000u); }
// The value the core computes with: denormal inputs read as signed zeros.
inline long double inputValue(uint32_t b) { return floatOf(ftz32(b)); }
inline long double inputValue16(uint16_t b) { return inputValue(static_cast<uint32_t>(b) << 16); }

// The exact result as the core holds it in f32: rounded to nearest even, denormals flushed, NaN canonical.
inline uint32_t toF32(long double v) {
  if (std::isnan(v)) return kNan;
  return ftz32(bitsOf(static_cast<float>(v)));
}

// The same in bf16: rounded once to 8 significant bits.
inline uint16_t toBF16(long double v) {
  if (std::isnan(v)) return kNanBF16;
  if (std::isinf(v) || v == 0) return static_cast<uint16_t>(bitsOf(static_cast<float>(v)) >> 16);
  int e;
  long double m = std::frexp(v, &e);
  long double q = std::ldexp(std::rint(std::ldexp(m, 8)), e - 8);
  return static_cast<uint16_t>(ftz32(bitsOf(static_cast<float>(q))) >> 16);
}

inline int64_t ordered(uint32_t b) { return (b & 0x80000000u) ? -static_cast<int64_t>(b & 0x7fffffffu) : b; }

// Units in the last place between two f32 results (+0 and -0 are the same place); NaN only matches NaN.
inline int64_t ulpDistance(uint32_t a, uint32_t b) {
  if (isNan32(a) || isNan32(b)) return isNan32(a) && isNan32(b) ? 0 : kNoMatch;
  return std::llabs(ordered(a) - ordered(b));
}
inline int64_t ulpDistance16(uint16_t a, uint16_t b) {
  if (isNan16(a) || isNan16(b)) return isNan16(a) && isNan16(b) ? 0 : kNoMatch;
  return std::llabs(ordered(static_cast<uint32_t>(a) << 16) - ordered(static_cast<uint32_t>(b) << 16)) >> 16;
}

inline std::string hex(uint32_t b) {
  char s[16];
  std::snprintf(s, sizeof s, "0x%08x", b);
  return s;
}
inline std::string describe(uint32_t b) {
  std::ostringstream s;
  s.precision(9);
  s << floatOf(b) << " (" << hex(b) << ")";
  return s.str();
}

// ------------------------------------------------------------------------------------------ inputs

using Inputs = std::vector<uint32_t>;

// n floats evenly spaced over [lo, hi].
inline void addSweep(Inputs& in, double lo, double hi, int n) {
  for (int i = 0; i < n; ++i) in.push_back(bitsOf(static_cast<float>(lo + (hi - lo) * i / (n - 1))));
}
// n uniformly random bit patterns (every exponent equally likely; includes denormals, infinities, NaNs).
inline void addRandomBits(Inputs& in, std::mt19937& rng, int n) {
  for (int i = 0; i < n; ++i) in.push_back(static_cast<uint32_t>(rng()));
}
// n random bit patterns of values in [lo, hi] (every exponent in the range about equally likely).
inline void addRandomIn(Inputs& in, std::mt19937& rng, double lo, double hi, int n) {
  std::uniform_real_distribution<double> uni(lo, hi);
  for (int i = 0; i < n; ++i) {
    uint32_t b = static_cast<uint32_t>(rng());
    float f = floatOf(b);
    bool ok = !std::isnan(f) && f >= lo && f <= hi && ((b & 0x7f800000u) || b == 0 || b == 0x80000000u);
    in.push_back(ok ? b : bitsOf(static_cast<float>(uni(rng))));
  }
}
// Inputs within two floats of k pi/2 for random k up to kmax: where sin and cos are near zero.
inline void addNearPiOver2(Inputs& in, std::mt19937& rng, int kmax, int n) {
  std::uniform_int_distribution<int> k(1, kmax);
  for (int i = 0; i < n; ++i) {
    uint32_t b = bitsOf(static_cast<float>(k(rng) * 1.5707963267948966));
    for (int d = -2; d <= 2; ++d) in.push_back(b + d);
  }
}

// Values every function must handle exactly: zeros, denormals (read as zeros), infinities, NaNs (quiet,
// negative, signaling).
inline const Inputs kSpecials = {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x00400000u, 0x7f800000u,
                          0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u, 0xff812345u};

inline bool isSpecialInput(uint32_t b) { return (b & 0x7f800000u) == 0 || (b & 0x7f800000u) == 0x7f800000u; }

// ------------------------------------------------------------------------------------------ fixture

class SpecialFunctionTest : public ::testing::Test {
 public:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "tpc_special_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  fs::path path(const std::string& name) const { return dir_ / name; }

  // Runs a command in the work directory; returns its exit status, with stdout and stderr in `output`.
  int run(const std::string& command, std::string* output) {
    std::string log = path("log.txt").string();
    std::string cmd = "cd '" + dir_.string() + "' && timeout 280 " + command + " >'" + log + "' 2>&1";
    int rc = std::system(cmd.c_str());
    std::ifstream in(log);
    std::stringstream ss;
    ss << in.rdbuf();
    *output = ss.str();
    return rc == -1 ? -1 : (WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc));
  }

  // Definitions the kernel's CALL may use (functions written in TPC-C by the test).
  std::string prelude;

  // The kernel: out = CALL(x[, y]) over 1-D tensors, one vector per step.
  std::string kernel(const std::string& call, bool binary, bool bf16) const {
    const std::string vt = bf16 ? "bfloat128" : "float64", t = bf16 ? "bf16" : "f32", lanes = bf16 ? "128" : "64";
    std::string s = prelude;
    s += "void main(tensor x, " + std::string(binary ? "tensor y, " : "") + "tensor out)\n{\n";
    s += "    const int5 start = get_index_space_offset();\n";
    s += "    const int5 end = start + get_index_space_size();\n";
    s += "    int5 c = 0;\n";
    s += "    for (int i = start[0] * " + lanes + "; i < end[0] * " + lanes + "; i += " + lanes + ") {\n";
    s += "        c[0] = i;\n";
    s += "        " + vt + " a = v_" + t + "_ld_tnsr_b(c, x);\n";
    if (binary) s += "        " + vt + " b = v_" + t + "_ld_tnsr_b(c, y);\n";
    s += "        v_" + t + "_st_tnsr(c, out, " + call + (binary ? "(a, b));\n" : "(a));\n");
    s += "    }\n}\n";
    return s;
  }

  // Compiles the kernel for `call` and runs it on the inputs (bit patterns of f32, or of bf16 in the low
  // 16 bits); returns the output bit patterns.
  std::vector<uint32_t> apply(const std::string& call, const Inputs& x, const Inputs* y, bool bf16) {
    std::vector<uint32_t> result;
    {
      std::ofstream src(path("k.c"));
      src << kernel(call, y != nullptr, bf16);
    }
    std::string out;
    int rc = run(std::string(TPC_TOOL_DIR) + "/tpc-clang -O2 -c k.c -o k.o", &out);
    EXPECT_EQ(rc, 0) << "tpc-clang failed for " << call << ":\n" << out;
    if (rc != 0) return result;
    const size_t lanes = bf16 ? 128 : 64;
    const size_t n = (x.size() + lanes - 1) / lanes * lanes;
    auto tensor = [&](const Inputs& v) {
      tpc::HostTensor t = tpc::makeZeroTensor(bf16 ? tpc::DType::U16 : tpc::DType::U32, {static_cast<int64_t>(n)});
      for (size_t i = 0; i < v.size(); ++i) {
        if (bf16) {
          uint16_t h = static_cast<uint16_t>(v[i]);
          std::memcpy(t.data.data() + 2 * i, &h, 2);
        } else {
          std::memcpy(t.data.data() + 4 * i, &v[i], 4);
        }
      }
      return t;
    };
    const std::string dt = bf16 ? "bf16" : "f32";
    tpc::writeNpy(path("x.npy").string(), tensor(x));
    std::string cmd = std::string(TPC_TOOL_DIR) + "/tpc-sim k.o --strict-hazards -t x.npy:" + dt;
    if (y) {
      tpc::writeNpy(path("y.npy").string(), tensor(*y));
      cmd += " -t y.npy:" + dt;
    }
    cmd += " -t 'out.npy=" + dt + "[" + std::to_string(n) + "]'";
    rc = run(cmd, &out);
    EXPECT_EQ(rc, 0) << "tpc-sim failed for " << call << ":\n" << out;
    if (rc != 0) return result;
    tpc::HostTensor t = tpc::readNpy(path("out.npy").string());
    EXPECT_EQ(t.numElements(), n);
    if (t.numElements() != n) return result;
    result.resize(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      if (bf16) {
        uint16_t h;
        std::memcpy(&h, t.data.data() + 2 * i, 2);
        result[i] = h;
      } else {
        std::memcpy(&result[i], t.data.data() + 4 * i, 4);
      }
    }
    return result;
  }

  fs::path dir_;
};

// The largest error seen, where, and how many results were compared.
struct Worst {
  int64_t ulp = 0;
  uint32_t x = 0, y = 0, got = 0, want = 0;
  size_t count = 0;
  bool binary = false;
  std::string where() const {
    return "x = " + describe(x) + (binary ? ", y = " + describe(y) : "") + ": got " + describe(got) + ", want " +
           describe(want);
  }
};

inline void report(const std::string& name, const std::string& range, const Worst& w, int64_t bound) {
  std::printf("measured: %-28s %-34s max %lld ulp (bound %lld) over %zu inputs%s\n", name.c_str(), range.c_str(),
              static_cast<long long>(w.ulp), static_cast<long long>(bound), w.count,
              w.ulp > 0 ? (", worst at " + w.where()).c_str() : "");
  ::testing::Test::RecordProperty(name + "_max_ulp", std::to_string(w.ulp));
}

}  // namespace special
