// Data movement (transpose, slice, pad, expand, identity, concat, gather, embedding_fwd) against host
// references that index the elements directly, for each element size (f32, bf16, u8 and i32), shapes that
// are not multiples of a vector, and every dimension. Bit-exact: the kernels move elements unchanged.
#include <numeric>

#include "kernel_test.h"

namespace kltest {
namespace {

// Row-major (NumPy) strides and the multi-index of a flat index.
std::vector<size_t> stridesOf(const std::vector<int64_t>& shape) {
  std::vector<size_t> s(shape.size(), 1);
  for (size_t k = shape.size(); k-- > 1;) s[k - 1] = s[k] * static_cast<size_t>(shape[k]);
  return s;
}
std::vector<int64_t> indexOf(size_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> ix(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    ix[k] = static_cast<int64_t>(flat % static_cast<size_t>(shape[k]));
    flat /= static_cast<size_t>(shape[k]);
  }
  return ix;
}
size_t flatOf(const std::vector<int64_t>& ix, const std::vector<int64_t>& shape) {
  size_t f = 0;
  const auto s = stridesOf(shape);
  for (size_t k = 0; k < ix.size(); ++k) f += static_cast<size_t>(ix[k]) * s[k];
  return f;
}

// Distinct bit patterns for every element (NaN payloads and denormals too: nothing may be canonicalized).
HostTensor patterned(DType t, const std::vector<int64_t>& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> bits(count(shape));
  for (uint32_t& b : bits) b = rng();
  return tensorOfBits(t, shape, bits);
}

const char* suffix(DType t) {
  switch (t) {
    case DType::F32: return "f32";
    case DType::BF16: return "bf16";
    case DType::U8: return "u8";
    default: return "i32";
  }
}
const DType kTypes[] = {DType::F32, DType::BF16, DType::U8, DType::I32};

std::string list(const std::vector<int>& v) {
  std::string s;
  for (int x : v) {
    if (!s.empty()) s += ',';
    s += std::to_string(x);
  }
  return s;
}

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

// ------------------------------------------------------------------------------------------ transpose

TEST(Transpose, EveryPermutationOfThreeAndOthers) {
  struct Case {
    std::vector<int64_t> shape;
    std::vector<int> axes;  // NumPy: output axis j is input axis axes[j]
  };
  std::vector<Case> cases = {{{3, 70}, {1, 0}}, {{130, 3}, {1, 0}}, {{2, 3, 67}, {2, 1, 0}}, {{2, 3, 67}, {0, 2, 1}},
                             {{2, 3, 67}, {1, 0, 2}}, {{2, 3, 67}, {1, 2, 0}}, {{2, 3, 67}, {2, 0, 1}},
                             {{2, 1, 3, 2, 5}, {4, 2, 0, 3, 1}}, {{5}, {0}}};
  for (DType t : kTypes)
    for (const Case& c : cases) {
      const size_t r = c.shape.size();
      std::vector<int64_t> outShape(r);
      std::vector<int> perm(r);  // TPC dimensions
      for (size_t j = 0; j < r; ++j) {
        outShape[j] = c.shape[static_cast<size_t>(c.axes[j])];
        perm[r - 1 - j] = static_cast<int>(r - 1) - c.axes[j];
      }
      const std::string guid = std::string("transpose_fwd_") + suffix(t);
      SCOPED_TRACE(guid + " " + shapeName(c.shape) + " perm " + list(perm));
      HostTensor x = patterned(t, c.shape, 3);
      auto out = runKernel(guid, {x}, {{t, outShape}}, params(guid, {"perm=" + list(perm)}));
      if (out.empty()) continue;
      const auto in = bitsOfTensor(x), got = bitsOfTensor(out[0]);
      for (size_t f = 0; f < got.size(); ++f) {
        const auto o = indexOf(f, outShape);
        std::vector<int64_t> i(r);
        for (size_t j = 0; j < r; ++j) i[static_cast<size_t>(c.axes[j])] = o[j];
        ASSERT_EQ(got[f], in[flatOf(i, c.shape)]) << "output element " << f;
      }
    }
}

// ------------------------------------------------------------------------------------------ slice, pad, expand

TEST(Slice, StartsAndSteps) {
  struct Case {
    std::vector<int64_t> shape, outShape;
    std::vector<int> start, step;  // NumPy order
  };
  const std::vector<Case> cases = {{{3, 200}, {2, 70}, {1, 5}, {1, 2}},   {{3, 200}, {3, 130}, {2, 199}, {-1, -1}},
                                   {{4, 131}, {2, 131}, {0, 0}, {2, 1}},  {{2, 5, 67}, {1, 2, 60}, {1, 4, 7}, {1, -3, 1}},
                                   {{300}, {100}, {2}, {3}}};
  for (DType t : kTypes)
    for (const Case& c : cases) {
      const size_t r = c.shape.size();
      std::vector<int> start(c.start.rbegin(), c.start.rend()), step(c.step.rbegin(), c.step.rend());
      const std::string guid = std::string("slice_fwd_") + suffix(t);
      SCOPED_TRACE(guid + " " + shapeName(c.shape) + " -> " + shapeName(c.outShape));
      HostTensor x = patterned(t, c.shape, 5);
      auto out = runKernel(guid, {x}, {{t, c.outShape}}, params(guid, {"start=" + list(start), "step=" + list(step)}));
      if (out.empty()) continue;
      const auto in = bitsOfTensor(x), got = bitsOfTensor(out[0]);
      for (size_t f = 0; f < got.size(); ++f) {
        auto i = indexOf(f, c.outShape);
        for (size_t k = 0; k < r; ++k) i[k] = c.start[k] + c.step[k] * i[k];
        ASSERT_EQ(got[f], in[flatOf(i, c.shape)]) << "output element " << f;
      }
    }
}

TEST(Pad, ConstantEdgeAndReflect) {
  struct Case {
    std::vector<int64_t> shape;
    std::vector<int> before, after;  // NumPy order
  };
  const std::vector<Case> cases = {{{3, 70}, {1, 3}, {2, 5}}, {{4, 130}, {0, 0}, {3, 1}}, {{2, 3, 67}, {1, 2, 66}, {0, 1, 2}},
                                   {{5, 9}, {3, 8}, {4, 8}},  {{5, 9}, {-1, 2}, {0, -3}}};
  for (DType t : kTypes)
    for (int mode : {0, 1, 2})
      for (const Case& c : cases) {
        const size_t r = c.shape.size();
        bool reflectable = true, cropped = false;
        std::vector<int64_t> outShape(r);
        for (size_t k = 0; k < r; ++k) {
          outShape[k] = c.shape[k] + c.before[k] + c.after[k];
          reflectable = reflectable && c.before[k] < c.shape[k] && c.after[k] < c.shape[k];
          cropped = cropped || c.before[k] < 0 || c.after[k] < 0;
        }
        if ((mode == 2 && !reflectable) || (mode != 0 && cropped)) continue;
        const std::string guid = std::string("pad_fwd_") + suffix(t);
        SCOPED_TRACE(guid + " mode " + std::to_string(mode) + " " + shapeName(c.shape) + " -> " + shapeName(outShape));
        HostTensor x = patterned(t, c.shape, 7);
        const double value = t == DType::U8 ? 200 : -2.5;
        auto out = runKernel(guid, {x}, {{t, outShape}},
                             params(guid, {"before=" + list({c.before.rbegin(), c.before.rend()}),
                                           "after=" + list({c.after.rbegin(), c.after.rend()}), "mode=" + std::to_string(mode),
                                           "value=" + std::to_string(value)}));
        if (out.empty()) continue;
        const auto in = bitsOfTensor(x), got = bitsOfTensor(out[0]);
        const uint32_t fill = bitsOfTensor(tensorOf(t, {1}, {value}))[0];
        for (size_t f = 0; f < got.size(); ++f) {
          auto i = indexOf(f, outShape);
          bool outside = false;
          for (size_t k = 0; k < r; ++k) {
            int64_t v = i[k] - c.before[k];
            const int64_t n = c.shape[k];
            if (mode == 1) v = std::clamp<int64_t>(v, 0, n - 1);
            if (mode == 2) v = v < 0 ? -v : v >= n ? 2 * (n - 1) - v : v;
            outside = outside || v < 0 || v >= n;
            i[k] = v;
          }
          ASSERT_EQ(got[f], outside ? fill : in[flatOf(i, c.shape)]) << "output element " << f;
        }
      }
}

TEST(Expand, BroadcastsEveryDimensionAndCopies) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{1, 70}, {3, 70}}, {{3, 1}, {3, 130}}, {{1, 1, 67}, {2, 3, 67}}, {{2, 1, 1}, {2, 3, 5}}, {{1}, {200}}, {{4, 9}, {4, 9}}};
  for (DType t : kTypes)
    for (const auto& [shape, outShape] : cases)
      for (const char* op : {"expand", "identity"}) {
        if (std::string(op) == "identity" && shape != outShape) continue;
        const std::string guid = std::string(op) + "_fwd_" + suffix(t);
        SCOPED_TRACE(guid + " " + shapeName(shape) + " -> " + shapeName(outShape));
        HostTensor x = patterned(t, shape, 9);
        auto out = runKernel(guid, {x}, {{t, outShape}});
        if (out.empty()) continue;
        const auto in = bitsOfTensor(x), got = bitsOfTensor(out[0]);
        for (size_t f = 0; f < got.size(); ++f) {
          auto i = indexOf(f, outShape);
          for (size_t k = 0; k < i.size(); ++k)
            if (shape[k] == 1) i[k] = 0;
          ASSERT_EQ(got[f], in[flatOf(i, shape)]) << "output element " << f;
        }
      }
}

