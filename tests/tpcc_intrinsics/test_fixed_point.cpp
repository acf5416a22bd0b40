// Fixed-point intrinsics: the arithmetic shift v_<t>_ash_b/_vb and s_<t>_ash (a * 2^b, b a signed byte;
// saturating; right shifts round down or, with SW_RHU, half up) and the shifting converts
// v_convert_{int32,uint32,int16,uint16}_to_<t>_b/_vb and s_convert_* (value / 2^shift rounded by the switch
// and saturated into the narrower type, into every r-th lane from `lane`). The host reference does exact
// integer arithmetic in __int128, written apart from the simulator's semantics/fixed_point.h.
#include <random>

#include "itest.h"

namespace itest {
namespace {

class FixedPoint : public IntrinsicsTest {};

using Wide = __int128;

// floor(x / 2^n), n >= 0.
Wide floorShift(Wide x, int n) {
  n = std::min(n, 100);
  Wide unit = Wide{1} << n;
  Wide q = x / unit;
  if (x % unit != 0 && x < 0) q -= 1;
  return q;
}

int64_t clampTo(Wide v, const Type& t) {
  if (v < t.minValue()) return t.minValue();
  if (v > t.maxValue()) return t.maxValue();
  return static_cast<int64_t>(v);
}

// x * 2^s, saturated to t; a right shift takes floor(x / 2^n + (halfUp ? 1/2 : 0)).
int64_t ashRef(int64_t x, int s, bool halfUp, const Type& t) {
  if (s >= 0) {
    if (x == 0) return 0;
    if (s >= 64) return x < 0 ? t.minValue() : t.maxValue();
    return clampTo(Wide{x} << s, t);
  }
  int n = std::min(-s, 100);
  return clampTo(floorShift(Wide{x} + (halfUp ? Wide{1} << (n - 1) : 0), n), t);
}

// x / 2^s rounded by rm (s >= 0) or x * 2^-s (s < 0), saturated to t.
int64_t convertIntRef(int64_t x, int s, Rm rm, const Type& t) {
  if (s <= 0) return ashRef(x, -s, false, t);
  const int n = std::min(s, 100);
  const Wide unit = Wide{1} << n, q = floorShift(x, n), rem = Wide{x} - q * unit;
  Wide r = q;
  switch (rm) {
    case Rm::RD: break;
    case Rm::RU: r = rem ? q + 1 : q; break;
    case Rm::RZ: r = (x < 0 && rem) ? q + 1 : q; break;
    case Rm::RHAZ: r = (2 * rem > unit || (2 * rem == unit && x >= 0)) ? q + 1 : q; break;
    case Rm::RHNE: r = (2 * rem > unit || (2 * rem == unit && (q & 1))) ? q + 1 : q; break;
  }
  return clampTo(r, t);
}

// Shift bytes: mostly small, some large either way.
std::vector<uint32_t> shiftBytes(size_t n, uint32_t seed, int lo, int hi) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> out(n);
  const int extremes[] = {-128, 127, -40, 40, 33, -33, 0};
  for (uint32_t& b : out) {
    uint32_t r = rng();
    int s = r % 9 == 0 ? extremes[(r >> 8) % 7] : lo + static_cast<int>((r >> 8) % static_cast<uint32_t>(hi - lo + 1));
    b = static_cast<uint32_t>(s) & 0xffu;
  }
  return out;
}

constexpr int64_t kVectors = 2;

// Rows: 0 ash by the vector b, saturating; 1 with SW_RHU; 2 by the scalar s; 3 where a > 0 (_vb, income a);
// 4 s_<t>_ash(scalar sa, s, SW_RHU), broadcast.
const char* const kAsh = R"(
void main(tensor a, tensor b, tensor out, int s, int sa)
{
    const int5 first = get_index_space_offset();
    const int5 last = first + get_index_space_size();
    for (int v = first[0]; v < last[0]; v++) {
        int5 c = {v * {LANES}, 0, 0, 0, 0};
        {VT} x = v_{T}_ld_tnsr_b(c, a);
        int5 cb = {v * 256, 0, 0, 0, 0};
        char256 sh = v_i8_ld_tnsr_b(cb, b);
        int5 o = {0, 0, v, 0, 0};
        v_{T}_st_tnsr(o, out, v_{T}_ash_b(x, sh, SW_SAT));
        o[1] = 1; v_{T}_st_tnsr(o, out, v_{T}_ash_b(x, sh, SW_SAT | SW_RHU));
        o[1] = 2; v_{T}_st_tnsr(o, out, v_{T}_ash_b(x, (char)s));
        o[1] = 3; v_{T}_st_tnsr(o, out, v_{T}_ash_vb(x, sh, SW_SAT, x, v_{T}_cmp_grt_b(x, ({ST})0), 0));
        {ST} r = s_{T}_ash(({ST})sa, (int8_t)s, SW_RHU);
        o[1] = 4; v_{T}_st_tnsr(o, out, v_{T}_mov_b(r));
    }
}
)";

