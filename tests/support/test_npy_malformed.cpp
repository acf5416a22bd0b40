// Malformed .npy input: every case must give a UserError that starts with the file name, never a crash
// or an out-of-bounds read (these tests also run under ASan and UBSan).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "test_util.h"
#include "tpc/support/npy.h"
#include "tpc/support/text.h"

namespace tpc {
namespace {

using test::bytesOf;
using test::npyFile;
using test::userErrorOf;

const std::string kName = "in.npy";

std::string header(const std::string& descr, const std::string& order, const std::string& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': " + order + ", 'shape': " + shape + ", }\n";
}

// The message for bytes, checked to start with the file name.
std::string errorFor(const std::vector<uint8_t>& bytes) {
  std::string msg = userErrorOf([&] { parseNpy(bytes, kName); });
  EXPECT_EQ(msg.rfind(kName + ": ", 0), 0u) << msg;
  return msg;
}

#define EXPECT_NPY_ERROR(bytes, fragment)                                         \
  do {                                                                            \
    std::string msg_ = errorFor(bytes);                                           \
    EXPECT_NE(msg_.find(fragment), std::string::npos) << "message: " << msg_;    \
  } while (0)

TEST(NpyMalformed, Preamble) {
  EXPECT_NPY_ERROR({}, "not a .npy file: the file is empty");
  EXPECT_NPY_ERROR(bytesOf("hello, this is text and not an array"), "not a .npy file: expected the magic string");
  EXPECT_NPY_ERROR(bytesOf("\x93NUMPZ\x01\x00"), "not a .npy file");
  EXPECT_NPY_ERROR(bytesOf("\x93NUM"), "truncated .npy file: 4 bytes");
  EXPECT_NPY_ERROR(bytesOf(std::string("\x93NUMPY\x01\x00", 8)), "truncated .npy file: 8 bytes, expected at least 10");
  EXPECT_NPY_ERROR(bytesOf(std::string("\x93NUMPY\x02\x00\x05\x00", 10)), "truncated .npy file");
}

TEST(NpyMalformed, Version) {
  const std::string h = header("<f4", "False", "(1,)");
  const std::vector<uint8_t> data(4, 0);
  EXPECT_NPY_ERROR(npyFile(4, h, data), "unsupported .npy format version 4.0 at byte 6 (expected 1.0, 2.0 or 3.0)");
  EXPECT_NPY_ERROR(npyFile(0, h, data), "unsupported .npy format version 0.0");
  std::vector<uint8_t> minor1 = npyFile(1, h, data);
  minor1[7] = 1;
  EXPECT_NPY_ERROR(minor1, "unsupported .npy format version 1.1");
}

TEST(NpyMalformed, HeaderLengthBeyondFile) {
  std::vector<uint8_t> v1 = npyFile(1, header("<f4", "False", "(1,)"), std::vector<uint8_t>(4, 0));
  v1[8] = 0xff;
  v1[9] = 0xff;
  EXPECT_NPY_ERROR(v1, "header length 65535 (at byte 8) goes beyond the end of the file (" +
                           std::to_string(v1.size()) + " bytes)");

  std::vector<uint8_t> v2 = npyFile(2, header("<f4", "False", "(1,)"), std::vector<uint8_t>(4, 0));
  for (int i = 8; i < 12; ++i) v2[i] = 0xff;
  EXPECT_NPY_ERROR(v2, "header length 4294967295");
}

TEST(NpyMalformed, MissingKeys) {
  const std::vector<uint8_t> data(4, 0);
  EXPECT_EQ(errorFor(npyFile(1, "{'fortran_order': False, 'shape': (1,), }", data)),
            "in.npy: bad .npy header: expected 'descr' key");
  EXPECT_NPY_ERROR(npyFile(1, "{'descr': '<f4', 'shape': (1,), }", data), "expected 'fortran_order' key");
  EXPECT_NPY_ERROR(npyFile(1, "{'descr': '<f4', 'fortran_order': False}", data), "expected 'shape' key");
  EXPECT_NPY_ERROR(npyFile(1, "{}", data), "expected 'descr' key");
}

TEST(NpyMalformed, DataTypes) {
  EXPECT_NPY_ERROR(npyFile(1, header("<f8", "False", "(1,)"), std::vector<uint8_t>(8, 0)),
                   "unsupported data type '<f8' (expected one of <f4 <f2 <i4 <u4 <i2 <u2 |i1 |u1)");
  EXPECT_NPY_ERROR(npyFile(1, header("|b1", "False", "(1,)"), std::vector<uint8_t>(1, 0)),
                   "unsupported data type '|b1'");
  EXPECT_NPY_ERROR(npyFile(1, header("<i8", "False", "(1,)"), std::vector<uint8_t>(8, 0)),
                   "unsupported data type '<i8'");
  EXPECT_NPY_ERROR(npyFile(1, header("", "False", "(1,)"), {}), "unsupported data type ''");
  EXPECT_NPY_ERROR(npyFile(1, header(">f4", "False", "(1,)"), std::vector<uint8_t>(4, 0)),
                   "big-endian data type '>f4' is not supported");
  EXPECT_NPY_ERROR(npyFile(1, header(">u2", "False", "(1,)"), std::vector<uint8_t>(2, 0)), "big-endian");
  EXPECT_NPY_ERROR(npyFile(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", {}),
                   "structured dtypes are not supported");
}

TEST(NpyMalformed, FortranOrder) {
  EXPECT_NPY_ERROR(npyFile(1, header("<f4", "True", "(2, 2)"), std::vector<uint8_t>(16, 0)),
                   "Fortran-order (column-major) arrays are not supported");
  EXPECT_NPY_ERROR(npyFile(1, header("<f4", "0", "(1,)"), std::vector<uint8_t>(4, 0)),
                   "expected True or False for 'fortran_order'");
  EXPECT_NPY_ERROR(npyFile(1, header("<f4", "'False'", "(1,)"), std::vector<uint8_t>(4, 0)), "True or False");
}

TEST(NpyMalformed, Shapes) {
  const std::vector<uint8_t> four(4, 0);
  EXPECT_NPY_ERROR(npyFile(1, header("<f4", "False", "(-3,)"), four), "expected a non-negative dimension");
  EXPECT_NPY_ERROR(npyFile(1, header("<f4", "False", "(2, -1)"), four), "non-negative");
  EXPECT_NPY_ERROR(npyFile(1, header("|u1", "False", "(1, 1, 1, 1, 1, 1)"), std::vector<uint8_t>(1, 0)),
                   "shape (1, 1, 1, 1, 1, 1) has 6 dimensions, expected at most 5");
  EXPECT_NPY_ERROR(npyFile(1, header("<f4", "False", "(3)"), four), "a 1-d shape is written (n,)");
  EXPECT_NPY_ERROR(npyFile(1, header("<f4", "False", "3"), four), "expected a tuple for 'shape'");
  EXPECT_NPY_ERROR(npyFile(1, header("<f4", "False", "[3]"), four), "expected a tuple for 'shape'");
  EXPECT_NPY_ERROR(npyFile(1, header("<f4", "False", "(1,,)"), four), "expected an integer dimension");
  EXPECT_NPY_ERROR(npyFile(1, header("<f4", "False", "(,)"), four), "expected an integer dimension");
  EXPECT_NPY_ERROR(npyFile(1, header("<f4", "False", "(1 2)"), four), "expected ',' or ')' in 'shape'");
  EXPECT_NPY_ERROR(npyFile(1, header("<f4", "False", "(1.5,)"), four), "expected ',' or ')'");
  EXPECT_NPY_ERROR(npyFile(1, header("<f4", "False", "(1,"), four), "expected an integer dimension");
  EXPECT_NPY_ERROR(npyFile(1, header("<f4", "False", "(99999999999999999999,)"), four),
                   "expected a dimension below 2^63");
  EXPECT_NPY_ERROR(npyFile(1, header("<f4", "False", "(4294967296, 4294967296, 4294967296)"), four),
                   "shape (4294967296, 4294967296, 4294967296) is too large");
  // The product fits in 64 bits but not with the header added.
  EXPECT_NPY_ERROR(npyFile(1, header("|u1", "False", "(9223372036854775807, 2)"), four), "too large");
  EXPECT_NPY_ERROR(npyFile(1, header("|u1", "False", "(9223372036854775807,)"), four), "requires");
}

TEST(NpyMalformed, HeaderSyntax) {
  const std::vector<uint8_t> four(4, 0);
  EXPECT_NPY_ERROR(npyFile(1, "", four), "expected '{' at the start of the header at byte 10, found the end");
  EXPECT_NPY_ERROR(npyFile(1, "garbage", four), "expected '{' at the start of the header at byte 10, found 'g'");
  EXPECT_NPY_ERROR(npyFile(2, std::string("\x01\xff\x00{", 4), four), "found byte 0x01");
  // The key ends at header offset 8 and the space is skipped, so the problem is at 12 + 9 in a 2.0 file.
  EXPECT_NPY_ERROR(npyFile(2, "{'descr' '<f4', 'fortran_order': False, 'shape': (1,)}", four),
                   "expected ':' after key 'descr' at byte 21, found '''");
  EXPECT_NPY_ERROR(npyFile(1, "{descr: '<f4'}", four), "expected a quoted key or '}' at byte 11, found 'd'");
  EXPECT_NPY_ERROR(npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", four),
                   "expected only the keys 'descr', 'fortran_order' and 'shape', not 'extra'");
  EXPECT_NPY_ERROR(npyFile(1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", four),
                   "'descr' is repeated");
  EXPECT_NPY_ERROR(npyFile(1, "{'descr': '<f4", four), "expected the closing quote of 'descr'");
  EXPECT_NPY_ERROR(npyFile(1, "{'descr': '<f4\n', 'fortran_order': False, 'shape': (1,)}", four),
                   "closing quote");
  EXPECT_NPY_ERROR(npyFile(1, "{'descr': '<f\\x34', 'fortran_order': False, 'shape': (1,)}", four),
                   "without escape sequences");
  EXPECT_NPY_ERROR(npyFile(1, "{'descr': 4, 'fortran_order': False, 'shape': (1,)}", four),
                   "expected a string for 'descr'");
  EXPECT_NPY_ERROR(npyFile(1, "{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}", four),
                   "expected ',' or '}' after a value");
  EXPECT_NPY_ERROR(npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)", four), "',' or '}'");
  EXPECT_NPY_ERROR(npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x\n", four),
                   "expected only spaces and a newline after the closing '}'");
  EXPECT_NPY_ERROR(npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}}", four), "after the closing");
  EXPECT_NPY_ERROR(npyFile(1, "{,}", four), "expected a quoted key");
}

TEST(NpyMalformed, FileLength) {
  const std::string h = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 100), }\n";
  const size_t headerEnd = 10 + h.size();
  std::string msg = errorFor(npyFile(1, h, std::vector<uint8_t>(1199, 0)));
  EXPECT_EQ(msg, "in.npy: file is " + std::to_string(headerEnd + 1199) +
                     " bytes, but its header (descr '<f4', shape (3, 100)) requires " +
                     std::to_string(headerEnd + 1200) + " bytes (" + std::to_string(headerEnd) +
                     " header + 1200 data): the data is truncated");
  EXPECT_NPY_ERROR(npyFile(1, h, std::vector<uint8_t>(1203, 0)), "3 bytes of trailing garbage");
  EXPECT_NPY_ERROR(npyFile(1, h, {}), "the data is truncated");
  EXPECT_NPY_ERROR(npyFile(1, header("<f4", "False", "(0,)"), {1}), "1 byte of trailing garbage");
}

TEST(NpyMalformed, EveryTruncationOfAValidFileIsAnError) {
  HostTensor t = makeZeroTensor(DType::I16, {2, 3});
  std::vector<uint8_t> file = serializeNpy(t);
  for (size_t n = 0; n < file.size(); ++n) {
    SCOPED_TRACE(n);
    errorFor(std::vector<uint8_t>(file.begin(), file.begin() + static_cast<ptrdiff_t>(n)));
  }
}

// Random damage must end in a tensor or a UserError whose message is printable; anything else (another
// exception, a crash, a sanitizer report) fails.
TEST(NpyMalformed, RandomDamageNeverCrashes) {
  std::vector<uint8_t> file = serializeNpy(makeZeroTensor(DType::F32, {2, 3}));
  const std::string_view kHeaderChars = "{}()[],:'\" -L0123456789TF\n";
  std::mt19937 rng(12345);
  int parsed = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::vector<uint8_t> bytes = file;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % 128;  // the preamble and header
      switch (rng() % 3) {
        case 0: bytes[at] = static_cast<uint8_t>(rng()); break;
        case 1: bytes[at] = static_cast<uint8_t>(kHeaderChars[rng() % kHeaderChars.size()]); break;
        case 2: bytes.resize(bytes.size() - rng() % 8); break;
      }
      if (bytes.size() < 128) bytes.resize(128, 0);
    }
    try {
      parseNpy(bytes, kName);
      ++parsed;
    } catch (const UserError& e) {
      ASSERT_EQ(std::string(e.what()).rfind(kName + ": ", 0), 0u) << e.what();
      // Damaged keys and types are echoed, but never as raw bytes.
      for (char c : std::string(e.what()))
        ASSERT_TRUE(c == '\n' || (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f))
            << "a raw byte 0x" << std::hex << (static_cast<unsigned>(c) & 0xffu) << " in: " << escapeNonPrintable(e.what());
    }
  }
  EXPECT_GT(parsed, 0);  // some edits only touch padding
}

