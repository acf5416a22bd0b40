// Integer, logical and comparison kernels (and, or, xor, shl, shr, mod, not; equal, greater, ...) against
// host references on every integer type, with NumPy broadcasting in each dimension and shapes that are not
// multiples of a vector. Exact: every result is an integer, or C's fmod of floats, which is exact.
#include "kernel_test.h"

namespace kltest {
namespace {

using Shape = std::vector<int64_t>;

struct TypeInfo {
  DType t;
  const char* name;
  int bits;
  bool isSigned;
};
const TypeInfo kInts[] = {{DType::U8, "u8", 8, false},   {DType::I8, "i8", 8, true},    {DType::U16, "u16", 16, false},
                          {DType::I16, "i16", 16, true}, {DType::U32, "u32", 32, false}, {DType::I32, "i32", 32, true}};

// An element's value: the low `bits` bits, sign-extended for signed types.
int64_t valueOf(uint32_t b, const TypeInfo& ti) {
  const uint64_t mask = ti.bits == 32 ? 0xffffffffu : (1u << ti.bits) - 1;
  const int64_t v = static_cast<int64_t>(b & mask);
  return ti.isSigned && (v >> (ti.bits - 1)) ? v - (int64_t{1} << ti.bits) : v;
}
uint32_t wrap(int64_t v, const TypeInfo& ti) {
  const uint64_t mask = ti.bits == 32 ? 0xffffffffu : (1u << ti.bits) - 1;
  return static_cast<uint32_t>(static_cast<uint64_t>(v) & mask);
}

// Flat index into an input of `in` shape broadcast to `out`.
size_t broadcastIndex(size_t f, const Shape& out, const Shape& in) {
  size_t idx = 0, stride = 1;
  for (size_t k = out.size(); k-- > 0;) {
    const size_t i = f % static_cast<size_t>(out[k]);
    f /= static_cast<size_t>(out[k]);
    const size_t ik = k + in.size() - out.size();
    if (k >= out.size() - in.size()) {
      idx += (in[ik] == 1 ? 0 : i) * stride;
      stride *= static_cast<size_t>(in[ik]);
    }
  }
  return idx;
}

const std::vector<std::pair<Shape, Shape>> kShapes = {{{3, 300}, {3, 300}}, {{3, 300}, {1, 300}}, {{3, 300}, {3, 1}},
                                                      {{2, 3, 67}, {67}},  {{1}, {5, 130}},     {{2, 1, 3}, {1, 4, 1}}};

Shape broadcastOf(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()));
  for (size_t k = 0; k < out.size(); ++k) {
    const int64_t x = k + a.size() >= out.size() ? a[k + a.size() - out.size()] : 1;
    const int64_t y = k + b.size() >= out.size() ? b[k + b.size() - out.size()] : 1;
    out[k] = std::max(x, y);
  }
  return out;
}

HostTensor randomInts(const TypeInfo& ti, const Shape& shape, int64_t lo, int64_t hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> d(lo, hi);
  std::vector<uint32_t> bits(count(shape));
  for (uint32_t& b : bits) b = wrap(d(rng), ti);
  return tensorOfBits(ti.t, shape, bits);
}

