// Conversions: s_convert_<x>_to_<y> (every pair the reference declares for our types), v_convert_<x>_to_<y>
// _b/_vb between same-lane-count types, the high-level convert_<a>_to_<b> helpers, with rounding modes,
// SW_SAT and SW_CLIP_FP.
#include "itest.h"

namespace itest {
namespace {

class Convert : public IntrinsicsTest {};

// The scalar conversions of the reference between our types (source -> results).
const std::vector<std::pair<std::string, std::vector<std::string>>> kScalarPairs = {
    {"f32", {"i32", "i16", "i8", "bf16", "f16", "u32", "u16", "u8"}},
    {"bf16", {"f16", "f32", "i16", "i8", "i32", "u32", "u16", "u8"}},
    {"f16", {"f32", "bf16", "i16", "i8", "i32", "u32", "u16", "u8"}},
    {"i32", {"f32", "u32", "u8", "bf16", "f16", "i16", "u16", "i8"}},
    {"u32", {"f32", "bf16", "f16", "i32", "i16", "u16", "i8", "u8"}},
    {"i16", {"f32", "i32", "u32", "u16", "u8", "bf16", "f16", "i8"}},
    {"i8", {"f16", "f32", "i32", "u32", "i16", "u16", "u8", "bf16"}},
    {"u16", {"bf16", "f16", "i32", "u32", "i16", "i8", "u8", "f32"}},
    {"u8", {"f16", "f32", "bf16", "i32", "i16", "u32", "u16", "i8"}},
};

struct ScalarCase {
  std::string from, to;
  std::string switches;  // C expression
  Rm rm = Rm::RHNE;
  bool sat = false;
};

std::vector<ScalarCase> scalarCases() {
  std::vector<ScalarCase> cases;
  for (const auto& [x, ys] : kScalarPairs)
    for (const std::string& y : ys) cases.push_back({x, y, "0", Rm::RHNE, false});
  const std::vector<std::pair<std::string, std::string>> rounded = {
      {"f32", "i32"}, {"f32", "i16"}, {"f32", "i8"}, {"f32", "u8"}, {"f32", "bf16"}, {"f32", "f16"},
      {"i32", "f32"}, {"i32", "bf16"}, {"bf16", "i16"}, {"f16", "i8"}, {"u32", "f32"}, {"bf16", "f16"}};
  const std::vector<std::pair<std::string, Rm>> modes = {
      {"SW_RZ", Rm::RZ}, {"SW_RU", Rm::RU}, {"SW_RD", Rm::RD}, {"SW_RHAZ", Rm::RHAZ}};
  for (const auto& [name, rm] : modes)
    for (const auto& [x, y] : rounded) cases.push_back({x, y, name, rm, false});
  for (auto [x, y] : std::vector<std::pair<std::string, std::string>>{
           {"i32", "i16"}, {"i32", "u8"}, {"u32", "i32"}, {"i16", "u16"}, {"i8", "u8"}, {"u16", "i8"}, {"u32", "u16"}})
    cases.push_back({x, y, "SW_SAT", Rm::RHNE, true});
  for (auto [x, y] : std::vector<std::pair<std::string, std::string>>{{"f32", "bf16"}, {"f32", "f16"}, {"bf16", "f16"}})
    cases.push_back({x, y, "SW_CLIP_FP", Rm::RHNE, true});
  for (auto [x, y] : std::vector<std::pair<std::string, std::string>>{{"f32", "f16"}, {"f32", "i16"}})
    cases.push_back({x, y, "SW_RZ | SW_CLIP_FP", Rm::RZ, true});
  return cases;
}

// Typed source values from the kernel's 32-bit scalar parameters.
const char* const kScalarPrologue = R"(
#define PUT(k, val) res[(k) / 64] = v_i32_sel_eq_u32_b(lane, (unsigned)((k) % 64), (int)(val), res[(k) / 64])
#define PUTF(k, val) fres[(k) / 64] = v_f32_sel_eq_u32_b(lane, (unsigned)((k) % 64), (val), fres[(k) / 64])
void main(tensor out, unsigned pf32, unsigned pbf16, unsigned pf16, int pi32, unsigned pu32, int pi16, int pu16,
          int pi8, int pu8)
{
    uint64 lane = read_lane_id_4b_b();
    float v_f32 = as_float(pf32);
    bf16 v_bf16 = __builtin_bit_cast(bf16, (uint16_t)pbf16);
    half v_f16 = __builtin_bit_cast(half, (uint16_t)pf16);
    int32_t v_i32 = pi32;
    uint32_t v_u32 = pu32;
    int16_t v_i16 = (int16_t)pi16;
    uint16_t v_u16 = (uint16_t)pu16;
    int8_t v_i8 = (int8_t)pi8;
    uint8_t v_u8 = (uint8_t)pu8;
    int64 res[ROWS];
    float64 fres[ROWS];
    for (int i = 0; i < ROWS; i++) { res[i] = 0; fres[i] = 0.0f; }
)";

// The bits of a scalar value of type t as an int (f32 results go to a float vector instead).
std::string bitsExpr(const Type& t, const std::string& v) {
  if (t.isFloat && t.dt != DType::F32) return "__builtin_bit_cast(uint16_t, " + v + ")";
  return v;
}

TEST_P(Convert, ScalarEveryPairRoundingAndSaturation) {
  std::vector<ScalarCase> cases = scalarCases();
  ASSERT_GE(cases.size(), 72u + 48u);
  const int rows = static_cast<int>((cases.size() + 63) / 64);
  std::string src = std::string("#define ROWS ") + std::to_string(rows) + "\n" + kScalarPrologue;
  for (size_t k = 0; k < cases.size(); ++k) {
    const ScalarCase& c = cases[k];
    std::string arg = "v_" + c.from;
    if (c.from == "i8" && (c.to == "f16" || c.to == "bf16")) arg = "(uint8_t)v_i8";  // the reference's uint8_t src
    std::string call = "s_convert_" + c.from + "_to_" + c.to + "(" + arg + ", " + c.switches + ")";
    src += std::string(c.to == "f32" ? "    PUTF(" : "    PUT(") + std::to_string(k) + ", " + bitsExpr(type(c.to), call) + ");\n";
  }
  // Predicated forms keep the income where the predicate is false.
  const size_t pred = cases.size();
  src += "    res[ROWS - 1] = v_i32_sel_eq_u32_b(lane, 63u, s_convert_f32_to_i32(v_f32, 0, 4321, pi32 > 0), res[ROWS - 1]);\n";
  src += "    fres[ROWS - 1] = v_f32_sel_eq_u32_b(lane, 62u, s_convert_i16_to_f32(v_i16, 0, 2.0f, pi16 > 0, 1), fres[ROWS - 1]);\n";
  src += "    for (int i = 0; i < ROWS; i++) {\n"
         "        int5 c = {0, i, 0, 0, 0}; v_i32_st_tnsr(c, out, res[i]);\n"
         "        c[1] = ROWS + i; v_f32_st_tnsr(c, out, fres[i]);\n"
         "    }\n}\n";
  ASSERT_LT(pred % 64, 62u) << "the predicated lanes must stay free";
  auto text = build(src);
  if (text.empty()) return;

  struct Inputs {
    float f32;
    double bf16, f16;
    int32_t i32;
    uint32_t u32;
    int32_t i16, u16, i8, u8;
  };
  const std::vector<Inputs> inputs = {
      {1.5f, 2.5, -3.5, 7, 7u, 300, 40000, -100, 200},
      {-2.5f, -1.25, 0.5, -70000, 4000000000u, -32768, 65535, 127, 255},
      {2.5f, 300.75, 65504, 2147483647, 16777217u, 32767, 0, -128, 0},
      {1e10f, -1e10, -65504, -2147483647 - 1, 0u, -1, 128, 0, 128},
      {-1e10f, 1.0 / 3, 1.0 / 3, 16777217, 2147483648u, 129, 255, -1, 1},
      {3.4e38f, 65520, 3.0e-5, 33554435, 33554435u, -129, 256, 5, 7},
      {NAN, INFINITY, -INFINITY, -33554435, 100u, 255, 32768, -7, 250},
      {0.2999f, -0.0, 6.1e-5, -255, 65535u, -256, 300, 64, 64},
      {65519.0f, 1e-40, 2049, 131073, 131073u, 1000, 2000, -64, 100},
      {-0.0f, 2.0e38, -0.125, 1, 4294967295u, 129, 32767, 99, 3},
  };
  for (const Inputs& in : inputs) {
    uint32_t pf32 = bitsOf(in.f32), pbf16 = encode(in.bf16, kBF16, Rm::RHNE, false), pf16 = encode(in.f16, kF16);
    SCOPED_TRACE("f32=" + hex(pf32) + " bf16=" + hex(pbf16) + " f16=" + hex(pf16) + " i32=" + std::to_string(in.i32) +
                 " u32=" + std::to_string(in.u32) + " i16=" + std::to_string(in.i16) + " u16=" + std::to_string(in.u16) +
                 " i8=" + std::to_string(in.i8) + " u8=" + std::to_string(in.u8));
    std::vector<uint32_t> scalars = {pf32, pbf16, pf16, static_cast<uint32_t>(in.i32), in.u32,
                                     static_cast<uint32_t>(in.i16), static_cast<uint32_t>(in.u16),
                                     static_cast<uint32_t>(in.i8), static_cast<uint32_t>(in.u8)};
    RunResult r = exec(text, {makeTensor(type("i32"), {64, 2 * rows})}, scalars, {1, 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::map<std::string, uint32_t> srcBits = {
        {"f32", pf32}, {"bf16", pbf16}, {"f16", pf16}, {"i32", static_cast<uint32_t>(in.i32)}, {"u32", in.u32},
        {"i16", static_cast<uint32_t>(in.i16) & 0xffff}, {"u16", static_cast<uint32_t>(in.u16) & 0xffff},
        {"i8", static_cast<uint32_t>(in.i8) & 0xff}, {"u8", static_cast<uint32_t>(in.u8) & 0xff}};
    // Rows 0..rows-1: the results widened to int (sign-extended for signed integers, the raw bits of bf16
    // and f16); rows rows..2*rows-1: the f32 results.
    std::vector<uint32_t> want(static_cast<size_t>(64 * 2 * rows), 0);
    std::vector<size_t> where(cases.size());
    for (size_t k = 0; k < cases.size(); ++k) {
      const ScalarCase& c = cases[k];
      const Type& to = type(c.to);
      uint32_t bits = convertBits(srcBits[c.from], type(c.from), to, c.rm, c.sat);
      where[k] = c.to == "f32" ? k + static_cast<size_t>(64 * rows) : k;
      want[where[k]] = !to.isFloat && to.isSigned ? static_cast<uint32_t>(to.intValue(bits)) : bits;
    }
    size_t last = static_cast<size_t>(64 * (rows - 1));
    want[last + 63] = in.i32 > 0 ? convertBits(pf32, type("f32"), type("i32"), Rm::RHNE, false) : 4321u;
    want[last + 64 * rows + 62] =
        in.i16 > 0 ? bitsOf(2.0f) : convertBits(srcBits["i16"], type("i16"), type("f32"), Rm::RHNE, false);
    Tensor got = r.tensors[0];
    for (size_t k = 0; k < cases.size(); ++k)
      if (got.get(static_cast<int64_t>(where[k])) != want[where[k]])
        ADD_FAILURE() << "s_convert_" << cases[k].from << "_to_" << cases[k].to << "(" << hex(srcBits[cases[k].from])
                      << ", " << cases[k].switches << ") = " << hex(got.get(static_cast<int64_t>(where[k])))
                      << ", expected " << hex(want[where[k]]);
    expectElements(got, want, "scalar converts");
  }
}

// ------------------------------------------------------------------------------------------ vector

struct VectorCase {
  std::string from, to, switches;
  Rm rm = Rm::RHNE;
  bool sat = false;
};

const char* const kVectorConvert = R"(
void main(tensor x, tensor o1, tensor o2)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int r = s[1]; r < e[1]; r++) {
        for (int v = s[0]; v < e[0]; v++) {
            int5 c = {v * {LANES}, r, 0, 0, 0};
            {VT} a = v_{T}_ld_tnsr_b(c, x);
            v_{YT}_st_tnsr(c, o1, v_convert_{T}_to_{YT}_b(a, {SW}));
            {YVT} inc = 5;
            {BT} p = v_{T}_cmp_grt_b(a, 1);
            v_{YT}_st_tnsr(c, o2, v_convert_{T}_to_{YT}_vb(a, {SW}, inc, p));
        }
    }
}
)";

TEST_P(Convert, VectorSameLaneCount) {
  std::vector<VectorCase> cases;
  for (auto [x, y] : std::vector<std::pair<std::string, std::string>>{
           {"f32", "i32"}, {"f32", "u32"}, {"bf16", "i16"}, {"bf16", "f16"}, {"bf16", "u16"}, {"f16", "bf16"},
           {"f16", "i16"}, {"f16", "u16"}, {"i32", "f32"}, {"i32", "u32"}, {"u32", "f32"}, {"u32", "i32"},
           {"i16", "u16"}, {"i16", "bf16"}, {"i16", "f16"}, {"u16", "bf16"}, {"u16", "f16"}, {"u16", "i16"},
           {"i8", "u8"}, {"u8", "i8"}})
    cases.push_back({x, y, "0"});
  cases.push_back({"f32", "i32", "SW_RZ", Rm::RZ});
  cases.push_back({"f32", "i32", "SW_RU", Rm::RU});
  cases.push_back({"f32", "i32", "SW_RD", Rm::RD});
  cases.push_back({"f32", "i32", "SW_RHAZ", Rm::RHAZ});
  cases.push_back({"i32", "f32", "SW_RZ", Rm::RZ});
  cases.push_back({"i32", "f32", "SW_RU", Rm::RU});
  cases.push_back({"u32", "f32", "SW_RD", Rm::RD});
  cases.push_back({"bf16", "i16", "SW_RD", Rm::RD});
  cases.push_back({"f16", "bf16", "SW_RZ", Rm::RZ});
  cases.push_back({"bf16", "f16", "SW_RU", Rm::RU});
  cases.push_back({"bf16", "f16", "SW_CLIP_FP", Rm::RHNE, true});
  cases.push_back({"f16", "u16", "SW_RHAZ", Rm::RHAZ});
  cases.push_back({"i16", "u16", "SW_SAT", Rm::RHNE, true});
  cases.push_back({"u8", "i8", "SW_SAT", Rm::RHNE, true});
  cases.push_back({"i32", "u32", "SW_SAT", Rm::RHNE, true});
  cases.push_back({"u16", "i16", "SW_SAT", Rm::RHNE, true});
  for (const VectorCase& c : cases) {
    SCOPED_TRACE("v_convert_" + c.from + "_to_" + c.to + " " + c.switches);
    const Type &from = type(c.from), &to = type(c.to);
    auto keys = typeKeys(from);
    keys["YT"] = to.tag;
    keys["YVT"] = to.vec;
    keys["SW"] = c.switches;
    auto text = build(fill(kVectorConvert, keys));
    if (text.empty()) continue;
    const int64_t n0 = from.lanes() + 45, rows = 2, n = n0 * rows;
    auto xs = sampleBits(from, static_cast<size_t>(n), 61, /*specials=*/true);
    RunResult r = exec(text, {makeTensor(from, {n0, rows}, xs), makeTensor(to, {n0, rows}), makeTensor(to, {n0, rows})}, {},
                       {vectors(n0, from.lanes()), rows, 1, 1, 1});
    if (r.tensors.empty()) continue;
    uint32_t inc = to.isFloat ? encode(5.0, to.fmt) : 5u;
    std::vector<uint32_t> o1(static_cast<size_t>(n)), o2(static_cast<size_t>(n));
    for (size_t i = 0; i < o1.size(); ++i) {
      o1[i] = convertBits(xs[i], from, to, c.rm, c.sat);
      bool p = from.isFloat ? decode(xs[i], from.fmt) > 1.0 : from.intValue(xs[i]) > 1;
      o2[i] = p ? o1[i] : inc;
    }
    expectElements(r.tensors[1], o1, "_b");
    expectElements(r.tensors[2], o2, "_vb");
  }
}

const char* const kHighLevel = R"(
void main(tensor x, tensor o)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * {LANES}, 0, 0, 0, 0};
        v_{YT}_st_tnsr(c, o, convert_{A}_to_{B}(v_{T}_ld_tnsr_b(c, x), {SW}));
    }
}
)";

