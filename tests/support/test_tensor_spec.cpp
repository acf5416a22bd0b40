#include "tpc/support/tensor_spec.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "test_util.h"
#include "tpc/support/npy.h"

namespace tpc {
namespace {

using test::userErrorOf;

std::string specError(const std::string& arg) {
  return userErrorOf([&] { parseTensorSpec(arg); });
}

TEST(TensorSpec, PlainFile) {
  TensorSpec s = parseTensorSpec("in.npy");
  EXPECT_EQ(s.path, "in.npy");
  EXPECT_FALSE(s.reinterpret);
  EXPECT_FALSE(s.create);
  EXPECT_EQ(s.text, "in.npy");
}

TEST(TensorSpec, Reinterpret) {
  TensorSpec s = parseTensorSpec("data/in.npy:bf16");
  EXPECT_EQ(s.path, "data/in.npy");
  EXPECT_EQ(s.reinterpret, DType::BF16);
  EXPECT_FALSE(s.create);
  for (int i = 0; i < kNumDTypes; ++i) {
    auto t = static_cast<DType>(i);
    EXPECT_EQ(parseTensorSpec("x.npy:" + std::string(dtypeName(t))).reinterpret, t);
  }
}

TEST(TensorSpec, Create) {
  TensorSpec s = parseTensorSpec("out.npy=f32[4,128]");
  EXPECT_EQ(s.path, "out.npy");
  EXPECT_TRUE(s.create);
  EXPECT_EQ(s.createType, DType::F32);
  EXPECT_EQ(s.createShape, (std::vector<int64_t>{4, 128}));
  EXPECT_FALSE(s.reinterpret);

  s = parseTensorSpec("o.npy=u8[1,2,3,4,5]");
  EXPECT_EQ(s.createType, DType::U8);
  EXPECT_EQ(s.createShape, (std::vector<int64_t>{1, 2, 3, 4, 5}));
  s = parseTensorSpec("o.npy=bf16[ 2, 3 ]");
  EXPECT_EQ(s.createType, DType::BF16);
  EXPECT_EQ(s.createShape, (std::vector<int64_t>{2, 3}));
  s = parseTensorSpec("o.npy=i8[7]");
  EXPECT_EQ(s.createShape, std::vector<int64_t>{7});
}

// ':' and '=' in directory names do not confuse the parser: only the suffix after the last one counts.
TEST(TensorSpec, SeparatorsInDirectories) {
  TensorSpec s = parseTensorSpec("run:1/a=b/in.npy");
  EXPECT_EQ(s.path, "run:1/a=b/in.npy");
  EXPECT_FALSE(s.reinterpret);
  EXPECT_FALSE(s.create);

  s = parseTensorSpec("run:1/a=b/in.npy:f16");
  EXPECT_EQ(s.path, "run:1/a=b/in.npy");
  EXPECT_EQ(s.reinterpret, DType::F16);

  s = parseTensorSpec("x=1:y/out.npy=i16[3]");
  EXPECT_EQ(s.path, "x=1:y/out.npy");
  EXPECT_TRUE(s.create);
  EXPECT_EQ(s.createType, DType::I16);

  s = parseTensorSpec("a:b.npy");  // the suffix has a '.', so it is part of the file name
  EXPECT_EQ(s.path, "a:b.npy");
  EXPECT_FALSE(s.reinterpret);
  s = parseTensorSpec("k=v.npy");
  EXPECT_EQ(s.path, "k=v.npy");
  EXPECT_FALSE(s.create);
}

// A suffix that is not a data type still names an existing file with that exact name.
TEST(TensorSpec, ExistingFileWinsOverAmbiguousSuffix) {
  test::ScratchDir dir;
  for (const char* name : {"data:raw", "k=v"}) {
    std::string path = dir / name;
    writeNpy(path, makeZeroTensor(DType::U8, {1}));
    TensorSpec s = parseTensorSpec(path);
    EXPECT_EQ(s.path, path);
    EXPECT_FALSE(s.reinterpret);
    EXPECT_FALSE(s.create);
  }
  // Without the file, the same suffix is a mistyped data type.
  EXPECT_NE(specError(dir / "other:raw").find("unknown data type 'raw'"), std::string::npos);
}

TEST(TensorSpec, BadArguments) {
  const std::string types = "(expected one of f32 bf16 f16 i32 u32 i16 u16 i8 u8)";
  EXPECT_EQ(specError("out.npy=f33[4]"), "-t 'out.npy=f33[4]': unknown data type 'f33' " + types);
  EXPECT_EQ(specError("in.npy:f33"), "-t 'in.npy:f33': unknown data type 'f33' " + types);
  EXPECT_EQ(specError("in.npy:F32"), "-t 'in.npy:F32': unknown data type 'F32' " + types);
  EXPECT_EQ(specError(""), "-t '': expected FILE.npy, FILE.npy:DTYPE or FILE.npy=DTYPE[S0,S1,...]");

  struct Case {
    std::string arg, fragment;
  };
  const std::vector<Case> cases = {
      {"in.npy:", "missing data type after ':'"},
      {":f32", "missing file name before ':'"},
      {"=f32[4]", "missing file name before '='"},
      {"out.npy=", "expected DTYPE[S0,S1,...] after '='"},
      {"out.npy=f32", "missing shape after 'f32' (expected f32[S0,S1,...], e.g. f32[4,128])"},
      {"out.npy=[4]", "missing data type before '['"},
      {"out.npy=f32[]", "expected at least one dimension in 'f32[]'"},
      {"out.npy=f32[ ]", "expected at least one dimension"},
      {"out.npy=f32[4", "expected ']' at the end of the shape"},
      {"out.npy=f32[4]x", "expected ']' at the end"},
      {"out.npy=f32[0]", "dimension 1 '0' must be at least 1"},
      {"out.npy=f32[2,0]", "dimension 2 '0' must be at least 1"},
      {"out.npy=f32[-1]", "dimension 1 '-1' is not a positive integer"},
      {"out.npy=f32[a]", "dimension 1 'a' is not a positive integer"},
      {"out.npy=f32[2,,3]", "dimension 2 '' is not a positive integer"},
      {"out.npy=f32[2,]", "dimension 2 '' is not a positive integer"},
      {"out.npy=f32[1.5]", "dimension 1 '1.5' is not a positive integer"},
      {"out.npy=f32[[2]]", "dimension 1 '[2]' is not a positive integer"},
      {"out.npy=f32[1,2,3,4,5,6]", "shape has 6 dimensions, expected 1 to 5"},
      {"out.npy=f32[99999999999999999999]", "dimension 1 '99999999999999999999' is too large"},
      {"out.npy=f32[4294967296,4294967296]", "shape (4294967296, 4294967296) is too large"},
      {"out.npy=f32(4)", "unknown data type 'f32(4)'"},
  };
  for (const auto& c : cases) {
    std::string msg = specError(c.arg);
    EXPECT_EQ(msg.rfind("-t '" + c.arg + "': ", 0), 0u) << msg;
    EXPECT_NE(msg.find(c.fragment), std::string::npos) << "argument " << c.arg << ": " << msg;
  }
}

TEST(TensorSpec, MaterializeCreatesZeros) {
  test::ScratchDir dir;
  HostTensor t = materialize(parseTensorSpec(dir / "out.npy=bf16[2,3]"));
  EXPECT_EQ(t.dtype, DType::BF16);
  EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.data, std::vector<uint8_t>(12, 0));
  EXPECT_TRUE(dir.entries().empty());  // creating the tensor does not write the file
}

TEST(TensorSpec, MaterializeReadsAndReinterprets) {
  test::ScratchDir dir;
  std::string path = dir / "in.npy";
  HostTensor bits = makeZeroTensor(DType::BF16, {4});
  for (size_t i = 0; i < bits.data.size(); ++i) bits.data[i] = static_cast<uint8_t>(i + 1);
  writeNpy(path, bits);  // stored as <u2

  HostTensor plain = materialize(parseTensorSpec(path));
  EXPECT_EQ(plain.dtype, DType::U16);
  EXPECT_EQ(plain.data, bits.data);

  HostTensor asBf16 = materialize(parseTensorSpec(path + ":bf16"));
  EXPECT_EQ(asBf16.dtype, DType::BF16);
  EXPECT_EQ(asBf16.shape, bits.shape);
  EXPECT_EQ(asBf16.data, bits.data);
  EXPECT_EQ(materialize(parseTensorSpec(path + ":i16")).dtype, DType::I16);
  EXPECT_EQ(materialize(parseTensorSpec(path + ":u16")).dtype, DType::U16);

  std::string msg = userErrorOf([&] { materialize(parseTensorSpec(path + ":f32")); });
  EXPECT_EQ(msg, "-t '" + path + ":f32': cannot reinterpret " + path +
                     " (u16 data, 2-byte elements) as f32 (4-byte elements): the element sizes must match");
  msg = userErrorOf([&] { materialize(parseTensorSpec(path + ":u8")); });
  EXPECT_NE(msg.find("the element sizes must match"), std::string::npos) << msg;
}

TEST(TensorSpec, MaterializeMissingFile) {
  test::ScratchDir dir;
  std::string path = dir / "missing.npy";
  EXPECT_EQ(userErrorOf([&] { materialize(parseTensorSpec(path + ":bf16")); }),
            path + ": cannot open: No such file or directory");
}

TEST(TensorSpec, MaterializeTooLargeToAllocate) {
#if defined(__SANITIZE_ADDRESS__)
  // ASan aborts on an impossible allocation instead of letting operator new throw std::bad_alloc.
  GTEST_SKIP() << "not meaningful under AddressSanitizer";
#endif
  // 2^61 bytes passes the overflow check but no machine can allocate it.
  std::string msg = userErrorOf([] { materialize(parseTensorSpec("big.npy=u8[1048576,1048576,2097152]")); });
  EXPECT_EQ(msg.rfind("-t 'big.npy=u8[1048576,1048576,2097152]': cannot allocate", 0), 0u) << msg;
}

}  // namespace
}  // namespace tpc