// ------------------------------------------------------------------------------------------ concat

TEST(Concat, EveryDimensionAndUnalignedJoins) {
  struct Case {
    std::vector<std::vector<int64_t>> shapes;
    int axis;  // NumPy
  };
  const std::vector<Case> cases = {{{{3, 70}, {3, 5}, {3, 129}}, 1}, {{{3, 7}, {2, 7}}, 0}, {{{2, 3, 1}, {2, 3, 64}, {2, 3, 3}, {2, 3, 200}}, 2},
                                   {{{2, 1, 67}, {2, 4, 67}}, 1}, {{{1}, {1}, {1}, {1}, {1}, {1}, {1}, {300}}, 0}};
  for (DType t : kTypes)
    for (const Case& c : cases) {
      std::vector<HostTensor> inputs;
      std::vector<int64_t> outShape = c.shapes[0];
      outShape[static_cast<size_t>(c.axis)] = 0;
      for (size_t k = 0; k < c.shapes.size(); ++k) {
        inputs.push_back(patterned(t, c.shapes[k], static_cast<uint32_t>(11 + k)));
        outShape[static_cast<size_t>(c.axis)] += c.shapes[k][static_cast<size_t>(c.axis)];
      }
      const std::string guid = std::string("concat_fwd_") + suffix(t);
      SCOPED_TRACE(guid + " -> " + shapeName(outShape) + " axis " + std::to_string(c.axis));
      const int dim = static_cast<int>(outShape.size()) - 1 - c.axis;
      auto out = runKernel(guid, inputs, {{t, outShape}}, params(guid, {"dim=" + std::to_string(dim)}));
      if (out.empty()) continue;
      const auto got = bitsOfTensor(out[0]);
      for (size_t f = 0; f < got.size(); ++f) {
        auto i = indexOf(f, outShape);
        size_t k = 0;
        while (i[static_cast<size_t>(c.axis)] >= c.shapes[k][static_cast<size_t>(c.axis)])
          i[static_cast<size_t>(c.axis)] -= c.shapes[k++][static_cast<size_t>(c.axis)];
        ASSERT_EQ(got[f], bitsOfTensor(inputs[k])[flatOf(i, c.shapes[k])]) << "output element " << f;
      }
    }
}

