// Convolution (conv2d_fwd, conv2d_bwd_data, conv2d_bwd_weights) against host references that loop over the
// definition in long double, in NCHW (w [M, C/g, kH, kW]) and NHWC (w [kH, kW, C/g, M]), f32 and bf16, on 1
// and 24 cores, over shapes whose dimension 0 is not a multiple of a vector, with strides, asymmetric
// padding, dilation, groups (one, depthwise, depthwise with a multiplier, groups that straddle vectors) and
// a bias. Bounds: each element is a dot product of K terms evaluated in f32 (the bias one more term), within
// K u sum|terms| (u = 2^-24); bf16 rounds that once: within one bf16 ulp of |exact| + bound, plus the bound.
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

struct ConvCase {
  Shape4 x;
  int64_t m, groups;
  int kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  const char* what;
};

// Weights: logical (m, ci, i, j); NCHW stores [M, Cg, kH, kW], NHWC [kH, kW, Cg, M].
struct WShape {
  int64_t m, cg, kh, kw;
};
WShape wshape(const ConvCase& c) { return {c.m, c.x.c / c.groups, c.kh, c.kw}; }
size_t wat(const WShape& s, int layout, int64_t m, int64_t ci, int64_t i, int64_t j) {
  if (layout == 0) return static_cast<size_t>(((m * s.cg + ci) * s.kh + i) * s.kw + j);
  return static_cast<size_t>(((i * s.kw + j) * s.cg + ci) * s.m + m);
}
std::vector<int64_t> wStorage(const WShape& s, int layout) {
  return layout == 0 ? std::vector<int64_t>{s.m, s.cg, s.kh, s.kw} : std::vector<int64_t>{s.kh, s.kw, s.cg, s.m};
}

int64_t outSize(int64_t n, int k, int s, int d, int before, int after) {
  return (n + before + after - (static_cast<int64_t>(d) * (k - 1) + 1)) / s + 1;
}
Shape4 outShape(const ConvCase& c) {
  return {c.x.n, c.m, outSize(c.x.h, c.kh, c.sh, c.dh, c.pt, c.pb), outSize(c.x.w, c.kw, c.sw, c.dw, c.pl, c.pr)};
}

tpc_kernels_conv_params paramsOfCase(const ConvCase& c, int layout) {
  tpc_kernels_conv_params p{};
  p.stride[0] = c.sh, p.stride[1] = c.sw, p.dilation[0] = c.dh, p.dilation[1] = c.dw;
  p.pads[0] = c.pt, p.pads[1] = c.pl, p.pads[2] = c.pb, p.pads[3] = c.pr;
  p.groups = static_cast<int32_t>(c.groups), p.layout = layout;
  return p;
}

const std::vector<ConvCase> kCases = {
    {{2, 3, 9, 11}, 5, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, "3 -> 5 channels, 3x3, padding 1"},
    {{1, 70, 7, 6}, 70, 70, 3, 3, 1, 2, 2, 1, 0, 1, 1, 0, "depthwise, 70 channels, stride and dilation"},
    {{2, 8, 6, 7}, 12, 4, 2, 3, 2, 1, 1, 2, 1, 2, 0, 1, "4 groups of 2 -> 3 channels (one vector, 4 groups)"},
    {{1, 6, 5, 70}, 130, 2, 1, 3, 1, 1, 1, 1, 0, 1, 0, 1, "2 groups of 3 -> 65: a group across vectors; W 70"},
    {{2, 4, 8, 9}, 8, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, "depthwise with multiplier 2, stride 2"},
    {{2, 16, 5, 67}, 9, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, "1x1, 16 -> 9 channels, W 67"},
    {{1, 3, 13, 12}, 4, 1, 3, 3, 2, 2, 1, 1, 1, 0, 0, 1, "3x3 stride 2, a last row no window reads"},
    {{1, 130, 6, 5}, 130, 130, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, "depthwise 3x3, 130 channels (above a bf16 vector)"},
};

const char* suffix(DType t) { return t == DType::F32 ? "f32" : "bf16"; }

bool close(DType t, uint32_t got, long double exact, long double bound) {
  if (t == DType::BF16) {
    const long double g = valueOfBF16(static_cast<uint16_t>(got));
    return std::fabs(g - exact) <= ulpOfBF16(std::fabs(exact) + bound) + bound;
  }
  return std::fabs(valueOfF32(got) - exact) <= bound;
}

