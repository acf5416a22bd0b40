// C operators on vector types, without intrinsics: unary minus, the six comparisons (a lane mask of -1 or 0
// in an integer vector of the same width, as Clang's vector extension defines it), a negated product and the
// comparisons LLVM turns into unordered, ordered-unequal and ordered tests, for every data type. bf16 and f16 arithmetic rounds once in its own type (no excess precision).
#include "itest.h"

namespace itest {
namespace {

class COperators : public IntrinsicsTest {};

const char* const kOperators = R"(
void main(tensor x, tensor y, tensor out)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * {LANES}, 0, 0, 0, 0};
        {VT} a = v_{T}_ld_tnsr_b(c, x);
        {VT} b = v_{T}_ld_tnsr_b(c, y);
        {VT} r[11];
        r[0] = -a;
        r[1] = ({VT})(a < b);
        r[2] = ({VT})(a <= b);
        r[3] = ({VT})(a == b);
        r[4] = ({VT})(a != b);
        r[5] = ({VT})(a > b);
        r[6] = ({VT})(a >= b);
        r[7] = a * -1 - b;
        r[8] = ({VT})(a != a);
        r[9] = ({VT})((a < b) | (a > b));
        r[10] = ({VT})((a == a) & (b == b));
        for (int k = 0; k < 11; k++) {
            int5 o = {c[0], k, 0, 0, 0};
            v_{T}_st_tnsr(o, out, r[k]);
        }
    }
}
)";

TEST_P(COperators, NegationAndComparisons) {
  for (const Type& t : allTypes()) {
    SCOPED_TRACE(t.tag);
    auto text = build(fill(kOperators, typeKeys(t)));
    if (text.empty()) continue;
    const int lanes = t.lanes();
    const int64_t n0 = 2 * lanes + lanes / 2 + 3;  // a ragged last vector
    auto xs = sampleBits(t, static_cast<size_t>(n0), 91, true), ys = sampleBits(t, static_cast<size_t>(n0), 92, true);
    for (size_t i = 0; i < xs.size(); i += 7) ys[i] = xs[i];  // equal pairs
    RunResult r = exec(text, {makeTensor(t, {n0}, xs), makeTensor(t, {n0}, ys), makeTensor(t, {n0, 11})}, {},
                       {vectors(n0, lanes), 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    const uint32_t ones = t.mask();
    std::vector<uint32_t> want(static_cast<size_t>(n0 * 11));
    for (int64_t i = 0; i < n0; ++i) {
      const uint32_t A = xs[static_cast<size_t>(i)], B = ys[static_cast<size_t>(i)];
      uint32_t res[11];
      bool lt, le, eq, ne, gt, ge, nanA = false, ordered = true;
      if (t.isFloat) {
        const double a = decode(A, t.fmt), b = decode(B, t.fmt);
        lt = a < b, le = a <= b, eq = a == b, ne = !(a == b), gt = a > b, ge = a >= b;  // NaN: only != holds
        nanA = std::isnan(a), ordered = !std::isnan(a) && !std::isnan(b);
        res[0] = A ^ t.fmt.signBit();                                                      // IEEE negate: the sign bit
        res[7] = encode(-a - b, t.fmt);
      } else {
        const int64_t a = t.intValue(A), b = t.intValue(B);
        lt = a < b, le = a <= b, eq = a == b, ne = a != b, gt = a > b, ge = a >= b;
        res[0] = static_cast<uint32_t>(-a) & ones;
        res[7] = static_cast<uint32_t>(-a - b) & ones;
      }
      const bool cmp[6] = {lt, le, eq, ne, gt, ge};
      for (int k = 0; k < 6; ++k) res[k + 1] = cmp[k] ? ones : 0;
      res[8] = nanA ? ones : 0;
      res[9] = lt || gt ? ones : 0;
      res[10] = ordered ? ones : 0;
      for (int k = 0; k < 11; ++k) want[static_cast<size_t>(k * n0 + i)] = res[k];
    }
    expectElements(r.tensors[2], want, std::string(t.tag) + " C operators");
  }
}

// bool kernel parameters (as the vendor's kernels declare them): passed as 32-bit scalars, any nonzero value
// is true.
const char* const kBoolParameters = R"(
void main(tensor x, tensor out, bool negate, _Bool twice)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * 64, 0, 0, 0, 0};
        float64 a = v_f32_ld_tnsr_b(c, x);
        if (negate) a = -a;
        v_f32_st_tnsr(c, out, twice ? a + a : a);
    }
}
)";

