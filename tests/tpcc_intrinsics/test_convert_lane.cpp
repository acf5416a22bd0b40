// Converts between widths. Down-converts with a lane, v_convert_<x>_to_<y>_b/_vb(src, lane, switches,
// income, ...), write element k of src, converted, to lane r*k + lane of the result (r = 2 or 4, the width
// ratio) and keep the income's other lanes; up-converts without one read source lane r*k into result lane k.
// Every pair the table declares, against the host conversion of itest.h: all lanes filled from r different
// sources, one lane over an income, and predicates (bit k: source element k when narrowing, result lane k
// when widening).
#include "itest.h"

namespace itest {
namespace {

class ConvertLane : public IntrinsicsTest {};

// Rows of `out`: 0 every lane l from source vector l (switches SW), 1 lane 1 of source 0 over the income
// (default rounding, wrapping), 2 lane 0 of source 0 where the predicate holds (_vb), over the income.
const char* const kLane = R"(
void main(tensor src, tensor in, tensor out)
{
    const int5 first = get_index_space_offset();
    const int5 last = first + get_index_space_size();
    for (int v = first[0]; v < last[0]; v++) {
        int5 c = {0, v, 0, 0, 0};
        {Y} income = v_{y}_ld_tnsr_b(c, in);
        {Y} all = income;
        int5 s = {0, 0, v, 0, 0};
        {ALL_LANES}
        s[1] = 0;
        {X} x0 = v_{x}_ld_tnsr_b(s, src);
        {Y} one = v_convert_{x}_to_{y}_b(x0, 1, 0, income);
        {Y} some = v_convert_{x}_to_{y}_vb(x0, 0, 0, income, {PRED}, 0);
        int5 o = {0, 0, v, 0, 0};
        v_{y}_st_tnsr(o, out, all);
        o[1] = 1; v_{y}_st_tnsr(o, out, one);
        o[1] = 2; v_{y}_st_tnsr(o, out, some);
    }
}
)";

struct Pair {
  const char *x, *y, *boolType;
};
// The table's lane down-converts (intrinsics/intrinsics/convert.def), with the bool type of their _vb.
const Pair kPairs[] = {
    {"f32", "i16", "bool128"}, {"f32", "i8", "bool256"},  {"f32", "u16", "bool64"},  {"f32", "u8", "bool64"},
    {"bf16", "u8", "bool128"}, {"f16", "u8", "bool128"},  {"i32", "bf16", "bool64"}, {"i32", "i16", "bool64"},
    {"i32", "u16", "bool64"},  {"i32", "i8", "bool64"},   {"i32", "u8", "bool64"},   {"u32", "bf16", "bool64"},
    {"u32", "f16", "bool64"},  {"u32", "i16", "bool64"},  {"u32", "u16", "bool64"},  {"u32", "i8", "bool64"},
    {"u32", "u8", "bool64"},   {"i16", "i8", "bool128"},  {"i16", "u8", "bool128"},  {"u16", "i8", "bool128"},
    {"u16", "u8", "bool128"},
};

constexpr int64_t kVectors = 2;

TEST_P(ConvertLane, EveryLaneIncomeAndPredicate) {
  for (const Pair& p : kPairs) {
    const Type &x = type(p.x), &y = type(p.y);
    SCOPED_TRACE(std::string(p.x) + " -> " + p.y);
    const int r = x.size / y.size;
    // Float sources round down, integer ones saturate, in row 0; the predicate compares a vector of its own
    // lane count with zero: the source, or (a bool of result lanes) the income.
    const std::string sw = x.isFloat || y.isFloat ? "SW_RD" : "SW_SAT";
    const bool predOnSource = std::string(p.boolType) == x.boolv;
    const std::string pred = predOnSource ? fill("v_{x}_cmp_grt_b(x0, ({S})0)", {{"x", x.tag}, {"S", x.scalar}})
                                          : fill("v_{y}_cmp_grt_b(income, ({S})0)", {{"y", y.tag}, {"S", y.scalar}});
    // lane is a compile-time constant: one statement per lane.
    std::string allLanes;
    for (int l = 0; l < r; ++l)
      allLanes += fill("s[1] = {L}; all = v_convert_{x}_to_{y}_b(v_{x}_ld_tnsr_b(s, src), {L}, {SW}, all);\n",
                       {{"L", std::to_string(l)}});
    auto text = build(fill(kLane, {{"ALL_LANES", allLanes}, {"x", x.tag}, {"y", y.tag}, {"X", x.vec}, {"Y", y.vec},
                                   {"SW", sw}, {"PRED", pred}}));
    if (text.empty()) continue;
    const int nx = x.lanes(), ny = y.lanes();
    std::vector<uint32_t> src = sampleBits(x, static_cast<size_t>(nx * r * kVectors), 31, true);
    std::vector<uint32_t> income = sampleBits(y, static_cast<size_t>(ny * kVectors), 32);
    RunResult res = exec(text,
                         {makeTensor(x, {nx, r, kVectors}, src), makeTensor(y, {ny, kVectors}, income),
                          makeTensor(y, {ny, 3, kVectors})},
                         {}, {kVectors, 1, 1, 1, 1});
    if (res.tensors.empty()) continue;
    auto srcAt = [&](int64_t v, int l, int k) { return src[static_cast<size_t>((v * r + l) * nx + k)]; };
    auto isGreater = [](const Type& t, uint32_t bits) {
      return t.isFloat ? decode(bits, t.fmt) > 0 : t.intValue(bits) > 0;
    };
    std::vector<uint32_t> want;
    for (int64_t v = 0; v < kVectors; ++v) {
      const uint32_t* in = &income[static_cast<size_t>(v * ny)];
      std::vector<uint32_t> all(in, in + ny), one(in, in + ny), some(in, in + ny);
      for (int k = 0; k < nx; ++k) {
        for (int l = 0; l < r; ++l)
          all[static_cast<size_t>(r * k + l)] = convertBits(srcAt(v, l, k), x, y, x.isFloat || y.isFloat ? Rm::RD : Rm::RHNE, !x.isFloat);
        one[static_cast<size_t>(r * k + 1)] = convertBits(srcAt(v, 0, k), x, y, Rm::RHNE, false);
        bool enabled = predOnSource ? isGreater(x, srcAt(v, 0, k)) : isGreater(y, in[k]);
        if (enabled) some[static_cast<size_t>(r * k)] = convertBits(srcAt(v, 0, k), x, y, Rm::RHNE, false);
      }
      for (const auto* row : {&all, &one, &some}) want.insert(want.end(), row->begin(), row->end());
    }
    expectElements(res.tensors[2], want, std::string("v_convert_") + p.x + "_to_" + p.y + "_b/_vb");
  }
}

// Rows: 0 the up-convert (switches SW), 1 the even vectors only (scalar predicate), over the income,
// 2 where the income is positive (a predicate of result lanes, _vb), over the income.
const char* const kWiden = R"(
void main(tensor src, tensor in, tensor out)
{
    const int5 first = get_index_space_offset();
    const int5 last = first + get_index_space_size();
    for (int v = first[0]; v < last[0]; v++) {
        int5 c = {0, v, 0, 0, 0};
        {X} x = v_{x}_ld_tnsr_b(c, src);
        {Y} income = v_{y}_ld_tnsr_b(c, in);
        int5 o = {0, 0, v, 0, 0};
        v_{y}_st_tnsr(o, out, v_convert_{x}_to_{y}_b(x, {SW}));
        o[1] = 1; v_{y}_st_tnsr(o, out, v_convert_{x}_to_{y}_b(x, 0, income, (v & 1) == 0));
        o[1] = 2; v_{y}_st_tnsr(o, out, v_convert_{x}_to_{y}_vb(x, 0, income, v_{y}_cmp_grt_b(income, ({S})0), 0));
    }
}
)";