// Calls f(n, m, oh, ow, c, ci, i, j, ih, iw) for every term of the convolution whose tap is inside x.
template <class F> void forEachTerm(const ConvCase& c, F f) {
  const Shape4 o = outShape(c);
  const WShape ws = wshape(c);
  const int64_t mg = c.m / c.groups;
  for (int64_t n = 0; n < o.n; ++n)
    for (int64_t m = 0; m < o.c; ++m)
      for (int64_t oh = 0; oh < o.h; ++oh)
        for (int64_t ow = 0; ow < o.w; ++ow)
          for (int64_t ci = 0; ci < ws.cg; ++ci)
            for (int i = 0; i < c.kh; ++i)
              for (int j = 0; j < c.kw; ++j) {
                const int64_t ih = oh * c.sh - c.pt + static_cast<int64_t>(i) * c.dh;
                const int64_t iw = ow * c.sw - c.pl + static_cast<int64_t>(j) * c.dw;
                if (ih < 0 || ih >= c.x.h || iw < 0 || iw >= c.x.w) continue;
                f(n, m, oh, ow, (m / mg) * ws.cg + ci, ci, i, j, ih, iw);
              }
}

struct Reference {
  std::vector<long double> value, mag, terms;
  explicit Reference(size_t n) : value(n, 0), mag(n, 0), terms(n, 0) {}
  void add(size_t e, long double v) { value[e] += v, mag[e] += std::fabs(v), terms[e] += 1; }
};

void expectClose(DType t, const HostTensor& got, const Reference& ref) {
  const auto bits = bitsOfTensor(got);
  const auto vals = valuesOf(got);
  ASSERT_EQ(bits.size(), ref.value.size());
  for (size_t e = 0; e < bits.size(); ++e)
    ASSERT_TRUE(close(t, bits[e], ref.value[e], std::max<long double>(ref.terms[e], 1) * kU32 * ref.mag[e]))
        << "element " << e << ": " << static_cast<double>(vals[e]) << " against " << static_cast<double>(ref.value[e]);
}

TEST(Conv, Forward) {
  for (DType t : {DType::F32, DType::BF16})
    for (int layout : {0, 1})
      for (size_t ci = 0; ci < kCases.size(); ++ci)
        for (int cores : {1, 24}) {
          const ConvCase& c = kCases[ci];
          const bool bias = (ci + static_cast<size_t>(layout)) % 2 == 1;
          const Shape4 o = outShape(c);
          const WShape ws = wshape(c);
          const std::string guid = std::string("conv2d_fwd_") + suffix(t);
          SCOPED_TRACE(guid + " layout " + std::to_string(layout) + " " + c.what + (bias ? " bias" : "") + " cores " +
                       std::to_string(cores));
          HostTensor x = tensorOf(t, storageShape(c.x, layout), randomValues(count(storageShape(c.x, 0)), -2, 2, 21));
          HostTensor w = tensorOf(t, wStorage(ws, layout), randomValues(count(wStorage(ws, 0)), -1, 1, 22));
          HostTensor b = tensorOf(t, {c.m}, randomValues(static_cast<size_t>(c.m), -1, 1, 23));
          const auto xv = valuesOf(x), wv = valuesOf(w), bv = valuesOf(b);
          Reference ref(count(storageShape(o, 0)));
          if (bias)
            for (int64_t n = 0; n < o.n; ++n)
              for (int64_t m = 0; m < o.c; ++m)
                for (int64_t oh = 0; oh < o.h; ++oh)
                  for (int64_t ow = 0; ow < o.w; ++ow) ref.add(at(o, layout, n, m, oh, ow), bv[static_cast<size_t>(m)]);
          forEachTerm(c, [&](int64_t n, int64_t m, int64_t oh, int64_t ow, int64_t ch, int64_t cg, int i, int j, int64_t ih,
                             int64_t iw) {
            ref.add(at(o, layout, n, m, oh, ow), xv[at(c.x, layout, n, ch, ih, iw)] * wv[wat(ws, layout, m, cg, i, j)]);
          });
          std::vector<HostTensor> inputs = {x, w};
          if (bias) inputs.push_back(b);
          auto out = runKernel(guid, inputs, {{t, storageShape(o, layout)}}, paramsOf(paramsOfCase(c, layout)), cores);
          if (out.empty()) continue;
          expectClose(t, out[0], ref);
        }
}

