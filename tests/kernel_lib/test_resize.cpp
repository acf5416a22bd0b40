// resize_fwd and embedding_bwd (kernels/resize.c, embedding_bwd.c) against host references written here:
// resize's source coordinates from ONNX's formulas with each f32 operation rounded once (the kernel's
// definition), its values in long double (linear within 8 u of the largest neighbour, bf16 one bf16 ulp
// more; nearest exact); embedding_bwd's sums in index order in f32, bit for bit. 1 and 24 cores.
#include <cmath>

#include "kernel_test.h"

namespace kltest {
namespace {

using Shape = std::vector<int64_t>;

std::vector<unsigned char> params(const std::string& guid, const std::vector<std::string>& assignments) {
  const auto* schema = tpc::kernels::paramSchema(guid);
  std::vector<unsigned char> p(schema->size);
  schema->setDefaults(p.data());
  for (const std::string& a : assignments) {
    const size_t eq = a.find('=');
    std::string why;
    EXPECT_TRUE(tpc::kernels::setParam(*schema, p.data(), a.substr(0, eq), a.substr(eq + 1), &why)) << why;
  }
  return p;
}

tpc_lib_api::GlueCodeReturn glueCode(const std::string& guid, std::vector<HostTensor> in, std::vector<HostTensor> out,
                                     std::vector<unsigned char> p) {
  tpc::kernels::NodeRun node;
  node.guid = guid;
  node.inputs = std::move(in);
  node.outputs = std::move(out);
  node.params = std::move(p);
  return tpc::kernels::runNode(node).glue.code;
}

// ------------------------------------------------------------------------------------------ resize

// ONNX's source coordinate of output o (coordinate modes as the kernel numbers them), in f32.
float source(int64_t o, float scale, int64_t n, int mode) {
  volatile float x = static_cast<float>(o), length = scale * static_cast<float>(n);
  switch (mode) {
    case 1: return x / scale;
    case 2: return length == 1.0f ? 0.0f : static_cast<float>(o * (n - 1)) / (length - 1.0f);
    case 3: if (length == 1.0f) return -0.5f; [[fallthrough]];
    case 0: { volatile float q = (x + 0.5f) / scale; return q - 0.5f; }
    default: return (x + 0.5f) / scale;
  }
}

struct Taps {
  int64_t i0, i1;
  long double w;  // of i1
};
Taps taps(float v, int64_t n, bool linear, int nearest) {
  const float f = std::floor(v);
  const float ratio = v - f;
  const int64_t fi = static_cast<int64_t>(f);
  auto clamp = [n](int64_t i) { return std::clamp<int64_t>(i, 0, n - 1); };
  if (linear) return {clamp(fi), clamp(fi + 1), ratio};
  bool up = false;
  if (ratio != 0.0f) up = nearest == 0 ? ratio > 0.5f : nearest == 1 ? ratio >= 0.5f : nearest == 3;
  return {clamp(fi + up), clamp(fi + up), 0};
}

TEST(Resize, ModesCoordinatesAndShapes) {
  struct Case {
    Shape in, out;  // NumPy order; the last two axes resize
  };
  const std::vector<Case> cases = {{{1, 1, 2, 4}, {1, 1, 1, 2}}, {{1, 1, 4, 4}, {1, 1, 8, 8}}, {{2, 3, 5, 7}, {2, 3, 9, 16}},
                                   {{3, 70}, {7, 131}},          {{130}, {67}},               {{2, 9, 200}, {2, 4, 77}},
                                   {{4, 3}, {1, 1}}};
  for (DType t : {DType::F32, DType::BF16})
    for (const Case& c : cases)
      for (int mode : {0, 1})
        for (int coord = 0; coord < 5; ++coord)
          for (int nearest = 0; nearest < (mode == 0 ? 4 : 1); ++nearest) {
            const std::string guid = t == DType::F32 ? "resize_fwd_f32" : "resize_fwd_bf16";
            const size_t r = c.in.size();
            const int64_t n0 = c.in[r - 1], m0 = c.out[r - 1], n1 = r > 1 ? c.in[r - 2] : 1, m1 = r > 1 ? c.out[r - 2] : 1;
            // Scales: output/input (as from sizes), or a factor of its own in dimension 0 of the second case.
            const float s0 = static_cast<float>(static_cast<double>(m0) / static_cast<double>(n0));
            const float s1 = static_cast<float>(static_cast<double>(m1) / static_cast<double>(n1));
            SCOPED_TRACE(guid + " " + shapeName(c.in) + " -> " + shapeName(c.out) + " mode " + std::to_string(mode) +
                         " coordinates " + std::to_string(coord) + " nearest " + std::to_string(nearest));
            HostTensor x = tensorOf(t, c.in, randomValues(count(c.in), -4, 4, 11));
            char scales[64];
            std::snprintf(scales, sizeof scales, "scale=%.9g,%.9g", s0, s1);
            const auto p = params(guid, {"mode=" + std::to_string(mode), "coordinate_mode=" + std::to_string(coord),
                                         "nearest_mode=" + std::to_string(nearest), scales});
            auto out = runKernel(guid, {x}, {{t, c.out}}, p, 24);
            auto one = runKernel(guid, {x}, {{t, c.out}}, p, 1);
            if (out.empty() || one.empty()) continue;
            ASSERT_EQ(bitsOfTensor(out[0]), bitsOfTensor(one[0])) << "24 cores and 1 core differ";
            const auto in = valuesOf(x), got = valuesOf(out[0]);
            const size_t planes = count(c.in) / static_cast<size_t>(n0 * n1);
            for (size_t pl = 0; pl < planes; ++pl)
              for (int64_t y = 0; y < m1; ++y)
                for (int64_t xo = 0; xo < m0; ++xo) {
                  const Taps ty = taps(source(y, s1, n1, coord), n1, mode == 1, nearest);
                  const Taps tx = taps(source(xo, s0, n0, coord), n0, mode == 1, nearest);
                  auto at = [&](int64_t yy, int64_t xx) { return in[pl * static_cast<size_t>(n0 * n1) + static_cast<size_t>(yy * n0 + xx)]; };
                  const long double r0 = (1 - tx.w) * at(ty.i0, tx.i0) + tx.w * at(ty.i0, tx.i1);
                  const long double r1 = (1 - tx.w) * at(ty.i1, tx.i0) + tx.w * at(ty.i1, tx.i1);
                  const long double want = (1 - ty.w) * r0 + ty.w * r1;
                  long double big = 0;
                  for (int64_t yy : {ty.i0, ty.i1})
                    for (int64_t xx : {tx.i0, tx.i1}) big = std::max(big, std::fabs(at(yy, xx)));
                  long double bound = mode == 1 ? 8 * kU32 * big : 0;
                  if (t == DType::BF16 && mode == 1) bound += ulpOfBF16(want);
                  const size_t f = pl * static_cast<size_t>(m0 * m1) + static_cast<size_t>(y * m0 + xo);
                  ASSERT_LE(std::fabs(got[f] - want), bound) << "output (" << y << ", " << xo << ") of plane " << pl << ": "
                                                             << static_cast<double>(got[f]) << ", expected "
                                                             << static_cast<double>(want);
                }
          }
}

TEST(Resize, Rejections) {
  using tpc::makeZeroTensor;
  auto run = [](const Shape& in, const Shape& out, const std::vector<std::string>& a) {
    return glueCode("resize_fwd_f32", {makeZeroTensor(DType::F32, in)}, {makeZeroTensor(DType::F32, out)},
                    params("resize_fwd_f32", a));
  };
  EXPECT_EQ(run({1, 2, 4, 4}, {1, 2, 8, 8}, {"mode=2"}), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  EXPECT_EQ(run({1, 2, 4, 4}, {1, 2, 8, 8}, {"coordinate_mode=5"}), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  EXPECT_EQ(run({1, 2, 4, 4}, {1, 2, 8, 8}, {"nearest_mode=4"}), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  EXPECT_EQ(run({1, 2, 4, 4}, {1, 4, 8, 8}, {}), tpc_lib_api::GLUE_INCOMPATIBLE_OUTPUT_SIZE);
  EXPECT_EQ(run({1, 2, 4, 4}, {1, 2, 8, 8}, {"scale=-2,2"}), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  EXPECT_EQ(run({2, 4, 4}, {1, 2, 8, 8}, {}), tpc_lib_api::GLUE_INCOMPATIBLE_OUTPUT_SIZE);
}

// ------------------------------------------------------------------------------------------ embedding_bwd

TEST(EmbeddingBwd, DuplicatesInIndexOrderBitForBit) {
  struct Case {
    Shape indexShape;
    int64_t d, v;
  };
  const std::vector<Case> cases = {{{6}, 100, 10}, {{2, 3}, 1, 4}, {{2, 2, 3}, 300, 7}, {{37}, 700, 5}, {{3, 1, 2, 5}, 129, 50}, {{9}, 64, 1}};
  for (DType t : {DType::F32, DType::BF16})
    for (const Case& c : cases) {
      const std::string guid = t == DType::F32 ? "embedding_bwd_f32" : "embedding_bwd_bf16";
      Shape dyShape = c.indexShape;
      dyShape.push_back(c.d);
      SCOPED_TRACE(guid + " dy " + shapeName(dyShape) + " V " + std::to_string(c.v));
      const size_t n = count(c.indexShape);
      std::vector<double> idx(n);
      for (size_t i = 0; i < n; ++i) idx[i] = static_cast<double>(static_cast<int64_t>((i * 5 + i / 3) % static_cast<size_t>(c.v + 2)) - 1);
      HostTensor dy = tensorOf(t, dyShape, randomValues(count(dyShape), -4, 4, 13)), ix = tensorOf(DType::I32, c.indexShape, idx);
      auto out = runKernel(guid, {dy, ix}, {{t, {c.v, c.d}}}, {}, 24);
      auto one = runKernel(guid, {dy, ix}, {{t, {c.v, c.d}}}, {}, 1);
      if (out.empty() || one.empty()) continue;
      ASSERT_EQ(bitsOfTensor(out[0]), bitsOfTensor(one[0])) << "24 cores and 1 core differ";
      const auto g = valuesOf(dy);
      const auto got = bitsOfTensor(out[0]);
      for (int64_t v = 0; v < c.v; ++v)
        for (int64_t e = 0; e < c.d; ++e) {
          float s = 0.0f;  // in index order, in f32, as the kernel must
          for (size_t i = 0; i < n; ++i)
            if (static_cast<int64_t>(idx[i]) == v) s += static_cast<float>(g[i * static_cast<size_t>(c.d) + static_cast<size_t>(e)]);
          const uint32_t want = t == DType::F32 ? toF32(s) : toBF16(s);
          ASSERT_EQ(got[static_cast<size_t>(v * c.d + e)], want) << "dweight[" << v << ", " << e << "]";
        }
    }
}

TEST(EmbeddingBwd, Rejections) {
  using tpc::makeZeroTensor;
  EXPECT_EQ(glueCode("embedding_bwd_f32", {makeZeroTensor(DType::F32, {6, 8}), makeZeroTensor(DType::I32, {5})},
                     {makeZeroTensor(DType::F32, {4, 8})}, {}),
            tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE);
  EXPECT_EQ(glueCode("embedding_bwd_f32", {makeZeroTensor(DType::F32, {6, 8}), makeZeroTensor(DType::I32, {6})},
                     {makeZeroTensor(DType::F32, {4, 9})}, {}),
            tpc_lib_api::GLUE_INCOMPATIBLE_OUTPUT_SIZE);
  EXPECT_EQ(glueCode("embedding_bwd_f32", {makeZeroTensor(DType::F32, {6, 8}), makeZeroTensor(DType::F32, {6})},
                     {makeZeroTensor(DType::F32, {4, 8})}, {}),
            tpc_lib_api::GLUE_INCOMPATIBLE_DATA_TYPE);
}

}  // namespace
}  // namespace kltest