// The table's up-converts (convert.def).
const std::pair<const char*, const char*> kWidenPairs[] = {
    {"i16", "f32"}, {"i16", "i32"}, {"i16", "u32"}, {"u16", "f32"}, {"u16", "i32"}, {"u16", "u32"},
    {"bf16", "i32"}, {"bf16", "u32"}, {"f16", "i32"}, {"f16", "u32"}, {"i8", "f32"}, {"i8", "i32"},
    {"i8", "u32"}, {"i8", "i16"}, {"i8", "u16"},
};

TEST_P(ConvertLane, UpConvertReadsEveryRthLane) {
  for (const auto& [from, to] : kWidenPairs) {
    const Type &x = type(from), &y = type(to);
    SCOPED_TRACE(std::string(from) + " -> " + to);
    const int r = y.size / x.size;
    auto text = build(fill(kWiden, {{"x", x.tag}, {"y", y.tag}, {"X", x.vec}, {"Y", y.vec}, {"S", y.scalar},
                                    {"SW", x.isFloat ? "SW_RD" : "0"}}));
    if (text.empty()) continue;
    const int nx = x.lanes(), ny = y.lanes();
    std::vector<uint32_t> src = sampleBits(x, static_cast<size_t>(nx * kVectors), 41, true);
    std::vector<uint32_t> income = sampleBits(y, static_cast<size_t>(ny * kVectors), 42);
    RunResult res = exec(text,
                         {makeTensor(x, {nx, kVectors}, src), makeTensor(y, {ny, kVectors}, income),
                          makeTensor(y, {ny, 3, kVectors})},
                         {}, {kVectors, 1, 1, 1, 1});
    if (res.tensors.empty()) continue;
    std::vector<uint32_t> want;
    for (int64_t v = 0; v < kVectors; ++v) {
      auto in = [&](int k) { return income[static_cast<size_t>(v * ny + k)]; };
      auto converted = [&](int k, Rm rm) { return convertBits(src[static_cast<size_t>(v * nx + r * k)], x, y, rm, false); };
      for (int k = 0; k < ny; ++k) want.push_back(converted(k, x.isFloat ? Rm::RD : Rm::RHNE));
      for (int k = 0; k < ny; ++k) want.push_back(v % 2 == 0 ? converted(k, Rm::RHNE) : in(k));
      for (int k = 0; k < ny; ++k) {
        bool positive = y.isFloat ? decode(in(k), y.fmt) > 0 : y.intValue(in(k)) > 0;
        want.push_back(positive ? converted(k, Rm::RHNE) : in(k));
      }
    }
    expectElements(res.tensors[2], want, std::string("v_convert_") + from + "_to_" + to + "_b/_vb");
  }
}

ITEST_INSTANTIATE(ConvertLane);

}  // namespace
}  // namespace itest