// dx of each case (x's shape: with a stride, rows and columns no window reads get zeros, as ONNX's
// ConvTranspose with output_padding).
TEST(Conv, BackwardData) {
  for (DType t : {DType::F32, DType::BF16})
    for (int layout : {0, 1})
      for (const ConvCase& c : kCases)
        for (int cores : {1, 24}) {
          const Shape4 o = outShape(c);
          const WShape ws = wshape(c);
          const std::string guid = std::string("conv2d_bwd_data_") + suffix(t);
          SCOPED_TRACE(guid + " layout " + std::to_string(layout) + " " + c.what + " cores " + std::to_string(cores));
          HostTensor dy = tensorOf(t, storageShape(o, layout), randomValues(count(storageShape(o, 0)), -2, 2, 24));
          HostTensor w = tensorOf(t, wStorage(ws, layout), randomValues(count(wStorage(ws, 0)), -1, 1, 25));
          const auto dyv = valuesOf(dy), wv = valuesOf(w);
          Reference ref(count(storageShape(c.x, 0)));
          forEachTerm(c, [&](int64_t n, int64_t m, int64_t oh, int64_t ow, int64_t ch, int64_t cg, int i, int j, int64_t ih,
                             int64_t iw) {
            ref.add(at(c.x, layout, n, ch, ih, iw), dyv[at(o, layout, n, m, oh, ow)] * wv[wat(ws, layout, m, cg, i, j)]);
          });
          auto out = runKernel(guid, {dy, w}, {{t, storageShape(c.x, layout)}}, paramsOf(paramsOfCase(c, layout)), cores);
          if (out.empty()) continue;
          expectClose(t, out[0], ref);
        }
}

TEST(Conv, BackwardWeights) {
  for (DType t : {DType::F32, DType::BF16})
    for (int layout : {0, 1})
      for (const ConvCase& c : kCases)
        for (int cores : {1, 24}) {
          const Shape4 o = outShape(c);
          const WShape ws = wshape(c);
          const std::string guid = std::string("conv2d_bwd_weights_") + suffix(t);
          SCOPED_TRACE(guid + " layout " + std::to_string(layout) + " " + c.what + " cores " + std::to_string(cores));
          HostTensor x = tensorOf(t, storageShape(c.x, layout), randomValues(count(storageShape(c.x, 0)), -2, 2, 26));
          HostTensor dy = tensorOf(t, storageShape(o, layout), randomValues(count(storageShape(o, 0)), -2, 2, 27));
          const auto xv = valuesOf(x), dyv = valuesOf(dy);
          Reference ref(count(wStorage(ws, 0)));
          forEachTerm(c, [&](int64_t n, int64_t m, int64_t oh, int64_t ow, int64_t ch, int64_t cg, int i, int j, int64_t ih,
                             int64_t iw) {
            ref.add(wat(ws, layout, m, cg, i, j), dyv[at(o, layout, n, m, oh, ow)] * xv[at(c.x, layout, n, ch, ih, iw)]);
          });
          auto out = runKernel(guid, {x, dy}, {{t, wStorage(ws, layout)}}, paramsOf(paramsOfCase(c, layout)), cores);
          if (out.empty()) continue;
          expectClose(t, out[0], ref);
        }
}

