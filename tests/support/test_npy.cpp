// Well-formed .npy files: round trips, the exact bytes numpy.save writes, and headers from other writers.
#include "tpc/support/npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "test_util.h"

namespace tpc {
namespace {

using test::bytesOf;
using test::npyFile;

// Distinct, non-symmetric byte values so that any reordering or offset error shows.
HostTensor patterned(DType dtype, std::vector<int64_t> shape) {
  HostTensor t = makeZeroTensor(dtype, std::move(shape));
  for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = static_cast<uint8_t>(i * 31 + 7);
  return t;
}

TEST(Npy, RoundTripEveryDTypeAndShape) {
  const std::vector<std::vector<int64_t>> shapes = {{3, 100}, {}, {1}, {2, 3, 4, 5, 6}, {0, 4}, {7}};
  for (int i = 0; i < kNumDTypes; ++i) {
    auto dtype = static_cast<DType>(i);
    for (const auto& shape : shapes) {
      SCOPED_TRACE(testing::Message() << dtypeName(dtype) << " " << formatShape(shape));
      HostTensor in = patterned(dtype, shape);
      std::vector<uint8_t> file = serializeNpy(in);
      ASSERT_EQ(file.size(), 128 + in.data.size());  // every header here fits the first 64-byte block pair
      EXPECT_EQ((file.size() - in.data.size()) % 64, 0u);

      HostTensor out = parseNpy(file, "rt.npy");
      // NumPy has no bfloat16: bf16 is stored as <u2 and comes back as u16 with the same bits.
      EXPECT_EQ(out.dtype, dtype == DType::BF16 ? DType::U16 : dtype);
      EXPECT_EQ(out.shape, shape);
      EXPECT_EQ(out.data, in.data);
      EXPECT_EQ(out.numElements(), in.numElements());
    }
  }
}

TEST(Npy, RoundTripThroughAFile) {
  test::ScratchDir dir;
  HostTensor in = patterned(DType::F16, {2, 3, 4});
  writeNpy(dir / "t.npy", in);
  HostTensor out = readNpy(dir / "t.npy");
  EXPECT_EQ(out.dtype, DType::F16);
  EXPECT_EQ(out.shape, in.shape);
  EXPECT_EQ(out.data, in.data);
  EXPECT_EQ(dir.entries(), std::set<std::string>{"t.npy"});
}

// The bytes below follow the format specification and numpy.save: magic "\x93NUMPY", version 1.0, a
// little-endian uint16 header length, then the dict with sorted keys and ", " after every entry, then
// 21 - len(str(shape[0])) spaces of room for growing shape[0], then spaces so that the preamble plus
// header (including the final '\n') is a multiple of 64.
TEST(Npy, KnownAnswerHeaderF32Matrix) {
  HostTensor t = makeZeroTensor(DType::F32, {3, 100});
  for (size_t i = 0; i < t.numElements(); ++i) {
    float v = static_cast<float>(i) * 0.5f;
    std::memcpy(t.data.data() + 4 * i, &v, 4);
  }
  // The dict is 61 characters; 20 growth spaces make 81; with '\n' 82, plus the 10-byte preamble 92;
  // 36 more spaces reach 128. The length field holds 128 - 10 = 118 = 0x76.
  std::string expected = std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                         "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 100), }" + std::string(20 + 36, ' ') +
                         "\n";
  ASSERT_EQ(expected.size(), 128u);

  std::vector<uint8_t> file = serializeNpy(t);
  ASSERT_EQ(file.size(), 128u + 1200u);
  EXPECT_EQ(std::string(file.begin(), file.begin() + 128), expected);
  EXPECT_EQ(std::vector<uint8_t>(file.begin() + 128, file.end()), t.data);
  // 1.5f = 0x3fc00000 is element 3, stored little-endian.
  EXPECT_EQ(std::vector<uint8_t>(file.begin() + 128 + 12, file.begin() + 128 + 16),
            (std::vector<uint8_t>{0x00, 0x00, 0xc0, 0x3f}));
}

TEST(Npy, KnownAnswerHeaderU8Scalar) {
  HostTensor t = makeZeroTensor(DType::U8, {});
  t.data[0] = 0xab;
  // A 0-d array gets no growth spaces. The dict is 55 characters; with '\n' 56, plus the preamble 66;
  // 62 spaces reach 128, so the length field is 118 again.
  std::string expected = std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                         "{'descr': '|u1', 'fortran_order': False, 'shape': (), }" + std::string(62, ' ') + "\n" +
                         "\xab";
  EXPECT_EQ(serializeNpy(t), bytesOf(expected));
}

TEST(Npy, DescrsWritten) {
  EXPECT_EQ(npyDescr(DType::F32), "<f4");
  EXPECT_EQ(npyDescr(DType::BF16), "<u2");
  EXPECT_EQ(npyDescr(DType::F16), "<f2");
  EXPECT_EQ(npyDescr(DType::I32), "<i4");
  EXPECT_EQ(npyDescr(DType::U32), "<u4");
  EXPECT_EQ(npyDescr(DType::I16), "<i2");
  EXPECT_EQ(npyDescr(DType::U16), "<u2");
  EXPECT_EQ(npyDescr(DType::I8), "|i1");
  EXPECT_EQ(npyDescr(DType::U8), "|u1");

  std::vector<uint8_t> file = serializeNpy(makeZeroTensor(DType::I8, {2}));
  std::string header(file.begin() + 10, file.end() - 2);
  EXPECT_NE(header.find("'descr': '|i1'"), std::string::npos) << header;
  EXPECT_NE(header.find("'shape': (2,)"), std::string::npos) << header;
}

TEST(Npy, SerializeRejectsInconsistentTensor) {
  HostTensor t = makeZeroTensor(DType::F32, {4});
  t.data.pop_back();
  EXPECT_THROW(serializeNpy(t), std::invalid_argument);
}

// Version 2.0 (uint32 header length), keys in another order, double quotes, spaces inside the tuple
// and a trailing comma: all valid Python literals that NumPy reads.
TEST(Npy, ReadsHandWrittenVersion2) {
  std::string header = "{\"shape\": ( 2 , 3 , ), 'descr':'<i2' ,\"fortran_order\":False,}";
  // 12-byte preamble + header + padding + '\n' = 128.
  header += std::string(128 - 12 - 1 - header.size(), ' ') + "\n";
  std::vector<uint8_t> file = {0x93, 'N', 'U', 'M', 'P', 'Y', 0x02, 0x00, 0x74, 0x00, 0x00, 0x00};
  ASSERT_EQ(header.size(), 0x74u);
  file.insert(file.end(), header.begin(), header.end());
  // 1, -2, 3, -4, 5, -6 as little-endian int16.
  const std::vector<uint8_t> data = {0x01, 0x00, 0xfe, 0xff, 0x03, 0x00, 0xfc, 0xff, 0x05, 0x00, 0xfa, 0xff};
  file.insert(file.end(), data.begin(), data.end());

  HostTensor t = parseNpy(file, "v2.npy");
  EXPECT_EQ(t.dtype, DType::I16);
  EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 3}));
  std::vector<int16_t> values(6);
  std::memcpy(values.data(), t.data.data(), 12);
  EXPECT_EQ(values, (std::vector<int16_t>{1, -2, 3, -4, 5, -6}));
}

