// v_convert_f32_to_bf16_all_b and v_convert_bf16_to_f32_all_b/_vb: between a pair of float64 and one
// bfloat128, interleaved (bf16 lane 2i <-> .v1 lane i, lane 2i+1 <-> .v2 lane i). Every rounding switch,
// SW_CLIP_FP, NaN, infinities, denormals, ties, overflow, the income with scalar and lane predicates.
//
// The reference here is written on the bits alone (no doubles, no shared helpers): keep the upper 16 bits
// of the f32 and decide the increment from the lower 16 by the mode. The core's numerics (docs/isa.md):
// denormal inputs are read as signed zeros, every NaN result is the canonical quiet NaN.
#include "itest.h"

namespace itest {
namespace {

class ConvertAll : public IntrinsicsTest {};

enum class Mode { RHNE, RZ, RU, RD, RHAZ };

uint16_t refF32ToBf16(uint32_t x, Mode m, bool clip) {
  const uint32_t sign = x >> 31, exp = (x >> 23) & 0xffu, mant = x & 0x7fffffu;
  const uint16_t s = static_cast<uint16_t>(sign << 15);
  if (exp == 0xffu) {
    if (mant) return 0x7fc0;                             // NaN: canonical
    return static_cast<uint16_t>(s | (clip ? 0x7f7f : 0x7f80));  // infinity
  }
  if (exp == 0) return s;  // zero or denormal: signed zero
  uint32_t t = (x & 0x7fffffffu) >> 16, low = x & 0xffffu;
  bool up = false;
  switch (m) {
    case Mode::RHNE: up = low > 0x8000u || (low == 0x8000u && (t & 1u)); break;
    case Mode::RHAZ: up = low >= 0x8000u; break;
    case Mode::RZ: up = false; break;
    case Mode::RU: up = low != 0 && !sign; break;
    case Mode::RD: up = low != 0 && sign; break;
  }
  t += up ? 1u : 0u;  // carries into the exponent; 0x7f80 is infinity
  if (t >= 0x7f80u && clip) t = 0x7f7f;
  return static_cast<uint16_t>(s | t);
}

uint32_t refBf16ToF32(uint16_t h) {
  const uint32_t exp = (h >> 7) & 0xffu, mant = h & 0x7fu;
  if (exp == 0xffu && mant) return 0x7fc00000u;
  if (exp == 0) return static_cast<uint32_t>(h & 0x8000u) << 16;
  return static_cast<uint32_t>(h) << 16;
}

// f32 inputs: the cases that decide rounding, then random bit patterns.
std::vector<uint32_t> f32Inputs(size_t n) {
  std::vector<uint32_t> v = {
      0x3f808000u, 0x3f818000u, 0xbf808000u, 0xbf818000u,  // ties, even and odd kept part, both signs
      0x3f807fffu, 0x3f808001u, 0xbf807fffu, 0xbf808001u,  // just below and above the tie
      0x3f800001u, 0xbf800001u, 0x3f80ffffu, 0xbf80ffffu,  // smallest and largest discarded parts
      0x3f800000u, 0xbf800000u, 0x3fffffffu, 0xbfffffffu,  // exact; carry into the exponent
      0x7f7fffffu, 0xff7fffffu, 0x7f7f8000u, 0xff7f8000u,  // overflow to infinity (or not, by mode)
      0x7f7f7fffu, 0xff7f7fffu, 0x7f7f0000u, 0xff7f0000u,  // largest finite bf16
      0x7f800000u, 0xff800000u,                            // infinities
      0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu, 0x7fc12345u,  // NaNs (quiet, signalling)
      0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu,  // zeros, denormals
      0x00800000u, 0x80800000u, 0x00808000u, 0x00818000u, 0x0080ffffu, 0x8080ffffu,  // smallest normals
  };
  std::mt19937 rng(4242);
  while (v.size() < n) v.push_back(rng());
  return v;
}

const char* const kNarrow = R"(
void main(tensor in, tensor out, tensor out2)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * 128, 0, 0, 0, 0};
        int5 h = {v * 128 + 64, 0, 0, 0, 0};
        float128 x;
        x.v1 = v_f32_ld_tnsr_b(c, in);
        x.v2 = v_f32_ld_tnsr_b(h, in);
        v_bf16_st_tnsr(c, out, v_convert_f32_to_bf16_all_b(x{SW}));
        bfloat128 inc = v_bf16_ld_tnsr_b(c, out2);
        v_bf16_st_tnsr(c, out2, v_convert_f32_to_bf16_all_b(x, {SWP}, inc, (v & 1) != 0, {POL}));
    }
}
)";

