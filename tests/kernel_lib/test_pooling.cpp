// Pooling (maxpool2d, avgpool2d forward and backward, global average and maximum) against host references
// that loop over each window in long double, in NCHW and NHWC, f32 and bf16, on 1 and 24 cores, over
// shapes whose pooled dimension 0 is not a multiple of a vector, with padding, strides, dilation and ceil
// mode. Bounds: the maximum and its indices are exact (a maximum is one of the inputs; the first in scan
// order, rows then columns, wins). An f32 mean of m taps over `count` is a sum of m terms in f32 (within
// (m - 1) u sum|x|) divided once (u |mean|): within (m sum|x| / count + |mean|) u. The backward sums add
// at most kh kw terms, each exact (max) or a rounded quotient (avg): within (terms + 1) u sum|term|. bf16:
// within one bf16 ulp of the exact value.
#include "kernel_test.h"

namespace kltest {
namespace {

struct Shape4 {
  int64_t n, c, h, w;
};

// Storage order of a logical (n, c, h, w) element in a layout (0 NCHW, 1 NHWC).
size_t at(const Shape4& s, int layout, int64_t n, int64_t c, int64_t h, int64_t w) {
  if (layout == 0) return static_cast<size_t>(((n * s.c + c) * s.h + h) * s.w + w);
  return static_cast<size_t>(((n * s.h + h) * s.w + w) * s.c + c);
}
std::vector<int64_t> storageShape(const Shape4& s, int layout) {
  return layout == 0 ? std::vector<int64_t>{s.n, s.c, s.h, s.w} : std::vector<int64_t>{s.n, s.h, s.w, s.c};
}

struct PoolCase {
  Shape4 x;
  int kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, ceil;
};

// The pooled size (ONNX's and PyTorch's formula, written out again here).
int64_t pooled(int64_t n, int k, int s, int d, int before, int after, int ceil) {
  const int64_t extent = static_cast<int64_t>(d) * (k - 1) + 1;
  const long double q = static_cast<long double>(n + before + after - extent) / s;
  int64_t out = static_cast<int64_t>(ceil ? std::ceil(q) : std::floor(q)) + 1;
  if (ceil && (out - 1) * s >= n + before) --out;
  return out;
}

Shape4 outShape(const PoolCase& c) {
  return {c.x.n, c.x.c, pooled(c.x.h, c.kh, c.sh, c.dh, c.pt, c.pb, c.ceil), pooled(c.x.w, c.kw, c.sw, c.dw, c.pl, c.pr, c.ceil)};
}

tpc_kernels_pool_params paramsOfCase(const PoolCase& c, int includePad, int layout) {
  tpc_kernels_pool_params p{};
  p.kernel[0] = c.kh, p.kernel[1] = c.kw, p.stride[0] = c.sh, p.stride[1] = c.sw;
  p.pads[0] = c.pt, p.pads[1] = c.pl, p.pads[2] = c.pb, p.pads[3] = c.pr;
  p.dilation[0] = c.dh, p.dilation[1] = c.dw;
  p.ceil_mode = c.ceil, p.count_include_pad = includePad, p.layout = layout;
  return p;
}

const std::vector<PoolCase> kCases = {
    {{2, 3, 9, 11}, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0},    // 3 channels: a partial vector (NHWC)
    {{1, 70, 7, 6}, 2, 3, 1, 2, 2, 1, 0, 1, 1, 0, 1},    // dilation, ceil mode, asymmetric pads
    {{2, 130, 5, 5}, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},   // more channels than a bf16 vector
    {{1, 2, 8, 70}, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 0},    // W above a vector (NCHW)
    {{1, 5, 6, 7}, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},     // ceil mode with padding on both sides
    {{3, 4, 13, 67}, 3, 2, 1, 3, 1, 2, 2, 1, 0, 1, 0},   // OW of 22; 67 columns
};

const char* suffix(DType t) { return t == DType::F32 ? "f32" : "bf16"; }

bool close(DType t, uint32_t got, long double exact, long double bound) {
  if (t == DType::BF16) {
    const long double g = valueOfBF16(static_cast<uint16_t>(got));
    return std::fabs(g - exact) <= ulpOfBF16(exact) + 65536 * bound;
  }
  return std::fabs(valueOfF32(got) - exact) <= bound;
}

// The taps of output (oh, ow): input (ih, iw) pairs in scan order, and the include-pad count.
struct Window {
  std::vector<std::pair<int64_t, int64_t>> taps;
  int64_t padded = 0;  // taps inside [-pt, H + pb) x [-pl, W + pr)
};
Window windowOf(const PoolCase& c, int64_t oh, int64_t ow) {
  Window win;
  for (int i = 0; i < c.kh; ++i)
    for (int j = 0; j < c.kw; ++j) {
      const int64_t ih = oh * c.sh - c.pt + static_cast<int64_t>(i) * c.dh, iw = ow * c.sw - c.pl + static_cast<int64_t>(j) * c.dw;
      if (ih < c.x.h + c.pb && iw < c.x.w + c.pr) ++win.padded;
      if (ih >= 0 && ih < c.x.h && iw >= 0 && iw < c.x.w) win.taps.push_back({ih, iw});
    }
  return win;
}

TEST(Pool, MaxForwardValuesAndIndices) {
  for (DType t : {DType::F32, DType::BF16})
    for (int layout : {0, 1})
      for (const PoolCase& c : kCases)
        for (int cores : {1, 24}) {
          const Shape4 o = outShape(c);
          const std::string guid = std::string("maxpool2d_fwd_") + suffix(t);
          SCOPED_TRACE(guid + " layout " + std::to_string(layout) + " x " + shapeName(storageShape(c.x, 0)) + " cores " +
                       std::to_string(cores));
          const auto xs = randomValues(count(storageShape(c.x, 0)), -4, 4, 11);
          HostTensor x = tensorOf(t, storageShape(c.x, layout), xs);
          const auto xv = valuesOf(x);
          auto out = runKernel(guid, {x}, {{t, storageShape(o, layout)}, {DType::I32, storageShape(o, layout)}},
                               paramsOf(paramsOfCase(c, 0, layout)), cores);
          if (out.empty()) continue;
          const auto y = valuesOf(out[0]), idx = valuesOf(out[1]);
          for (int64_t n = 0; n < o.n; ++n)
            for (int64_t ch = 0; ch < o.c; ++ch)
              for (int64_t oh = 0; oh < o.h; ++oh)
                for (int64_t ow = 0; ow < o.w; ++ow) {
                  long double best = -INFINITY;
                  int64_t arg = -1;
                  for (auto [ih, iw] : windowOf(c, oh, ow).taps) {
                    const long double v = xv[at(c.x, layout, n, ch, ih, iw)];
                    if (arg < 0 || v > best) best = v, arg = ih * c.x.w + iw;
                  }
                  const size_t k = at(o, layout, n, ch, oh, ow);
                  ASSERT_EQ(y[k], best) << "n " << n << " c " << ch << " oh " << oh << " ow " << ow;
                  ASSERT_EQ(idx[k], arg) << "n " << n << " c " << ch << " oh " << oh << " ow " << ow;
                }
        }
}

TEST(Pool, AverageForwardBothCountModes) {
  for (DType t : {DType::F32, DType::BF16})
    for (int layout : {0, 1})
      for (int includePad : {0, 1})
        for (const PoolCase& c : kCases)
          for (int cores : {1, 24}) {
            const Shape4 o = outShape(c);
            const std::string guid = std::string("avgpool2d_fwd_") + suffix(t);
            SCOPED_TRACE(guid + " layout " + std::to_string(layout) + " count_include_pad " + std::to_string(includePad) +
                         " x " + shapeName(storageShape(c.x, 0)) + " cores " + std::to_string(cores));
            HostTensor x = tensorOf(t, storageShape(c.x, layout), randomValues(count(storageShape(c.x, 0)), -4, 4, 12));
            const auto xv = valuesOf(x);
            auto out = runKernel(guid, {x}, {{t, storageShape(o, layout)}}, paramsOf(paramsOfCase(c, includePad, layout)), cores);
            if (out.empty()) continue;
            const auto y = bitsOfTensor(out[0]);
            for (int64_t n = 0; n < o.n; ++n)
              for (int64_t ch = 0; ch < o.c; ++ch)
                for (int64_t oh = 0; oh < o.h; ++oh)
                  for (int64_t ow = 0; ow < o.w; ++ow) {
                    const Window win = windowOf(c, oh, ow);
                    long double sum = 0, mag = 0;
                    for (auto [ih, iw] : win.taps) {
                      const long double v = xv[at(c.x, layout, n, ch, ih, iw)];
                      sum += v;
                      mag += std::fabs(v);
                    }
                    const long double cnt = includePad ? win.padded : static_cast<long double>(win.taps.size());
                    const long double mean = sum / cnt;
                    const long double bound = (win.taps.size() * mag / cnt + std::fabs(mean)) * kU32;
                    const size_t k = at(o, layout, n, ch, oh, ow);
                    ASSERT_TRUE(close(t, y[k], mean, bound))
                        << "n " << n << " c " << ch << " oh " << oh << " ow " << ow << ": " << valuesOf(out[0])[k]
                        << " against " << static_cast<double>(mean);
                  }
          }
}

// Backward: dy random; max takes the reference forward's indices (the first maximum of each window).
TEST(Pool, MaxAndAverageBackward) {
  for (DType t : {DType::F32, DType::BF16})
    for (int layout : {0, 1})
      for (const char* op : {"maxpool2d", "avgpool2d"})
        for (int includePad : {0, 1})
          for (const PoolCase& c : kCases)
            for (int cores : {1, 24}) {
              const bool max = std::string(op) == "maxpool2d";
              if (max && includePad) continue;
              const Shape4 o = outShape(c);
              const std::string guid = std::string(op) + "_bwd_" + suffix(t);
              SCOPED_TRACE(guid + " layout " + std::to_string(layout) + " count_include_pad " + std::to_string(includePad) +
                           " x " + shapeName(storageShape(c.x, 0)) + " cores " + std::to_string(cores));
              const auto xs = valuesOf(tensorOf(t, storageShape(c.x, layout), randomValues(count(storageShape(c.x, 0)), -4, 4, 13)));
              HostTensor dy = tensorOf(t, storageShape(o, layout), randomValues(count(storageShape(o, 0)), -2, 2, 14));
              const auto dyv = valuesOf(dy);
              std::vector<long double> dx(count(storageShape(c.x, 0)), 0), mag(dx.size(), 0), terms(dx.size(), 0);
              std::vector<double> indices(dyv.size(), -1);
              for (int64_t n = 0; n < o.n; ++n)
                for (int64_t ch = 0; ch < o.c; ++ch)
                  for (int64_t oh = 0; oh < o.h; ++oh)
                    for (int64_t ow = 0; ow < o.w; ++ow) {
                      const Window win = windowOf(c, oh, ow);
                      const size_t k = at(o, layout, n, ch, oh, ow);
                      if (max) {
                        long double best = -INFINITY;
                        int64_t ih0 = -1, iw0 = -1;
                        for (auto [ih, iw] : win.taps)
                          if (ih0 < 0 || xs[at(c.x, layout, n, ch, ih, iw)] > best)
                            best = xs[at(c.x, layout, n, ch, ih, iw)], ih0 = ih, iw0 = iw;
                        indices[k] = static_cast<double>(ih0 * c.x.w + iw0);
                        const size_t e = at(c.x, layout, n, ch, ih0, iw0);
                        dx[e] += dyv[k], mag[e] += std::fabs(dyv[k]), terms[e] += 1;
                      } else {
                        const long double cnt = includePad ? win.padded : static_cast<long double>(win.taps.size());
                        for (auto [ih, iw] : win.taps) {
                          const size_t e = at(c.x, layout, n, ch, ih, iw);
                          dx[e] += dyv[k] / cnt, mag[e] += std::fabs(dyv[k] / cnt), terms[e] += 1;
                        }
                      }
                    }
              std::vector<HostTensor> inputs = {dy};
              if (max) inputs.push_back(tensorOf(DType::I32, storageShape(o, layout), indices));
              auto out = runKernel(guid, inputs, {{t, storageShape(c.x, layout)}}, paramsOf(paramsOfCase(c, includePad, layout)), cores);
              if (out.empty()) continue;
              const auto got = bitsOfTensor(out[0]);
              for (size_t e = 0; e < got.size(); ++e)
                ASSERT_TRUE(close(t, got[e], dx[e], (terms[e] + 1) * kU32 * mag[e]))
                    << "dx element " << e << ": " << valuesOf(out[0])[e] << " against " << static_cast<double>(dx[e]);
            }
}

TEST(Pool, GlobalAverageAndMaximum) {
  const std::vector<Shape4> shapes = {{2, 3, 5, 70}, {1, 130, 3, 4}, {3, 7, 1, 1}, {2, 65, 9, 129}};
  for (DType t : {DType::F32, DType::BF16})
    for (int layout : {0, 1})
      for (const Shape4& s : shapes)
        for (const char* op : {"global_avgpool", "global_maxpool"})
          for (int cores : {1, 24}) {
            const std::string guid = std::string(op) + "_fwd_" + suffix(t);
            SCOPED_TRACE(guid + " layout " + std::to_string(layout) + " x " + shapeName(storageShape(s, 0)) + " cores " +
                         std::to_string(cores));
            HostTensor x = tensorOf(t, storageShape(s, layout), randomValues(count(storageShape(s, 0)), -4, 4, 15));
            const auto xv = valuesOf(x);
            const Shape4 o{s.n, s.c, 1, 1};
            tpc_kernels_layout_params p{layout};
            auto out = runKernel(guid, {x}, {{t, storageShape(o, layout)}}, paramsOf(p), cores);
            if (out.empty()) continue;
            const auto y = bitsOfTensor(out[0]);
            const bool avg = std::string(op) == "global_avgpool";
            for (int64_t n = 0; n < s.n; ++n)
              for (int64_t ch = 0; ch < s.c; ++ch) {
                long double sum = 0, mag = 0, best = -INFINITY;
                for (int64_t h = 0; h < s.h; ++h)
                  for (int64_t w = 0; w < s.w; ++w) {
                    const long double v = xv[at(s, layout, n, ch, h, w)];
                    sum += v, mag += std::fabs(v), best = std::max(best, v);
                  }
                const long double m = static_cast<long double>(s.h * s.w), exact = avg ? sum / m : best;
                const long double bound = avg ? (m * mag / m + std::fabs(exact)) * kU32 : 0;
                ASSERT_TRUE(close(t, y[at(o, layout, n, ch, 0, 0)], exact, bound))
                    << "n " << n << " c " << ch << ": " << valuesOf(out[0])[at(o, layout, n, ch, 0, 0)] << " against "
                    << static_cast<double>(exact);
              }
          }
}

TEST(Pool, RejectsWhatItCannotDo) {
  auto code = [](const std::string& guid, std::vector<HostTensor> in, std::vector<HostTensor> out, const tpc_kernels_pool_params& p) {
    tpc::kernels::NodeRun node;
    node.guid = guid;
    node.inputs = std::move(in);
    node.outputs = std::move(out);
    node.params = paramsOf(p);
    return tpc::kernels::runNode(node).glue.code;
  };
  using tpc::makeZeroTensor;
  const PoolCase c{{1, 2, 6, 6}, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 0};
  auto x = makeZeroTensor(DType::F32, {1, 2, 6, 6});
  auto y = makeZeroTensor(DType::F32, {1, 2, 3, 3});
  auto ix = makeZeroTensor(DType::I32, {1, 2, 3, 3});
  EXPECT_EQ(code("maxpool2d_fwd_f32", {x}, {y, ix}, paramsOfCase(c, 0, 0)), tpc_lib_api::GLUE_SUCCESS);
  auto bad = paramsOfCase(c, 0, 2);
  EXPECT_EQ(code("maxpool2d_fwd_f32", {x}, {y, ix}, bad), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  bad = paramsOfCase(c, 0, 0);
  bad.kernel[1] = 0;
  EXPECT_EQ(code("maxpool2d_fwd_f32", {x}, {y, ix}, bad), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  bad = paramsOfCase(c, 0, 0);
  bad.pads[2] = 2;  // as large as the window
  EXPECT_EQ(code("maxpool2d_fwd_f32", {x}, {y, ix}, bad), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  EXPECT_EQ(code("maxpool2d_fwd_f32", {x}, {makeZeroTensor(DType::F32, {1, 2, 3, 4}), ix}, paramsOfCase(c, 0, 0)),
            tpc_lib_api::GLUE_INCOMPATIBLE_OUTPUT_SIZE);
  EXPECT_EQ(code("maxpool2d_fwd_f32", {x}, {y, makeZeroTensor(DType::F32, {1, 2, 3, 3})}, paramsOfCase(c, 0, 0)),
            tpc_lib_api::GLUE_INCOMPATIBLE_DATA_TYPE);
  EXPECT_EQ(code("avgpool2d_fwd_f32", {makeZeroTensor(DType::F32, {2, 6, 6})}, {makeZeroTensor(DType::F32, {2, 3, 3})},
                 paramsOfCase(c, 0, 0)),
            tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE);
  EXPECT_EQ(code("avgpool2d_bwd_f32", {makeZeroTensor(DType::F32, {1, 2, 3, 4})}, {x}, paramsOfCase(c, 0, 0)),
            tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE);
  // NHWC reads H and W from dimensions 2 and 1: the NCHW output shape is wrong there.
  EXPECT_EQ(code("avgpool2d_fwd_f32", {x}, {y}, paramsOfCase(c, 0, 1)), tpc_lib_api::GLUE_INCOMPATIBLE_OUTPUT_SIZE);
}

}  // namespace
}  // namespace kltest