// ------------------------------------------------------------------------------------------ gather

TEST(Gather, EveryAxisNegativeAndOutOfRangeIndices) {
  struct Case {
    std::vector<int64_t> shape, indexShape;
    int axis;  // NumPy
  };
  const std::vector<Case> cases = {{{5, 70}, {3}, 0}, {{5, 70}, {2, 4}, 1}, {{4, 3, 130}, {2, 2}, 1}, {{6, 9}, {7}, 1}, {{10, 3}, {1, 4}, 0}};
  for (DType t : kTypes)
    for (const Case& c : cases) {
      const int64_t n = c.shape[static_cast<size_t>(c.axis)];
      std::vector<double> idx;
      for (size_t k = 0; k < count(c.indexShape); ++k) idx.push_back(static_cast<double>(static_cast<int64_t>(k * 7) % (2 * n + 2) - n - 1));
      std::vector<int64_t> outShape(c.shape.begin(), c.shape.begin() + c.axis);
      outShape.insert(outShape.end(), c.indexShape.begin(), c.indexShape.end());
      outShape.insert(outShape.end(), c.shape.begin() + c.axis + 1, c.shape.end());
      const std::string guid = std::string("gather_fwd_") + suffix(t);
      SCOPED_TRACE(guid + " " + shapeName(c.shape) + " by " + shapeName(c.indexShape) + " axis " + std::to_string(c.axis));
      HostTensor x = patterned(t, c.shape, 13), ix = tensorOf(DType::I32, c.indexShape, idx);
      const int dim = static_cast<int>(c.shape.size()) - 1 - c.axis;
      auto out = runKernel(guid, {x, ix}, {{t, outShape}}, params(guid, {"dim=" + std::to_string(dim)}));
      if (out.empty()) continue;
      const auto in = bitsOfTensor(x), got = bitsOfTensor(out[0]);
      const size_t q = c.indexShape.size(), a = static_cast<size_t>(c.axis);
      for (size_t f = 0; f < got.size(); ++f) {
        const auto o = indexOf(f, outShape);
        std::vector<int64_t> which(o.begin() + static_cast<long>(a), o.begin() + static_cast<long>(a + q));
        int64_t v = static_cast<int64_t>(idx[flatOf(which, c.indexShape)]);
        v = v < 0 ? v + n : v;
        if (v < 0 || v >= n) {
          ASSERT_EQ(got[f], 0u) << "output element " << f << " (index out of range gives zeros)";
          continue;
        }
        std::vector<int64_t> i(o.begin(), o.begin() + static_cast<long>(a));
        i.push_back(v);
        i.insert(i.end(), o.begin() + static_cast<long>(a + q), o.end());
        ASSERT_EQ(got[f], in[flatOf(i, c.shape)]) << "output element " << f;
      }
    }
}