struct NarrowCase {
  std::string sw;  // the switches argument ("" for the one-argument form)
  Mode mode;
  bool clip;
  int polarity;
};

TEST_P(ConvertAll, F32ToBf16EveryModeInterleaved) {
  const std::vector<NarrowCase> cases = {
      {"", Mode::RHNE, false, 0},           {"SW_RHNE", Mode::RHNE, false, 1}, {"SW_RZ", Mode::RZ, false, 0},
      {"SW_RU", Mode::RU, false, 1},        {"SW_RD", Mode::RD, false, 0},     {"SW_RHAZ", Mode::RHAZ, false, 0},
      {"SW_CLIP_FP", Mode::RHNE, true, 0},  {"SW_RU | SW_CLIP_FP", Mode::RU, true, 1},
      {"SW_CSR", Mode::RHNE, false, 0},  // read as SW_RHNE (docs/decisions.md)
  };
  const int64_t vecs = 4, n = 128 * vecs;
  const std::vector<uint32_t> xs = f32Inputs(static_cast<size_t>(n));
  std::vector<uint32_t> incs(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) incs[static_cast<size_t>(i)] = 0x4000u + static_cast<uint32_t>(i);  // 2.0, 2.0078, ...
  for (const NarrowCase& c : cases) {
    SCOPED_TRACE("switches '" + c.sw + "' polarity " + std::to_string(c.polarity));
    std::string swp = c.sw.empty() ? "0" : c.sw;
    auto text = build(fill(kNarrow, {{"SW", c.sw.empty() ? "" : ", " + c.sw}, {"SWP", swp},
                                     {"POL", std::to_string(c.polarity)}}));
    if (text.empty()) continue;
    RunResult r = exec(text, {makeTensor(type("f32"), {n}, xs), makeTensor(type("bf16"), {n}),
                              makeTensor(type("bf16"), {n}, incs)},
                       {}, {vecs, 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> want(static_cast<size_t>(n)), want2(static_cast<size_t>(n));
    for (int64_t v = 0; v < vecs; ++v)
      for (int64_t i = 0; i < 64; ++i)
        for (int64_t half = 0; half < 2; ++half) {
          size_t dst = static_cast<size_t>(v * 128 + 2 * i + half), src = static_cast<size_t>(v * 128 + 64 * half + i);
          want[dst] = refF32ToBf16(xs[src], c.mode, c.clip);
          bool runs = ((v & 1) != 0) != (c.polarity != 0);
          want2[dst] = runs ? want[dst] : incs[dst];
        }
    expectElements(r.tensors[1], want, "v_convert_f32_to_bf16_all_b");
    expectElements(r.tensors[2], want2, "with income and predicate");
  }
}

// SW_SR: each result is one of the two neighbours of the value (bit-exact values depend on the random
// bits); exact values stay exact.
TEST_P(ConvertAll, F32ToBf16StochasticRoundsToANeighbour) {
  const int64_t vecs = 2, n = 128 * vecs;
  std::vector<uint32_t> xs = f32Inputs(static_cast<size_t>(n));
  for (uint32_t& x : xs)
    if (((x >> 23) & 0xffu) == 0xffu || ((x >> 23) & 0xffu) >= 0xfeu || ((x >> 23) & 0xffu) == 0) x = 0x40490fdbu;
  auto text = build(fill(kNarrow, {{"SW", ", SW_SR"}, {"SWP", "SW_SR"}, {"POL", "0"}}));
  if (text.empty()) return;
  RunResult r = exec(text, {makeTensor(type("f32"), {n}, xs), makeTensor(type("bf16"), {n}), makeTensor(type("bf16"), {n})},
                     {}, {vecs, 1, 1, 1, 1});
  if (r.tensors.empty()) return;
  int bad = 0;
  for (int64_t v = 0; v < vecs; ++v)
    for (int64_t i = 0; i < 128; ++i) {
      size_t dst = static_cast<size_t>(v * 128 + i), src = static_cast<size_t>(v * 128 + 64 * (i & 1) + i / 2);
      uint32_t got = r.tensors[1].get(static_cast<int64_t>(dst));
      uint32_t down = refF32ToBf16(xs[src], Mode::RZ, false), up = down + 1;
      bool exact = (xs[src] & 0xffffu) == 0;
      if (exact ? got != down : (got != down && got != up)) ++bad;
    }
  EXPECT_EQ(bad, 0);
}

// Stochastic rounding draws from each core's random stream; the native reference draws in the order of
// the calls, so the compiled schedule must keep the two independent SR converts of the kernel in program
// order (at -O0 the list scheduler used to swap them). Always compared with the native run, whatever
// ITEST_NATIVE says.
TEST_P(ConvertAll, StochasticRoundingDrawsAsTheNativeReferenceDoes) {
  const int64_t vecs = 2, n = 128 * vecs;
  std::vector<uint32_t> xs = f32Inputs(static_cast<size_t>(n));
  Compiled c = compile(fill(kNarrow, {{"SW", ", SW_SR"}, {"SWP", "SW_SR"}, {"POL", "0"}}), GetParam());
  ASSERT_EQ(c.status, 0) << c.diagnostics;
  auto tensors = [&] {
    return std::vector<Tensor>{makeTensor(type("f32"), {n}, xs), makeTensor(type("bf16"), {n}),
                               makeTensor(type("bf16"), {n})};
  };
  RunResult sim = run(c.text, tensors(), {}, {vecs, 1, 1, 1, 1}, static_cast<int>(vecs));
  RunResult native = runNative(c.object, tensors(), {}, {vecs, 1, 1, 1, 1}, static_cast<int>(vecs));
  ASSERT_EQ(sim.fault, "");
  ASSERT_EQ(native.fault, "");
  expectSameTensors(sim, native);
}

const char* const kWiden = R"(
void main(tensor in, tensor out, tensor out2)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    ushort128 lane = read_lane_id_2b_b();
    bool128 p = v_u16_cmp_neq_b(v_u16_and_b(lane, {MASK}), 0);
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * 128, 0, 0, 0, 0};
        int5 h = {v * 128 + 64, 0, 0, 0, 0};
        bfloat128 x = v_bf16_ld_tnsr_b(c, in);
        float128 y = v_convert_bf16_to_f32_all_b(x{SW});
        v_f32_st_tnsr(c, out, y.v1);
        v_f32_st_tnsr(h, out, y.v2);
        float128 inc;
        inc.v1 = v_f32_ld_tnsr_b(c, out2);
        inc.v2 = v_f32_ld_tnsr_b(h, out2);
        float128 z = {PRED};
        v_f32_st_tnsr(c, out2, z.v1);
        v_f32_st_tnsr(h, out2, z.v2);
    }
}
)";