TEST(Npy, ReadsVersion3) {
  HostTensor t = parseNpy(npyFile(3, "{'descr': '<u4', 'fortran_order': False, 'shape': (1,), }\n",
                                  {0x78, 0x56, 0x34, 0x12}),
                          "v3.npy");
  EXPECT_EQ(t.dtype, DType::U32);
  EXPECT_EQ(t.shape, std::vector<int64_t>{1});
  uint32_t v;
  std::memcpy(&v, t.data.data(), 4);
  EXPECT_EQ(v, 0x12345678u);
}

// Old NumPy aligned to 16 bytes and had no growth spaces; nothing requires alignment when reading.
TEST(Npy, ReadsUnalignedHeaderOfOldNumPy) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }            \n";
  ASSERT_EQ((10 + header.size()) % 16, 0u);
  HostTensor t = parseNpy(npyFile(1, header, std::vector<uint8_t>(8, 0)), "old.npy");
  EXPECT_EQ(t.shape, std::vector<int64_t>{2});

  // Not even a newline at the end.
  t = parseNpy(npyFile(1, "{'descr':'<f4','fortran_order':False,'shape':()}", std::vector<uint8_t>(4, 1)), "min.npy");
  EXPECT_TRUE(t.shape.empty());
  EXPECT_EQ(t.data, std::vector<uint8_t>(4, 1));
}

TEST(Npy, HeaderSyntaxVariants) {
  struct Case {
    std::string header;
    DType dtype;
    std::vector<int64_t> shape;
  };
  const std::vector<Case> cases = {
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (), }", DType::F32, {}},
      {"{'shape': (4,), 'fortran_order': False, 'descr': '<u2'}", DType::U16, {4}},
      {"{\n 'descr' : '<f2' ,\n\t'fortran_order':False,'shape':(4,)}\n", DType::F16, {4}},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (2L, 3L), }", DType::I32, {2, 3}},  // Python 2
      {"{'descr': '<u1', 'fortran_order': False, 'shape': (1, 1, 1, 1, 5), }", DType::U8, {1, 1, 1, 1, 5}},
      {"{'descr': '<i1', 'fortran_order': False, 'shape': (+3,), }", DType::I8, {3}},
      {"{'descr': '|i1', 'fortran_order': False, 'shape': (0, 5), }", DType::I8, {0, 5}},
      {"{'descr':'|u1','fortran_order':False,'shape':(2,3,),}", DType::U8, {2, 3}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.header);
    HostTensor expectedShape;
    expectedShape.shape = c.shape;
    std::vector<uint8_t> data(expectedShape.numElements() * dtypeSize(c.dtype), 0x5a);
    HostTensor t = parseNpy(npyFile(1, c.header, data), "variant.npy");
    EXPECT_EQ(t.dtype, c.dtype);
    EXPECT_EQ(t.shape, c.shape);
    EXPECT_EQ(t.data, data);
  }
}

}  // namespace
}  // namespace tpc