TEST_P(Convert, HighLevelSameLaneCount) {
  const std::vector<std::tuple<std::string, std::string, std::string, std::string, std::string, Rm>> cases = {
      {"int64", "float64", "i32", "f32", "0", Rm::RHNE},
      {"uint64", "float64", "u32", "f32", "SW_RZ", Rm::RZ},
      {"float64", "int64", "f32", "i32", "SW_RD", Rm::RD},
      {"uint64", "int64", "u32", "i32", "0", Rm::RHNE},
      {"float64", "uint64", "f32", "u32", "SW_LINEAR | SW_RU", Rm::RU},
      {"int64", "uint64", "i32", "u32", "0", Rm::RHNE},
      {"half128", "bfloat128", "f16", "bf16", "0", Rm::RHNE},
      {"short128", "bfloat128", "i16", "bf16", "SW_RHAZ", Rm::RHAZ},
      {"ushort128", "bfloat128", "u16", "bf16", "0", Rm::RHNE},
      {"bfloat128", "half128", "bf16", "f16", "SW_RZ", Rm::RZ},
      {"short128", "half128", "i16", "f16", "0", Rm::RHNE},
      {"ushort128", "half128", "u16", "f16", "SW_RU", Rm::RU},
      {"bfloat128", "short128", "bf16", "i16", "0", Rm::RHNE},
      {"half128", "short128", "f16", "i16", "SW_RZ", Rm::RZ},
      {"ushort128", "short128", "u16", "i16", "0", Rm::RHNE},
      {"bfloat128", "ushort128", "bf16", "u16", "SW_RD", Rm::RD},
      {"half128", "ushort128", "f16", "u16", "0", Rm::RHNE},
      {"short128", "ushort128", "i16", "u16", "0", Rm::RHNE},
      {"uchar256", "char256", "u8", "i8", "0", Rm::RHNE},
      {"char256", "uchar256", "i8", "u8", "0", Rm::RHNE},
  };
  for (const auto& [a, b, x, y, sw, rm] : cases) {
    SCOPED_TRACE("convert_" + a + "_to_" + b + " " + sw);
    const Type &from = type(x), &to = type(y);
    auto keys = typeKeys(from);
    keys["YT"] = to.tag;
    keys["A"] = a;
    keys["B"] = b;
    keys["SW"] = sw;
    auto text = build(fill(kHighLevel, keys));
    if (text.empty()) continue;
    const int64_t n0 = 2 * from.lanes() - 9;
    auto xs = sampleBits(from, static_cast<size_t>(n0), 71, true);
    RunResult r = exec(text, {makeTensor(from, {n0}, xs), makeTensor(to, {n0})}, {}, {vectors(n0, from.lanes()), 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> want;
    for (uint32_t v : xs) want.push_back(convertBits(v, from, to, rm, false));
    expectElements(r.tensors[1], want, "convert_" + a + "_to_" + b);
  }
}

ITEST_INSTANTIATE(Convert);

}  // namespace
}  // namespace itest