TEST_P(FixedPoint, AshShiftsBothWaysWithSaturationAndRounding) {
  for (const char* tag : {"i32", "u32", "i16", "u16", "i8", "u8"}) {
    const Type& t = type(tag);
    SCOPED_TRACE(tag);
    auto text = build(fill(kAsh, {{"T", t.tag}, {"VT", t.vec}, {"ST", t.scalar}, {"LANES", std::to_string(t.lanes())}}));
    if (text.empty()) continue;
    const int n = t.lanes();
    std::vector<uint32_t> xs = sampleBits(t, static_cast<size_t>(n * kVectors), 51);
    std::vector<uint32_t> sh = shiftBytes(static_cast<size_t>(256 * kVectors), 52, -12, 12);
    const int s = -5, sa = static_cast<int>(sampleBits(t, 1, 53)[0]);
    RunResult r = exec(text,
                       {makeTensor(t, {n * kVectors}, xs), makeTensor(type("i8"), {256 * kVectors}, sh),
                        makeTensor(t, {n, 5, kVectors})},
                       {static_cast<uint32_t>(s), static_cast<uint32_t>(sa)}, {kVectors, 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> want;
    auto bits = [&](int64_t v) { return static_cast<uint32_t>(v) & t.mask(); };
    for (int64_t v = 0; v < kVectors; ++v) {
      auto x = [&](int i) { return t.intValue(xs[static_cast<size_t>(v * n + i)]); };
      // The shift of lane i is the low byte of lane i of b: byte i * size.
      auto shiftOf = [&](int i) { return static_cast<int>(static_cast<int8_t>(sh[static_cast<size_t>(v * 256 + i * t.size)])); };
      for (int i = 0; i < n; ++i) want.push_back(bits(ashRef(x(i), shiftOf(i), false, t)));
      for (int i = 0; i < n; ++i) want.push_back(bits(ashRef(x(i), shiftOf(i), true, t)));
      for (int i = 0; i < n; ++i) want.push_back(bits(ashRef(x(i), s, false, t)));
      for (int i = 0; i < n; ++i) want.push_back(x(i) > 0 ? bits(ashRef(x(i), shiftOf(i), false, t)) : bits(x(i)));
      for (int i = 0; i < n; ++i) want.push_back(bits(ashRef(t.intValue(static_cast<uint32_t>(sa)), s, true, t)));
    }
    expectElements(r.tensors[2], want, std::string("v_") + tag + "_ash_b/_vb, s_" + tag + "_ash");
  }
}

// Rows over the income: 0 lane 0 (SW_RHNE), 1 the last lane (SW_RZ), 2 lane 1 by the scalar s (SW_RU),
// 3 lane 0 where value > 0 (_vb, SW_RD); 4 the scalar form of sa by s (SW_RHNE), broadcast.
const char* const kConvertInt = R"(
void main(tensor a, tensor b, tensor in, tensor out, int s, int sa)
{
    const int5 first = get_index_space_offset();
    const int5 last = first + get_index_space_size();
    for (int v = first[0]; v < last[0]; v++) {
        int5 c = {v * {XLANES}, 0, 0, 0, 0};
        {VX} x = v_{x}_ld_tnsr_b(c, a);
        int5 cb = {v * 256, 0, 0, 0, 0};
        char256 sh = v_i8_ld_tnsr_b(cb, b);
        int5 ci = {0, v, 0, 0, 0};
        {VY} income = v_{y}_ld_tnsr_b(ci, in);
        int5 o = {0, 0, v, 0, 0};
        v_{y}_st_tnsr(o, out, v_convert_{FROM}_to_{y}_b(x, sh, 0, SW_RHNE, income, 1, 0));
        o[1] = 1; v_{y}_st_tnsr(o, out, v_convert_{FROM}_to_{y}_b(x, sh, {LASTLANE}, SW_RZ, income, 1, 0));
        o[1] = 2; v_{y}_st_tnsr(o, out, v_convert_{FROM}_to_{y}_b(x, (char)s, 1, SW_RU, income, 1, 0));
        o[1] = 3; v_{y}_st_tnsr(o, out, v_convert_{FROM}_to_{y}_vb(x, sh, 0, SW_RD, income, v_{x}_cmp_grt_b(x, ({SX})0), 0));
        {SY} r = s_convert_{FROM}_to_{y}(({SX})sa, s, SW_RHNE, 0, 1, 0);
        o[1] = 4; v_{y}_st_tnsr(o, out, v_{y}_mov_b(r));
    }
}
)";

struct IntPair {
  const char *from, *x, *y;
};
const IntPair kIntPairs[] = {{"int32", "i32", "i16"}, {"int32", "i32", "i8"},   {"uint32", "u32", "u16"},
                             {"uint32", "u32", "u8"}, {"int16", "i16", "i8"},   {"uint16", "u16", "u8"}};

TEST_P(FixedPoint, ConvertIntScalesRoundsAndSaturatesIntoLanes) {
  for (const IntPair& p : kIntPairs) {
    const Type &x = type(p.x), &y = type(p.y);
    SCOPED_TRACE(std::string(p.from) + " -> " + p.y);
    const int ratio = x.size / y.size, nx = x.lanes(), ny = y.lanes();
    auto text = build(fill(kConvertInt, {{"FROM", p.from}, {"x", x.tag}, {"y", y.tag}, {"VX", x.vec}, {"VY", y.vec},
                                         {"SX", x.scalar}, {"SY", y.scalar}, {"XLANES", std::to_string(nx)},
                                         {"LASTLANE", std::to_string(ratio - 1)}}));
    if (text.empty()) continue;
    std::vector<uint32_t> xs = sampleBits(x, static_cast<size_t>(nx * kVectors), 61);
    std::vector<uint32_t> sh = shiftBytes(static_cast<size_t>(256 * kVectors), 62, -3, 14);
    std::vector<uint32_t> income = sampleBits(y, static_cast<size_t>(ny * kVectors), 63);
    const int s = 3, sa = static_cast<int>(sampleBits(x, 1, 64)[0]);
    RunResult r = exec(text,
                       {makeTensor(x, {nx * kVectors}, xs), makeTensor(type("i8"), {256 * kVectors}, sh),
                        makeTensor(y, {ny, kVectors}, income), makeTensor(y, {ny, 5, kVectors})},
                       {static_cast<uint32_t>(s), static_cast<uint32_t>(sa)}, {kVectors, 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    auto bits = [&](int64_t v) { return static_cast<uint32_t>(v) & y.mask(); };
    std::vector<uint32_t> want;
    for (int64_t v = 0; v < kVectors; ++v) {
      auto val = [&](int k) { return x.intValue(xs[static_cast<size_t>(v * nx + k)]); };
      auto shiftOf = [&](int k) { return static_cast<int>(static_cast<int8_t>(sh[static_cast<size_t>(v * 256 + k * x.size)])); };
      const uint32_t* in = &income[static_cast<size_t>(v * ny)];
      std::vector<std::vector<uint32_t>> rows(5, std::vector<uint32_t>(in, in + ny));
      for (int k = 0; k < nx; ++k) {
        rows[0][static_cast<size_t>(ratio * k)] = bits(convertIntRef(val(k), shiftOf(k), Rm::RHNE, y));
        rows[1][static_cast<size_t>(ratio * k + ratio - 1)] = bits(convertIntRef(val(k), shiftOf(k), Rm::RZ, y));
        rows[2][static_cast<size_t>(ratio * k + 1)] = bits(convertIntRef(val(k), s, Rm::RU, y));
        if (val(k) > 0) rows[3][static_cast<size_t>(ratio * k)] = bits(convertIntRef(val(k), shiftOf(k), Rm::RD, y));
      }
      rows[4].assign(static_cast<size_t>(ny), bits(convertIntRef(x.intValue(static_cast<uint32_t>(sa)), s, Rm::RHNE, y)));
      for (const auto& row : rows) want.insert(want.end(), row.begin(), row.end());
    }
    expectElements(r.tensors[3], want, std::string("v_convert_") + p.from + "_to_" + p.y + ", s_convert_*");
  }
}

ITEST_INSTANTIATE(FixedPoint);

}  // namespace
}  // namespace itest
