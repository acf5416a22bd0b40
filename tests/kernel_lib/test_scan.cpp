// cumsum, topk and hardmax (kernels/cumsum.c, topk.c, hardmax.c; glue/scan.cpp) against host references that walk each row in
// long double: every dimension of shapes that are not multiples of a vector, both types (cumsum also i32),
// every flag, 1 and 24 cores (the same bits). Bounds: a running sum of m terms within m u sum|terms| (u =
// 2^-24; any order of the sums); bf16 one bf16 ulp more; i32 exact (wrapping); topk and hardmax exact (they select).
#include <algorithm>
#include <numeric>

#include "kernel_test.h"

namespace kltest {
namespace {

using Shape = std::vector<int64_t>;

const char* suffix(DType t) { return t == DType::F32 ? "f32" : t == DType::BF16 ? "bf16" : "i32"; }

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

// ------------------------------------------------------------------------------------------ cumsum

TEST(CumSum, EveryDimensionFlagAndType) {
  const std::vector<Shape> shapes = {{7}, {130}, {3, 130}, {129, 3}, {2, 3, 67}, {2, 70, 3}, {2, 83, 5}, {2, 1, 3, 2, 131}};
  for (DType t : {DType::F32, DType::BF16, DType::I32})
    for (const Shape& shape : shapes)
      for (int dim = 0; dim < static_cast<int>(shape.size()); ++dim)
        for (int flags = 0; flags < 4; ++flags) {
          const int exclusive = flags & 1, reverse = flags >> 1;
          const std::string guid = std::string("cumsum_fwd_") + suffix(t);
          SCOPED_TRACE(guid + " " + shapeName(shape) + " dim " + std::to_string(dim) + " exclusive " +
                       std::to_string(exclusive) + " reverse " + std::to_string(reverse));
          const auto v = t == DType::I32 ? randomValues(count(shape), -1e9, 1e9, 5) : randomValues(count(shape), -4, 4, 5);
          std::vector<double> vals = v;
          if (t == DType::I32)
            for (double& x : vals) x = std::trunc(x);
          HostTensor x = tensorOf(t, shape, vals);
          const auto p = params(guid, {"dim=" + std::to_string(dim), "exclusive=" + std::to_string(exclusive),
                                       "reverse=" + std::to_string(reverse)});
          auto out = runKernel(guid, {x}, {{t, shape}}, p, 24);
          auto one = runKernel(guid, {x}, {{t, shape}}, p, 1);
          if (out.empty() || one.empty()) continue;
          ASSERT_EQ(bitsOfTensor(out[0]), bitsOfTensor(one[0])) << "24 cores and 1 core differ";
          const auto in = valuesOf(x), got = valuesOf(out[0]);
          const auto inBits = bitsOfTensor(x), gotBits = bitsOfTensor(out[0]);
          for (auto row : rowsOf(shape, dim)) {
            if (reverse) std::reverse(row.begin(), row.end());
            long double s = 0, a = 0;
            int64_t si = 0;
            long double m = 0;
            for (size_t f : row) {
              const long double before = s, beforeA = a;
              const int64_t beforeI = si;
              s += in[f], a += std::fabs(in[f]);
              si += static_cast<int32_t>(inBits[f]);
              m += 1;
              if (t == DType::I32) {
                const uint32_t want = static_cast<uint32_t>(exclusive ? beforeI : si);
                ASSERT_EQ(gotBits[f], want) << "element " << f;
                continue;
              }
              const long double want = exclusive ? before : s, terms = exclusive ? m - 1 : m;
              long double bound = terms * kU32 * (exclusive ? beforeA : a);
              if (t == DType::BF16) bound += ulpOfBF16(want);
              ASSERT_LE(std::fabs(got[f] - want), bound) << "element " << f << ": " << static_cast<double>(got[f])
                                                         << ", expected " << static_cast<double>(want);
            }
          }
        }
}

TEST(CumSum, Rejections) {
  using tpc::makeZeroTensor;
  EXPECT_EQ(glueCode("cumsum_fwd_f32", {makeZeroTensor(DType::F32, {3, 4})}, {makeZeroTensor(DType::F32, {3, 4})},
                     params("cumsum_fwd_f32", {"dim=2"})),
            tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  EXPECT_EQ(glueCode("cumsum_fwd_f32", {makeZeroTensor(DType::F32, {3, 4})}, {makeZeroTensor(DType::F32, {3, 4})},
                     params("cumsum_fwd_f32", {"exclusive=2"})),
            tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  EXPECT_EQ(glueCode("cumsum_fwd_f32", {makeZeroTensor(DType::F32, {3, 4})}, {makeZeroTensor(DType::F32, {4, 3})},
                     params("cumsum_fwd_f32", {})),
            tpc_lib_api::GLUE_INCOMPATIBLE_OUTPUT_SIZE);
  EXPECT_EQ(glueCode("cumsum_fwd_i32", {makeZeroTensor(DType::F32, {3, 4})}, {makeZeroTensor(DType::I32, {3, 4})},
                     params("cumsum_fwd_i32", {})),
            tpc_lib_api::GLUE_INCOMPATIBLE_DATA_TYPE);
}

// ------------------------------------------------------------------------------------------ topk

TEST(TopK, EveryDimensionKAndTies) {
  const std::vector<Shape> shapes = {{7}, {130}, {3, 130}, {129, 3}, {2, 3, 67}, {2, 70, 3}, {2, 1, 3, 2, 131}};
  for (DType t : {DType::F32, DType::BF16})
    for (const Shape& shape : shapes)
      for (int dim = 0; dim < static_cast<int>(shape.size()); ++dim)
        for (int largest : {1, 0})
          for (int ties : {0, 1}) {
            const int64_t n = shape[shape.size() - 1 - static_cast<size_t>(dim)];
            for (int64_t k : std::vector<int64_t>{1, std::min<int64_t>(n, 5), n}) {
              if (k == n && n > 70) continue;  // k passes over the row: the whole row sorted on long rows is slow
              const std::string guid = std::string("topk_fwd_") + suffix(t);
              SCOPED_TRACE(guid + " " + shapeName(shape) + " dim " + std::to_string(dim) + " k " + std::to_string(k) +
                           " largest " + std::to_string(largest) + " ties " + std::to_string(ties));
              auto vals = randomValues(count(shape), -4, 4, 7);
              if (ties)
                for (double& v : vals) v = std::round(v);  // nine values: many equal ones in every row
              HostTensor x = tensorOf(t, shape, vals);
              Shape outShape = shape;
              outShape[shape.size() - 1 - static_cast<size_t>(dim)] = k;
              const auto p = params(guid, {"dim=" + std::to_string(dim), "k=" + std::to_string(k),
                                           "largest=" + std::to_string(largest)});
              auto out = runKernel(guid, {x}, {{t, outShape}, {DType::I32, outShape}}, p, 24);
              auto one = runKernel(guid, {x}, {{t, outShape}, {DType::I32, outShape}}, p, 1);
              if (out.empty() || one.empty()) continue;
              ASSERT_EQ(bitsOfTensor(out[1]), bitsOfTensor(one[1])) << "24 cores and 1 core differ";
              const auto in = valuesOf(x);
              const auto inBits = bitsOfTensor(x), gotBits = bitsOfTensor(out[0]), gotIdx = bitsOfTensor(out[1]);
              const auto rows = rowsOf(shape, dim), outRows = rowsOf(outShape, dim);
              for (size_t r = 0; r < rows.size(); ++r) {
                std::vector<size_t> order(static_cast<size_t>(n));
                std::iota(order.begin(), order.end(), 0);
                std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
                  const long double va = in[rows[r][a]], vb = in[rows[r][b]];
                  return largest ? va > vb : va < vb;
                });
                for (size_t j = 0; j < static_cast<size_t>(k); ++j) {
                  ASSERT_EQ(gotIdx[outRows[r][j]], order[j]) << "row " << r << " pick " << j;
                  ASSERT_EQ(gotBits[outRows[r][j]], inBits[rows[r][order[j]]]) << "row " << r << " pick " << j;
                }
              }
            }
          }
}

TEST(TopK, Rejections) {
  using tpc::makeZeroTensor;
  auto run = [](const std::vector<std::string>& a, const Shape& out, DType it = DType::I32) {
    return glueCode("topk_fwd_f32", {makeZeroTensor(DType::F32, {3, 4})},
                    {makeZeroTensor(DType::F32, out), makeZeroTensor(it, out)}, params("topk_fwd_f32", a));
  };
  EXPECT_EQ(run({"k=5"}, {3, 5}), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  EXPECT_EQ(run({"k=0"}, {3, 0}), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  EXPECT_EQ(run({"k=2", "largest=3"}, {3, 2}), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  EXPECT_EQ(run({"k=2"}, {3, 3}), tpc_lib_api::GLUE_INCOMPATIBLE_OUTPUT_SIZE);
  EXPECT_EQ(run({"k=2"}, {3, 2}, DType::F32), tpc_lib_api::GLUE_INCOMPATIBLE_DATA_TYPE);
  EXPECT_EQ(run({"k=2", "dim=3"}, {3, 2}), tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
}

// ------------------------------------------------------------------------------------------ hardmax

TEST(Hardmax, EveryDimensionAndTies) {
  const std::vector<Shape> shapes = {{7}, {130}, {3, 130}, {129, 3}, {2, 3, 67}, {2, 70, 3}, {2, 1, 3, 2, 131}};
  for (DType t : {DType::F32, DType::BF16})
    for (const Shape& shape : shapes)
      for (int dim = 0; dim < static_cast<int>(shape.size()); ++dim)
        for (int ties : {0, 1}) {
          const std::string guid = std::string("hardmax_fwd_") + suffix(t);
          SCOPED_TRACE(guid + " " + shapeName(shape) + " dim " + std::to_string(dim) + " ties " + std::to_string(ties));
          auto vals = randomValues(count(shape), -4, 4, 9);
          if (ties)
            for (double& v : vals) v = std::min(std::round(v), 1.0);  // the maximum repeats in most rows
          HostTensor x = tensorOf(t, shape, vals);
          const auto p = params(guid, {"dim=" + std::to_string(dim)});
          auto out = runKernel(guid, {x}, {{t, shape}}, p, 24);
          auto one = runKernel(guid, {x}, {{t, shape}}, p, 1);
          if (out.empty() || one.empty()) continue;
          ASSERT_EQ(bitsOfTensor(out[0]), bitsOfTensor(one[0])) << "24 cores and 1 core differ";
          const auto in = valuesOf(x), got = valuesOf(out[0]);
          for (const auto& row : rowsOf(shape, dim)) {
            size_t first = 0;
            for (size_t i = 1; i < row.size(); ++i)
              if (in[row[i]] > in[row[first]]) first = i;
            for (size_t i = 0; i < row.size(); ++i) ASSERT_EQ(got[row[i]], i == first ? 1 : 0) << "element " << row[i];
          }
        }
}

TEST(Hardmax, Rejections) {
  using tpc::makeZeroTensor;
  EXPECT_EQ(glueCode("hardmax_fwd_f32", {makeZeroTensor(DType::F32, {3, 4})}, {makeZeroTensor(DType::F32, {3, 4})},
                     params("hardmax_fwd_f32", {"dim=2"})),
            tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT);
  EXPECT_EQ(glueCode("hardmax_fwd_f32", {makeZeroTensor(DType::F32, {3, 4})}, {makeZeroTensor(DType::BF16, {3, 4})},
                     params("hardmax_fwd_f32", {})),
            tpc_lib_api::GLUE_INCOMPATIBLE_DATA_TYPE);
}

}  // namespace
}  // namespace kltest
