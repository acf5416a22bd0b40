// Normalizations over channels (batch norm forward in training and inference mode and backward, instance
// norm, group norm) against host references in long double, NCHW and NHWC, f32 and bf16, 1 and 24 cores,
// channel counts and widths that are not multiples of a vector.
// Bounds (f32, u = 2^-24, M elements per statistic): the mean is a sum of M terms and a division, within
// (M + 1) u mean|x| (dm); the variance a sum of M positive terms and a division, relative (M + 3) u, so
// invstd (a square root's inverse, a few ulp) relative (M + 10) u (di). y = (x - mean) s + beta with s =
// invstd gamma: within |s| dm + |x - mean| |s| (di + 3u) + u |y|. The running statistics: momentum r +
// (1 - momentum) b in two roundings (3u of the terms) plus (1 - momentum) times b's error. The backward:
// dbeta within M u sum|dy|, dgamma (M + 2) u sum|dy xhat|, and dx = a ((dy - b) - (x - mean) c) within
// |a| (|dy| + |b| + |x - mean| |c|) (M + 10) u + u |dx|. bf16: within one bf16 ulp of the exact value plus
// the f32 bound.
#include "kernel_test.h"

namespace kltest {
namespace {

struct Shape4 {
  int64_t n, c, h, w;
};
size_t at(const Shape4& s, int layout, int64_t n, int64_t c, int64_t h, int64_t w) {
  if (layout == 0) return static_cast<size_t>(((n * s.c + c) * s.h + h) * s.w + w);
  return static_cast<size_t>(((n * s.h + h) * s.w + w) * s.c + c);
}
std::vector<int64_t> storageShape(const Shape4& s, int layout) {
  return layout == 0 ? std::vector<int64_t>{s.n, s.c, s.h, s.w} : std::vector<int64_t>{s.n, s.h, s.w, s.c};
}
const char* suffix(DType t) { return t == DType::F32 ? "f32" : "bf16"; }

bool close(DType t, uint32_t got, long double exact, long double bound) {
  if (t == DType::BF16) return std::fabs(valueOfBF16(static_cast<uint16_t>(got)) - exact) <= ulpOfBF16(exact) + 65536 * bound;
  return std::fabs(valueOfF32(got) - exact) <= bound;
}
bool closeF32(uint32_t got, long double exact, long double bound) { return std::fabs(valueOfF32(got) - exact) <= bound; }

const std::vector<Shape4> kShapes = {{2, 3, 5, 70}, {1, 130, 3, 4}, {3, 7, 1, 1}, {2, 65, 9, 13}};

std::vector<double> f32Values(size_t n, double lo, double hi, uint32_t seed) { return randomValues(n, lo, hi, seed); }

// Statistics of a set of elements (indices into xv).
struct Stats {
  long double mean = 0, var = 0, dm = 0, di = 0, inv = 0;
};
Stats statsOf(const std::vector<long double>& xv, const std::vector<size_t>& set, long double eps) {
  Stats s;
  long double sum = 0, mag = 0;
  for (size_t e : set) sum += xv[e], mag += std::fabs(xv[e]);
  const long double m = static_cast<long double>(set.size());
  s.mean = sum / m;
  for (size_t e : set) s.var += (xv[e] - s.mean) * (xv[e] - s.mean);
  s.var /= m;
  s.inv = 1.0L / std::sqrt(s.var + eps);
  s.dm = (m + 1) * kU32 * mag / m;
  s.di = (m + 10) * kU32;
  return s;
}

// The elements of channel c (all images when n < 0) or of a group of channels [c, c + cg) of image n.
std::vector<size_t> setOf(const Shape4& s, int layout, int64_t n, int64_t c, int64_t cg) {
  std::vector<size_t> out;
  for (int64_t i = n < 0 ? 0 : n; i < (n < 0 ? s.n : n + 1); ++i)
    for (int64_t ch = c; ch < c + cg; ++ch)
      for (int64_t h = 0; h < s.h; ++h)
        for (int64_t w = 0; w < s.w; ++w) out.push_back(at(s, layout, i, ch, h, w));
  return out;
}

void checkY(DType t, const std::vector<uint32_t>& y, const std::vector<long double>& xv, const std::vector<size_t>& set,
            const Stats& st, long double gamma, long double beta) {
  const long double s = st.inv * gamma;
  for (size_t e : set) {
    const long double exact = (xv[e] - st.mean) * s + beta;
    const long double bound = std::fabs(s) * st.dm + std::fabs(xv[e] - st.mean) * std::fabs(s) * (st.di + 3 * kU32) +
                              kU32 * std::fabs(exact);
    ASSERT_TRUE(close(t, y[e], exact, bound)) << "element " << e << ": " << floatOf(t == DType::F32 ? y[e] : y[e] << 16)
                                              << " against " << static_cast<double>(exact);
  }
}

TEST(BatchNorm, TrainingForward) {
  for (DType t : {DType::F32, DType::BF16})
    for (int layout : {0, 1})
      for (const Shape4& s : kShapes)
        for (int unbiased : {0, 1})
          for (int cores : {1, 24}) {
            const std::string guid = std::string("batchnorm_fwd_") + suffix(t);
            SCOPED_TRACE(guid + " layout " + std::to_string(layout) + " x " + shapeName(storageShape(s, 0)) + " unbiased " +
                         std::to_string(unbiased) + " cores " + std::to_string(cores));
            HostTensor x = tensorOf(t, storageShape(s, layout), f32Values(count(storageShape(s, 0)), -2, 6, 21));
            const auto xv = valuesOf(x);
            const auto C = s.c;
            HostTensor gamma = tensorOf(DType::F32, {C}, f32Values(C, 0.5, 2, 22)), beta = tensorOf(DType::F32, {C}, f32Values(C, -1, 1, 23));
            HostTensor rm = tensorOf(DType::F32, {C}, f32Values(C, -1, 1, 24)), rv = tensorOf(DType::F32, {C}, f32Values(C, 0.5, 2, 25));
            tpc_kernels_batchnorm_params p{1e-3f, 0.8f, 1, unbiased, layout};
            auto out = runKernel(guid, {x, gamma, beta, rm, rv},
                                 {{t, storageShape(s, layout)}, {DType::F32, {C}}, {DType::F32, {C}}, {DType::F32, {C}}, {DType::F32, {C}}},
                                 paramsOf(p), cores);
            if (out.empty()) continue;
            const auto y = bitsOfTensor(out[0]), sm = bitsOfTensor(out[1]), si = bitsOfTensor(out[2]), rmo = bitsOfTensor(out[3]),
                       rvo = bitsOfTensor(out[4]);
            const auto gv = valuesOf(gamma), bv = valuesOf(beta), rmv = valuesOf(rm), rvv = valuesOf(rv);
            const long double mom = 0.8f, eps = 1e-3f;
            for (int64_t c = 0; c < C; ++c) {
              const auto set = setOf(s, layout, -1, c, 1);
              const Stats st = statsOf(xv, set, eps);
              const long double m = static_cast<long double>(set.size());
              ASSERT_TRUE(closeF32(sm[c], st.mean, st.dm)) << "saved mean " << c;
              ASSERT_TRUE(closeF32(si[c], st.inv, st.inv * st.di)) << "saved invstd " << c;
              const long double rmx = mom * rmv[c] + (1 - mom) * st.mean;
              ASSERT_TRUE(closeF32(rmo[c], rmx, 3 * kU32 * (std::fabs(mom * rmv[c]) + std::fabs((1 - mom) * st.mean)) + (1 - mom) * st.dm))
                  << "running mean " << c;
              const long double f = unbiased ? m / (m - 1) : 1, bvar = st.var * f;
              const long double rvx = mom * rvv[c] + (1 - mom) * bvar;
              ASSERT_TRUE(closeF32(rvo[c], rvx, 4 * kU32 * (mom * rvv[c] + (1 - mom) * bvar) + (1 - mom) * bvar * (m + 3) * kU32))
                  << "running var " << c << ": " << floatOf(rvo[c]) << " against " << static_cast<double>(rvx);
              checkY(t, y, xv, set, st, gv[c], bv[c]);
            }
          }
}

TEST(BatchNorm, InferenceForward) {
  for (DType t : {DType::F32, DType::BF16})
    for (int layout : {0, 1})
      for (const Shape4& s : kShapes)
        for (int cores : {1, 24}) {
          const std::string guid = std::string("batchnorm_fwd_") + suffix(t);
          SCOPED_TRACE(guid + " inference layout " + std::to_string(layout) + " x " + shapeName(storageShape(s, 0)));
          HostTensor x = tensorOf(t, storageShape(s, layout), f32Values(count(storageShape(s, 0)), -2, 6, 31));
          const auto xv = valuesOf(x);
          const auto C = s.c;
          HostTensor gamma = tensorOf(DType::F32, {C}, f32Values(C, 0.5, 2, 32)), beta = tensorOf(DType::F32, {C}, f32Values(C, -1, 1, 33));
          HostTensor rm = tensorOf(DType::F32, {C}, f32Values(C, -1, 3, 34)), rv = tensorOf(DType::F32, {C}, f32Values(C, 0.5, 2, 35));
          tpc_kernels_batchnorm_params p{1e-3f, 0.9f, 0, 0, layout};
          auto out = runKernel(guid, {x, gamma, beta, rm, rv}, {{t, storageShape(s, layout)}}, paramsOf(p), cores);
          if (out.empty()) continue;
          const auto y = bitsOfTensor(out[0]);
          const auto gv = valuesOf(gamma), bv = valuesOf(beta), rmv = valuesOf(rm), rvv = valuesOf(rv);
          for (int64_t c = 0; c < C; ++c) {
            Stats st;
            st.mean = rmv[c];
            st.inv = 1.0L / std::sqrt(rvv[c] + static_cast<long double>(1e-3f));
            st.di = 5 * kU32;  // var + eps rounded, then 1/sqrt
            checkY(t, y, xv, setOf(s, layout, -1, c, 1), st, gv[c], bv[c]);
          }
        }
}

TEST(BatchNorm, Backward) {
  for (DType t : {DType::F32, DType::BF16})
    for (int layout : {0, 1})
      for (const Shape4& s : kShapes)
        for (int cores : {1, 24}) {
          const std::string guid = std::string("batchnorm_bwd_") + suffix(t);
          SCOPED_TRACE(guid + " layout " + std::to_string(layout) + " x " + shapeName(storageShape(s, 0)) + " cores " +
                       std::to_string(cores));
          const auto shape = storageShape(s, layout);
          HostTensor x = tensorOf(t, shape, f32Values(count(shape), -2, 6, 41)), dy = tensorOf(t, shape, f32Values(count(shape), -1, 1, 42));
          const auto xv = valuesOf(x), dyv = valuesOf(dy);
          const auto C = s.c;
          HostTensor gamma = tensorOf(DType::F32, {C}, f32Values(C, 0.5, 2, 43));
          std::vector<double> means, invs;
          for (int64_t c = 0; c < C; ++c) {
            const Stats st = statsOf(xv, setOf(s, layout, -1, c, 1), 1e-3L);
            means.push_back(static_cast<double>(st.mean));
            invs.push_back(static_cast<double>(st.inv));
          }
          HostTensor sm = tensorOf(DType::F32, {C}, means), si = tensorOf(DType::F32, {C}, invs);
          tpc_kernels_batchnorm_params p{1e-5f, 0.9f, 1, 0, layout};
          auto out = runKernel(guid, {dy, x, gamma, sm, si}, {{t, shape}, {DType::F32, {C}}, {DType::F32, {C}}}, paramsOf(p), cores);
          if (out.empty()) continue;
          const auto dx = bitsOfTensor(out[0]), dg = bitsOfTensor(out[1]), db = bitsOfTensor(out[2]);
          const auto gv = valuesOf(gamma), smv = valuesOf(sm), siv = valuesOf(si);
          for (int64_t c = 0; c < C; ++c) {
            const auto set = setOf(s, layout, -1, c, 1);
            const long double m = static_cast<long double>(set.size());
            long double sdy = 0, sdyx = 0, mdy = 0, mdyx = 0;
            for (size_t e : set) {
              const long double xhat = (xv[e] - smv[c]) * siv[c];
              sdy += dyv[e], mdy += std::fabs(dyv[e]), sdyx += dyv[e] * xhat, mdyx += std::fabs(dyv[e] * xhat);
            }
            ASSERT_TRUE(closeF32(db[c], sdy, m * kU32 * mdy)) << "dbeta " << c;
            ASSERT_TRUE(closeF32(dg[c], sdyx, (m + 2) * kU32 * mdyx)) << "dgamma " << c;
            const long double a = gv[c] * siv[c], b = sdy / m, cc = sdyx * siv[c] / m;
            for (size_t e : set) {
              const long double exact = a * ((dyv[e] - b) - (xv[e] - smv[c]) * cc);
              const long double bound =
                  std::fabs(a) * (std::fabs(dyv[e]) + std::fabs(b) + std::fabs(xv[e] - smv[c]) * std::fabs(cc)) * (m + 10) * kU32 +
                  kU32 * std::fabs(exact);
              ASSERT_TRUE(close(t, dx[e], exact, bound)) << "dx element " << e;
            }
          }
        }
}

TEST(InstanceNorm, ForwardAndGroupNorm) {
  struct Case {
    Shape4 s;
    int groups;  // 0: instance norm
  };
  const std::vector<Case> cases = {{{2, 3, 5, 70}, 0}, {{1, 130, 3, 4}, 0}, {{2, 65, 9, 13}, 0}, {{2, 6, 5, 70}, 3},
                                   {{2, 6, 5, 70}, 2},  {{3, 4, 7, 9}, 1},    {{1, 8, 3, 130}, 8}};
  for (DType t : {DType::F32, DType::BF16})
    for (int layout : {0, 1})
      for (const Case& k : cases)
        for (int cores : {1, 24}) {
          if (k.groups && layout == 1) continue;  // group norm: NCHW only
          const Shape4& s = k.s;
          const std::string guid = std::string(k.groups ? "groupnorm_fwd_" : "instancenorm_fwd_") + suffix(t);
          SCOPED_TRACE(guid + " layout " + std::to_string(layout) + " x " + shapeName(storageShape(s, 0)) + " groups " +
                       std::to_string(k.groups) + " cores " + std::to_string(cores));
          HostTensor x = tensorOf(t, storageShape(s, layout), f32Values(count(storageShape(s, 0)), -2, 6, 51));
          const auto xv = valuesOf(x);
          const auto C = s.c;
          HostTensor gamma = tensorOf(DType::F32, {C}, f32Values(C, 0.5, 2, 52)), beta = tensorOf(DType::F32, {C}, f32Values(C, -1, 1, 53));
          tpc_kernels_groupnorm_params p{1e-4f, k.groups ? k.groups : 1, layout};
          auto out = runKernel(guid, {x, gamma, beta}, {{t, storageShape(s, layout)}}, paramsOf(p), cores);
          if (out.empty()) continue;
          const auto y = bitsOfTensor(out[0]);
          const auto gv = valuesOf(gamma), bv = valuesOf(beta);
          const int64_t cg = k.groups ? C / k.groups : 1;
          for (int64_t n = 0; n < s.n; ++n)
            for (int64_t c0 = 0; c0 < C; c0 += cg) {
              const Stats st = statsOf(xv, setOf(s, layout, n, c0, cg), static_cast<long double>(1e-4f));
              for (int64_t c = c0; c < c0 + cg; ++c) checkY(t, y, xv, setOf(s, layout, n, c, 1), st, gv[c], bv[c]);
            }
        }
}

TEST(BatchNorm, RejectsWhatItCannotDo) {
  auto run = [](const std::string& guid, std::vector<HostTensor> in, std::vector<HostTensor> out, std::vector<unsigned char> p) {
    tpc::kernels::NodeRun node;
    node.guid = guid;
    node.inputs = std::move(in);
    node.outputs = std::move(out);
    node.params = std::move(p);
    return tpc::kernels::runNode(node).glue.code;
  };
  using tpc::makeZeroTensor;
  auto x = makeZeroTensor(DType::F32, {2, 3, 4, 5});
  auto v3 = makeZeroTensor(DType::F32, {3});
  tpc_kernels_batchnorm_params p{1e-5f, 0.9f, 0, 0, 0};
  EXPECT_EQ(run("batchnorm_fwd_f32", {x, v3, v3, v3, v3}, {x}, paramsOf(p)), tpc_lib_api::GLUE_SUCCESS);
  EXPECT_EQ(run("batchnorm_fwd_f32", {x, v3, v3, v3, makeZeroTensor(DType::F32, {5})}, {x}, paramsOf(p)),
            tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE);
  EXPECT_EQ(run("batchnorm_fwd_f32", {x, v3, v3, v3, makeZeroTensor(DType::BF16, {3})}, {x}, paramsOf(p)),
            tpc_lib_api::GLUE_INCOMPATIBLE_DATA_TYPE);
  p.training = 1;  // five outputs
  EXPECT_EQ(run("batchnorm_fwd_f32", {x, v3, v3, v3, v3}, {x}, paramsOf(p)), tpc_lib_api::GLUE_INCOMPATIBLE_OUTPUT_COUNT);
  p.layout = 3;
  EXPECT_EQ(run("batchnorm_fwd_f32", {x, v3, v3, v3, v3}, {x, v3, v3, v3, v3}, paramsOf(p)),
            tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  p = {-1.0f, 0.9f, 1, 0, 0};
  EXPECT_EQ(run("batchnorm_fwd_f32", {x, v3, v3, v3, v3}, {x, v3, v3, v3, v3}, paramsOf(p)),
            tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  tpc_kernels_groupnorm_params g{1e-5f, 2, 0};  // 2 does not divide 3 channels
  EXPECT_EQ(run("groupnorm_fwd_f32", {x, v3, v3}, {x}, paramsOf(g)), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  g = {1e-5f, 3, 1};
  EXPECT_EQ(run("groupnorm_fwd_f32", {x, v3, v3}, {x}, paramsOf(g)), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  g = {1e-5f, 1, 0};
  EXPECT_EQ(run("instancenorm_fwd_f32", {x, v3, v3}, {makeZeroTensor(DType::F32, {2, 3, 4, 4})}, paramsOf(g)),
            tpc_lib_api::GLUE_INCOMPATIBLE_OUTPUT_SIZE);
}

}  // namespace
}  // namespace kltest
