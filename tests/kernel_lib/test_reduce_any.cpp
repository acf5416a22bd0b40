// The reductions over several dimensions at once and the ones without a row kernel (reduce_prod, l1, l2,
// sum_square, log_sum, log_sum_exp; kernels/reduce_any.c), and argmin / select_last (kernels/reduce.c),
// against host references that loop over the elements in long double. Bounds: a sum of n terms within
// n u sum|terms| (u = 2^-24) plus the output's rounding; max and min exact; prod within 2 n u of |prod|;
// log_sum_exp within (n + 4) u of its terms' scale; bf16 within one bf16 ulp more.
#include <set>

#include "kernel_test.h"

namespace kltest {
namespace {

using Shape = std::vector<int64_t>;

// The flat indices of every element that reduces into each output element, output in row-major order.
std::vector<std::vector<size_t>> groupsOf(const Shape& shape, uint32_t dims) {
  const size_t r = shape.size();
  Shape out = shape;
  for (size_t d = 0; d < r; ++d)
    if (dims >> d & 1) out[r - 1 - d] = 1;
  std::vector<std::vector<size_t>> groups(count(out));
  std::vector<size_t> stride(r, 1), ostride(r, 1);
  for (size_t k = r; k-- > 1;) stride[k - 1] = stride[k] * static_cast<size_t>(shape[k]), ostride[k - 1] = ostride[k] * static_cast<size_t>(out[k]);
  for (size_t f = 0; f < count(shape); ++f) {
    size_t o = 0;
    for (size_t k = 0; k < r; ++k) o += (f / stride[k] % static_cast<size_t>(shape[k])) % static_cast<size_t>(out[k]) * ostride[k];
    groups[o].push_back(f);
  }
  return groups;
}

struct Expect {
  long double value, bound;
};

Expect reference(const std::string& op, const std::vector<long double>& x) {
  const long double u = 0x1p-24L, n = static_cast<long double>(x.size());
  long double s = 0, a = 0, m = -INFINITY, lo = INFINITY, p = 1;
  bool nan = false;
  for (long double v : x) {
    nan = nan || std::isnan(v);
    s += v, a += std::fabs(v), m = std::fmax(m, v), lo = std::fmin(lo, v), p *= v;
  }
  if (op == "reduce_sum") return {s, n * u * a};
  if (op == "reduce_mean") return {s / n, (n + 1) * u * a / n};
  if (op == "reduce_max") return {nan ? NAN : m, 0};
  if (op == "reduce_min") return {nan ? NAN : lo, 0};
  if (op == "reduce_prod") return {p, 2 * n * u * std::fabs(p)};
  if (op == "reduce_l1") return {a, n * u * a};
  long double sq = 0;
  for (long double v : x) sq += v * v;
  if (op == "reduce_sum_square") return {sq, 2 * n * u * sq};
  if (op == "reduce_l2") return {std::sqrt(sq), (n + 2) * u * std::sqrt(sq)};
  if (op == "reduce_log_sum") return {std::log(s), n * u * a / std::fabs(s) + 4 * u * std::fabs(std::log(s))};
  if (op == "reduce_log_sum_exp") {
    long double e = 0;
    for (long double v : x) e += std::exp(v - m);
    return {m + std::log(e), (n + 4) * u * (1 + std::fabs(m))};
  }
  return {NAN, 0};
}

void checkReduce(const std::string& op, DType t, const Shape& shape, uint32_t dims, double lo, double hi, int cores = 0) {
  const std::string guid = op + (t == DType::F32 ? "_fwd_f32" : "_fwd_bf16");
  SCOPED_TRACE(guid + " " + shapeName(shape) + " dims 0x" + std::to_string(dims) + " cores " + std::to_string(cores));
  const size_t r = shape.size();
  Shape out = shape;
  for (size_t d = 0; d < r; ++d)
    if (dims >> d & 1) out[r - 1 - d] = 1;
  HostTensor x = tensorOf(t, shape, randomValues(count(shape), lo, hi, static_cast<uint32_t>(count(shape) + dims)));
  const auto got = runKernel(guid, {x}, {{t, out}}, paramsOf(tpc_kernels_reduce_params{0, dims, 0}), cores);
  if (got.empty()) return;
  const auto xv = valuesOf(x), gv = valuesOf(got[0]);
  const auto groups = groupsOf(shape, dims);
  int bad = 0;
  for (size_t o = 0; o < groups.size() && bad < 5; ++o) {
    std::vector<long double> xs;
    for (size_t f : groups[o]) xs.push_back(xv[f]);
    const Expect e = reference(op, xs);
    const long double ulp = t == DType::F32 ? ulpOfF32(e.value) : ulpOfBF16(e.value);
    const long double err = std::fabs(gv[o] - e.value);
    const bool ok = (std::isnan(e.value) && std::isnan(gv[o])) || gv[o] == e.value || err <= e.bound + ulp;
    if (!ok) {
      ++bad;
      ADD_FAILURE() << "output " << o << ": got " << static_cast<double>(gv[o]) << ", exact " << static_cast<double>(e.value)
                    << ", bound " << static_cast<double>(e.bound + ulp);
    }
  }
}

const char* const kOps[] = {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_l1",
                            "reduce_l2", "reduce_sum_square", "reduce_log_sum", "reduce_log_sum_exp"};

// Every subset of dimensions of a rank-3 shape (dimension 0 a row longer than a vector and not a multiple
// of one), the single ones through the row kernels or reduce_any, and a rank-5 shape's mixed subsets.
TEST(ReduceAny, EveryOperationAndSetOfDimensions) {
  for (const char* op : kOps)
    for (DType t : {DType::F32, DType::BF16}) {
      const bool positive = std::string(op) == "reduce_log_sum" || std::string(op) == "reduce_prod";
      const double lo = positive ? 0.9 : -2, hi = positive ? 1.1 : 2;
      for (uint32_t dims = 1; dims < 8; ++dims) checkReduce(op, t, {3, 5, 131}, dims, lo, hi);
      for (uint32_t dims : {0x5u, 0x1au, 0x1fu, 0x12u}) checkReduce(op, t, {2, 3, 2, 4, 67}, dims, lo, hi);
    }
}

TEST(ReduceAny, OneAndManyCores) {
  for (int cores : {1, 3, 24}) {
    checkReduce("reduce_sum", DType::F32, {7, 9, 200}, 0x5, -1, 1, cores);
    checkReduce("reduce_log_sum_exp", DType::BF16, {7, 9, 200}, 0x3, -3, 3, cores);
  }
}

// log_sum_exp of rows of -inf is -inf, with one +inf it is +inf; a NaN gives NaN; max and min propagate NaN.
TEST(ReduceAny, SpecialValues) {
  const double inf = INFINITY;
  const HostTensor x = tensorOf(DType::F32, {4, 3}, {-inf, -inf, -inf, 1, inf, 2, 1, NAN, 2, 1e30, 1e30, -1e30});
  auto lse = runKernel("reduce_log_sum_exp_fwd_f32", {x}, {{DType::F32, {4, 1}}}, paramsOf(tpc_kernels_reduce_params{0, 0, 0}));
  ASSERT_FALSE(lse.empty());
  const auto v = valuesOf(lse[0]);
  EXPECT_EQ(v[0], -inf);
  EXPECT_EQ(v[1], inf);
  EXPECT_TRUE(std::isnan(v[2]));
  EXPECT_NEAR(static_cast<double>(v[3]), 1e30 + std::log(2.0), 1e24);
  auto mx = runKernel("reduce_max_fwd_f32", {x}, {{DType::F32, {1, 1}}}, paramsOf(tpc_kernels_reduce_params{0, 3, 0}));
  ASSERT_FALSE(mx.empty());
  EXPECT_TRUE(std::isnan(valuesOf(mx[0])[0]));
}

// argmax and argmin, first and last: ties, NaN (beyond every number), rows along dimension 0 and across.
TEST(ArgReduce, FirstAndLastIndexOfTheExtreme) {
  for (const char* op : {"argmax", "argmin"})
    for (DType t : {DType::F32, DType::BF16})
      for (int last : {0, 1})
        for (int dim : {0, 1})
          for (const Shape& shape : std::vector<Shape>{{5, 131}, {70, 3}, {2, 9, 66}}) {
            const std::string guid = std::string(op) + (t == DType::F32 ? "_fwd_f32" : "_fwd_bf16");
            SCOPED_TRACE(guid + " " + shapeName(shape) + " dim " + std::to_string(dim) + " last " + std::to_string(last));
            // Few distinct values: many ties; a NaN in some rows.
            std::vector<double> xs = randomValues(count(shape), 0, 4, 7);
            for (double& v : xs) v = std::floor(v);
            xs[count(shape) / 3] = NAN;
            xs[count(shape) / 2] = NAN;
            const HostTensor x = tensorOf(t, shape, xs);
            const Shape out = reducedShapeOf(shape, dim);
            auto got = runKernel(guid, {x}, {{DType::I32, out}}, paramsOf(tpc_kernels_reduce_params{dim, 0, last}));
            if (got.empty()) continue;
            const auto xv = valuesOf(x), gv = valuesOf(got[0]);
            const auto rows = rowsOf(shape, dim);
            for (size_t r = 0; r < rows.size(); ++r) {
              // The reference: NaN beyond everything, then the order; ties to the first or last.
              size_t best = 0;
              auto beyond = [&](long double a, long double b) {
                if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && !std::isnan(b);
                return std::string(op) == "argmax" ? a > b : a < b;
              };
              for (size_t k = 1; k < rows[r].size(); ++k) {
                const long double a = xv[rows[r][k]], b = xv[rows[r][best]];
                const bool tie = a == b || (std::isnan(a) && std::isnan(b));
                if (beyond(a, b) || (last && tie)) best = k;
              }
              ASSERT_EQ(gv[r], static_cast<long double>(best)) << "row " << r;
            }
          }
}

TEST(ReduceAny, RejectsWhatItCannotDo) {
  auto code = [](const std::string& guid, const Shape& in, const Shape& out, tpc_kernels_reduce_params p) {
    tpc::kernels::NodeRun node;
    node.guid = guid;
    node.inputs = {tpc::makeZeroTensor(DType::F32, in)};
    node.outputs = {tpc::makeZeroTensor(guid.starts_with("arg") ? DType::I32 : DType::F32, out)};
    node.params = paramsOf(p);
    return tpc::kernels::runNode(node).glue.code;
  };
  EXPECT_EQ(code("reduce_sum_fwd_f32", {3, 4}, {1, 1}, {0, 0x4, 0}), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  EXPECT_EQ(code("reduce_sum_fwd_f32", {3, 4}, {3, 1}, {0, 0x3, 0}), tpc_lib_api::GLUE_INCOMPATIBLE_OUTPUT_SIZE);
  EXPECT_EQ(code("argmax_fwd_f32", {3, 4}, {1, 1}, {0, 0x3, 0}), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  EXPECT_EQ(code("reduce_sum_fwd_f32", {3, 4}, {3, 1}, {0, 0, 1}), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  EXPECT_EQ(code("softmax_fwd_f32", {3, 4}, {3, 4}, {0, 1, 0}), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
}

}  // namespace
}  // namespace kltest