TEST_P(ConvertAll, Bf16ToF32InterleavedWithPredicates) {
  const int64_t vecs = 4, n = 128 * vecs;
  std::vector<uint32_t> xs;
  const uint16_t special[] = {0x0000, 0x8000, 0x0001, 0x807f, 0x0080, 0x8080, 0x3f80, 0xbf80, 0x7f7f, 0xff7f,
                              0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7f81, 0xffff, 0x4049, 0xc049, 0x3c00, 0x0040};
  for (uint16_t h : special) xs.push_back(h);
  std::mt19937 rng(77);
  while (xs.size() < static_cast<size_t>(n)) xs.push_back(rng() & 0xffffu);
  std::vector<uint32_t> incs(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) incs[static_cast<size_t>(i)] = 0x3f800000u + static_cast<uint32_t>(i);
  struct Case {
    std::string sw, pred;
    int mask;         // lane predicate: bf16 lane j runs when (j & mask) != 0; -1: scalar predicate v & 1
    bool invert;      // polarity
  };
  const std::vector<Case> cases = {
      {"", "v_convert_bf16_to_f32_all_vb(x, 0, inc, p)", 5, false},
      {", SW_RZ", "v_convert_bf16_to_f32_all_vb(x, SW_RZ, inc, p, 1)", 6, true},
      {", 0, (float128){0}, 1, 0", "v_convert_bf16_to_f32_all_b(x, 0, inc, (v & 1) != 0)", -1, false},
      {", SW_RD", "v_convert_bf16_to_f32_all_b(x, SW_RD, inc, (v & 1) != 0, 1)", -1, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.pred);
    auto text = build(fill(kWiden, {{"SW", c.sw}, {"PRED", c.pred}, {"MASK", std::to_string(c.mask < 0 ? 1 : c.mask)}}));
    if (text.empty()) continue;
    RunResult r = exec(text, {makeTensor(type("bf16"), {n}, xs), makeTensor(type("f32"), {n}),
                              makeTensor(type("f32"), {n}, incs)},
                       {}, {vecs, 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> want(static_cast<size_t>(n)), want2(static_cast<size_t>(n));
    for (int64_t v = 0; v < vecs; ++v)
      for (int64_t half = 0; half < 2; ++half)
        for (int64_t i = 0; i < 64; ++i) {
          size_t dst = static_cast<size_t>(v * 128 + 64 * half + i);
          int64_t lane = 2 * i + half;  // the bf16 lane read
          want[dst] = refBf16ToF32(static_cast<uint16_t>(xs[static_cast<size_t>(v * 128 + lane)]));
          bool on = c.mask < 0 ? (v & 1) != 0 : (lane & c.mask) != 0;
          want2[dst] = on != c.invert ? want[dst] : incs[dst];
        }
    expectElements(r.tensors[1], want, "v_convert_bf16_to_f32_all_b");
    expectElements(r.tensors[2], want2, "with income and predicate");
  }
}

// A round trip through both, in registers (the idiom of public kernels: round an f32 vector to bf16
// precision by converting a pair of it and taking .v1 back).
const char* const kRoundTrip = R"(
void main(tensor in, tensor out)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * 64, 0, 0, 0, 0};
        float64 a = v_f32_ld_tnsr_b(c, in);
        float128 p = {a, -a};
        float128 q = v_convert_bf16_to_f32_all_b(v_convert_f32_to_bf16_all_b(p, SW_RHNE));
        v_f32_st_tnsr(c, out, q.v1 - q.v2);
    }
}
)";