TEST(Embedding, RowsOfTheTable) {
  for (DType t : {DType::F32, DType::BF16}) {
    const std::string guid = std::string("embedding_fwd_") + suffix(t);
    HostTensor w = patterned(t, {11, 100}, 17), ix = tensorOf(DType::I32, {2, 3}, {3, 0, 10, 3, 7, 1});
    auto out = runKernel(guid, {w, ix}, {{t, {2, 3, 100}}});
    if (out.empty()) continue;
    const auto in = bitsOfTensor(w), got = bitsOfTensor(out[0]);
    const int rows[] = {3, 0, 10, 3, 7, 1};
    for (size_t f = 0; f < got.size(); ++f) ASSERT_EQ(got[f], in[static_cast<size_t>(rows[f / 100]) * 100 + f % 100]) << f;
  }
}

TEST(Trilu, UpperAndLowerEveryDiagonal) {
  for (DType t : kTypes)
    for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{5, 70}, {130, 3}, {2, 3, 4, 300}, {1, 1}})
      for (int upper : {0, 1})
        for (int k : {-400, -2, 0, 1, 65, 300}) {
          const std::string guid = std::string("trilu_fwd_") + suffix(t);
          SCOPED_TRACE(guid + " " + shapeName(shape) + " k " + std::to_string(k) + " upper " + std::to_string(upper));
          HostTensor x = patterned(t, shape, 19);
          auto out = runKernel(guid, {x}, {{t, shape}}, params(guid, {"k=" + std::to_string(k), "upper=" + std::to_string(upper)}));
          if (out.empty()) continue;
          const auto in = bitsOfTensor(x), got = bitsOfTensor(out[0]);
          const int64_t cols = shape.back(), rows = shape[shape.size() - 2];
          for (size_t f = 0; f < got.size(); ++f) {
            const int64_t j = static_cast<int64_t>(f) % cols, i = static_cast<int64_t>(f) / cols % rows;
            const bool keep = upper ? j - i >= k : j - i <= k;
            ASSERT_EQ(got[f], keep ? in[f] : 0u) << "element " << f;
          }
        }
}