TEST_P(COperators, BoolParameters) {
  const Type& t = type("f32");
  auto text = build(kBoolParameters);
  ASSERT_FALSE(text.empty());
  const int64_t n0 = 64 * 2 + 5;
  auto xs = sampleBits(t, static_cast<size_t>(n0), 93);
  for (auto [negate, twice] : {std::pair<uint32_t, uint32_t>{0, 0}, {1, 0}, {0, 7}, {0x80000000u, 1}}) {
    SCOPED_TRACE(std::to_string(negate) + " " + std::to_string(twice));
    RunResult r = exec(text, {makeTensor(t, {n0}, xs), makeTensor(t, {n0})}, {negate, twice},
                       {vectors(n0, 64), 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> want(xs.size());
    for (size_t i = 0; i < xs.size(); ++i) {
      float a = floatOf(xs[i]);
      if (negate) a = -a;
      want[i] = bitsOf(twice ? a + a : a);
    }
    expectElements(r.tensors[1], want, "bool parameters");
  }
}

// C conversions from floating types to integers round half to even, as the vendor's compiler compiles them
// (a convert with the core's default rounding), not toward zero as C does: vector conversions
// (__builtin_convertvector), scalar casts (from float and bf16) and the scalar expression the vendor's avg_pool kernels split work
// with, `(int)(count * (1.0f / cores))`.
const char* const kFloatToInt = R"(
void main(tensor x, tensor out, float count)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * 64, 0, 0, 0, 0};
        float64 a = v_f32_ld_tnsr_b(c, x);
        v_i32_st_tnsr(c, out, __builtin_convertvector(a, int64));
        c[1] = 1;
        v_i32_st_tnsr(c, out, (int64)__builtin_convertvector(v_f32_abs_b(a), uint64));
        c[1] = 2;
        int64 scalars = (int)(count * 0.125f);
        scalars = v_i32_sel_eq_u32_b(read_lane_id_4b_b(), 1u, (short)(count * 0.25f), scalars);
        scalars = v_i32_sel_eq_u32_b(read_lane_id_4b_b(), 2u, (bf16)count * (bf16)0.375f, scalars);
        v_i32_st_tnsr(c, out, scalars);
    }
}
)";