// Headers assembled from random tokens exercise the dict parser's error paths.
TEST(NpyMalformed, RandomHeaderTokensNeverCrash) {
  const std::vector<std::string> tokens = {"{",       "}",     "(",     ")",  ",",      ":",      " ",
                                           "'descr'", "'<f4'", "'|u1'", "'",  "\"",     "True",   "False",
                                           "'shape'", "3",     "-1",    "2L", "'fortran_order'", "\n", "\\"};
  std::mt19937 rng(777);
  for (int iter = 0; iter < 20000; ++iter) {
    std::string h;
    int n = static_cast<int>(rng() % 24);
    for (int i = 0; i < n; ++i) h += tokens[rng() % tokens.size()];
    try {
      parseNpy(npyFile(1 + static_cast<int>(rng() % 3), h, std::vector<uint8_t>(rng() % 16, 0)), kName);
    } catch (const UserError& e) {
      ASSERT_EQ(std::string(e.what()).rfind(kName + ": ", 0), 0u) << e.what();
    }
  }
}

TEST(NpyMalformed, ReadNpyNamesTheFile) {
  test::ScratchDir dir;
  std::string missing = dir / "missing.npy";
  EXPECT_EQ(userErrorOf([&] { readNpy(missing); }), missing + ": cannot open: No such file or directory");
}

}  // namespace
}  // namespace tpc
