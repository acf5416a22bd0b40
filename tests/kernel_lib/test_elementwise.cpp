// The elementwise kernels of the library against host references (reference.h), over ranks 1 to 5, sizes
// that are not multiples of a vector (1, primes, one past a vector) and NumPy broadcasting on each
// dimension, run through the glue (InstantiateTpcKernel's plan) on the simulator with strict hazards.
// Bounds: bit-exact for the operations the core computes exactly (relu family, abs, neg, add, sub, mul,
// max, min, where, clamp, casts); f32 div, sqrt, rsqrt, reciprocal within 2 ulp; exp, log, tanh, sigmoid,
// gelu within 4 ulp (gelu with an absolute bound where its value is tiny); bf16 within 1 bf16 ulp of the
// f32 reference rounded to bf16. tests/kernel_lib/test_accuracy.cpp measures the same over a million inputs.
#include "kernel_test.h"
#include "reference.h"

namespace kltest {
namespace {

struct UnaryCase {
  const char* op;
  double lo, hi;   // inputs
  int64_t f32Ulps; // bound in f32
};

const UnaryCase kUnary[] = {
    {"relu", -10, 10, 0},     {"relu6", -3, 9, 0},      {"leaky_relu", -10, 10, 0}, {"gelu", -9, 9, 4},
    {"sigmoid", -30, 30, 4},  {"tanh", -10, 10, 4},     {"exp", -80, 80, 4},        {"log", 1e-6, 1e6, 4},
    {"sqrt", 0, 1e6, 2},      {"rsqrt", 1e-6, 1e6, 2},  {"reciprocal", 1e-3, 1e3, 2}, {"abs", -5, 5, 0},
    {"neg", -5, 5, 0},
};

// Absolute error allowed where an exact result is tiny (its ulp meaningless next to a zero of the
// function): gelu for large negative x, where x Phi(x) underflows toward 0.
constexpr long double kGeluAbsolute = 0x1p-32L;

bool withinF32(const std::string& op, uint32_t got, long double exact, int64_t bound) {
  const uint32_t want = toF32(exact);
  if (ulps32(got, want) <= bound) return true;
  return op == "gelu" && std::fabs(valueOfF32(got) - exact) <= kGeluAbsolute;
}

void checkUnary(const UnaryCase& c, DType t, const std::vector<int64_t>& shape, float alpha, int approximate,
                int cores = 0) {
  const std::string dt = t == DType::F32 ? "f32" : "bf16";
  const std::string guid = std::string(c.op) + "_fwd_" + dt;
  SCOPED_TRACE(guid + " " + shapeName(shape) + " alpha " + std::to_string(alpha) + " approximate " +
               std::to_string(approximate) + " cores " + std::to_string(cores));
  const size_t n = count(shape);
  std::vector<double> xs = randomValues(n, c.lo, c.hi, static_cast<uint32_t>(n * 31 + 7));
  if (c.lo < 0 && n > 2) xs[1] = -0.0, xs[2] = 0.0;
  HostTensor x = tensorOf(t, shape, xs);
  auto out = runKernel(guid, {x}, {{t, shape}}, paramsOf(tpc_kernels_unary_params{alpha, approximate}), cores);
  if (out.empty()) return;
  const auto in = valuesOf(x);
  const auto got = bitsOfTensor(out[0]);
  int bad = 0;
  for (size_t i = 0; i < n && bad < 5; ++i) {
    const long double exact = ref::unary(c.op, in[i], alpha, approximate != 0);
    const bool ok = t == DType::F32 ? withinF32(c.op, got[i], exact, c.f32Ulps)
                                    : ulps16(static_cast<uint16_t>(got[i]), toBF16(exact)) <= (c.f32Ulps ? 1 : 0);
    if (!ok) {
      ++bad;
      ADD_FAILURE() << guid << "(" << static_cast<double>(in[i]) << ") element " << i << ": got 0x" << std::hex
                    << got[i] << ", exact " << static_cast<double>(exact);
    }
  }
}

TEST(Unary, EveryOperationTypeAndShape) {
  for (const UnaryCase& c : kUnary)
    for (DType t : {DType::F32, DType::BF16})
      for (const auto& shape : elementwiseShapes()) checkUnary(c, t, shape, 0.01f, 0);
}

// Kernels that walk a core's whole part in one loop, several vectors per iteration (common.h,
// FOR_EACH_POINT_FLAT): rows of several such groups and a tail, several rows per core (the step from a
// row's last group to the next row's first), dimensions 2-4 above one, on 1, 3 and 24 cores.
TEST(Unary, WholeGroupsRowsAndTailsInOneLoop) {
  for (const UnaryCase& c : kUnary) {
    const std::string op = c.op;
    if (op != "relu" && op != "relu6" && op != "leaky_relu" && op != "abs" && op != "neg") continue;
    for (DType t : {DType::F32, DType::BF16})
      for (const std::vector<int64_t>& shape : flatLoopShapes(t))
        for (int cores : {1, 3, 24}) checkUnary(c, t, shape, 0.01f, 0, cores);
  }
}

// relu, abs and neg on parts of 16 rows or more: bands of rows side by side (common.h,
// FOR_EACH_POINT_BANDED), every band size, the rows left after them, two planes of dimension 2.
TEST(Unary, BandsOfRowsAndTheRowsLeft) {
  for (const UnaryCase& c : kUnary) {
    const std::string op = c.op;
    if (op != "relu" && op != "abs" && op != "neg") continue;
    for (DType t : {DType::F32, DType::BF16})
      for (const std::vector<int64_t>& shape : bandedShapes(t)) checkUnary(c, t, shape, 0.01f, 0, 1);
  }
}

// relu, abs and neg on parts of one to three rows: one band of exactly those rows (kernel_test.h,
// fewRowShapes).
TEST(Unary, BandsOfOneToThreeRows) {
  for (const UnaryCase& c : kUnary) {
    const std::string op = c.op;
    if (op != "relu" && op != "abs" && op != "neg") continue;
    for (DType t : {DType::F32, DType::BF16})
      for (const auto& [shape, cores] : fewRowShapes(t)) checkUnary(c, t, shape, 0.01f, 0, cores);
  }
}

TEST(Unary, ParametersReachTheKernel) {
  for (DType t : {DType::F32, DType::BF16}) {
    checkUnary(kUnary[2], t, {3, 130}, 0.25f, 0);   // leaky_relu's slope
    checkUnary(kUnary[3], t, {3, 130}, 0.01f, 1);   // gelu's tanh form
  }
}

struct GradCase {
  const char* op;
  double lo, hi;   // the forward value v
  int64_t f32Ulps;
};
const GradCase kGrad[] = {{"relu", -5, 5, 0}, {"leaky_relu", -5, 5, 0}, {"gelu", -9, 9, 4}, {"sigmoid", 0, 1, 2}, {"tanh", -1, 1, 2}};

TEST(UnaryBackward, EveryOperationTypeAndShape) {
  for (const GradCase& c : kGrad)
    for (DType t : {DType::F32, DType::BF16})
      for (int approximate : {0, 1}) {
        if (approximate && std::string(c.op) != "gelu") continue;
        for (const auto& shape : elementwiseShapes()) {
          const std::string guid = std::string(c.op) + "_bwd_" + (t == DType::F32 ? "f32" : "bf16");
          SCOPED_TRACE(guid + " " + shapeName(shape) + " approximate " + std::to_string(approximate));
          const size_t n = count(shape);
          HostTensor dy = tensorOf(t, shape, randomValues(n, -3, 3, 5));
          HostTensor v = tensorOf(t, shape, randomValues(n, c.lo, c.hi, 6));
          const float alpha = 0.1f;
          auto out = runKernel(guid, {dy, v}, {{t, shape}}, paramsOf(tpc_kernels_unary_params{alpha, approximate}));
          if (out.empty()) continue;
          const auto dys = valuesOf(dy), vs = valuesOf(v);
          const auto got = bitsOfTensor(out[0]);
          int bad = 0;
          for (size_t i = 0; i < n && bad < 5; ++i) {
            const long double exact = ref::unaryGrad(c.op, dys[i], vs[i], alpha, approximate != 0);
            bool ok = t == DType::F32 ? withinF32(c.op, got[i], exact, c.f32Ulps)
                                      : ulps16(static_cast<uint16_t>(got[i]), toBF16(exact)) <= (c.f32Ulps ? 1 : 0);
            if (!ok && std::string(c.op) == "gelu") {
              // Near the derivative's zero: within the bound relative to the terms it adds.
              const long double scale = ref::geluGradTermsMagnitude(dys[i], vs[i], approximate != 0);
              const long double value = t == DType::F32 ? valueOfF32(got[i]) : valueOfBF16(static_cast<uint16_t>(got[i]));
              const long double unit = t == DType::F32 ? ulpOfF32(scale) : ulpOfBF16(scale);
              ok = std::fabs(value - exact) <= (t == DType::F32 ? c.f32Ulps : 1) * unit;
            }
            if (!ok && ++bad)
              ADD_FAILURE() << guid << "(dy " << static_cast<double>(dys[i]) << ", v " << static_cast<double>(vs[i])
                            << "): got 0x" << std::hex << got[i] << ", exact " << static_cast<double>(exact);
          }
        }
      }
}

// ------------------------------------------------------------------------------------------ binary

// Each pair broadcasts to the output shape (NumPy rules).
struct ShapePair {
  std::vector<int64_t> a, b, out;
};
const ShapePair kPairs[] = {
    {{7}, {7}, {7}},
    {{3, 130}, {3, 130}, {3, 130}},
    {{2, 3, 67}, {2, 3, 67}, {2, 3, 67}},
    {{3, 1}, {1, 70}, {3, 70}},              // both broadcast, in different dimensions
    {{1}, {5, 70}, {5, 70}},                 // a scalar: dimension 0 broadcast
    {{5, 70}, {5, 1}, {5, 70}},              // b broadcast along dimension 0 (a column)
    {{70}, {3, 70}, {3, 70}},                // lower rank: leading dimensions broadcast
    {{2, 1, 3, 1, 65}, {1, 4, 1, 2, 65}, {2, 4, 3, 2, 65}},  // every outer dimension broadcast by one side
    {{1, 1}, {1, 1}, {1, 1}},
};

void checkBinary(const std::string& op, DType t, const ShapePair& p, int cores = 0) {
  const std::string dt = t == DType::F32 ? "f32" : t == DType::BF16 ? "bf16" : "i32";
  const std::string guid = op + "_fwd_" + dt;
  SCOPED_TRACE(guid + " " + shapeName(p.a) + " with " + shapeName(p.b) + " cores " + std::to_string(cores));
  const bool integer = t == DType::I32;
  std::vector<double> av = randomValues(count(p.a), integer ? -1000 : -4, integer ? 1000 : 4, 11);
  std::vector<double> bv = randomValues(count(p.b), integer ? -1000 : -4, integer ? 1000 : 4, 12);
  if (integer) {
    for (double& v : av) v = std::floor(v);
    for (double& v : bv) v = std::floor(v);
  }
  if (op == "div")
    for (double& v : bv) v = v < 0 ? v - 0.25 : v + 0.25;  // away from 0
  HostTensor a = tensorOf(t, p.a, av), b = tensorOf(t, p.b, bv);
  auto out = runKernel(guid, {a, b}, {{t, p.out}}, {}, cores);
  if (out.empty()) return;
  // NumPy broadcasting on the host: right-aligned dimensions, size 1 read at index 0.
  const auto A = valuesOf(a), B = valuesOf(b);
  const auto got = bitsOfTensor(out[0]);
  const size_t n = count(p.out), rank = p.out.size();
  int bad = 0;
  for (size_t i = 0; i < n && bad < 5; ++i) {
    size_t rest = i, ia = 0, ib = 0, strideA = 1, strideB = 1;
    for (size_t k = 0; k < rank; ++k) {  // from the last axis
      const size_t axis = rank - 1 - k, idx = rest % static_cast<size_t>(p.out[axis]);
      rest /= static_cast<size_t>(p.out[axis]);
      auto step = [&](const std::vector<int64_t>& s, size_t& at, size_t& stride) {
        if (k >= s.size()) return;
        const size_t size = static_cast<size_t>(s[s.size() - 1 - k]);
        at += (size == 1 ? 0 : idx) * stride;
        stride *= size;
      };
      step(p.a, ia, strideA);
      step(p.b, ib, strideB);
    }
    bool ok;
    if (integer) {
      const int64_t x = static_cast<int64_t>(A[ia]), y = static_cast<int64_t>(B[ib]);
      const int64_t r = op == "add" ? x + y : op == "sub" ? x - y : op == "mul" ? x * y : op == "max" ? std::max(x, y) : std::min(x, y);
      ok = got[i] == static_cast<uint32_t>(r);
    } else {
      const long double exact = ref::binary(op, A[ia], B[ib]);
      const int64_t bound = op == "div" ? (t == DType::F32 ? 2 : 1) : 0;
      ok = t == DType::F32 ? ulps32(got[i], toF32(exact)) <= bound
                           : ulps16(static_cast<uint16_t>(got[i]), toBF16(exact)) <= bound;
    }
    if (!ok && ++bad) ADD_FAILURE() << guid << " element " << i << ": a " << static_cast<double>(A[ia]) << ", b "
                                    << static_cast<double>(B[ib]) << ", got 0x" << std::hex << got[i];
  }
}

TEST(Binary, SameShapesAndBroadcasting) {
  for (const char* op : {"add", "sub", "mul", "div", "max", "min"})
    for (DType t : {DType::F32, DType::BF16, DType::I32})
      if (!(std::string(op) == "div" && t == DType::I32))
        for (const ShapePair& p : kPairs) checkBinary(op, t, p);
}

void checkWhere(DType t, const ShapePair& p, int cores = 0) {
  const std::string guid = std::string("where_fwd_") + (t == DType::F32 ? "f32" : "bf16");
  SCOPED_TRACE(guid + " " + shapeName(p.a) + " " + shapeName(p.b) + " cores " + std::to_string(cores));
  // cond takes shape a, x shape b, y the output's.
  std::vector<double> cv = randomValues(count(p.a), 0, 3, 21);
  for (double& v : cv) v = std::floor(v) == 0 ? 0 : std::floor(v) * 85;  // 0, 85, 170
  HostTensor cond = tensorOf(DType::U8, p.a, cv);
  HostTensor x = tensorOf(t, p.b, randomValues(count(p.b), -4, 4, 22));
  HostTensor y = tensorOf(t, p.out, randomValues(count(p.out), -4, 4, 23));
  auto out = runKernel(guid, {cond, x, y}, {{t, p.out}}, {}, cores);
  if (out.empty()) return;
  const auto C = bitsOfTensor(cond), X = bitsOfTensor(x), Y = bitsOfTensor(y), got = bitsOfTensor(out[0]);
  const size_t n = count(p.out), rank = p.out.size();
  for (size_t i = 0; i < n; ++i) {
    size_t rest = i, ic = 0, ix = 0, sc = 1, sx = 1;
    for (size_t k = 0; k < rank; ++k) {
      const size_t axis = rank - 1 - k, idx = rest % static_cast<size_t>(p.out[axis]);
      rest /= static_cast<size_t>(p.out[axis]);
      if (k < p.a.size()) { const size_t s = static_cast<size_t>(p.a[p.a.size() - 1 - k]); ic += (s == 1 ? 0 : idx) * sc; sc *= s; }
      if (k < p.b.size()) { const size_t s = static_cast<size_t>(p.b[p.b.size() - 1 - k]); ix += (s == 1 ? 0 : idx) * sx; sx *= s; }
    }
    const uint32_t want = C[ic] ? X[ix] : Y[i];
    if (got[i] != want) {
      ADD_FAILURE() << "element " << i << ": cond " << C[ic] << ", got 0x" << std::hex << got[i] << ", want 0x" << want;
      break;
    }
  }
}

TEST(Where, SelectsWithBroadcasting) {
  for (DType t : {DType::F32, DType::BF16})
    for (const ShapePair& p : kPairs) checkWhere(t, p);
}

void checkClamp(DType t, const std::vector<int64_t>& shape, int cores = 0) {
  const std::string guid = std::string("clamp_fwd_") + (t == DType::F32 ? "f32" : "bf16");
  SCOPED_TRACE(guid + " " + shapeName(shape) + " cores " + std::to_string(cores));
  std::vector<double> xs = randomValues(count(shape), -5, 5, 31);
  xs[0] = NAN;
  HostTensor x = tensorOf(t, shape, xs);
  auto out = runKernel(guid, {x}, {{t, shape}}, paramsOf(tpc_kernels_clamp_params{-1.5f, 2.25f}), cores);
  if (out.empty()) return;
  const auto in = valuesOf(x);
  const auto got = bitsOfTensor(out[0]);
  for (size_t i = 0; i < in.size(); ++i) {
    const long double want = std::isnan(in[i]) ? NAN : std::min(std::max(in[i], -1.5L), 2.25L);
    const bool ok = t == DType::F32 ? ulps32(got[i], toF32(want)) == 0 : ulps16(static_cast<uint16_t>(got[i]), toBF16(want)) == 0;
    if (!ok) {
      ADD_FAILURE() << "element " << i << " of " << static_cast<double>(in[i]) << ": got 0x" << std::hex << got[i];
      break;
    }
  }
}

TEST(Clamp, BoundsAndNaN) {
  for (DType t : {DType::F32, DType::BF16})
    for (const auto& shape : elementwiseShapes()) checkClamp(t, shape);
}

// ------------------------------------------------------------------------------------------ casts

// The casts' roundings: floats to nearest even (f32 to bf16 and f16, and i32 to f32), f32 to i32 toward zero
// with saturation and NaN to 0; widening is exact.
uint32_t castReference(DType from, DType to, uint32_t bits) {
  if (from == DType::F16 && (bits & 0x7c00u) == 0) bits &= 0x8000u;  // f16 denormal inputs read as zeros
  const long double v = from == DType::F32 ? valueOfF32(bits) : from == DType::BF16 ? valueOfBF16(static_cast<uint16_t>(bits))
                        : from == DType::I32 ? static_cast<long double>(static_cast<int32_t>(bits))
                                             : static_cast<long double>(static_cast<float>(std::bit_cast<_Float16>(static_cast<uint16_t>(bits))));
  switch (to) {
    case DType::F32: return toF32(v);
    case DType::BF16: return toBF16(v);
    case DType::F16: {
      if (std::isnan(v)) return 0x7e00u;
      // Below the smallest normal the core rounds to f16's 11 significant bits as if the exponent went on
      // (IEEE's tininess after rounding, then flush to zero; docs/isa.md): the smallest normal if that
      // reaches it, else zero. Rounding into the denormal grid first, as gradual underflow does, would give
      // the smallest normal for some values just below it that the core flushes.
      if (std::fabs(v) < 0x1p-14L && v != 0) {
        int e = 0;
        const long double m = std::frexp(std::fabs(v), &e);  // v = m 2^e, m in [0.5, 1)
        const long double r = std::nearbyint(m * 2048.0L) / 2048.0L;
        return (std::signbit(v) ? 0x8000u : 0u) | (std::ldexp(r, e) >= 0x1p-14L ? 0x400u : 0u);
      }
      const _Float16 h = static_cast<_Float16>(static_cast<float>(v));  // nearest even (exact f32 input)
      uint16_t b = std::bit_cast<uint16_t>(h);
      if ((b & 0x7c00u) == 0) b &= 0x8000u;  // the core flushes f16 denormals too
      return b;
    }
    case DType::I32: {
      if (std::isnan(v)) return 0;
      const long double t = std::trunc(v);
      if (t >= 2147483647.0L) return 0x7fffffffu;
      if (t <= -2147483648.0L) return 0x80000000u;
      return static_cast<uint32_t>(static_cast<int32_t>(t));
    }
    default: return 0;
  }
}

struct CastCase {
  const char* guid;
  DType from, to;
};
const CastCase kCasts[] = {{"cast_f32_to_bf16", DType::F32, DType::BF16}, {"cast_bf16_to_f32", DType::BF16, DType::F32},
                           {"cast_f32_to_f16", DType::F32, DType::F16},   {"cast_f16_to_f32", DType::F16, DType::F32},
                           {"cast_f32_to_i32", DType::F32, DType::I32},   {"cast_i32_to_f32", DType::I32, DType::F32}};

void checkCast(const CastCase& c, const std::vector<int64_t>& shape, std::mt19937& rng, int cores = 0) {
  SCOPED_TRACE(std::string(c.guid) + " " + shapeName(shape) + " cores " + std::to_string(cores));
  const size_t n = count(shape);
  std::vector<uint32_t> bits(n);
  for (size_t i = 0; i < n; ++i) {
    // Random bit patterns (every exponent, NaN and infinity included) and, for f32 to i32, large values.
    uint32_t r = static_cast<uint32_t>(rng());
    if (c.from == DType::F32 && c.to == DType::I32 && i % 2) r = bitsOf(static_cast<float>(static_cast<int32_t>(r)) * 1.5f);
    bits[i] = c.from == DType::BF16 || c.from == DType::F16 ? (r & 0xffffu) : r;
  }
  HostTensor x = tensorOfBits(c.from, shape, bits);
  auto out = runKernel(c.guid, {x}, {{c.to, shape}}, {}, cores);
  if (out.empty()) return;
  const auto got = bitsOfTensor(out[0]);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t want = castReference(c.from, c.to, bits[i]);
    const bool nan = (c.to == DType::F32 && isNan32(want) && isNan32(got[i])) ||
                     (c.to == DType::BF16 && (want & 0x7fffu) > 0x7f80u && (got[i] & 0x7fffu) > 0x7f80u) ||
                     (c.to == DType::F16 && (want & 0x7fffu) > 0x7c00u && (got[i] & 0x7fffu) > 0x7c00u);
    if (got[i] != want && !nan) {
      ADD_FAILURE() << "element " << i << " (0x" << std::hex << bits[i] << "): got 0x" << got[i] << ", want 0x" << want;
      break;
    }
  }
}

TEST(Cast, RoundingSaturationAndShapes) {
  std::mt19937 rng(41);
  for (const CastCase& c : kCasts)
    for (const auto& shape : elementwiseShapes()) checkCast(c, shape, rng);
}

// The kernels that walk a core's whole part in one loop, several vectors per iteration (common.h,
// FOR_EACH_POINT_FLAT; Unary.WholeGroupsRowsAndTailsInOneLoop has the unary ones): rows of several such
// groups and a tail, several rows per core, dimensions 2-3 above one, on 1, 3 and 24 cores.
TEST(Elementwise, WholeGroupsRowsAndTailsInOneLoop) {
  std::mt19937 rng(43);
  for (int cores : {1, 3, 24}) {
    for (DType t : {DType::F32, DType::BF16, DType::I32})
      for (const std::vector<int64_t>& shape : flatLoopShapes(t == DType::BF16 ? t : DType::F32)) {
        checkBinary("add", t, {shape, shape, shape}, cores);
        if (t == DType::I32) continue;
        checkBinary("max", t, {shape, shape, shape}, cores);
        checkWhere(t, {shape, shape, shape}, cores);
        checkClamp(t, shape, cores);
      }
    for (const CastCase& c : kCasts)
      for (const std::vector<int64_t>& shape : flatLoopShapes(DType::F32)) checkCast(c, shape, rng, cores);
  }
}

// The casts on parts of 16 rows or more, in bands of rows (common.h, FOR_EACH_POINT_BANDED).
TEST(Cast, BandsOfRowsAndTheRowsLeft) {
  std::mt19937 rng(47);
  for (const CastCase& c : kCasts)
    for (const std::vector<int64_t>& shape : bandedShapes(DType::F32)) checkCast(c, shape, rng, 1);
}

}  // namespace
}  // namespace kltest