TEST_P(COperators, FloatToIntRoundsHalfToEven) {
  const Type& f32 = type("f32");
  auto text = build(kFloatToInt);
  ASSERT_FALSE(text.empty());
  const int64_t n = 64 * 2;
  std::vector<uint32_t> xs;
  for (int64_t i = 0; i < n; ++i) {
    // Halves (ties both ways), quarters and random values of either sign.
    double v = i < 64 ? (static_cast<double>(i) - 32) * 0.5 : (static_cast<double>((i * 7919) % 20001) - 10000) / 16.0;
    xs.push_back(bitsOf(static_cast<float>(v)));
  }
  for (float count : {5.0f, 4.0f, 12.0f, 20.0f, -20.0f, 6.0f}) {
    SCOPED_TRACE("count " + std::to_string(count));
    RunResult r = exec(text, {makeTensor(f32, {n}, xs), makeTensor(type("i32"), {n, 3})}, {bitsOf(count)},
                       {vectors(n, 64), 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> want(static_cast<size_t>(3 * n));
    auto even = [](double v) { return static_cast<uint32_t>(static_cast<int32_t>(std::nearbyint(v))); };
    for (int64_t i = 0; i < n; ++i) {
      const double a = floatOf(xs[static_cast<size_t>(i)]);
      want[static_cast<size_t>(i)] = even(a);
      want[static_cast<size_t>(n + i)] = even(std::fabs(a));
      const int64_t lane = i % 64;
      // bf16 to int (the product is exact in bf16 for these counts).
      want[static_cast<size_t>(2 * n + i)] = lane == 1   ? even(count * 0.25)
                                             : lane == 2 ? even(count * 0.375)
                                                         : even(count * 0.125);
    }
    expectElements(r.tensors[1], want, "float-to-int conversions");
  }
}

// Local aggregates initialized with constants (Clang copies them from a constant global, which -O0 must
// fold: the core has no such memory), zeroed arrays (a memset, which -O0 must turn into stores), copies of
// pairs (a memcpy) and values.
const char* const kAggregateInitializers = R"(
void main(tensor x, tensor out, int row)
{
    int5 rows[3] = {0};
    rows[1][1] = row;
    rows[2][1] = row + 1;
    int5 c = rows[1];
    float64 a = v_f32_ld_tnsr_b(c, x);
    float64_pair_t k = {1.5f, -2.0f};
    uint64_float64_pair_t m = {7, 0.25f};
    float64_pair_t v = {a, a * 2.0f};
    float64_pair_t w = v;
    v_f32_st_tnsr(c, out, k.v1 * w.v1 + k.v2 * w.v2 + m.v2 + v_convert_u32_to_f32_b(m.v1, 0));
}
)";

TEST_P(COperators, AggregateInitializers) {
  const Type& f32 = type("f32");
  auto text = build(kAggregateInitializers);
  ASSERT_FALSE(text.empty());
  std::vector<uint32_t> xs;
  for (int i = 0; i < 64 * 6; ++i) xs.push_back(bitsOf(static_cast<float>(i % 97) - 20.0f));
  const uint32_t row = 4;
  RunResult r = exec(text, {makeTensor(f32, {64, 6}, xs), makeTensor(f32, {64, 6})}, {row}, {1, 1, 1, 1, 1});
  if (r.tensors.empty()) return;
  std::vector<uint32_t> want(64 * 6, 0);
  for (int i = 0; i < 64; ++i) {
    float a = floatOf(xs[row * 64 + i]);
    want[row * 64 + i] = bitsOf(1.5f * a + -2.0f * (a * 2.0f) + 0.25f + 7.0f);
  }
  expectElements(r.tensors[1], want, "aggregate initializers");
}

// Integer / and % on vectors (the vendor's compiler rejects them; the core has no vector divide): by a
// vector, by constants, and by zero, which gives what the SPU's scalar divide gives (a quotient of all ones,
// the dividend as remainder); signed forms divide magnitudes, so INT_MIN / -1 is INT_MIN.
const char* const kDivision = R"(
void main(tensor x, tensor y, tensor out)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * {LANES}, 0, 0, 0, 0};
        {VT} a = v_{T}_ld_tnsr_b(c, x);
        {VT} b = v_{T}_ld_tnsr_b(c, y);
        {VT} r[4];
        r[0] = a / b;
        r[1] = a % b;
        r[2] = a / 7;
        r[3] = a % 10;
        for (int k = 0; k < 4; k++) {
            int5 o = {c[0], k, 0, 0, 0};
            v_{T}_st_tnsr(o, out, r[k]);
        }
    }
}
)";

// The SPU's quotient and remainder of raw element bits (unsigned, or signed through the magnitudes).
std::pair<uint32_t, uint32_t> referenceDivision(const Type& t, uint32_t a, uint32_t b) {
  const uint32_t ones = t.mask();
  auto unsignedDiv = [&](uint64_t n, uint64_t d) {
    return d == 0 ? std::pair<uint64_t, uint64_t>{ones, n} : std::pair<uint64_t, uint64_t>{n / d, n % d};
  };
  if (!t.isSigned) {
    auto [q, r] = unsignedDiv(a & ones, b & ones);
    return {static_cast<uint32_t>(q) & ones, static_cast<uint32_t>(r) & ones};
  }
  const int64_t n = t.intValue(a), d = t.intValue(b);
  auto [q, r] = unsignedDiv(static_cast<uint64_t>(std::llabs(n)) & ones, static_cast<uint64_t>(std::llabs(d)) & ones);
  const uint64_t quotient = (n < 0) != (d < 0) ? 0 - q : q, remainder = n < 0 ? 0 - r : r;
  return {static_cast<uint32_t>(quotient) & ones, static_cast<uint32_t>(remainder) & ones};
}

