// Lane movement (mov_dual_group, mov_dual_group_all) and the floating-point helpers calc_fp_special and
// form_fp_num.
#include "itest.h"

namespace itest {
namespace {

class LanesFp : public IntrinsicsTest {};

// ------------------------------------------------------------------------------------------ dual groups

const char* const kDualGroup = R"(
void main(tensor x, tensor y, tensor out)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * {LANES}, 0, 0, 0, 0};
        {VT} a = v_{T}_ld_tnsr_b(c, x);
        {VT} b = v_{T}_ld_tnsr_b(c, y);
        {BT} p = v_{T}_cmp_less_b(a, b);
        {VT} r[7];
        r[0] = v_{T}_mov_dual_group_b(a, 0xFFFFFFFF, 1, 0, 0x3000, b);
        r[1] = v_{T}_mov_dual_group_b(a, 0xFFFFFFFF, 3, 2, 0x3000, b, v < 1);
        r[2] = v_{T}_mov_dual_group_all_b(a, 0xFFFFFFFF, 1, 0, 3, 2, 0xFF0000, b);
        r[3] = v_{T}_mov_dual_group_all_b(a, 0xFFFFFFFF, 2, 3, 0, 0, 0xFF0000, b, v > 0, 1);
        r[4] = v_{T}_mov_dual_group_vb(a, 0xFFFFFFFF, 0, 3, 0x3000, b, p);
        r[5] = v_{T}_mov_dual_group_all_vb(a, 0xFFFFFFFF, 3, 3, 1, 0, 0xFF0000, b, p, 1);
        r[6] = v_{T}_mov_dual_group_b(a, 0xFFFFFFFF, 2, 2, 0x3000, b, 0);
        for (int k = 0; k < 7; k++) {
            int5 o = {c[0], k, 0, 0, 0};
            v_{T}_st_tnsr(o, out, r[k]);
        }
    }
}
)";

TEST_P(LanesFp, MovDualGroup) {
  for (const char* tag : {"f32", "bf16", "i16", "u8"}) {
    const Type& t = type(tag);
    SCOPED_TRACE(tag);
    auto text = build(fill(kDualGroup, typeKeys(t)));
    if (text.empty()) continue;
    const int lanes = t.lanes(), perDg = lanes / 4;
    const int64_t n0 = 2 * lanes;  // whole vectors: the moves cross lanes
    auto xs = sampleBits(t, static_cast<size_t>(n0), 81), ys = sampleBits(t, static_cast<size_t>(n0), 82);
    RunResult r = exec(text, {makeTensor(t, {n0}, xs), makeTensor(t, {n0}, ys), makeTensor(t, {n0, 7})}, {},
                       {vectors(n0, lanes), 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> want(static_cast<size_t>(n0 * 7));
    for (int64_t v = 0; v < n0 / lanes; ++v) {
      auto A = [&](int l) { return xs[static_cast<size_t>(v * lanes + l)]; };
      auto B = [&](int l) { return ys[static_cast<size_t>(v * lanes + l)]; };
      auto less = [&](int l) {
        return t.isFloat ? decode(A(l), t.fmt) < decode(B(l), t.fmt) : t.intValue(A(l)) < t.intValue(B(l));
      };
      // The result of moving dual groups: sdg[d] is the source dual group of destination dual group d (-1: keep b).
      auto moved = [&](std::array<int, 4> sdg, int l) {
        int d = l / perDg;
        return sdg[d] < 0 ? B(l) : A(sdg[d] * perDg + l % perDg);
      };
      for (int l = 0; l < lanes; ++l) {
        uint32_t res[7] = {moved({-1, -1, -1, -1}, l), 0, moved({1, 0, 3, 2}, l), 0, 0, 0, B(l)};
        res[0] = moved({1, -1, -1, -1}, l);
        res[1] = v < 1 ? moved({-1, -1, 3, -1}, l) : B(l);
        res[3] = !(v > 0) ? moved({2, 3, 0, 0}, l) : B(l);
        res[4] = less(l) ? moved({-1, -1, -1, 0}, l) : B(l);
        res[5] = !less(l) ? moved({3, 3, 1, 0}, l) : B(l);
        for (int k = 0; k < 7; ++k) want[static_cast<size_t>(k * n0 + v * lanes + l)] = res[k];
      }
    }
    expectElements(r.tensors[2], want, std::string(tag) + " mov_dual_group");
  }
}

// Byte masks and single groups: byte j of a written group moves where bit j of b is set, and only the groups
// the switches name are written (tpc_llvm's cast_32bits_to_i8_lin_order merges packed dual groups this way).
const char* const kDualGroupPartial = R"(
void main(tensor x, tensor y, tensor out)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * {LANES}, 0, 0, 0, 0};
        {VT} a = v_{T}_ld_tnsr_b(c, x);
        {VT} b = v_{T}_ld_tnsr_b(c, y);
        {BT} p = v_{T}_cmp_less_b(a, b);
        {VT} r[6];
        r[0] = v_{T}_mov_dual_group_b(a, 0xFFFF0000, 1, 0, SW_WR_LOWER_GROUP, b);
        r[1] = v_{T}_mov_dual_group_b(a, 0x0000FFFF, 2, 0, SW_WR_UPPER_GROUP, b);
        r[2] = v_{T}_mov_dual_group_b(a, 0x0F0F00FF, 3, 1, SW_WR_LOWER_GROUP | SW_WR_UPPER_GROUP, b, v < 1);
        r[3] = v_{T}_mov_dual_group_all_b(a, 0xFF00FF00, 1, 0, 3, 2,
                                          SW_WR_LOWER_GROUP0 | SW_WR_UPPER_GROUP1 | SW_WR_LOWER_GROUP3 | SW_WR_UPPER_GROUP3, b);
        r[4] = v_{T}_mov_dual_group_vb(a, 0x3C3C3C3C, 0, 3, SW_WR_UPPER_GROUP, b, p);
        r[5] = v_{T}_mov_dual_group_all_vb(a, 0xFFFFFFFF, 2, 2, 1, 0, SW_WR_UPPER_GROUP0 | SW_WR_LOWER_GROUP2, b, p, 1);
        for (int k = 0; k < 6; k++) {
            int5 o = {c[0], k, 0, 0, 0};
            v_{T}_st_tnsr(o, out, r[k]);
        }
    }
}
)";

