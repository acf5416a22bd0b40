// Reductions along every dimension (reduce_sum, reduce_mean, reduce_max, reduce_min, argmax) against host
// references over ranks 1 to 5 and rows not a multiple of a vector. Bounds: sums and means within the
// forward-error bound of a sum in f32, n u sum|x| (u = 2^-24), plus the final rounding to the output type;
// max, min and argmax exact (argmax: the first index of the maximum, a NaN above every number).
#include "kernel_test.h"
#include "reference.h"

namespace kltest {
namespace {

std::string typeSuffix(DType t) { return t == DType::F32 ? "f32" : "bf16"; }

void checkReduction(const std::string& op, DType t, const std::vector<int64_t>& shape, int dim,
                    const std::vector<double>& values, int cores = 0) {
  const std::string guid = op + "_fwd_" + typeSuffix(t);
  SCOPED_TRACE(guid + " " + shapeName(shape) + " dim " + std::to_string(dim) +
               (cores ? " on " + std::to_string(cores) + " cores" : ""));
  const bool argmax = op == "argmax";
  HostTensor x = tensorOf(t, shape, values);
  const auto out = runKernel(guid, {x}, {{argmax ? DType::I32 : t, reducedShapeOf(shape, dim)}},
                             paramsOf(tpc_kernels_reduce_params{dim, 0, 0}), cores);
  if (out.empty()) return;
  const auto xs = valuesOf(x);
  const auto got = bitsOfTensor(out[0]);
  const auto rows = rowsOf(shape, dim);
  ASSERT_EQ(got.size(), rows.size());
  int bad = 0;
  for (size_t r = 0; r < rows.size() && bad < 5; ++r) {
    const auto& row = rows[r];
    bool ok = true;
    std::string want;
    if (argmax) {
      size_t best = 0;
      for (size_t k = 1; k < row.size(); ++k) {
        const long double v = xs[row[k]], b = xs[row[best]];
        if ((std::isnan(v) && !std::isnan(b)) || v > b) best = k;
      }
      ok = got[r] == best;
      want = std::to_string(best);
    } else if (op == "reduce_max" || op == "reduce_min") {
      long double m = xs[row[0]];
      for (size_t k : row) m = op == "reduce_max" ? ref::maximum(m, xs[k]) : ref::minimum(m, xs[k]);
      const uint32_t w = t == DType::F32 ? toF32(m) : toBF16(m);
      ok = t == DType::F32 ? ulps32(got[r], w) == 0 : ulps16(static_cast<uint16_t>(got[r]), static_cast<uint16_t>(w)) == 0;
      want = std::to_string(static_cast<double>(m));
    } else {
      long double sum = 0, magnitude = 0;
      for (size_t k : row) sum += xs[k], magnitude += std::fabs(xs[k]);
      const long double n = static_cast<long double>(row.size());
      long double exact = sum, bound = n * kU32 * magnitude;
      if (op == "reduce_mean") exact /= n, bound = bound / n + kU32 * std::fabs(exact);
      const long double value = t == DType::F32 ? valueOfF32(got[r]) : valueOfBF16(static_cast<uint16_t>(got[r]));
      bound += t == DType::F32 ? ulpOfF32(exact) / 2 : ulpOfBF16(exact) / 2;  // the final rounding
      ok = std::isfinite(exact) ? std::fabs(value - exact) <= bound
                                : (std::isnan(exact) && std::isnan(value)) || value == exact;  // inf, or NaN
      want = std::to_string(static_cast<double>(exact)) + " within " + std::to_string(static_cast<double>(bound));
    }
    if (!ok && ++bad)
      ADD_FAILURE() << "output " << r << ": got 0x" << std::hex << got[r] << std::dec << ", want " << want;
  }
}

TEST(Reduce, EveryOperationTypeShapeAndDimension) {
  for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "argmax"})
    for (DType t : {DType::F32, DType::BF16})
      for (const auto& shape : rowShapes())
        for (int dim = 0; dim < static_cast<int>(shape.size()); ++dim) {
          // Few distinct values, so that maxima repeat and argmax must take the first.
          std::vector<double> v = randomValues(count(shape), -4, 4, static_cast<uint32_t>(count(shape) + dim));
          if (std::string(op) == "argmax" || std::string(op) == "reduce_max")
            for (double& e : v) e = std::round(e * 2) / 2;
          checkReduction(op, t, shape, dim, v);
        }
}

// Along an outer dimension a core reduces its columns (vectors of dimension 0) four at a time in one loop,
// then the three, two or one left: every count of columns from 1 to 9 on one core, and split over 3.
TEST(Reduce, OuterDimensionsEveryCountOfColumnsPerCore) {
  for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"})
    for (DType t : {DType::F32, DType::BF16})
      for (int64_t vectors = 1; vectors <= 9; ++vectors) {
        const int64_t width = vectors * (t == DType::F32 ? 64 : 128) - 7;
        for (const auto& [shape, dim] : {std::pair<std::vector<int64_t>, int>{{6, width}, 1},
                                         std::pair<std::vector<int64_t>, int>{{2, 5, width}, 2}})
          for (int cores : {1, 3}) {
            std::vector<double> v = randomValues(count(shape), -4, 4, static_cast<uint32_t>(vectors * 10 + dim));
            checkReduction(op, t, shape, dim, v, cores);
          }
      }
}

TEST(Reduce, NaNAndInfinities) {
  const std::vector<int64_t> shape = {3, 200};
  for (DType t : {DType::F32, DType::BF16})
    for (int dim : {0, 1}) {
      std::vector<double> v(count(shape), -INFINITY);  // rows of -inf only: argmax 0
      for (size_t i = 200; i < v.size(); ++i) v[i] = static_cast<double>((i * 37) % 11) - 5;
      v[250] = NAN, v[260] = NAN, v[500] = INFINITY, v[530] = INFINITY, v[470] = -INFINITY;
      for (const char* op : {"reduce_sum", "reduce_max", "reduce_min", "argmax"}) checkReduction(op, t, shape, dim, v);
    }
}

TEST(Reduce, LongRowsStayWithinTheSumBound) {
  // 100,000 elements of one sign: the accumulated rounding grows with n; the bound holds.
  const std::vector<int64_t> shape = {100003};
  checkReduction("reduce_sum", DType::F32, shape, 0, randomValues(count(shape), 0, 1, 3));
  checkReduction("reduce_mean", DType::BF16, shape, 0, randomValues(count(shape), 0, 1, 4));
}

}  // namespace
}  // namespace kltest
