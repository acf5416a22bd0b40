#include "tpc/support/host_tensor.h"

#include <gtest/gtest.h>

#include <vector>

namespace tpc {
namespace {

TEST(HostTensor, NumElementsIsTheProductAndOneForScalars) {
  HostTensor t;
  EXPECT_EQ(t.numElements(), 1u);  // shape () is a scalar
  t.shape = {3, 100};
  EXPECT_EQ(t.numElements(), 300u);
  t.dtype = DType::BF16;
  EXPECT_EQ(t.numBytes(), 600u);
  t.shape = {2, 0, 4};
  EXPECT_EQ(t.numElements(), 0u);
}

TEST(HostTensor, FormatShapeLikePythonTuples) {
  EXPECT_EQ(formatShape(std::vector<int64_t>{}), "()");
  EXPECT_EQ(formatShape(std::vector<int64_t>{3}), "(3,)");
  EXPECT_EQ(formatShape(std::vector<int64_t>{2, 3}), "(2, 3)");
  EXPECT_EQ(formatShape(std::vector<int64_t>{2, 3, 4, 5, 6}), "(2, 3, 4, 5, 6)");
}

TEST(HostTensor, MakeZeroTensor) {
  HostTensor t = makeZeroTensor(DType::I16, {4, 5});
  EXPECT_EQ(t.dtype, DType::I16);
  EXPECT_EQ(t.shape, (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(t.data, std::vector<uint8_t>(40, 0));
}

}  // namespace
}  // namespace tpc