TEST(Conv, RejectsWhatItCannotDo) {
  auto code = [](const std::string& guid, std::vector<HostTensor> in, std::vector<HostTensor> out,
                 const tpc_kernels_conv_params& p) {
    tpc::kernels::NodeRun node;
    node.guid = guid;
    node.inputs = std::move(in);
    node.outputs = std::move(out);
    node.params = paramsOf(p);
    return tpc::kernels::runNode(node).glue.code;
  };
  using tpc::makeZeroTensor;
  const ConvCase c{{1, 4, 6, 6}, 6, 2, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, ""};
  auto x = makeZeroTensor(DType::F32, {1, 4, 6, 6});
  auto w = makeZeroTensor(DType::F32, {6, 2, 3, 3});
  auto y = makeZeroTensor(DType::F32, {1, 6, 4, 4});
  const auto ok = paramsOfCase(c, 0);
  EXPECT_EQ(code("conv2d_fwd_f32", {x, w}, {y}, ok), tpc_lib_api::GLUE_SUCCESS);
  EXPECT_EQ(code("conv2d_fwd_f32", {x, w, makeZeroTensor(DType::F32, {6})}, {y}, ok), tpc_lib_api::GLUE_SUCCESS);
  auto bad = paramsOfCase(c, 2);
  EXPECT_EQ(code("conv2d_fwd_f32", {x, w}, {y}, bad), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  bad = ok;
  bad.stride[1] = 0;
  EXPECT_EQ(code("conv2d_fwd_f32", {x, w}, {y}, bad), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  bad = ok;
  bad.pads[3] = -1;
  EXPECT_EQ(code("conv2d_fwd_f32", {x, w}, {y}, bad), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  bad = ok;
  bad.groups = 0;
  EXPECT_EQ(code("conv2d_fwd_f32", {x, w}, {y}, bad), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  bad = ok;
  bad.groups = 3;  // 4 channels are not 3 groups
  EXPECT_EQ(code("conv2d_fwd_f32", {x, w}, {y}, bad), tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE);
  bad = ok;
  bad.groups = 1;  // w has C/2 input channels
  EXPECT_EQ(code("conv2d_fwd_f32", {x, w}, {y}, bad), tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE);
  EXPECT_EQ(code("conv2d_fwd_f32", {x, w}, {makeZeroTensor(DType::F32, {1, 6, 4, 5})}, ok),
            tpc_lib_api::GLUE_INCOMPATIBLE_OUTPUT_SIZE);
  EXPECT_EQ(code("conv2d_fwd_f32", {x, w, makeZeroTensor(DType::F32, {5})}, {y}, ok),
            tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE);
  EXPECT_EQ(code("conv2d_fwd_f32", {x, makeZeroTensor(DType::BF16, {6, 2, 3, 3})}, {y}, ok),
            tpc_lib_api::GLUE_INCOMPATIBLE_DATA_TYPE);
  EXPECT_EQ(code("conv2d_fwd_f32", {makeZeroTensor(DType::F32, {4, 6, 6}), w}, {y}, ok),
            tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE);
  // A 3x3 window does not fit in a 2x2 plane without padding.
  EXPECT_EQ(code("conv2d_fwd_f32", {makeZeroTensor(DType::F32, {1, 4, 2, 2}), w}, {y}, ok),
            tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE);
  // NHWC reads w as [kH, kW, C/g, M]: the NCHW weight has the wrong shape there.
  EXPECT_EQ(code("conv2d_fwd_f32", {makeZeroTensor(DType::F32, {1, 6, 6, 4}), w}, {makeZeroTensor(DType::F32, {1, 4, 4, 6})},
                 paramsOfCase(c, 1)),
            tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE);
  // Backward: dy must have the shape the convolution of dx (x) gives; dw's shape gives the window.
  EXPECT_EQ(code("conv2d_bwd_data_f32", {y, w}, {x}, ok), tpc_lib_api::GLUE_SUCCESS);
  EXPECT_EQ(code("conv2d_bwd_data_f32", {y, w}, {makeZeroTensor(DType::F32, {1, 4, 7, 6})}, ok),
            tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE);
  // With stride 2, dx of 5 or 6 rows both convolve to dy's 2 rows (ConvTranspose's output_padding).
  auto ok2 = ok;
  ok2.stride[0] = ok2.stride[1] = 2;
  auto y2 = makeZeroTensor(DType::F32, {1, 6, 2, 2});
  EXPECT_EQ(code("conv2d_bwd_data_f32", {y2, w}, {makeZeroTensor(DType::F32, {1, 4, 5, 6})}, ok2), tpc_lib_api::GLUE_SUCCESS);
  EXPECT_EQ(code("conv2d_bwd_data_f32", {y2, w}, {makeZeroTensor(DType::F32, {1, 4, 7, 6})}, ok2),
            tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE);
  EXPECT_EQ(code("conv2d_bwd_data_f32", {y, w, y}, {x}, ok), tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_COUNT);
  EXPECT_EQ(code("conv2d_bwd_weights_f32", {x, y}, {w}, ok), tpc_lib_api::GLUE_SUCCESS);
  EXPECT_EQ(code("conv2d_bwd_weights_f32", {x, y}, {makeZeroTensor(DType::F32, {6, 2, 2, 3})}, ok),
            tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE);
  EXPECT_EQ(code("conv2d_bwd_weights_f32", {x, y}, {makeZeroTensor(DType::F32, {6, 4, 3, 3})}, ok),
            tpc_lib_api::GLUE_INCOMPATIBLE_OUTPUT_SIZE);
  EXPECT_EQ(code("conv2d_bwd_weights_bf16", {x, y}, {w}, ok), tpc_lib_api::GLUE_INCOMPATIBLE_DATA_TYPE);
  EXPECT_EQ(code("conv2d_fwd_f32", {makeZeroTensor(DType::F32, {1, 6, 6, 4}), makeZeroTensor(DType::F32, {3, 3, 2, 6})},
                 {makeZeroTensor(DType::F32, {1, 4, 4, 6})}, paramsOfCase(c, 1)),
            tpc_lib_api::GLUE_SUCCESS);
}

}  // namespace
}  // namespace kltest