TEST_P(ConvertAll, RoundTripInRegisters) {
  const int64_t vecs = 3, n = 64 * vecs;
  std::vector<uint32_t> xs = f32Inputs(static_cast<size_t>(n));
  for (uint32_t& x : xs)
    if (((x >> 23) & 0xffu) >= 0xfeu) x = 0x3f8a0001u;  // keep q.v1 - q.v2 finite
  auto text = build(kRoundTrip);
  if (text.empty()) return;
  RunResult r = exec(text, {makeTensor(type("f32"), {n}, xs), makeTensor(type("f32"), {n})}, {}, {vecs, 1, 1, 1, 1});
  if (r.tensors.empty()) return;
  std::vector<uint32_t> want(static_cast<size_t>(n));
  for (size_t i = 0; i < want.size(); ++i) {
    uint32_t a = refBf16ToF32(refF32ToBf16(xs[i], Mode::RHNE, false));
    // a - (-a) = 2a, exact for a bf16 value below the largest exponent; NaN stays the canonical NaN,
    // zeros give +0.
    float f = floatOf(a);
    float d = f - (-f);
    uint32_t b = bitsOf(d);
    if (std::isnan(d)) b = 0x7fc00000u;
    if ((b & 0x7f800000u) == 0) b &= 0x80000000u;
    want[i] = b;
  }
  expectElements(r.tensors[1], want, "round trip");
}

ITEST_INSTANTIATE(ConvertAll);

}  // namespace
}  // namespace itest