// One move of the reference: groups (bit 0 lower, bit 1 upper) of dual group src into dual group dst, byte j
// of a group where bit j of mask is set.
struct ByteMove {
  int src, dst, groups;
  uint32_t mask;
};

TEST_P(LanesFp, MovDualGroupPartial) {
  for (const char* tag : {"f32", "bf16", "i16", "u8"}) {
    const Type& t = type(tag);
    SCOPED_TRACE(tag);
    auto text = build(fill(kDualGroupPartial, typeKeys(t)));
    if (text.empty()) continue;
    const int lanes = t.lanes(), width = 256 / lanes;
    const int64_t n0 = 2 * lanes;
    auto xs = sampleBits(t, static_cast<size_t>(n0), 83), ys = sampleBits(t, static_cast<size_t>(n0), 84);
    RunResult r = exec(text, {makeTensor(t, {n0}, xs), makeTensor(t, {n0}, ys), makeTensor(t, {n0, 6})}, {},
                       {vectors(n0, lanes), 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> want(static_cast<size_t>(n0 * 6));
    for (int64_t v = 0; v < n0 / lanes; ++v) {
      // The vector as 256 bytes (element l in bytes l*width.., little-endian).
      auto bytesOf = [&](const std::vector<uint32_t>& elems) {
        std::array<uint8_t, 256> out{};
        for (int i = 0; i < 256; ++i) out[static_cast<size_t>(i)] = static_cast<uint8_t>(elems[static_cast<size_t>(v * lanes + i / width)] >> (8 * (i % width)));
        return out;
      };
      const std::array<uint8_t, 256> A = bytesOf(xs), B = bytesOf(ys);
      auto moved = [&](std::vector<ByteMove> moves, int l) {
        std::array<uint8_t, 256> out = B;
        for (const ByteMove& m : moves)
          for (int g = 0; g < 2; ++g)
            for (int j = 0; j < 32; ++j)
              if (((m.groups >> g) & 1) && ((m.mask >> j) & 1u))
                out[static_cast<size_t>(64 * m.dst + 32 * g + j)] = A[static_cast<size_t>(64 * m.src + 32 * g + j)];
        uint32_t e = 0;
        for (int k = 0; k < width; ++k) e |= static_cast<uint32_t>(out[static_cast<size_t>(l * width + k)]) << (8 * k);
        return e;
      };
      auto less = [&](int l) {
        uint32_t a = xs[static_cast<size_t>(v * lanes + l)], b = ys[static_cast<size_t>(v * lanes + l)];
        return t.isFloat ? decode(a, t.fmt) < decode(b, t.fmt) : t.intValue(a) < t.intValue(b);
      };
      for (int l = 0; l < lanes; ++l) {
        const uint32_t keep = ys[static_cast<size_t>(v * lanes + l)];
        uint32_t res[6];
        res[0] = moved({{1, 0, 1, 0xFFFF0000u}}, l);
        res[1] = moved({{2, 0, 2, 0x0000FFFFu}}, l);
        res[2] = v < 1 ? moved({{3, 1, 3, 0x0F0F00FFu}}, l) : keep;
        res[3] = moved({{1, 0, 1, 0xFF00FF00u}, {0, 1, 2, 0xFF00FF00u}, {2, 3, 3, 0xFF00FF00u}}, l);
        res[4] = less(l) ? moved({{0, 3, 2, 0x3C3C3C3Cu}}, l) : keep;
        res[5] = !less(l) ? moved({{2, 0, 2, 0xFFFFFFFFu}, {1, 2, 1, 0xFFFFFFFFu}}, l) : keep;
        for (int k = 0; k < 6; ++k) want[static_cast<size_t>(k * n0 + v * lanes + l)] = res[k];
      }
    }
    expectElements(r.tensors[2], want, std::string(tag) + " mov_dual_group with byte masks");
  }
}

// ------------------------------------------------------------------------------------------ calc_fp_special

struct SpecialCase {
  const char* fn;
  double a, b;
  double result;  // NAN: NaN; kIncome: the lane keeps the income
};
constexpr double kIncome = 12345.0;

// C99 Annex F results for inputs that are special for the function (zero, infinity, NaN, outside the
// domain), and ordinary inputs that keep the income. The kernel passes the inputs' classes (fclass), as
// the vendor's special functions do; pow decides only what the classes tell (not a negative base).
const SpecialCase kSpecial[] = {
    {"SW_RECIP", 0.0, 0, INFINITY},      {"SW_RECIP", -0.0, 0, -INFINITY},     {"SW_RECIP", INFINITY, 0, 0.0},
    {"SW_RECIP", -INFINITY, 0, -0.0},    {"SW_RECIP", NAN, 0, NAN},            {"SW_RECIP", 2.0, 0, kIncome},
    {"SW_RSQRT", 0.0, 0, INFINITY},      {"SW_RSQRT", -0.0, 0, -INFINITY},     {"SW_RSQRT", INFINITY, 0, 0.0},
    {"SW_RSQRT", -1.0, 0, NAN},          {"SW_RSQRT", 4.0, 0, kIncome},        {"SW_SQRT", 0.0, 0, 0.0},
    {"SW_SQRT", -0.0, 0, -0.0},          {"SW_SQRT", INFINITY, 0, INFINITY},  {"SW_SQRT", -4.0, 0, NAN},
    {"SW_SQRT", 9.0, 0, kIncome},        {"SW_LOG", 0.0, 0, -INFINITY},        {"SW_LOG", -0.0, 0, -INFINITY},
    {"SW_LOG", INFINITY, 0, INFINITY},   {"SW_LOG", -2.0, 0, NAN},             {"SW_LOG", 2.0, 0, kIncome},
    {"SW_EXP", INFINITY, 0, INFINITY},   {"SW_EXP", -INFINITY, 0, 0.0},        {"SW_EXP", NAN, 0, NAN},
    {"SW_EXP", 1.0, 0, kIncome},         {"SW_TANH", 0.0, 0, 0.0},             {"SW_TANH", -0.0, 0, -0.0},
    {"SW_TANH", INFINITY, 0, 1.0},       {"SW_TANH", -INFINITY, 0, -1.0},      {"SW_TANH", 0.5, 0, kIncome},
    {"SW_DIV", 1.0, 0.0, INFINITY},      {"SW_DIV", -1.0, 0.0, -INFINITY},     {"SW_DIV", 0.0, 0.0, NAN},
    {"SW_DIV", INFINITY, 2.0, INFINITY}, {"SW_DIV", 2.0, INFINITY, 0.0},       {"SW_DIV", 6.0, 3.0, kIncome},
    {"SW_POW", 2.0, 0.0, 1.0},           {"SW_POW", 0.0, 2.0, 0.0},            {"SW_POW", -2.0, 3.0, kIncome},
    {"SW_POW", -2.0, 0.5, kIncome},      {"SW_POW", INFINITY, 2.0, INFINITY},  {"SW_POW", 2.0, 3.0, kIncome},
};

const char* const kCalcFpSpecial = R"(
void main(tensor a, tensor b, tensor out)
{
    int5 c = {0, 0, 0, 0, 0};
    {VT} x = v_{T}_ld_tnsr_b(c, a);
    {VT} y = v_{T}_ld_tnsr_b(c, b);
    {VT} inc = 12345;
    {BT} all = v_{T}_cmp_eq_b(y, y);
    x = v_{T}_fclass_b(x);
    y = v_{T}_fclass_b(y);
    {CALLS}
}
)";

TEST_P(LanesFp, CalcFpSpecial) {
  for (const char* tag : {"f32", "bf16", "f16"}) {
    const Type& t = type(tag);
    SCOPED_TRACE(tag);
    std::vector<std::string> fns;
    for (const SpecialCase& c : kSpecial)
      if (fns.empty() || fns.back() != c.fn) fns.push_back(c.fn);
    // One output row per function: every lane holds every case's inputs in turn; the function's own cases
    // are checked, the others hold some result that is checked too (from the same table logic).
    std::string calls;
    for (size_t k = 0; k < fns.size(); ++k) {
      std::string call = k % 2 ? "v_{T}_calc_fp_special_vb(x, y, " + fns[k] + ", inc, all, 0)"
                               : "v_{T}_calc_fp_special_b(x, y, " + fns[k] + ", inc)";
      calls += "{ int5 o = {0, " + std::to_string(k) + ", 0, 0, 0}; v_{T}_st_tnsr(o, out, " + call + "); }\n    ";
    }
    auto keys = typeKeys(t);
    keys["CALLS"] = calls;
    auto text = build(fill(fill(kCalcFpSpecial, {{"CALLS", calls}}), keys));
    if (text.empty()) continue;
    const int64_t n = std::size(kSpecial);
    std::vector<uint32_t> as, bs;
    for (const SpecialCase& c : kSpecial) {
      as.push_back(encode(c.a, t.fmt));
      bs.push_back(encode(c.b, t.fmt));
    }
    RunResult r = exec(text, {makeTensor(t, {n}, as), makeTensor(t, {n}, bs),
                              makeTensor(t, {n, static_cast<int64_t>(fns.size())})},
                       {}, {1, 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    for (size_t k = 0; k < fns.size(); ++k)
      for (int64_t i = 0; i < n; ++i) {
        const SpecialCase& c = kSpecial[i];
        if (fns[k] != c.fn) continue;
        uint32_t want = encode(c.result == kIncome ? kIncome : c.result, t.fmt);
        uint32_t got = r.tensors[2].get(r.tensors[2].index(i, static_cast<int64_t>(k)));
        EXPECT_EQ(got, want) << c.fn << "(" << c.a << ", " << c.b << ") gives " << hex(got) << ", expected " << hex(want);
      }
  }
}

// ------------------------------------------------------------------------------------------ form_fp_num

const char* const kFormFpNum = R"(
void main(tensor e, tensor sgn, tensor m, tensor out)
{
    const int5 s = get_index_space_offset();
    const int5 f = s + get_index_space_size();
    for (int v = s[0]; v < f[0]; v++) {
        int5 c = {v * {LANES}, 0, 0, 0, 0};
        {VT} a = v_{T}_ld_tnsr_b(c, e);
        {VT} b = v_{T}_ld_tnsr_b(c, sgn);
        {VT} d = v_{T}_ld_tnsr_b(c, m);
        {VT} r[5];
        r[0] = v_{T}_form_fp_num_b(a, b, d);
        r[1] = v_{T}_form_fp_num_b(a, b, d, SW_FORCE_SIGN0);
        r[2] = v_{T}_form_fp_num_b(a, b, d, SW_FORCE_SIGN1);
        r[3] = v_{T}_form_fp_num_vb(a, b, d, SW_EXP_IS_NUM | SW_ADD_BIAS, d, v_{T}_cmp_neq_b(a, b));
        r[4] = v_{T}_form_fp_num_b(a, b, d, SW_EXP_IS_NUM);
        for (int k = 0; k < 5; k++) {
            int5 o = {c[0], k, 0, 0, 0};
            v_{T}_st_tnsr(o, out, r[k]);
        }
    }
}
)";

TEST_P(LanesFp, FormFpNum) {
  for (const char* tag : {"f32", "bf16", "f16"}) {
    const Type& t = type(tag);
    SCOPED_TRACE(tag);
    auto text = build(fill(kFormFpNum, typeKeys(t)));
    if (text.empty()) continue;
    const int64_t n0 = t.lanes() + 21;
    const Fmt f = t.fmt;
    std::mt19937 rng(91);
    std::vector<uint32_t> es, ss, ms;
    for (int64_t i = 0; i < n0; ++i) {
      // Exponent sources: either a float whose exponent field is taken, or (for SW_EXP_IS_NUM) a small
      // non-negative integer in the lane's bits, so that adding the bias stays within the format.
      uint32_t e = (i % 2) ? encode(std::ldexp(1.0 + (rng() % 100) / 128.0, static_cast<int>(rng() % 20) - 10), f)
                           : rng() % static_cast<uint32_t>(f.bias());
      es.push_back(e & t.mask());
      ss.push_back(rng() & t.mask());
      ms.push_back(rng() & t.mask());
    }
    RunResult r = exec(text, {makeTensor(t, {n0}, es), makeTensor(t, {n0}, ss), makeTensor(t, {n0}, ms), makeTensor(t, {n0, 5})},
                       {}, {vectors(n0, t.lanes()), 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> want(static_cast<size_t>(n0 * 5));
    for (int64_t i = 0; i < n0; ++i) {
      size_t k = static_cast<size_t>(i);
      uint32_t sign = ss[k] & f.signBit(), mant = ms[k] & f.mantMask();
      uint32_t expField = es[k] & (f.expField() << f.mantBits);
      auto num = [&](int64_t e) {  // an integer exponent, limited to the field
        return static_cast<uint32_t>(std::min<int64_t>(std::max<int64_t>(e, 0), f.expField())) << f.mantBits;
      };
      want[k] = sign | expField | mant;
      want[k + n0] = expField | mant;
      want[k + 2 * n0] = f.signBit() | expField | mant;
      bool neq = !(decode(es[k], f) == decode(ss[k], f));
      want[k + 3 * n0] = neq ? (sign | num(static_cast<int64_t>(es[k]) + f.bias()) | mant) : ms[k];
      want[k + 4 * n0] = sign | num(static_cast<int64_t>(es[k])) | mant;
    }
    expectElements(r.tensors[3], want, std::string(tag) + " form_fp_num");
  }
}

// The `_ie_` forms take the exponent as an integer in each lane's bits (a char256 of those bits), with
// SW_EXP_IS_NUM implied: the same results as form_fp_num with SW_EXP_IS_NUM.
const char* const kFormFpNumIe = R"(
void main(tensor e, tensor sgn, tensor m, tensor out)
{
    const int5 s = get_index_space_offset();
    const int5 f = s + get_index_space_size();
    for (int v = s[0]; v < f[0]; v++) {
        int5 c = {v * 64, 0, 0, 0, 0};
        int64 a = v_i32_ld_tnsr_b(c, e);
        float64 b = v_f32_ld_tnsr_b(c, sgn);
        float64 d = v_f32_ld_tnsr_b(c, m);
        int5 o = c;
        v_f32_st_tnsr(o, out, v_f32_form_fp_num_ie_b((char256)a, b, d));
        o[1] = 1;
        v_f32_st_tnsr(o, out, v_f32_form_fp_num_ie_vb((char256)a, b, d, SW_ADD_BIAS, d, v_f32_cmp_grt_b(b, 0.0f)));
    }
}
)";

TEST_P(LanesFp, FormFpNumIntegerExponent) {
  const Type& t = type("f32");
  auto text = build(kFormFpNumIe);
  ASSERT_FALSE(text.empty());
  const int64_t n0 = 64 + 21;
  std::mt19937 rng(92);
  std::vector<uint32_t> es, ss, ms;
  for (int64_t i = 0; i < n0; ++i) {
    es.push_back(rng() % 127);  // biased or not, within the field
    ss.push_back(rng());
    ms.push_back(rng());
  }
  RunResult r = exec(text, {makeTensor(type("i32"), {n0}, es), makeTensor(t, {n0}, ss), makeTensor(t, {n0}, ms),
                            makeTensor(t, {n0, 2})},
                     {}, {vectors(n0, 64), 1, 1, 1, 1});
  if (r.tensors.empty()) return;
  std::vector<uint32_t> want(static_cast<size_t>(n0 * 2));
  for (int64_t i = 0; i < n0; ++i) {
    const size_t k = static_cast<size_t>(i);
    const uint32_t sign = ss[k] & 0x80000000u, mant = ms[k] & 0x7fffffu;
    want[k] = sign | (es[k] << 23) | mant;
    const bool positive = floatOf(ss[k]) > 0.0f;  // NaN compares false
    want[k + static_cast<size_t>(n0)] = positive ? (sign | ((es[k] + 127) << 23) | mant) : ms[k];
  }
  expectElements(r.tensors[3], want, "form_fp_num_ie");
}

ITEST_INSTANTIATE(LanesFp);

}  // namespace
}  // namespace itest
