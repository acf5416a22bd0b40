// Softmax, log-softmax and softmax backward along every dimension; layernorm (forward and backward) and
// rmsnorm along dimension 0; cross-entropy forward and backward with both label layouts; against host
// references in long double. Bounds are the forward-error bounds of the computation in f32: a sum of n
// terms carries n u of their magnitudes (u = 2^-24), exp and log a few ulp, exp(x - m) also u |x - m|
// from the subtraction; then the rounding to the output type (one bf16 ulp, half an f32 ulp).
#include "kernel_test.h"
#include "reference.h"

namespace kltest {
namespace {

std::string typeSuffix(DType t) { return t == DType::F32 ? "f32" : "bf16"; }

// got (bits of `type`) against exact within tolerance plus the output's rounding; NaN and infinities exact.
bool close(uint32_t got, DType type, long double exact, long double tolerance) {
  const long double v = type == DType::F32 ? valueOfF32(got) : valueOfBF16(static_cast<uint16_t>(got));
  if (!std::isfinite(exact)) return (std::isnan(exact) && std::isnan(v)) || v == exact;
  const long double rounding = type == DType::F32 ? ulpOfF32(exact) / 2 : ulpOfBF16(exact);
  return std::fabs(v - exact) <= tolerance + rounding + 0x1p-126L;
}

struct Mismatches {
  int count = 0;
  void report(size_t i, uint32_t got, long double exact, long double tolerance) {
    if (++count <= 5)
      ADD_FAILURE() << "element " << i << ": got 0x" << std::hex << got << std::dec << ", want "
                    << static_cast<double>(exact) << " within " << static_cast<double>(tolerance);
  }
};

// ------------------------------------------------------------------------------------------ softmax

void checkSoftmax(const std::string& op, DType t, const std::vector<int64_t>& shape, int dim, double spread,
                  int cores = 0) {
  const bool backward = op == "softmax_bwd";
  const std::string guid = op + "_" + typeSuffix(t);
  SCOPED_TRACE(guid + " " + shapeName(shape) + " dim " + std::to_string(dim));
  const size_t total = count(shape);
  HostTensor x = tensorOf(t, shape, randomValues(total, -spread, spread, static_cast<uint32_t>(total * 3 + dim)));
  std::vector<HostTensor> inputs = {x};
  if (backward) {
    // dy and a y that is a softmax of random values along the rows (what the forward gives).
    std::vector<double> y(total);
    const auto xs = valuesOf(x);
    for (const auto& row : rowsOf(shape, dim)) {
      long double m = -INFINITY, s = 0;
      for (size_t i : row) m = std::max(m, xs[i]);
      for (size_t i : row) s += std::exp(xs[i] - m);
      for (size_t i : row) y[i] = static_cast<double>(std::exp(xs[i] - m) / s);
    }
    inputs = {tensorOf(t, shape, randomValues(total, -2, 2, 77)), tensorOf(t, shape, y)};
  }
  const auto out = runKernel(guid, inputs, {{t, shape}}, paramsOf(tpc_kernels_reduce_params{dim, 0, 0}), cores);
  if (out.empty()) return;
  const auto got = bitsOfTensor(out[0]);
  Mismatches bad;
  if (backward) {
    const auto dy = valuesOf(inputs[0]), y = valuesOf(inputs[1]);
    for (const auto& row : rowsOf(shape, dim)) {
      long double dot = 0, magnitude = 0;
      for (size_t i : row) dot += dy[i] * y[i], magnitude += std::fabs(dy[i] * y[i]);
      const long double n = static_cast<long double>(row.size());
      for (size_t i : row) {
        const long double exact = y[i] * (dy[i] - dot);
        const long double tolerance = std::fabs(y[i]) * (std::fabs(dy[i]) + magnitude) * (n + 4) * kU32;
        if (!close(got[i], t, exact, tolerance)) bad.report(i, got[i], exact, tolerance);
      }
    }
    return;
  }
  const auto xs = valuesOf(x);
  for (const auto& row : rowsOf(shape, dim)) {
    long double m = -INFINITY, s = 0;
    for (size_t i : row) m = std::max(m, xs[i]);
    for (size_t i : row) s += std::exp(xs[i] - m);
    const long double n = static_cast<long double>(row.size());
    for (size_t i : row) {
      const long double d = xs[i] - m;
      long double exact, tolerance;
      if (op == "softmax_fwd") {
        exact = std::exp(d) / s;
        tolerance = (n + 16 + std::fabs(d)) * kU32 * exact;
      } else {
        exact = d - std::log(s);
        tolerance = (n + 8) * kU32 + 4 * kU32 * (std::fabs(d) + std::fabs(std::log(s)));
      }
      if (!close(got[i], t, exact, tolerance)) bad.report(i, got[i], exact, tolerance);
    }
  }
}

TEST(Softmax, EveryOperationTypeShapeAndDimension) {
  for (const char* op : {"softmax_fwd", "log_softmax_fwd", "softmax_bwd"})
    for (DType t : {DType::F32, DType::BF16})
      for (const auto& shape : rowShapes())
        for (int dim = 0; dim < static_cast<int>(shape.size()); ++dim) checkSoftmax(op, t, shape, dim, 8);
}

// The backward along dimensions 1-4 takes a core's columns four at a time, then the 1-3 left in one loop,
// and dx four rows a step, then the rows left: 1 to 9 columns on one core and on three, 6 and 5 rows.
TEST(Softmax, BackwardOuterDimensionsEveryCountOfColumnsPerCore) {
  for (DType t : {DType::F32, DType::BF16})
    for (int64_t vectors = 1; vectors <= 9; ++vectors) {
      const int64_t width = vectors * (t == DType::F32 ? 64 : 128) - 7;
      for (const auto& [shape, dim] : {std::pair<std::vector<int64_t>, int>{{6, width}, 1},
                                       std::pair<std::vector<int64_t>, int>{{2, 5, width}, 2}})
        for (int cores : {1, 3}) checkSoftmax("softmax_bwd", t, shape, dim, 8, cores);
    }
}

TEST(Softmax, LargeLogitsDoNotOverflow) {
  // exp(x) alone overflows f32 above 88: the row maximum is subtracted first.
  for (DType t : {DType::F32, DType::BF16}) {
    checkSoftmax("softmax_fwd", t, {4, 300}, 0, 1000);
    checkSoftmax("log_softmax_fwd", t, {300, 4}, 1, 1000);
  }
}

// ------------------------------------------------------------------------------------------ norms

// Rows in batches as rowShapes() says: {203, 67} and {2, 201, 3} give the cores 8 and 9, 16 and 17 rows;
// {72, 67} three, {2, 83, 5} six and seven (loops of four rows, then the two or three left in one loop).
std::vector<std::vector<int64_t>> normShapes() {
  return {{1}, {7}, {130}, {3, 130}, {5, 1}, {2, 3, 67}, {203, 67}, {2, 201, 3}, {72, 67}, {2, 83, 5},
          {2, 2, 3, 65}, {2, 1, 3, 2, 131}};
}

struct RowStats {
  long double mean, rstd, magnitude;  // magnitude: mean |x|
};
RowStats statsOf(const std::vector<long double>& xs, const std::vector<size_t>& row, float eps, bool rms) {
  const long double n = static_cast<long double>(row.size());
  long double sum = 0, magnitude = 0, sq = 0;
  for (size_t i : row) sum += xs[i], magnitude += std::fabs(xs[i]);
  const long double mean = rms ? 0 : sum / n;
  for (size_t i : row) sq += (xs[i] - mean) * (xs[i] - mean);
  return {mean, 1 / std::sqrt(sq / n + eps), magnitude / n};
}

TEST(LayerNorm, ForwardAgainstTheDefinition) {
  for (DType t : {DType::F32, DType::BF16})
    for (const auto& shape : normShapes())
      for (float eps : {1e-5f, 0.5f}) {
        SCOPED_TRACE("layernorm_fwd_" + typeSuffix(t) + " " + shapeName(shape) + " eps " + std::to_string(eps));
        const size_t total = count(shape), n = static_cast<size_t>(shape.back());
        // An offset mean: the two-pass variance must not cancel.
        HostTensor x = tensorOf(t, shape, randomValues(total, 90, 110, static_cast<uint32_t>(total)));
        HostTensor gamma = tensorOf(t, {static_cast<int64_t>(n)}, randomValues(n, -2, 2, 5));
        HostTensor beta = tensorOf(t, {static_cast<int64_t>(n)}, randomValues(n, -1, 1, 6));
        const auto stats = reducedShapeOf(shape, 0);
        const auto out = runKernel("layernorm_fwd_" + typeSuffix(t), {x, gamma, beta},
                                   {{t, shape}, {DType::F32, stats}, {DType::F32, stats}},
                                   paramsOf(tpc_kernels_norm_params{0, eps}));
        if (out.empty()) continue;
        const auto xs = valuesOf(x), g = valuesOf(gamma), b = valuesOf(beta);
        const auto y = bitsOfTensor(out[0]), mean = bitsOfTensor(out[1]), rstd = bitsOfTensor(out[2]);
        Mismatches bad;
        const auto rows = rowsOf(shape, 0);
        for (size_t r = 0; r < rows.size(); ++r) {
          const RowStats s = statsOf(xs, rows[r], eps, false);
          const long double nn = static_cast<long double>(n);
          if (!close(mean[r], DType::F32, s.mean, nn * kU32 * s.magnitude)) bad.report(r, mean[r], s.mean, 0);
          if (!close(rstd[r], DType::F32, s.rstd, (nn + 8) * kU32 * s.rstd)) bad.report(r, rstd[r], s.rstd, 0);
          for (size_t k = 0; k < n; ++k) {
            const size_t i = rows[r][k];
            const long double xhat = (xs[i] - s.mean) * s.rstd;
            const long double exact = xhat * g[k] + b[k];
            // The mean's error (n u mean|x|) scaled by rstd, and the rest relative to the terms.
            const long double tolerance = (nn * kU32 * s.magnitude * s.rstd + (nn + 8) * kU32 * std::fabs(xhat)) * std::fabs(g[k]) +
                                          2 * kU32 * std::fabs(b[k]);
            if (!close(y[i], t, exact, tolerance)) bad.report(i, y[i], exact, tolerance);
          }
        }
      }
}

TEST(LayerNorm, BackwardAgainstTheDefinition) {
  for (DType t : {DType::F32, DType::BF16})
    for (const auto& shape : normShapes()) {
      SCOPED_TRACE("layernorm_bwd_" + typeSuffix(t) + " " + shapeName(shape));
      const size_t total = count(shape), n = static_cast<size_t>(shape.back());
      const auto stats = reducedShapeOf(shape, 0);
      HostTensor dy = tensorOf(t, shape, randomValues(total, -1, 1, 8));
      HostTensor x = tensorOf(t, shape, randomValues(total, -3, 3, 9));
      HostTensor gamma = tensorOf(t, {static_cast<int64_t>(n)}, randomValues(n, -2, 2, 10));
      // The forward's statistics, from the host (f32).
      const auto xs = valuesOf(x);
      const auto rows = rowsOf(shape, 0);
      std::vector<double> means, rstds;
      for (const auto& row : rows) {
        const RowStats s = statsOf(xs, row, 1e-5f, false);
        means.push_back(static_cast<double>(s.mean));
        rstds.push_back(static_cast<double>(s.rstd));
      }
      HostTensor mean = tensorOf(DType::F32, stats, means), rstd = tensorOf(DType::F32, stats, rstds);
      const auto out = runKernel("layernorm_bwd_" + typeSuffix(t), {dy, x, gamma, mean, rstd},
                                 {{t, shape}, {DType::F32, {static_cast<int64_t>(n)}}, {DType::F32, {static_cast<int64_t>(n)}}},
                                 paramsOf(tpc_kernels_norm_params{0, 1e-5f}));
      if (out.empty()) continue;
      const auto d = valuesOf(dy), g = valuesOf(gamma), mu = valuesOf(mean), rs = valuesOf(rstd);
      const auto dx = bitsOfTensor(out[0]), dgamma = bitsOfTensor(out[1]), dbeta = bitsOfTensor(out[2]);
      Mismatches bad;
      std::vector<long double> dg(n, 0), db(n, 0), dgMagnitude(n, 0), dbMagnitude(n, 0);
      const long double nn = static_cast<long double>(n);
      for (size_t r = 0; r < rows.size(); ++r) {
        long double a = 0, b = 0, aMagnitude = 0, bMagnitude = 0;
        for (size_t k = 0; k < n; ++k) {
          const size_t i = rows[r][k];
          const long double xhat = (xs[i] - mu[r]) * rs[r], gi = d[i] * g[k];
          a += gi, b += gi * xhat, aMagnitude += std::fabs(gi), bMagnitude += std::fabs(gi * xhat);
          dg[k] += d[i] * xhat, db[k] += d[i];
          dgMagnitude[k] += std::fabs(d[i] * xhat), dbMagnitude[k] += std::fabs(d[i]);
        }
        for (size_t k = 0; k < n; ++k) {
          const size_t i = rows[r][k];
          const long double xhat = (xs[i] - mu[r]) * rs[r];
          const long double exact = rs[r] * (d[i] * g[k] - a / nn - xhat * b / nn);
          const long double tolerance =
              rs[r] * (std::fabs(d[i] * g[k]) + aMagnitude / nn + std::fabs(xhat) * bMagnitude / nn) * (nn + 8) * kU32;
          if (!close(dx[i], t, exact, tolerance)) bad.report(i, dx[i], exact, tolerance);
        }
      }
      const long double rowsCount = static_cast<long double>(rows.size());
      for (size_t k = 0; k < n; ++k) {
        if (!close(dgamma[k], DType::F32, dg[k], (rowsCount + 8) * kU32 * dgMagnitude[k])) bad.report(k, dgamma[k], dg[k], 0);
        if (!close(dbeta[k], DType::F32, db[k], (rowsCount + 8) * kU32 * dbMagnitude[k])) bad.report(k, dbeta[k], db[k], 0);
      }
    }
}

TEST(RmsNorm, ForwardAgainstTheDefinition) {
  for (DType t : {DType::F32, DType::BF16})
    for (const auto& shape : normShapes()) {
      SCOPED_TRACE("rmsnorm_fwd_" + typeSuffix(t) + " " + shapeName(shape));
      const size_t total = count(shape), n = static_cast<size_t>(shape.back());
      HostTensor x = tensorOf(t, shape, randomValues(total, -3, 3, 12));
      HostTensor gamma = tensorOf(t, {static_cast<int64_t>(n)}, randomValues(n, -2, 2, 13));
      const auto out = runKernel("rmsnorm_fwd_" + typeSuffix(t), {x, gamma}, {{t, shape}, {DType::F32, reducedShapeOf(shape, 0)}},
                                 paramsOf(tpc_kernels_norm_params{0, 1e-6f}));
      if (out.empty()) continue;
      const auto xs = valuesOf(x), g = valuesOf(gamma);
      const auto y = bitsOfTensor(out[0]), rstd = bitsOfTensor(out[1]);
      Mismatches bad;
      const auto rows = rowsOf(shape, 0);
      for (size_t r = 0; r < rows.size(); ++r) {
        const RowStats s = statsOf(xs, rows[r], 1e-6f, true);
        const long double nn = static_cast<long double>(n);
        if (!close(rstd[r], DType::F32, s.rstd, (nn + 8) * kU32 * s.rstd)) bad.report(r, rstd[r], s.rstd, 0);
        for (size_t k = 0; k < n; ++k) {
          const size_t i = rows[r][k];
          const long double exact = xs[i] * s.rstd * g[k];
          if (!close(y[i], t, exact, (nn + 8) * kU32 * std::fabs(exact))) bad.report(i, y[i], exact, 0);
        }
      }
    }
}

// ------------------------------------------------------------------------------------------ cross-entropy

TEST(CrossEntropy, ForwardAndBackwardWithBothLabelLayouts) {
  for (DType t : {DType::F32, DType::BF16})
    for (const auto& shape : std::vector<std::vector<int64_t>>{{10}, {3, 1000}, {33, 7}, {2, 5, 129}})
      for (bool shifted : {false, true}) {
        if (shifted && shape.size() < 2) continue;
        SCOPED_TRACE("cross_entropy " + typeSuffix(t) + " " + shapeName(shape) + (shifted ? " labels without dim 0" : ""));
        const size_t total = count(shape), n = static_cast<size_t>(shape.back());
        std::vector<int64_t> labelShape = shifted ? std::vector<int64_t>(shape.begin(), shape.end() - 1) : reducedShapeOf(shape, 0);
        HostTensor x = tensorOf(t, shape, randomValues(total, -6, 6, 14));
        const auto rows = rowsOf(shape, 0);
        std::vector<double> labels;
        for (size_t r = 0; r < rows.size(); ++r) labels.push_back(static_cast<double>((r * 7919) % n));
        if (rows.size() > 2) labels[1] = -1, labels[2] = static_cast<double>(n);  // outside [0, C): NaN loss
        HostTensor lab = tensorOf(DType::I32, labelShape, labels);
        HostTensor dloss = tensorOf(DType::F32, labelShape, randomValues(rows.size(), 0.5, 2, 15));
        const auto fwd = runKernel("cross_entropy_fwd_" + typeSuffix(t), {x, lab}, {{DType::F32, labelShape}});
        const auto bwd = runKernel("cross_entropy_bwd_" + typeSuffix(t), {x, lab, dloss}, {{t, shape}});
        if (fwd.empty() || bwd.empty()) continue;
        const auto xs = valuesOf(x), dl = valuesOf(dloss);
        const auto loss = bitsOfTensor(fwd[0]), dx = bitsOfTensor(bwd[0]);
        Mismatches bad;
        for (size_t r = 0; r < rows.size(); ++r) {
          long double m = -INFINITY, s = 0;
          for (size_t i : rows[r]) m = std::max(m, xs[i]);
          for (size_t i : rows[r]) s += std::exp(xs[i] - m);
          const long double nn = static_cast<long double>(n), lse = std::log(s) + m;
          const long double label = labels[r];
          const bool valid = label >= 0 && label < nn;
          const long double exact = valid ? lse - xs[rows[r][static_cast<size_t>(label)]] : NAN;
          if (!close(loss[r], DType::F32, exact, (nn + 8) * kU32 * (std::fabs(lse) + std::fabs(m) + 6))) bad.report(r, loss[r], exact, 0);
          for (size_t k = 0; k < n; ++k) {
            const size_t i = rows[r][k];
            const long double p = std::exp(xs[i] - m) / s;
            const long double want = (p - (valid && k == static_cast<size_t>(label) ? 1 : 0)) * dl[r];
            const long double tolerance = (nn + 16 + std::fabs(xs[i] - m)) * kU32 * p * dl[r] + 2 * kU32 * dl[r];
            if (!close(dx[i], t, want, tolerance)) bad.report(i, dx[i], want, tolerance);
          }
        }
      }
}

}  // namespace
}  // namespace kltest
