// tpc_tests::RunSimulation over tensors in the caller's memory: strided and padded tensors, partial
// coverage, aliasing, memsetBeforeExecution, any core count, and every refusal (nothing written, a message
// naming the field). References are computed here on the host.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tpc_kernel_lib_interface.h"
#include "tpc_test_core_api.h"

namespace {

namespace fs = std::filesystem;
using tpc_tests::TensorDesc2;

// y = x * s over the index space (dimension 0 in vectors of 64, dimension 1 in rows).
const char* kScale = R"(
void main(tensor x, tensor y, float s) {
  int5 start = get_index_space_offset();
  int5 end = start + get_index_space_size();
  for (int r = start[1]; r < end[1]; r++)
    for (int d = start[0] * 64; d < end[0] * 64; d += 64) {
      int5 c = {d, r, 0, 0, 0};
      v_f32_st_tnsr(c, y, v_f32_ld_tnsr_b(c, x) * s);
    }
}
)";
// y[i] = x[i - 1]: lane 0 of each row reads the padding value.
const char* kShift = R"(
void main(tensor x, tensor y) {
  int5 start = get_index_space_offset();
  int5 end = start + get_index_space_size();
  for (int r = start[1]; r < end[1]; r++)
    for (int d = start[0] * 64; d < end[0] * 64; d += 64) {
      int5 c = {d, r, 0, 0, 0};
      int5 from = {d - 1, r, 0, 0, 0};
      v_f32_st_tnsr(c, y, v_f32_ld_tnsr_b(from, x));
    }
}
)";
// Reads the element just past x through a global pointer (no bounds on the hardware).
const char* kReadPast = R"(
void main(tensor x, tensor y) {
  int5 past = {get_dim_size(x, 0), 0, 0, 0, 0};
  __global__ float* p = (__global__ float*)gen_addr(past, x);
  int5 c = {0, 0, 0, 0, 0};
  v_f32_st_tnsr(c, y, (float64)s_f32_ld_g(p));
}
)";
// Stores just past y through a global pointer: a fault.
const char* kWritePast = R"(
void main(tensor x, tensor y) {
  int5 past = {get_dim_size(y, 0), 0, 0, 0, 0};
  __global__ float* p = (__global__ float*)gen_addr(past, y);
  s_f32_st_g(p, 1.0f);
}
)";