TEST(Movement, RejectsWhatItCannotDo) {
  auto code = [](const std::string& guid, std::vector<HostTensor> in, std::vector<HostTensor> out, std::vector<unsigned char> p) {
    tpc::kernels::NodeRun node;
    node.guid = guid;
    node.inputs = std::move(in);
    node.outputs = std::move(out);
    node.params = std::move(p);
    return tpc::kernels::runNode(node).glue.code;
  };
  using tpc::makeZeroTensor;
  EXPECT_EQ(code("transpose_fwd_f32", {makeZeroTensor(DType::F32, {3, 4})}, {makeZeroTensor(DType::F32, {4, 3})},
                 params("transpose_fwd_f32", {"perm=1,1"})),
            tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  EXPECT_EQ(code("transpose_fwd_f32", {makeZeroTensor(DType::F32, {3, 4})}, {makeZeroTensor(DType::F32, {3, 4})},
                 params("transpose_fwd_f32", {"perm=1,0"})),
            tpc_lib_api::GLUE_INCOMPATIBLE_OUTPUT_SIZE);
  EXPECT_EQ(code("slice_fwd_f32", {makeZeroTensor(DType::F32, {10})}, {makeZeroTensor(DType::F32, {6})},
                 params("slice_fwd_f32", {"start=5", "step=1"})),
            tpc_lib_api::GLUE_INCOMPATIBLE_OUTPUT_SIZE);
  EXPECT_EQ(code("pad_fwd_f32", {makeZeroTensor(DType::F32, {3})}, {makeZeroTensor(DType::F32, {9})},
                 params("pad_fwd_f32", {"before=3", "after=3", "mode=2"})),
            tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  EXPECT_EQ(code("concat_fwd_f32", {makeZeroTensor(DType::F32, {2, 3}), makeZeroTensor(DType::F32, {3, 3})},
                 {makeZeroTensor(DType::F32, {5, 3})}, params("concat_fwd_f32", {"dim=0"})),
            tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE);
  EXPECT_EQ(code("gather_fwd_f32", {makeZeroTensor(DType::F32, {5, 3}), makeZeroTensor(DType::F32, {2})},
                 {makeZeroTensor(DType::F32, {2, 3})}, params("gather_fwd_f32", {"dim=1"})),
            tpc_lib_api::GLUE_INCOMPATIBLE_DATA_TYPE);
}

}  // namespace
}  // namespace kltest
