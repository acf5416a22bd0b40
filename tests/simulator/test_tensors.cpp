// Tensor addressing through 5-D descriptors: non-dense strides, the padding value for loads outside the
// tensor on every dimension (negative coordinates too), ragged dimension-0 edges for loads and stores,
// partial accesses, half stores, read-modify-write stores and 5-D coordinates.
#include <map>

#include "sim_test_util.h"

namespace simtest {
namespace {

using Coord = std::array<int32_t, 5>;

// Bundles that set all five dimensions of index register `reg`.
std::string setCoord(int reg, const Coord& c) {
  std::string s;
  for (int d = 0; d < 5; ++d)
    s += "nop ; i_mov.i32 i" + std::to_string(reg) + ", " + std::to_string(c[d]) + " dmask=0b" +
         std::string(4 - d, '0') + "1" + std::string(d, '0') + " ; nop ; nop\n";
  return s;
}

// A dense host tensor with TPC sizes (dimension 0 first).
struct HostT {
  std::array<int64_t, 5> sizes;
  bool inside(const std::array<int64_t, 5>& c) const {
    for (int d = 0; d < 5; ++d)
      if (c[d] < 0 || c[d] >= sizes[d]) return false;
    return true;
  }
  int64_t index(const std::array<int64_t, 5>& c) const {
    int64_t idx = 0, stride = 1;
    for (int d = 0; d < 5; ++d) idx += c[d] * stride, stride *= sizes[d];
    return idx;
  }
  int64_t volume() const { return sizes[0] * sizes[1] * sizes[2] * sizes[3] * sizes[4]; }
};

// The vector a load at c returns: in-tensor elements, the padding elsewhere.
template <class T> std::vector<T> expectedLoad(const HostT& h, const std::vector<T>& data, const Coord& c, T pad) {
  const int lanes = 256 / static_cast<int>(sizeof(T));
  std::vector<T> out(static_cast<size_t>(lanes));
  for (int l = 0; l < lanes; ++l) {
    std::array<int64_t, 5> e{c[0] + l, c[1], c[2], c[3], c[4]};
    out[static_cast<size_t>(l)] = h.inside(e) ? data[static_cast<size_t>(h.index(e))] : pad;
  }
  return out;
}

TEST(Tensors, PaddingOnEveryDimensionIncludingNegativeCoordinates) {
  const HostT h{{70, 3, 2, 2, 2}};
  std::vector<int32_t> data(static_cast<size_t>(h.volume()));
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<int32_t>(i * 7 + 1);
  const int32_t pad = static_cast<int32_t>(0xdeadbeefu);
  std::vector<Coord> coords = {
      {0, 0, 0, 0, 0},   {-5, 1, 0, 0, 0},  {40, 2, 1, 1, 1},  {6, 1, 1, 0, 1},    // inside, ragged both ends
      {70, 0, 0, 0, 0},  {-64, 0, 0, 0, 0}, {-63, 0, 0, 0, 0},                       // dim 0 outside / barely in
      {0, 3, 0, 0, 0},   {0, -1, 0, 0, 0},  {0, 0, 2, 0, 0},   {0, 0, -1, 0, 0},    // dims 1, 2
      {0, 0, 0, 2, 0},   {0, 0, 0, -1, 0},  {0, 0, 0, 0, 2},   {0, 0, 0, 0, -1},    // dims 3, 4
      {-1000, -7, 9, 1, 1}};
  std::string text;
  for (size_t k = 0; k < coords.size(); ++k)
    text += setCoord(3, coords[k]) + "ld_tnsr.i32 v" + std::to_string(k) + ", i3 tnsr=0 ; nop ; nop ; nop\n";
  text += "nop ; halt ; nop ; nop\n";
  SimRun run(text);
  run.addTensor(DType::I32, h.sizes, data, static_cast<uint32_t>(pad));
  run.run();
  EXPECT_NO_FAULT(run);
  for (size_t k = 0; k < coords.size(); ++k) {
    SCOPED_TRACE("load " + std::to_string(k));
    EXPECT_TRUE(lanesEqual(run.vreg<int32_t>(static_cast<int>(k)), expectedLoad<int32_t>(h, data, coords[k], pad)));
  }
  // Spot checks independent of expectedLoad.
  EXPECT_EQ(run.vreg<int32_t>(1)[4], pad);
  EXPECT_EQ(run.vreg<int32_t>(1)[5], data[70 + 0]);
  EXPECT_EQ(run.vreg<int32_t>(6)[62], pad);
  EXPECT_EQ(run.vreg<int32_t>(6)[63], data[0]);
  EXPECT_TRUE(lanesEqual(run.vreg<int32_t>(4), std::vector<int32_t>(64, pad)));
}

TEST(Tensors, PaddingValueOfEachType) {
  std::vector<uint16_t> h(200, 0x3f80);
  std::vector<float> f(10, 1.0f);
  SimRun run(lines({"ld_tnsr.bf16 v0, i2 tnsr=0 ; nop ; nop ; nop", "nop ; i_mov.i32 i3, 100 dmask=0b00001 ; nop ; nop",
                    "ld_tnsr.bf16 v1, i3 tnsr=0 ; nop ; nop ; nop", "ld_tnsr.f32 v2, i2 tnsr=1 ; nop ; nop ; nop",
                    "nop ; halt ; nop ; nop"}));
  run.addTensor(DType::BF16, sizes5({200}), h, 0xff80u);  // -inf
  run.addTensor(DType::F32, sizes5({10}), f, bitsOf(-1.5f));
  run.run();
  EXPECT_NO_FAULT(run);
  EXPECT_TRUE(lanesEqual(run.vreg<uint16_t>(0), std::vector<uint16_t>(128, 0x3f80)));
  std::vector<uint16_t> w1(128, 0xff80);
  std::fill(w1.begin(), w1.begin() + 100, 0x3f80);
  EXPECT_TRUE(lanesEqual(run.vreg<uint16_t>(1), w1));
  std::vector<float> w2(64, -1.5f);
  std::fill(w2.begin(), w2.begin() + 10, 1.0f);
  EXPECT_TRUE(lanesEqual(run.vreg<float>(2), w2));
}

TEST(Tensors, RaggedAndOutsideStoresAreDropped) {
  const HostT h{{70, 3, 2, 1, 1}};
  std::vector<int32_t> src(64);
  for (int i = 0; i < 64; ++i) src[i] = 1000 + i;
  const int32_t init = -1;
  std::vector<Coord> coords = {{60, 0, 0, 0, 0},  {-5, 1, 0, 0, 0}, {3, 2, 1, 0, 0},  {70, 0, 1, 0, 0},
                               {-64, 2, 0, 0, 0}, {0, 3, 0, 0, 0},  {0, -1, 1, 0, 0}, {0, 0, 0, 1, 0},
                               {0, 0, 0, 0, -1}};
  std::string text = "ld_tnsr.i32 v0, i2 tnsr=0 ; nop ; nop ; nop\n";
  for (const Coord& c : coords) text += setCoord(3, c) + "nop ; nop ; nop ; st_tnsr.i32 i3, v0 tnsr=1\n";
  text += "nop ; halt ; nop ; nop\n";
  SimRun run(text);
  run.addTensor(DType::I32, sizes5({64}), src);
  run.addTensor(DType::I32, h.sizes, std::vector<int32_t>(static_cast<size_t>(h.volume()), init));
  run.run();
  EXPECT_NO_FAULT(run);
  std::vector<int32_t> want(static_cast<size_t>(h.volume()), init);
  for (const Coord& c : coords)
    for (int l = 0; l < 64; ++l) {
      std::array<int64_t, 5> e{c[0] + l, c[1], c[2], c[3], c[4]};
      if (h.inside(e)) want[static_cast<size_t>(h.index(e))] = src[l];
    }
  EXPECT_TRUE(lanesEqual(run.tensor<int32_t>(1), want));
  // Spot checks: the ragged right edge took lanes 0..9, the left edge lanes 5..63.
  auto out = run.tensor<int32_t>(1);
  EXPECT_EQ(out[69], 1009);
  EXPECT_EQ(out[70 + 0], 1005);
  EXPECT_EQ(out[70 + 58], 1063);
  EXPECT_EQ(out[70 + 59], init);
  // Only the bytes inside the tensor count as stored.
  EXPECT_EQ(run.stats().storeBytes, 4u * (10 + 59 + 64));
}

TEST(Tensors, NonDenseStridesThroughASingleCore) {
  // A [10, 3] f32 view with element strides [2, 25] into a 75-element buffer (as a strided slice would be),
  // and a [10, 2] output view with strides [3, 40] into an 80-element buffer.
  std::vector<float> buf(75);
  for (int i = 0; i < 75; ++i) buf[i] = static_cast<float>(i) + 0.5f;
  SingleCore sc(lines({
      "nop ; i_mov.i32 i3, 1 dmask=0b00010 ; nop ; nop",
      "nop ; i_mov.i32 i4, 2 dmask=0b00010 ; nop ; nop",
      "ld_tnsr.f32 v0, i2 tnsr=0 ; nop ; nop ; nop",
      "ld_tnsr.f32 v1, i4 tnsr=0 ; nop ; nop ; nop",
      "nop ; nop ; nop ; st_tnsr.f32 i3, v1 tnsr=1",
      "nop ; nop ; nop ; st_tnsr.f32 i2, v0 tnsr=1",
      "nop ; halt ; nop ; nop",
  }));
  tpc::sim::TensorDesc in;
  in.dtype = DType::F32;
  in.sizes = {10, 3, 1, 1, 1};
  in.strides = {2, 25, 75, 75, 75};
  in.padding = bitsOf(-9.0f);
  sc.bindTensor(0, in, toBytes(buf));
  tpc::sim::TensorDesc out = in;
  out.sizes = {10, 2, 1, 1, 1};
  out.strides = {3, 40, 80, 80, 80};
  sc.bindTensor(1, out, toBytes(std::vector<float>(80, 0.0f)));
  Core& core = sc.start();
  EXPECT_EQ(core.run(), StopReason::Halted) << (core.fault() ? core.fault()->describe() : "");
  auto v0 = std::vector<float>(core.r.v[0].lanes<float>(), core.r.v[0].lanes<float>() + 64);
  auto v1 = std::vector<float>(core.r.v[1].lanes<float>(), core.r.v[1].lanes<float>() + 64);
  std::vector<float> w0(64, -9.0f), w1(64, -9.0f);
  for (int x = 0; x < 10; ++x) w0[x] = buf[2 * x], w1[x] = buf[50 + 2 * x];
  EXPECT_TRUE(lanesEqual(v0, w0));
  EXPECT_TRUE(lanesEqual(v1, w1));
  std::vector<float> wantOut(80, 0.0f);
  for (int x = 0; x < 10; ++x) wantOut[3 * x] = w0[x], wantOut[40 + 3 * x] = w1[x];
  EXPECT_TRUE(lanesEqual(sc.tensorElements<float>(1, 80), wantOut));
}

TEST(Tensors, PartialLoadsAndStores) {
  std::vector<float> src(64), row(100);
  for (int i = 0; i < 64; ++i) src[i] = static_cast<float>(i) + 0.25f;
  for (int i = 0; i < 100; ++i) row[i] = -static_cast<float>(i);
  SimRun run(lines({
      "ld_tnsr.f32 v0, i2 tnsr=0 ; nop ; nop ; nop",
      "nop ; nop ; mov.f32 v5, 7.0 ; nop",
      "ld_tnsr_partial.f32 v5, i2 tnsr=1 off=10 size=20 ; nop ; nop ; nop",
      "nop ; nop ; mov.f32 v6, 7.0 ; nop",
      "nop ; i_mov.i32 i3, 50 dmask=0b00001 ; nop ; nop",
      "ld_tnsr_partial.f32 v6, i3 tnsr=1 off=40 size=100 ; nop ; nop ; nop",  // lanes 40..63; x >= 100 pads
      "nop ; nop ; nop ; st_tnsr_partial.f32 i2, v0 tnsr=2 off=5 size=3",
      "nop ; i_mov.i32 i4, 40 dmask=0b00001 ; nop ; nop",
      "nop ; nop ; nop ; st_tnsr_partial.f32 i4, v0 tnsr=2 off=58 size=20",     // lanes 58..63 at x 98..103
      "nop ; halt ; nop ; nop",
  }));
  run.addTensor(DType::F32, sizes5({64}), src);
  run.addTensor(DType::F32, sizes5({100}), row, bitsOf(3.0f));
  run.addTensor(DType::F32, sizes5({100}), std::vector<float>(100, 0.0f));
  run.run();
  EXPECT_NO_FAULT(run);
  std::vector<float> w5(64, 7.0f), w6(64, 7.0f);
  for (int l = 10; l < 30; ++l) w5[l] = row[l];
  for (int l = 40; l < 64; ++l) w6[l] = 50 + l < 100 ? row[50 + l] : 3.0f;
  EXPECT_TRUE(lanesEqual(run.vreg<float>(5), w5));
  EXPECT_TRUE(lanesEqual(run.vreg<float>(6), w6));
  std::vector<float> out(100, 0.0f);
  for (int l = 5; l < 8; ++l) out[l] = src[l];
  for (int l = 58; l < 60; ++l) out[40 + l] = src[l];
  EXPECT_TRUE(lanesEqual(run.tensor<float>(2), out));
}

TEST(Tensors, HalfStores) {
  std::vector<float> src(64);
  for (int i = 0; i < 64; ++i) src[i] = static_cast<float>(i) * 1.5f;
  std::vector<uint16_t> hs(128);
  for (int i = 0; i < 128; ++i) hs[i] = static_cast<uint16_t>(500 + i);
  SimRun run(lines({
      "ld_tnsr.f32 v0, i2 tnsr=0 ; nop ; nop ; nop",
      "ld_tnsr.u16 v1, i2 tnsr=3 ; nop ; nop ; nop",
      "nop ; nop ; nop ; st_tnsr.f32 i2, v0 tnsr=1 half=low",
      "nop ; nop ; nop ; st_tnsr.f32 i2, v0 tnsr=2 half=high",
      "nop ; nop ; nop ; st_tnsr.u16 i2, v1 tnsr=4 half=high",
      "nop ; halt ; nop ; nop",
  }));
  run.addTensor(DType::F32, sizes5({64}), src);
  run.addTensor(DType::F32, sizes5({64}), std::vector<float>(64, -1.0f));
  run.addTensor(DType::F32, sizes5({64}), std::vector<float>(64, -1.0f));
  run.addTensor(DType::U16, sizes5({128}), hs);
  run.addTensor(DType::U16, sizes5({100}), std::vector<uint16_t>(100, 9));
  run.run();
  EXPECT_NO_FAULT(run);
  std::vector<float> lo(64, -1.0f), hi(64, -1.0f);
  for (int i = 0; i < 32; ++i) lo[i] = src[i], hi[32 + i] = src[32 + i];
  EXPECT_TRUE(lanesEqual(run.tensor<float>(1), lo));
  EXPECT_TRUE(lanesEqual(run.tensor<float>(2), hi));
  std::vector<uint16_t> h4(100, 9);
  for (int i = 64; i < 100; ++i) h4[i] = hs[i];  // high half, ragged at 100
  EXPECT_TRUE(lanesEqual(run.tensor<uint16_t>(4), h4));
}

TEST(Tensors, ReadModifyWriteStores) {
  Rng rng(31);
  std::vector<float> v = rng.floats(64, -10, 10), old = rng.floats(64, -10, 10);
  std::vector<int32_t> vi = rng.ints<int32_t>(64, -1000, 1000), oldi = rng.ints<int32_t>(64, -1000, 1000);
  std::vector<uint16_t> vb(128), oldb(128);
  for (int i = 0; i < 128; ++i) vb[i] = floatToBf16(rng.uniform(-4, 4)), oldb[i] = floatToBf16(rng.uniform(-4, 4));
  const char* ops[] = {"add", "sub", "min", "max"};
  std::string text = "ld_tnsr.f32 v0, i2 tnsr=0 ; nop ; nop ; nop\nld_tnsr.i32 v1, i2 tnsr=1 ; nop ; nop ; nop\n"
                     "ld_tnsr.bf16 v2, i2 tnsr=2 ; nop ; nop ; nop\n";
  for (int k = 0; k < 4; ++k) {
    text += std::string("nop ; nop ; nop ; st_tnsr.f32 i2, v0 tnsr=") + std::to_string(3 + k) + " rmw=" + ops[k] + "\n";
    text += std::string("nop ; nop ; nop ; st_tnsr.i32 i2, v1 tnsr=") + std::to_string(7 + k) + " rmw=" + ops[k] + "\n";
  }
  text += "nop ; nop ; nop ; st_tnsr.bf16 i2, v2 tnsr=11 rmw=add\n";
  // Twice into the same place: the second store accumulates onto the first.
  text += "nop ; nop ; nop ; st_tnsr.i32 i2, v1 tnsr=12 rmw=add\nnop ; nop ; nop ; st_tnsr.i32 i2, v1 tnsr=12 rmw=add\n";
  text += "nop ; halt ; nop ; nop\n";
  SimRun run(text);
  run.addTensor(DType::F32, sizes5({64}), v);
  run.addTensor(DType::I32, sizes5({64}), vi);
  run.addTensor(DType::BF16, sizes5({128}), vb);
  for (int k = 0; k < 4; ++k) run.addTensor(DType::F32, sizes5({64}), old);
  for (int k = 0; k < 4; ++k) run.addTensor(DType::I32, sizes5({40}), std::vector<int32_t>(oldi.begin(), oldi.begin() + 40));
  run.addTensor(DType::BF16, sizes5({128}), oldb);
  run.addTensor(DType::I32, sizes5({64}), oldi);
  run.run();
  EXPECT_NO_FAULT(run);
  EXPECT_TRUE(lanesEqual(run.tensor<float>(3), mapLanes<float>(64, [&](size_t i) { return old[i] + v[i]; })));
  EXPECT_TRUE(lanesEqual(run.tensor<float>(4), mapLanes<float>(64, [&](size_t i) { return old[i] - v[i]; })));
  EXPECT_TRUE(lanesEqual(run.tensor<float>(5), mapLanes<float>(64, [&](size_t i) { return std::min(old[i], v[i]); })));
  EXPECT_TRUE(lanesEqual(run.tensor<float>(6), mapLanes<float>(64, [&](size_t i) { return std::max(old[i], v[i]); })));
  // i32 targets hold 40 elements: lanes 40..63 fall outside and are dropped.
  EXPECT_TRUE(lanesEqual(run.tensor<int32_t>(7), mapLanes<int32_t>(40, [&](size_t i) { return oldi[i] + vi[i]; })));
  EXPECT_TRUE(lanesEqual(run.tensor<int32_t>(8), mapLanes<int32_t>(40, [&](size_t i) { return oldi[i] - vi[i]; })));
  EXPECT_TRUE(lanesEqual(run.tensor<int32_t>(9), mapLanes<int32_t>(40, [&](size_t i) { return std::min(oldi[i], vi[i]); })));
  EXPECT_TRUE(lanesEqual(run.tensor<int32_t>(10), mapLanes<int32_t>(40, [&](size_t i) { return std::max(oldi[i], vi[i]); })));
  EXPECT_TRUE(lanesEqual(run.tensor<uint16_t>(11), mapLanes<uint16_t>(128, [&](size_t i) {
    return doubleToBf16(static_cast<double>(bf16ToFloat(oldb[i])) + bf16ToFloat(vb[i]));
  })));
  EXPECT_TRUE(lanesEqual(run.tensor<int32_t>(12), mapLanes<int32_t>(64, [&](size_t i) { return oldi[i] + 2 * vi[i]; })));
}

TEST(Tensors, FiveDimensionalCoordinates) {
  const HostT a{{130, 3, 4, 2, 3}}, b{{70, 2, 3, 2, 2}};
  std::vector<int16_t> data(static_cast<size_t>(a.volume()));
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<int16_t>(i * 3 - 20000);
  const Coord from{64, 2, 3, 1, 2}, to{-10, 1, 2, 1, 1};
  std::string text = setCoord(3, from) + setCoord(4, to) +
                     "ld_tnsr.i16 v0, i3 tnsr=0 ; nop ; nop ; nop\n"
                     "nop ; nop ; nop ; st_tnsr.i16 i4, v0 tnsr=1\n"
                     "nop ; halt ; nop ; nop\n";
  SimRun run(text);
  run.addTensor(DType::I16, a.sizes, data, 0x7777u);
  run.addTensor(DType::I16, b.sizes, std::vector<int16_t>(static_cast<size_t>(b.volume()), 0));
  run.run();
  EXPECT_NO_FAULT(run);
  std::vector<int16_t> loaded(128);
  for (int l = 0; l < 128; ++l) {
    int64_t x = 64 + l;
    loaded[l] = x < 130 ? data[static_cast<size_t>(x + 130 * (2 + 3 * (3 + 4 * (1 + 2 * 2))))] : int16_t{0x7777};
  }
  EXPECT_TRUE(lanesEqual(run.vreg<int16_t>(0), loaded));
  std::vector<int16_t> want(static_cast<size_t>(b.volume()), 0);
  for (int l = 10; l < 80; ++l) want[static_cast<size_t>((l - 10) + 70 * (1 + 2 * (2 + 3 * (1 + 2 * 1))))] = loaded[l];
  EXPECT_TRUE(lanesEqual(run.tensor<int16_t>(1), want));
}

}  // namespace
}  // namespace simtest
