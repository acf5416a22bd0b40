// The accuracy table of docs/kernel-lib.md: every f32 function of the library with an error bound, over a
// million inputs each (random bit patterns over the whole range and dense samples of the interesting
// interval) plus +-0, denormals (read as zero), +-inf, NaN and the extremes, run through the glue on the
// simulator; the largest error in ulp is printed and checked against the bound (bf16: 1 bf16 ulp of the
// f32 reference). Regenerate the table: build/tests/test_kernel_lib_accuracy (label "accuracy").
#include <cfloat>
#include <cstdio>

#include "activation_reference.h"
#include "kernel_test.h"
#include "reference.h"

namespace kltest {
namespace {

constexpr size_t kInputs = 1 << 20;

struct Function {
  const char* guid;       // f32 GUID; the bf16 one replaces the suffix
  int approximate;        // gelu's form
  double lo, hi;          // the dense interval
  int64_t bound;          // f32 ulp
  long double absolute;   // an absolute bound where the value is tiny (0: none)
};

const Function kFunctions[] = {
    {"exp_fwd_f32", 0, -104, 89, 4, 0},
    {"log_fwd_f32", 0, 0, 4, 4, 0},
    {"tanh_fwd_f32", 0, -10, 10, 4, 0},
    {"sigmoid_fwd_f32", 0, -90, 30, 4, 0},
    {"gelu_fwd_f32", 0, -12, 12, 4, 0x1p-32L},
    {"gelu_fwd_f32", 1, -12, 12, 4, 0x1p-32L},
    {"sqrt_fwd_f32", 0, 0, 100, 2, 0},
    {"rsqrt_fwd_f32", 0, 0, 100, 2, 0},
    {"reciprocal_fwd_f32", 0, -10, 10, 2, 0},
};

// Half the inputs random bit patterns (every exponent, both signs), half dense in [lo, hi), then the specials.
std::vector<uint32_t> inputsFor(double lo, double hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<uint32_t> bits(kInputs);
  for (size_t i = 0; i < kInputs; ++i) bits[i] = i % 2 ? static_cast<uint32_t>(rng()) : bitsOf(static_cast<float>(u(rng)));
  const uint32_t specials[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                               0xffc00001u, bitsOf(FLT_MAX), bitsOf(-FLT_MAX), bitsOf(FLT_MIN), bitsOf(-FLT_MIN), bitsOf(1.0f),
                               bitsOf(-1.0f), bitsOf(0.5f), bitsOf(88.72f), bitsOf(-87.33f)};
  for (size_t k = 0; k < std::size(specials); ++k) bits[k] = specials[k];
  return bits;
}

struct Row {
  std::string name;
  int64_t worstF32 = 0, worstBF16 = 0;
  size_t absoluteUsed = 0;
};
std::vector<Row>& table() {
  static std::vector<Row> rows;
  return rows;
}

TEST(Accuracy, UnaryFunctionsOverAMillionInputs) {
  for (const Function& f : kFunctions) {
    const std::string op = std::string(f.guid).substr(0, std::string(f.guid).find("_fwd"));
    Row row;
    row.name = op + (op == "gelu" ? (f.approximate ? " (tanh)" : " (erf)") : "");
    SCOPED_TRACE(row.name);
    const std::vector<uint32_t> bits = inputsFor(f.lo, f.hi, 17);
    const std::vector<int64_t> shape = {16, static_cast<int64_t>(kInputs / 16)};
    const auto params = paramsOf(tpc_kernels_unary_params{0.01f, f.approximate});
    const auto out = runKernel(f.guid, {tensorOfBits(DType::F32, shape, bits)}, {{DType::F32, shape}}, params);
    ASSERT_FALSE(out.empty());
    const auto got = bitsOfTensor(out[0]);
    int bad = 0;
    for (size_t i = 0; i < bits.size(); ++i) {
      const long double x = valueOfF32(bits[i]);
      const long double exact = isNan32(bits[i]) ? NAN : ref::unary(op, x, 0.01L, f.approximate != 0);
      const uint32_t want = toF32(exact);
      int64_t e = ulps32(got[i], want);
      if (e > f.bound && f.absolute > 0 && std::fabs(valueOfF32(got[i]) - exact) <= f.absolute) {
        ++row.absoluteUsed;
        continue;
      }
      row.worstF32 = std::max(row.worstF32, e);
      if (e > f.bound && ++bad <= 5)
        ADD_FAILURE() << op << "(" << static_cast<double>(x) << " = 0x" << std::hex << bits[i] << "): got 0x" << got[i]
                      << ", want 0x" << want << std::dec << " (" << (e == kNoMatch ? -1 : e) << " ulp)";
    }
    // bf16: the same inputs rounded to bf16, within 1 bf16 ulp of the f32 reference rounded to bf16.
    std::vector<uint32_t> half(bits.size());
    for (size_t i = 0; i < bits.size(); ++i) half[i] = bits[i] >> 16;
    std::string bf16Guid = f.guid;
    bf16Guid.replace(bf16Guid.size() - 3, 3, "bf16");
    const auto outB = runKernel(bf16Guid, {tensorOfBits(DType::BF16, shape, half)}, {{DType::BF16, shape}}, params);
    ASSERT_FALSE(outB.empty());
    const auto gotB = bitsOfTensor(outB[0]);
    for (size_t i = 0; i < half.size(); ++i) {
      const long double x = valueOfBF16(static_cast<uint16_t>(half[i]));
      const long double exact = isNan32(half[i] << 16) ? NAN : ref::unary(op, x, 0.01L, f.approximate != 0);
      const uint16_t want = toBF16(floatOf(toF32(exact)));
      int64_t e = ulps16(static_cast<uint16_t>(gotB[i]), want);
      if (e > 1 && f.absolute > 0 && std::fabs(valueOfBF16(static_cast<uint16_t>(gotB[i])) - exact) <= f.absolute) continue;
      row.worstBF16 = std::max(row.worstBF16, e);
      if (e > 1 && ++bad <= 10)
        ADD_FAILURE() << bf16Guid << "(" << static_cast<double>(x) << "): got 0x" << std::hex << gotB[i] << ", want 0x" << want;
    }
    table().push_back(row);
  }
}

// The activations with parameters (kernels/activation.c) at ONNX's default parameters.
struct Activation {
  const char* op;
  double lo, hi;
  tpc_kernels_activation_params params;
  int64_t bound;
  long double absolute;
};
const Activation kActivations[] = {
    {"elu", -20, 5, {1, 0, 0}, 3, 0},
    {"selu", -20, 5, {1.67326319217681884765625f, 0, 1.05070102214813232421875f}, 4, 0},
    {"celu", -20, 5, {1, 0, 0}, 4, 0},
    {"softplus", -100, 100, {0, 0, 0}, 4, 0},
    {"softsign", -1e4, 1e4, {0, 0, 0}, 2, 0},
    {"hardswish", -5, 5, {1.0f / 6, 0.5f, 0}, 2, 0x1p-32L},
    {"mish", -30, 30, {0, 0, 0}, 4, 0x1p-32L},
    {"silu", -100, 100, {0, 0, 0}, 4, 0x1p-32L},
    {"erf", -5, 5, {0, 0, 0}, 4, 0},
};

TEST(Accuracy, ActivationsOverAMillionInputs) {
  for (const Activation& a : kActivations) {
    Row row;
    row.name = a.op;
    SCOPED_TRACE(row.name);
    const std::vector<uint32_t> bits = inputsFor(a.lo, a.hi, 23);
    const std::vector<int64_t> shape = {16, static_cast<int64_t>(kInputs / 16)};
    const ref::ActivationParams p{a.params.alpha, a.params.beta, a.params.gamma};
    int bad = 0;
    for (DType t : {DType::F32, DType::BF16}) {
      std::vector<uint32_t> in = bits;
      if (t == DType::BF16)
        for (uint32_t& b : in) b >>= 16;
      const std::string guid = std::string(a.op) + (t == DType::F32 ? "_fwd_f32" : "_fwd_bf16");
      const auto out = runKernel(guid, {tensorOfBits(t, shape, in)}, {{t, shape}}, paramsOf(a.params));
      ASSERT_FALSE(out.empty());
      const auto got = bitsOfTensor(out[0]);
      for (size_t i = 0; i < in.size(); ++i) {
        const uint32_t wide = t == DType::F32 ? in[i] : in[i] << 16;
        const long double x = valueOfF32(wide);
        const long double exact = isNan32(wide) ? NAN : ref::activation(a.op, x, p);
        const long double value = t == DType::F32 ? valueOfF32(got[i]) : valueOfBF16(static_cast<uint16_t>(got[i]));
        const int64_t e = t == DType::F32 ? ulps32(got[i], toF32(exact))
                                          : ulps16(static_cast<uint16_t>(got[i]), toBF16(floatOf(toF32(exact))));
        // Where the value is tiny (its ulp meaningless next to the function's size), an absolute bound.
        if (e > (t == DType::F32 ? a.bound : 1) && a.absolute > 0 &&
            std::fabs(value - exact) <= a.absolute * (t == DType::F32 ? 1 : 65536)) {
          row.absoluteUsed += t == DType::F32;
          continue;
        }
        (t == DType::F32 ? row.worstF32 : row.worstBF16) = std::max(t == DType::F32 ? row.worstF32 : row.worstBF16, e);
        if (e > (t == DType::F32 ? a.bound : 1) && ++bad <= 5)
          ADD_FAILURE() << guid << "(" << static_cast<double>(x) << " = 0x" << std::hex << wide << "): got 0x" << got[i]
                        << std::dec << " (" << static_cast<double>(value) << "), exact " << static_cast<double>(exact) << " ("
                        << (e == kNoMatch ? -1 : e) << " ulp)";
      }
    }
    table().push_back(row);
  }
}

TEST(Accuracy, DivisionOverAMillionPairs) {
  const std::vector<uint32_t> a = inputsFor(-100, 100, 31), b = inputsFor(-10, 10, 32);
  const std::vector<int64_t> shape = {16, static_cast<int64_t>(kInputs / 16)};
  const auto out = runKernel("div_fwd_f32", {tensorOfBits(DType::F32, shape, a), tensorOfBits(DType::F32, shape, b)}, {{DType::F32, shape}});
  ASSERT_FALSE(out.empty());
  const auto got = bitsOfTensor(out[0]);
  Row row{"div"};
  int bad = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const long double exact = (isNan32(a[i]) || isNan32(b[i])) ? NAN : valueOfF32(a[i]) / valueOfF32(b[i]);
    const int64_t e = ulps32(got[i], toF32(exact));
    row.worstF32 = std::max(row.worstF32, e);
    if (e > 2 && ++bad <= 5)
      ADD_FAILURE() << "0x" << std::hex << a[i] << " / 0x" << b[i] << ": got 0x" << got[i] << ", want 0x" << toF32(exact);
  }
  table().push_back(row);
}

// pow over a million pairs: C's pow (a negative base to an integer power keeps its sign; to a non-integer
// power NaN); random bit patterns and dense bases in (0, 16) with exponents in (-12, 12).
TEST(Accuracy, PowerOverAMillionPairs) {
  const std::vector<uint32_t> a = inputsFor(0, 16, 41), b = inputsFor(-12, 12, 42);
  const std::vector<int64_t> shape = {16, static_cast<int64_t>(kInputs / 16)};
  const auto out = runKernel("pow_fwd_f32", {tensorOfBits(DType::F32, shape, a), tensorOfBits(DType::F32, shape, b)}, {{DType::F32, shape}});
  ASSERT_FALSE(out.empty());
  const auto got = bitsOfTensor(out[0]);
  Row row{"pow"};
  int bad = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const long double x = valueOfF32(a[i]), y = valueOfF32(b[i]);
    const long double exact = (isNan32(a[i]) || isNan32(b[i])) ? (x == 1 || y == 0 ? 1.0L : NAN) : std::pow(x, y);
    const int64_t e = ulps32(got[i], toF32(exact));
    row.worstF32 = std::max(row.worstF32, e);
    if (e > 2 && ++bad <= 5)
      ADD_FAILURE() << "pow(" << static_cast<double>(x) << ", " << static_cast<double>(y) << "): got 0x" << std::hex << got[i]
                    << ", want 0x" << toF32(exact);
  }
  table().push_back(row);
}

// Prints the table (docs/kernel-lib.md, "Accuracy") after the measurements.
class TablePrinter : public ::testing::Environment {
 public:
  void TearDown() override {
    if (table().empty()) return;
    std::printf("\n| function | inputs | worst f32 error (ulp) | worst bf16 error (bf16 ulp) |\n|---|---|---|---|\n");
    for (const Row& r : table())
      std::printf("| %s | %zu + specials | %s%s | %s |\n", r.name.c_str(), kInputs,
                  r.worstF32 == kNoMatch ? "NaN mismatch" : std::to_string(r.worstF32).c_str(),
                  r.absoluteUsed ? (" (" + std::to_string(r.absoluteUsed) + " tiny values within 2^-32)").c_str() : "",
                  r.name == "div" || r.name == "pow" ? "-" : std::to_string(r.worstBF16).c_str());
  }
};
const auto* const kPrinter = ::testing::AddGlobalTestEnvironment(new TablePrinter);

}  // namespace
}  // namespace kltest