std::vector<char> compileKernel(const std::string& source, const std::string& arch = "gaudi2") {
  fs::path dir = fs::temp_directory_path() / ("test_core_" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::path src = dir / "k.c", obj = dir / "k.o";
  std::ofstream(src) << source;
  std::string cmd = std::string(TPC_BINARY_DIR) + "/bin/tpc-clang -march=" + arch + " -c " + src.string() + " -o " +
                    obj.string();
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(obj, std::ios::binary);
  std::vector<char> bytes{std::istreambuf_iterator<char>(in), {}};
  fs::remove_all(dir);
  return bytes;
}

// A 2-D f32 tensor of sizes [w, h] inside a buffer whose rows are `rowStride` elements apart; the gaps
// hold a sentinel that no kernel writes.
struct Strided {
  unsigned w, h, rowStride;
  std::vector<float> buffer;
  static constexpr float kGap = -12345.0f;
  Strided(unsigned w_, unsigned h_, unsigned stride) : w(w_), h(h_), rowStride(stride), buffer(size_t(stride) * h_, kGap) {}
  float& at(unsigned x, unsigned y) { return buffer[size_t(y) * rowStride + x]; }
  TensorDesc2 descriptor(uint32_t padding = 0) {
    TensorDesc2 d;
    std::memset(&d, 0, sizeof d);
    d.baseAddrUnion.baseAddr = reinterpret_cast<uint64_t>(buffer.data());
    d.paddingValue = padding;
    d.configuration = TPC_DESC_CONFIGURATION(2u, 0x3u, 1u);  // 4-byte elements, dimensions 0 and 1
    d.dimDescriptors[0].size = w;
    d.dimDescriptors[0].stride = 1;
    d.dimDescriptors[1].size = h;
    d.dimDescriptors[1].stride = rowStride;
    return d;
  }
};

tpc_lib_api::Tensor nodeTensor(unsigned w, unsigned h) {
  tpc_lib_api::Tensor t;
  std::memset(&t, 0, sizeof t);
  t.geometry.dims = 2;
  t.geometry.dataType = tpc_lib_api::DATA_F32;
  t.geometry.maxSizes[0] = t.geometry.minSizes[0] = w;
  t.geometry.maxSizes[1] = t.geometry.minSizes[1] = h;
  return t;
}

// A node with one input and one output of the same shape, and its instantiation over [ceil(w/64), h].
struct Launch {
  tpc_lib_api::Tensor in, out;
  tpc_lib_api::HabanaKernelParams params;
  tpc_lib_api::TensorAccessPattern inPattern, outPattern;
  tpc_lib_api::HabanaKernelInstantiation instance;
  std::vector<char> elf;
  Launch(const std::vector<char>& kernel, unsigned w, unsigned h) : in(nodeTensor(w, h)), out(nodeTensor(w, h)), elf(kernel) {
    std::memset(&params, 0, sizeof params);
    std::memset(&instance, 0, sizeof instance);
    std::memset(&inPattern, 0, sizeof inPattern);
    std::memset(&outPattern, 0, sizeof outPattern);
    params.deviceId = tpc_lib_api::DEVICE_ID_GAUDI2;
    params.inputTensors = &in;
    params.inputTensorNr = 1;
    params.outputTensors = &out;
    params.outputTensorNr = 1;
    instance.indexSpaceRank = 2;
    instance.indexSpaceGeometry[0] = (w + 63) / 64;
    instance.indexSpaceGeometry[1] = h;
    instance.inputTensorAccessPattern = &inPattern;
    instance.outputTensorAccessPattern = &outPattern;
    instance.kernel.kernelElf = elf.data();
    instance.kernel.elfSize = static_cast<uint32_t>(elf.size());
  }
  void scalar(float s) {
    std::memcpy(&instance.kernel.scalarParams[0], &s, 4);
    instance.kernel.paramsNr = 1;
  }
};

class TestCore : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scale_ = new std::vector<char>(compileKernel(kScale));
    shift_ = new std::vector<char>(compileKernel(kShift));
  }
  static void TearDownTestSuite() {
    delete scale_;
    delete shift_;
  }
  static std::vector<char>* scale_;
  static std::vector<char>* shift_;
};
std::vector<char>* TestCore::scale_ = nullptr;
std::vector<char>* TestCore::shift_ = nullptr;

TEST_F(TestCore, StridedTensorsInCallerMemoryOnAnyCoreCount) {
  const unsigned w = 150, h = 7;  // not a multiple of the vector width
  for (uint32_t cores : {1u, 7u, 24u}) {
    Strided x(w, h, 211), y(w, h, 160);
    for (unsigned r = 0; r < h; ++r)
      for (unsigned c = 0; c < w; ++c) x.at(c, r) = float(c) - 3.5f * float(r);
    Launch l(*scale_, w, h);
    l.scalar(1.5f);
    l.params.maxAvailableTpc = cores;
    std::vector<TensorDesc2> d{x.descriptor(), y.descriptor()};
    VPEStats stats;
    unsigned cycles = tpc_tests::RunSimulation(l.params, l.instance, d, stats);
    ASSERT_EQ(stats.status, 0) << stats.errorMessage;
    EXPECT_GT(cycles, 0u);
    EXPECT_EQ(cycles, stats.cycles);
    EXPECT_LE(stats.coresUsed, cores);
    EXPECT_EQ(stats.vectorLoadPerTensor[0], uint64_t(3 * h));  // three vectors a row
    EXPECT_EQ(stats.vectorStorePerTensor[1], uint64_t(3 * h));
    for (unsigned r = 0; r < h; ++r) {
      for (unsigned c = 0; c < w; ++c) ASSERT_EQ(y.at(c, r), (float(c) - 3.5f * float(r)) * 1.5f) << c << "," << r;
      for (unsigned c = w; c < y.rowStride; ++c) ASSERT_EQ(y.at(c, r), Strided::kGap) << "gap written at " << c;
      for (unsigned c = w; c < x.rowStride; ++c) ASSERT_EQ(x.at(c, r), Strided::kGap) << "input gap changed";
    }
  }
}