int64_t reference(const std::string& op, int64_t x, int64_t y, const TypeInfo& ti, int fmod) {
  if (op == "and") return x & y;
  if (op == "or") return x | y;
  if (op == "xor") return x ^ y;
  if (op == "shl") return y >= ti.bits ? 0 : static_cast<int64_t>(wrap(static_cast<int64_t>(static_cast<uint64_t>(x) << y), ti));
  if (op == "shr") return y >= ti.bits ? 0 : x >> y;
  if (op == "mod") {
    if (y == 0) return 0;
    int64_t r = x % y;
    if (!fmod && r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
  }
  return 0;
}

TEST(Logic, BitwiseShiftsAndModOnEveryType) {
  for (const TypeInfo& ti : kInts)
    for (const std::string op : {"and", "or", "xor", "shl", "shr", "mod"})
      for (int fmod : {0, 1}) {
        if ((op == "shl" || op == "shr") && ti.isSigned) continue;
        if (op != "mod" && fmod) continue;
        for (const auto& [sa, sb] : kShapes) {
          const std::string guid = op + "_fwd_" + ti.name;
          SCOPED_TRACE(guid + " " + shapeName(sa) + " " + shapeName(sb) + " fmod " + std::to_string(fmod));
          const int64_t lo = ti.isSigned ? -(int64_t{1} << (ti.bits - 1)) : 0, hi = (int64_t{1} << (ti.bits - 1)) - 1;
          const bool shift = op == "shl" || op == "shr";
          HostTensor a = randomInts(ti, sa, lo, hi, 1), b = shift ? randomInts(ti, sb, 0, ti.bits + 2, 2)
                                                                  : randomInts(ti, sb, op == "mod" ? -9 : lo, op == "mod" ? 9 : hi, 2);
          if (!ti.isSigned && op == "mod") b = randomInts(ti, sb, 0, 9, 2);
          const Shape out = broadcastOf(sa, sb);
          auto got = runKernel(guid, {a, b}, {{ti.t, out}}, op == "mod" ? paramsOf(tpc_kernels_mod_params{fmod}) : std::vector<unsigned char>{});
          if (got.empty()) continue;
          const auto av = bitsOfTensor(a), bv = bitsOfTensor(b), gv = bitsOfTensor(got[0]);
          for (size_t f = 0; f < gv.size(); ++f) {
            const int64_t x = valueOf(av[broadcastIndex(f, out, sa)], ti), y = valueOf(bv[broadcastIndex(f, out, sb)], ti);
            ASSERT_EQ(valueOf(gv[f], ti), reference(op, x, y, ti, fmod)) << "element " << f << ": " << x << " " << op << " " << y;
          }
        }
      }
}

TEST(Logic, NotIsLogical) {
  for (const TypeInfo& ti : kInts) {
    HostTensor a = randomInts(ti, {3, 301}, -2, 2, 3);
    auto got = runKernel(std::string("not_fwd_") + ti.name, {a}, {{ti.t, {3, 301}}});
    if (got.empty()) continue;
    const auto av = bitsOfTensor(a), gv = bitsOfTensor(got[0]);
    for (size_t f = 0; f < gv.size(); ++f) ASSERT_EQ(gv[f], valueOf(av[f], ti) == 0 ? 1u : 0u) << ti.name << " element " << f;
  }
}

TEST(Logic, FloatModIsCFmod) {
  const Shape shape = {3, 130};
  std::vector<double> xs = randomValues(count(shape), -100, 100, 5), ys = randomValues(count(shape), -7, 7, 6);
  xs[0] = 6.0, ys[0] = 3.0;    // exact multiple: +0
  xs[1] = -6.0, ys[1] = 3.0;   // -0
  xs[2] = 5.5, ys[2] = 0.0;    // NaN
  xs[3] = 0.3, ys[3] = 0.1;    // a quotient that rounds up to 3
  xs[4] = INFINITY, ys[4] = 2;  // NaN
  xs[5] = -7.25, ys[5] = INFINITY;  // x
  HostTensor x = tensorOf(DType::F32, shape, xs), y = tensorOf(DType::F32, shape, ys);
  auto got = runKernel("mod_fwd_f32", {x, y}, {{DType::F32, shape}}, paramsOf(tpc_kernels_mod_params{1}));
  ASSERT_FALSE(got.empty());
  const auto xv = valuesOf(x), yv = valuesOf(y);
  const auto gb = bitsOfTensor(got[0]);
  for (size_t f = 0; f < gb.size(); ++f) {
    const float want = std::fmod(static_cast<float>(xv[f]), static_cast<float>(yv[f]));
    if (std::isnan(want)) {
      ASSERT_TRUE(isNan32(gb[f])) << f;
      continue;
    }
    ASSERT_EQ(gb[f], bitsOf(want)) << "element " << f << ": fmod(" << static_cast<double>(xv[f]) << ", "
                                   << static_cast<double>(yv[f]) << ")";
  }
}

TEST(Compare, EveryComparisonTypeAndBroadcast) {
  for (DType t : {DType::F32, DType::BF16, DType::I32})
    for (const std::string op : {"equal", "greater", "greater_equal", "less", "less_equal"})
      for (const auto& [sa, sb] : kShapes) {
        const std::string guid = op + "_fwd_" + (t == DType::F32 ? "f32" : t == DType::BF16 ? "bf16" : "i32");
        SCOPED_TRACE(guid + " " + shapeName(sa) + " " + shapeName(sb));
        std::vector<double> xa = randomValues(count(sa), -3, 3, 8), xb = randomValues(count(sb), -3, 3, 9);
        for (double& v : xa) v = std::floor(v);  // many equal pairs
        for (double& v : xb) v = std::floor(v);
        if (t != DType::I32 && xa.size() > 2) xa[2] = NAN;
        HostTensor a = tensorOf(t, sa, xa), b = tensorOf(t, sb, xb);
        const Shape out = broadcastOf(sa, sb);
        auto got = runKernel(guid, {a, b}, {{DType::U8, out}});
        if (got.empty()) continue;
        const auto av = valuesOf(a), bv = valuesOf(b);
        const auto gv = bitsOfTensor(got[0]);
        for (size_t f = 0; f < gv.size(); ++f) {
          const long double x = av[broadcastIndex(f, out, sa)], y = bv[broadcastIndex(f, out, sb)];
          const bool want = op == "equal" ? x == y : op == "greater" ? x > y : op == "greater_equal" ? x >= y
                                                 : op == "less" ? x < y : x <= y;
          ASSERT_EQ(gv[f], want ? 1u : 0u) << "element " << f << ": " << static_cast<double>(x) << " " << op << " "
                                           << static_cast<double>(y);
        }
      }
}

TEST(Logic, Rejections) {
  tpc::kernels::NodeRun node;
  node.guid = "mod_fwd_f32";
  node.inputs = {tpc::makeZeroTensor(DType::F32, {4}), tpc::makeZeroTensor(DType::F32, {4})};
  node.outputs = {tpc::makeZeroTensor(DType::F32, {4})};
  node.params = paramsOf(tpc_kernels_mod_params{0});
  EXPECT_EQ(tpc::kernels::runNode(node).glue.code, tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  node.guid = "greater_fwd_f32";
  node.params.clear();
  EXPECT_EQ(tpc::kernels::runNode(node).glue.code, tpc_lib_api::GLUE_INCOMPATIBLE_DATA_TYPE);  // output must be u8
}

}  // namespace
}  // namespace kltest