TEST_P(COperators, VectorIntegerDivision) {
  for (const Type& t : allTypes()) {
    if (t.isFloat) continue;
    SCOPED_TRACE(t.tag);
    auto text = build(fill(kDivision, typeKeys(t)));
    if (text.empty()) continue;
    const int lanes = t.lanes();
    const int64_t n0 = 2 * lanes + lanes / 2 + 3;  // a ragged last vector
    auto xs = sampleBits(t, static_cast<size_t>(n0), 94, true), ys = sampleBits(t, static_cast<size_t>(n0), 95, true);
    for (size_t i = 0; i < ys.size(); i += 5) ys[i] &= 0xfu;  // small divisors, zero among them
    for (size_t i = 3; i < ys.size(); i += 11) ys[i] = 0;
    if (t.isSigned) {
      xs[1] = 1u << (8 * t.size - 1);  // the most negative value ...
      ys[1] = t.mask();                // ... by -1
    }
    RunResult r = exec(text, {makeTensor(t, {n0}, xs), makeTensor(t, {n0}, ys), makeTensor(t, {n0, 4})}, {},
                       {vectors(n0, lanes), 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> want(static_cast<size_t>(n0 * 4));
    for (int64_t i = 0; i < n0; ++i) {
      const uint32_t A = xs[static_cast<size_t>(i)], B = ys[static_cast<size_t>(i)];
      auto [q, rem] = referenceDivision(t, A, B);
      want[static_cast<size_t>(i)] = q;
      want[static_cast<size_t>(n0 + i)] = rem;
      want[static_cast<size_t>(2 * n0 + i)] = referenceDivision(t, A, 7).first;
      want[static_cast<size_t>(3 * n0 + i)] = referenceDivision(t, A, 10).second;
    }
    expectElements(r.tensors[2], want, std::string(t.tag) + " a / b, a % b, a / 7, a % 10");
  }
}

// A scalar loaded once and splat into a vector outside the loop that uses it, then read as integers (the
// exponent and significand of a float: InstCombine puts a bitcast between the splat's insert and its
// shuffle) and used as a whole vector; and a vector plus a constant plus a scalar (InstCombine makes it a
// splat of the scalar plus the constant, computed in lane 0). The backend once left such splats without a
// register (-O0 read an unwritten register, -O2 rejected the insert).
const char* const kLoadedSplat = R"(
void main(tensor s, tensor y, tensor out)
{
    int5 c = 0;
    const float64 k = s_f32_ld_g(gen_addr(c, s));
    for (int d = 0; d < 128; d += 64) {
        c[0] = d;
        int64 bits = as_int64(k);
        int64 exponent = ((bits >> 23) & 0xff) - 127;
        float64 mantissa = as_float64((bits & 0x7fffff) | 0x3f800000);
        float64 x = v_f32_ld_tnsr_b(c, y);
        v_f32_st_tnsr(c, out, x * mantissa);
        c[1] = 1;
        v_i32_st_tnsr(c, out, as_int64(x) + exponent);
        c[1] = 2;
        v_f32_st_tnsr(c, out, x - k);
        c[1] = 3;
        v_i32_st_tnsr(c, out, as_int64(read_lane_id_4b_b()) * 2 + 1 + get_dim_size(y, 0));
        c[1] = 0;
    }
}
)";

TEST_P(COperators, SplatsOfLoadedScalars) {
  auto text = build(kLoadedSplat);
  ASSERT_FALSE(text.empty());
  const int64_t n = 128;
  std::vector<uint32_t> ys;
  for (int64_t i = 0; i < n; ++i) ys.push_back(bitsOf(static_cast<float>(i) * 0.75f - 40.0f));
  for (float k : {3.0f, -0.15625f, 1000.5f}) {
    SCOPED_TRACE("k " + std::to_string(k));
    RunResult r = exec(text, {makeTensor(type("f32"), {1}, {bitsOf(k)}), makeTensor(type("f32"), {n}, ys),
                              makeTensor(type("f32"), {n, 4})},
                       {}, {1, 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    const uint32_t kb = bitsOf(k);
    const int32_t exponent = static_cast<int32_t>((kb >> 23) & 0xffu) - 127;
    const float mantissa = floatOf((kb & 0x7fffffu) | 0x3f800000u);
    std::vector<uint32_t> want(static_cast<size_t>(4 * n));
    for (int64_t i = 0; i < n; ++i) {
      const float x = floatOf(ys[static_cast<size_t>(i)]);
      want[static_cast<size_t>(i)] = bitsOf(x * mantissa);
      want[static_cast<size_t>(n + i)] = ys[static_cast<size_t>(i)] + static_cast<uint32_t>(exponent);
      want[static_cast<size_t>(2 * n + i)] = bitsOf(x - k);
      want[static_cast<size_t>(3 * n + i)] = static_cast<uint32_t>((i % 64) * 2 + 1 + n);
    }
    expectElements(r.tensors[2], want, "splats of a loaded scalar");
  }
}

// A splat of a run-time scalar in 32-bit lanes read as bytes (as_uchar256((uint64)k), a lane-shuffle
// selector): InstCombine makes it a byte shuffle that repeats lane 0's four bytes, which -O2 rejected as
// a write of one lane while -O0 compiled it.
const char* const kSplatAsBytes = R"(
void main(tensor x, tensor out, int k)
{
    int5 c = 0;
    const uint64 v = v_u32_ld_tnsr_b(c, x);
    v_u32_st_tnsr(c, out, __lane_shuffle_u32(v, as_uchar256((uint64)(k & 63))));
    c[1] = 1;
    v_u32_st_tnsr(c, out, as_uint64(as_uchar256((uint64)k) + (uchar256)1));
}
)";

TEST_P(COperators, RunTimeSplatReadAsBytes) {
  auto text = build(kSplatAsBytes);
  ASSERT_FALSE(text.empty());
  const int64_t n = 64;
  std::vector<uint32_t> xs;
  for (int64_t i = 0; i < n; ++i) xs.push_back(static_cast<uint32_t>(1000 + 7 * i));
  for (uint32_t k : {0u, 5u, 63u, 0x01020304u, 0xfffffffeu}) {
    SCOPED_TRACE("k " + std::to_string(k));
    RunResult r = exec(text, {makeTensor(type("u32"), {n}, xs), makeTensor(type("u32"), {n, 2})}, {k}, {1, 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> want(static_cast<size_t>(2 * n));
    uint32_t bytesPlusOne = 0;
    for (int b = 0; b < 4; ++b) bytesPlusOne |= ((((k >> (8 * b)) & 0xffu) + 1u) & 0xffu) << (8 * b);
    for (int64_t i = 0; i < n; ++i) {
      want[static_cast<size_t>(i)] = xs[k & 63u];
      want[static_cast<size_t>(n + i)] = bytesPlusOne;
    }
    expectElements(r.tensors[1], want, "a run-time splat read as bytes");
  }
}

// C that the optimizer turns into LLVM's bit-manipulation and saturating intrinsics (a byte swap, a
// rotate, `a > b ? a - b : 0`, a loop that reverses six bits, the builtins for the others), on scalars and
// on vectors: -O2 rejected them all ("the LLVM intrinsic ... is not supported") while -O0 compiled the
// operators.
const char* const kBitIdioms = R"(
static inline int reverse6(int b) {
    int lane = 0;
    for (int l = 0; l < 6; l++)
        if (b & (1 << l)) lane |= 32 >> l;
    return lane;
}
void main(tensor x, tensor out, unsigned k, unsigned a, unsigned b)
{
    int5 c = 0;
    const uint64 v = v_u32_ld_tnsr_b(c, x);
    uint64 r[12];
    r[0] = (uint64)__builtin_bitreverse32(k);
    r[1] = (uint64)((k >> 24) | ((k >> 8) & 0xff00u) | ((k << 8) & 0xff0000u) | (k << 24));
    r[2] = (uint64)(unsigned)__builtin_popcount(k);
    r[3] = (uint64)(k ? (unsigned)__builtin_clz(k) : 32u);
    r[4] = (uint64)((k << (a & 31)) | (k >> ((32 - a) & 31)));
    r[5] = (uint64)(a > b ? a - b : 0u);
    const unsigned s = a + b;
    r[6] = (uint64)(s < a ? 0xffffffffu : s);
    r[7] = (uint64)(k ? (unsigned)__builtin_ctz(k) : 32u);
    uint64 rv = 0;
    for (int i = 0; i < 32; i++) rv |= ((v >> i) & 1u) << (31 - i);
    r[8] = rv;
    r[9] = (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
    r[10] = (v << 7) | (v >> 25);
    r[11] = (uint64)(unsigned)reverse6((int)k);
    for (int i = 0; i < 12; i++) {
        c[1] = i;
        v_u32_st_tnsr(c, out, r[i]);
    }
}
)";

uint32_t reversedBits(uint32_t v, int width) {
  uint32_t r = 0;
  for (int i = 0; i < width; ++i) r |= ((v >> i) & 1u) << (width - 1 - i);
  return r;
}

TEST_P(COperators, BitIdiomsAndSaturation) {
  auto text = build(kBitIdioms);
  ASSERT_FALSE(text.empty());
  const int64_t n = 64;
  std::vector<uint32_t> xs;
  for (int64_t i = 0; i < n; ++i) xs.push_back(static_cast<uint32_t>(i * 0x9e3779b9u) ^ static_cast<uint32_t>(i << 3));
  const uint32_t cases[][3] = {{0u, 0u, 0u}, {1u, 31u, 1u}, {0x80000000u, 32u, 0xffffffffu}, {0x12345678u, 7u, 9u},
                               {0xf0f00001u, 100u, 0x80000000u}, {0xffffffffu, 1u, 0xfffffff0u}};
  for (const auto& cs : cases) {
    const uint32_t k = cs[0], a = cs[1], b = cs[2];
    SCOPED_TRACE("k " + std::to_string(k) + " a " + std::to_string(a) + " b " + std::to_string(b));
    RunResult r = exec(text, {makeTensor(type("u32"), {n}, xs), makeTensor(type("u32"), {n, 12})}, {k, a, b},
                       {1, 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    auto rotl = [](uint32_t v, unsigned s) { s &= 31; return s ? (v << s) | (v >> (32 - s)) : v; };
    auto bswap = [](uint32_t v) { return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24); };
    auto popcount = [](uint32_t v) { uint32_t c = 0; for (; v; v &= v - 1) ++c; return c; };
    auto clz = [](uint32_t v) { uint32_t c = 0; for (uint32_t m = 0x80000000u; m && !(v & m); m >>= 1) ++c; return c; };
    auto ctz = [](uint32_t v) { uint32_t c = 0; for (uint32_t m = 1; m && !(v & m); m <<= 1) ++c; return c; };
    const uint32_t scalars[8] = {reversedBits(k, 32), bswap(k), popcount(k), clz(k), rotl(k, a),
                                 a > b ? a - b : 0u, a + b < a ? 0xffffffffu : a + b, ctz(k)};
    std::vector<uint32_t> want(static_cast<size_t>(12 * n));
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t v = xs[static_cast<size_t>(i)];
      for (int row = 0; row < 8; ++row) want[static_cast<size_t>(row * n + i)] = scalars[row];
      want[static_cast<size_t>(8 * n + i)] = reversedBits(v, 32);
      want[static_cast<size_t>(9 * n + i)] = bswap(v);
      want[static_cast<size_t>(10 * n + i)] = rotl(v, 7);
      want[static_cast<size_t>(11 * n + i)] = reversedBits(k & 63u, 6);
    }
    expectElements(r.tensors[1], want, "bit idioms and saturating arithmetic");
  }
}

ITEST_INSTANTIATE(COperators);

}  // namespace
}  // namespace itest