TEST_F(TestCore, ReadsOutsideTheTensorGiveThePaddingValue) {
  const unsigned w = 100, h = 3;
  Strided x(w, h, w), y(w, h, w);
  for (unsigned r = 0; r < h; ++r)
    for (unsigned c = 0; c < w; ++c) x.at(c, r) = float(100 * r + c);
  float pad = 7.25f;
  uint32_t padBits;
  std::memcpy(&padBits, &pad, 4);
  Launch l(*shift_, w, h);
  std::vector<TensorDesc2> d{x.descriptor(padBits), y.descriptor()};
  VPEStats stats;
  tpc_tests::RunSimulation(l.params, l.instance, d, stats);
  ASSERT_EQ(stats.status, 0) << stats.errorMessage;
  for (unsigned r = 0; r < h; ++r)
    for (unsigned c = 0; c < w; ++c) ASSERT_EQ(y.at(c, r), c == 0 ? pad : float(100 * r + c - 1)) << c << "," << r;
}

TEST_F(TestCore, AnIndexSpaceThatCoversPartOfTheOutputLeavesTheRest) {
  const unsigned w = 200, h = 5;
  Strided x(w, h, w), y(w, h, w);
  for (float& v : x.buffer) v = 2.0f;
  Launch l(*scale_, w, h);
  l.scalar(3.0f);
  l.instance.indexSpaceGeometry[0] = 2;  // elements 0..127 of each row
  l.instance.indexSpaceGeometry[1] = 3;  // rows 0..2
  std::vector<TensorDesc2> d{x.descriptor(), y.descriptor()};
  VPEStats stats;
  tpc_tests::RunSimulation(l.params, l.instance, d, stats);
  ASSERT_EQ(stats.status, 0) << stats.errorMessage;
  for (unsigned r = 0; r < h; ++r)
    for (unsigned c = 0; c < w; ++c) ASSERT_EQ(y.at(c, r), (r < 3 && c < 128) ? 6.0f : Strided::kGap) << c << "," << r;
}

TEST_F(TestCore, AliasedTensorsStayAliased) {
  const unsigned w = 64 * 3, h = 2;
  Strided x(w, h, w);
  for (unsigned c = 0; c < w * h; ++c) x.buffer[c] = float(c);
  Launch l(*scale_, w, h);
  l.scalar(-2.0f);
  std::vector<TensorDesc2> d{x.descriptor(), x.descriptor()};  // in place
  VPEStats stats;
  tpc_tests::RunSimulation(l.params, l.instance, d, stats);
  ASSERT_EQ(stats.status, 0) << stats.errorMessage;
  for (unsigned c = 0; c < w * h; ++c) ASSERT_EQ(x.buffer[c], -2.0f * float(c));
}

TEST_F(TestCore, OutputsAskingForMemsetAreFilledFirst) {
  const unsigned w = 128, h = 4;
  Strided x(w, h, w), y(w, h, w);
  for (float& v : x.buffer) v = 1.0f;
  Launch l(*scale_, w, h);
  l.scalar(5.0f);
  l.instance.indexSpaceGeometry[1] = 2;  // rows 2 and 3 are not written by the kernel
  l.outPattern.memsetBeforeExecution = 1;
  l.outPattern.memsetValue.fValue = 0.5f;
  std::vector<TensorDesc2> d{x.descriptor(), y.descriptor()};
  VPEStats stats;
  tpc_tests::RunSimulation(l.params, l.instance, d, stats);
  ASSERT_EQ(stats.status, 0) << stats.errorMessage;
  for (unsigned r = 0; r < h; ++r)
    for (unsigned c = 0; c < w; ++c) ASSERT_EQ(y.at(c, r), r < 2 ? 5.0f : 0.5f);
}

// Each bad request: no cycles, status 1, the message names `field`, and the caller's memory is unchanged.
void expectRefused(Launch& l, std::vector<TensorDesc2> d, const std::vector<float>& outputBefore, const float* output,
                   const std::string& field) {
  VPEStats stats;
  testing::internal::CaptureStderr();
  unsigned cycles = tpc_tests::RunSimulation(l.params, l.instance, d, stats);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(cycles, 0u);
  EXPECT_EQ(stats.status, 1);
  EXPECT_NE(std::string(stats.errorMessage).find(field), std::string::npos) << stats.errorMessage;
  EXPECT_NE(err.find(field), std::string::npos) << err;
  EXPECT_EQ(std::memcmp(outputBefore.data(), output, outputBefore.size() * sizeof(float)), 0) << "memory written";
}

