// End to end: the two hand-written sample kernels (samples/asm) over shapes whose dimension 0 is not a
// multiple of the vector width, under --strict-hazards, on 1, 2, 3 and 24 cores, against host references.
#include "sim_test_util.h"

namespace simtest {
namespace {

struct Shape {
  int64_t rows, cols;  // NumPy shape (rows, cols): TPC sizes [cols, rows]
};

std::string shapeName(const Shape& s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); }

// Exact cycle count of one core of add_f32.s over a box of `c` vector columns and `r` rows: 13 bundles
// before the row loop's body, per row 2 + 12 per column + 1, and the final halt; no stalls, no branches.
uint64_t addCycles(int64_t c, int64_t r) { return static_cast<uint64_t>(14 + r * (3 + 12 * c)); }
// relu_bf16.s: the same shape with 11 bundles per column.
uint64_t reluCycles(int64_t c, int64_t r) { return static_cast<uint64_t>(14 + r * (3 + 11 * c)); }

TEST(EndToEnd, AddF32SampleMatchesHostReference) {
  const std::string text = readSourceFile("samples/asm/add_f32.s");
  auto program = loadProgram(text);
  Rng rng(1234);
  for (Shape shape : {Shape{3, 100}, Shape{1, 1}, Shape{5, 257}, Shape{2, 64}}) {
    const size_t n = static_cast<size_t>(shape.rows * shape.cols);
    std::vector<float> a = rng.floats(n, -1000.0f, 1000.0f), b = rng.floats(n, -1000.0f, 1000.0f);
    // Some lanes with exact cancellation, infinities and a NaN.
    if (n > 4) {
      b[1] = -a[1];
      a[2] = INFINITY;
      b[3] = -INFINITY;
      a[4] = NAN;
    }
    std::vector<float> expected(n);
    for (size_t i = 0; i < n; ++i) expected[i] = f32Out(f32In(a[i]) + f32In(b[i]));
    const int64_t vecCols = (shape.cols + 63) / 64;

    for (int cores : {1, 2, 3, 24}) {
      SCOPED_TRACE(shapeName(shape) + " on " + std::to_string(cores) + " cores");
      LaunchOptions opt;
      opt.arch = gaudi2();
      opt.cores = cores;
      opt.threads = 2;
      opt.strictHazards = true;
      Launch launch(*program, opt);
      auto sizes = sizes5({shape.cols, shape.rows});
      launch.addTensor(DType::F32, sizes, toBytes(a));
      launch.addTensor(DType::F32, sizes, toBytes(b));
      launch.addTensor(DType::F32, sizes, std::vector<uint8_t>(n * 4, 0xAB));  // garbage that must be overwritten
      launch.setIndexSpace({vecCols, shape.rows, 1, 1, 1});
      LaunchResult r = launch.run();
      ASSERT_FALSE(r.fault) << r.fault->describe();
      std::vector<float> out = fromBytes<float>(launch.tensorData(2));
      ASSERT_EQ(out.size(), n);
      for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(bitsOf(out[i]), bitsOf(expected[i])) << "element " << i << ": " << a[i] << " + " << b[i];
      // Inputs untouched.
      auto in0 = launch.tensorData(0);
      EXPECT_TRUE(std::equal(in0.begin(), in0.end(), toBytes(a).begin()));
      // Per-core cycles by hand; every bundle issues on time under strict hazards.
      ASSERT_EQ(r.cores.size(), static_cast<size_t>(cores));
      uint64_t maxCycles = 0;
      for (int c = 0; c < cores; ++c) {
        const auto& box = r.boxes[static_cast<size_t>(c)];
        const CoreStats& s = r.cores[static_cast<size_t>(c)];
        uint64_t want = box.volume() ? addCycles(box.size[0], box.size[1]) : 0;
        EXPECT_EQ(s.cycles, want) << "core " << c;
        EXPECT_EQ(s.bundles, want) << "core " << c;
        EXPECT_EQ(s.stalls, 0u);
        if (box.volume()) {
          const uint64_t cols = static_cast<uint64_t>(box.size[0]) * static_cast<uint64_t>(box.size[1]);
          EXPECT_EQ(s.slotBusy[0], 2 * cols);                                          // two loads per vector
          EXPECT_EQ(s.slotBusy[1], 11 + 2 * static_cast<uint64_t>(box.size[1]) + cols);  // SPU
          EXPECT_EQ(s.slotBusy[2], cols);
          EXPECT_EQ(s.slotBusy[3], cols);
          EXPECT_EQ(s.loadBytes, 2 * 256 * cols);
        }
        maxCycles = std::max(maxCycles, want);
      }
      EXPECT_EQ(r.maxCycles(), maxCycles);
    }
  }
}

uint16_t reluReference(uint16_t x) {
  if (bf16IsNan(x)) return 0x7fc0u;
  float v = bf16ToFloat(x);
  return v > 0 ? floatToBf16(v) : 0;  // max(-0, +0) = +0 and flushed denormals give +0 too
}

TEST(EndToEnd, ReluBf16SampleMatchesHostReference) {
  const std::string text = readSourceFile("samples/asm/relu_bf16.s");
  auto program = loadProgram(text);
  Rng rng(99);
  for (Shape shape : {Shape{3, 200}, Shape{2, 129}, Shape{1, 1}, Shape{4, 128}}) {
    const size_t n = static_cast<size_t>(shape.rows * shape.cols);
    std::vector<uint16_t> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = floatToBf16(rng.uniform(-50.0f, 50.0f));
    const uint16_t specials[] = {0x8000, 0x0000, 0x7f80, 0xff80, 0x7fc1, 0x0001, 0x8001, 0x0080, 0x8080, 0x3f80};
    for (size_t i = 0; i < std::size(specials) && i < n; ++i) x[i * 7 % n] = specials[i];
    std::vector<uint16_t> expected(n);
    for (size_t i = 0; i < n; ++i) expected[i] = reluReference(x[i]);
    const int64_t vecCols = (shape.cols + 127) / 128;
    for (int cores : {1, 2, 3, 24}) {
      SCOPED_TRACE(shapeName(shape) + " on " + std::to_string(cores) + " cores");
      LaunchOptions opt;
      opt.arch = gaudi2();
      opt.cores = cores;
      opt.threads = 3;
      opt.strictHazards = true;
      Launch launch(*program, opt);
      auto sizes = sizes5({shape.cols, shape.rows});
      launch.addTensor(DType::BF16, sizes, toBytes(x));
      launch.addTensor(DType::BF16, sizes, std::vector<uint8_t>(n * 2, 0x5A));
      launch.setIndexSpace({vecCols, shape.rows, 1, 1, 1});
      LaunchResult r = launch.run();
      ASSERT_FALSE(r.fault) << r.fault->describe();
      std::vector<uint16_t> out = fromBytes<uint16_t>(launch.tensorData(1));
      ASSERT_EQ(out.size(), n);
      for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(out[i], expected[i]) << "element " << i << " input 0x" << std::hex << x[i];
      for (int c = 0; c < cores; ++c) {
        const auto& box = r.boxes[static_cast<size_t>(c)];
        EXPECT_EQ(r.cores[static_cast<size_t>(c)].cycles, box.volume() ? reluCycles(box.size[0], box.size[1]) : 0u);
      }
    }
  }
}

TEST(EndToEnd, HandRoundingReferenceIsSane) {
  // The test's own bf16 rounding: ties to even, carries into the exponent, flushes tiny results.
  EXPECT_EQ(floatToBf16(1.0f), 0x3f80u);
  EXPECT_EQ(floatToBf16(floatOf(0x3f808000u)), 0x3f80u);  // tie, even stays
  EXPECT_EQ(floatToBf16(floatOf(0x3f818000u)), 0x3f82u);  // tie, odd rounds up
  EXPECT_EQ(floatToBf16(floatOf(0x3f808001u)), 0x3f81u);
  EXPECT_EQ(floatToBf16(floatOf(0x3fffffffu)), 0x4000u);  // carry into the exponent
  EXPECT_EQ(floatToBf16(floatOf(0x7f7fffffu)), 0x7f80u);  // overflow to infinity
  EXPECT_EQ(floatToBf16(-0.0f), 0x8000u);
  EXPECT_EQ(floatToBf16(floatOf(0x00400000u)), 0x0000u);  // denormal flushed
}

}  // namespace
}  // namespace simtest