TEST_F(TestCore, InconsistentRequestsAreRefusedNamingTheField) {
  const unsigned w = 64, h = 2;
  Strided x(w, h, w), y(w, h, w);
  for (float& v : x.buffer) v = 1.0f;
  const std::vector<float> before = y.buffer;
  {
    Launch l(*scale_, w, h);
    l.scalar(2.0f);
    expectRefused(l, {x.descriptor()}, before, y.buffer.data(), "takes 2 tensor(s), 1 descriptor(s)");
  }
  {
    Launch l(*scale_, w, h);
    l.scalar(2.0f);
    TensorDesc2 null = y.descriptor();
    null.baseAddrUnion.baseAddr = 0;
    expectRefused(l, {x.descriptor(), null}, before, y.buffer.data(), "descriptor 1 (output 0): baseAddr is null");
  }
  {
    Launch l(*scale_, w, h);
    l.scalar(2.0f);
    TensorDesc2 overlapping = y.descriptor();
    overlapping.dimDescriptors[1].stride = 10;  // rows overlap
    expectRefused(l, {x.descriptor(), overlapping}, before, y.buffer.data(), "dimDescriptors[1].stride 10 overlaps");
  }
  {
    Launch l(*scale_, w, h);
    l.scalar(2.0f);
    TensorDesc2 smaller = y.descriptor();
    smaller.dimDescriptors[1].size = 1;
    expectRefused(l, {x.descriptor(), smaller}, before, y.buffer.data(),
                  "dimDescriptors[1].size is 1, but params.outputTensors[0].geometry.maxSizes[1] is 2");
  }
  {
    Launch l(*scale_, w, h);  // the scalar is missing
    expectRefused(l, {x.descriptor(), y.descriptor()}, before, y.buffer.data(), "instance.kernel.paramsNr is 0");
  }
  {
    Launch l(*scale_, w, h);
    l.scalar(2.0f);
    l.params.deviceId = tpc_lib_api::DEVICE_ID_GAUDI;
    expectRefused(l, {x.descriptor(), y.descriptor()}, before, y.buffer.data(), "params.deviceId is gaudi");
  }
  {
    Launch l(*scale_, w, h);
    l.scalar(2.0f);
    l.elf[1] = 'X';  // not an ELF file any more
    expectRefused(l, {x.descriptor(), y.descriptor()}, before, y.buffer.data(), "instance.kernel.kernelElf");
  }
  {
    Launch l(*scale_, w, h);
    l.scalar(2.0f);
    l.instance.indexSpaceRank = 6;
    expectRefused(l, {x.descriptor(), y.descriptor()}, before, y.buffer.data(), "instance.indexSpaceRank is 6");
  }
  {
    Launch l(*scale_, w, h);
    l.scalar(2.0f);
    TensorDesc2 wide = y.descriptor();
    wide.configuration = (wide.configuration & ~0xFu) | 11u;  // 8-byte elements
    expectRefused(l, {x.descriptor(), wide}, before, y.buffer.data(), "element type code 11");
  }
}

TEST(TestCoreKernels, AFaultIsReportedAndWritesNothing) {
  std::vector<char> kernel = compileKernel(kWritePast);
  Strided x(64, 1, 64), y(64, 1, 64);
  Launch l(kernel, 64, 1);
  std::vector<TensorDesc2> d{x.descriptor(), y.descriptor()};
  VPEStats stats;
  testing::internal::CaptureStderr();
  unsigned cycles = tpc_tests::RunSimulation(l.params, l.instance, d, stats);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(cycles, 0u);
  EXPECT_EQ(stats.status, 2);
  EXPECT_NE(err.find("outside every tensor"), std::string::npos) << err;
  EXPECT_NE(err.find("core 0"), std::string::npos) << err;
  for (float v : y.buffer) EXPECT_EQ(v, Strided::kGap);
}

TEST(TestCoreKernels, AnUnguardedReadPastATensorRunsAndIsReported) {
  std::vector<char> kernel = compileKernel(kReadPast);
  Strided x(64, 1, 64), y(64, 1, 64);
  Launch l(kernel, 64, 1);
  std::vector<TensorDesc2> d{x.descriptor(), y.descriptor()};
  VPEStats stats;
  testing::internal::CaptureStderr();
  tpc_tests::RunSimulation(l.params, l.instance, d, stats);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(stats.status, 3);
  EXPECT_EQ(stats.unguardedReads, 1u);
  EXPECT_NE(err.find("0 bytes past the end of descriptor 0 (input 0)"), std::string::npos) << err;
}

}  // namespace
