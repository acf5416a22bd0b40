// Integer mul and mac with products wider than their type: v_<t>_mul_b/_vb for i32, u32, i16, u16, i8, u8,
// v_<t>_mac_b/_vb and the scalar s_<t>_mul / s_<t>_mac (32-bit results) for the 16- and 8-bit types, with vector and scalar operands, income,
// accumulators, saturation and both kinds of predicate. The host reference computes every product in 64
// bits: a 32-bit type's result is the pair (low word, high word); a 16-bit type's pair member k holds the
// products of elements k, k + 2, k + 4, ... and an 8-bit type's quad member k those of elements k, k + 4, ...
// (docs/tpc-c.md, "Integer products").
#include <random>

#include "itest.h"

namespace itest {
namespace {

class WideProducts : public IntrinsicsTest {};

// Rows of `out` (one 64-lane row of 32-bit values per vector, result, member):
//   0 a * b, 1 a * s (scalar), 2 a > b ? a * b : a * a (vector predicate, income),
//   3 a * b where the vector is even, else a * a (scalar predicate).
const char* const kMul = R"(
void main(tensor a, tensor b, tensor out, int s)
{
    const int5 first = get_index_space_offset();
    const int5 last = first + get_index_space_size();
    for (int v = first[0]; v < last[0]; v++) {
        int5 c = {v * {LANES}, 0, 0, 0, 0};
        {VT} x = v_{T}_ld_tnsr_b(c, a);
        {VT} y = v_{T}_ld_tnsr_b(c, b);
        {RT} square = v_{T}_mul_b(x, x);
        {RT} r[4];
        r[0] = v_{T}_mul_b(x, y);
        r[1] = v_{T}_mul_b(x, ({ST})s);
        r[2] = v_{T}_mul_vb(x, y, 0, square, v_{T}_cmp_grt_b(x, y), 0);
        r[3] = v_{T}_mul_b(x, y, 0, square, (v & 1) == 0);
        for (int row = 0; row < 4; row++) {
            int5 o = {0, 0, row, v, 0};
            v_{O}_st_tnsr(o, out, r[row].v1);
            o[1] = 1; v_{O}_st_tnsr(o, out, r[row].v2);
            {MORE}
        }
    }
}
)";

// Rows: 0 init + a * b (wrapping), 1 saturating, 2 the even vectors only (scalar predicate),
// 3 where a <= b only (negated vector predicate), 4 init + a * s.
const char* const kMac = R"(
void main(tensor a, tensor b, tensor init, tensor out, int s)
{
    const int5 first = get_index_space_offset();
    const int5 last = first + get_index_space_size();
    for (int v = first[0]; v < last[0]; v++) {
        int5 c = {v * {LANES}, 0, 0, 0, 0};
        {VT} x = v_{T}_ld_tnsr_b(c, a);
        {VT} y = v_{T}_ld_tnsr_b(c, b);
        {RT} acc;
        int5 i = {0, 0, v, 0, 0};
        acc.v1 = v_{O}_ld_tnsr_b(i, init);
        i[1] = 1; acc.v2 = v_{O}_ld_tnsr_b(i, init);
        {LOAD_MORE}
        {RT} r[6];
        r[0] = v_{T}_mac_b(x, y, acc);
        r[1] = v_{T}_mac_b(x, y, acc, SW_SAT);
        r[2] = v_{T}_mac_b(x, y, acc, 0, (v & 1) == 0);
        r[3] = v_{T}_mac_vb(x, y, acc, 0, v_{T}_cmp_grt_b(x, y), 1);
        r[4] = v_{T}_mac_b(x, ({ST})s, acc);
        r[5] = v_{T}_mac_b(x, y, acc, SW_NEG);
        for (int row = 0; row < 6; row++) {
            int5 o = {0, 0, row, v, 0};
            v_{O}_st_tnsr(o, out, r[row].v1);
            o[1] = 1; v_{O}_st_tnsr(o, out, r[row].v2);
            {MORE}
        }
    }
}
)";

struct Wide {
  const Type& t;
  int ratio() const { return t.size == 4 ? 1 : 4 / t.size; }  // source elements per 32-bit lane
  int members() const { return t.size == 1 ? 4 : 2; }
  std::string resultType() const { return std::string(t.isSigned ? "int" : "uint") + (t.size == 1 ? "256" : "128"); }
  const Type& out() const { return type(t.isSigned ? "i32" : "u32"); }

  std::map<std::string, std::string> keys() const {
    std::string more, loadMore;
    for (int k = 2; k < members(); ++k) {
      more += fmt("o[1] = {K}; v_{O}_st_tnsr(o, out, r[row].v{M});\n", k);
      loadMore += fmt("i[1] = {K}; acc.v{M} = v_{O}_ld_tnsr_b(i, init);\n", k);
    }
    return {{"T", t.tag}, {"VT", t.vec}, {"ST", t.scalar}, {"RT", resultType()}, {"O", out().tag},
            {"LANES", std::to_string(t.lanes())}, {"MORE", more}, {"LOAD_MORE", loadMore}};
  }
  std::string fmt(std::string s, int k) const {
    return fill(s, {{"K", std::to_string(k)}, {"M", std::to_string(k + 1)}, {"O", out().tag}});
  }

  // The 64-bit product of two elements' bits, and the 32-bit lane a member holds of it.
  uint64_t product(uint32_t x, uint32_t y) const {
    if (t.isSigned) return static_cast<uint64_t>(t.intValue(x) * t.intValue(y));
    return uint64_t{x & t.mask()} * uint64_t{y & t.mask()};
  }
  uint32_t lane(uint64_t p, int member) const {
    return static_cast<uint32_t>(t.size == 4 && member == 1 ? p >> 32 : p);
  }
  // Element of vector v that lane i of member k reads.
  int64_t element(int64_t v, int i, int k) const { return v * t.lanes() + ratio() * i + (t.size == 4 ? 0 : k); }
  // acc + p in 32 bits: wrapping, or saturating to the type's signedness.
  uint32_t accumulate(uint32_t acc, uint64_t p, bool sat) const {
    if (!sat) return acc + static_cast<uint32_t>(p);
    if (t.isSigned) {
      int64_t s = int64_t{static_cast<int32_t>(acc)} + static_cast<int64_t>(p);
      return static_cast<uint32_t>(static_cast<int32_t>(std::clamp<int64_t>(s, INT32_MIN, INT32_MAX)));
    }
    uint64_t s = uint64_t{acc} + p;
    return static_cast<uint32_t>(std::min<uint64_t>(s, UINT32_MAX));
  }
};

constexpr int64_t kVectors = 3;

TEST_P(WideProducts, MulMembersIncomeAndPredicates) {
  for (const char* tag : {"i32", "u32", "i16", "u16", "i8", "u8"}) {
    SCOPED_TRACE(tag);
    Wide w{type(tag)};
    auto text = build(fill(kMul, w.keys()));
    if (text.empty()) continue;
    const int64_t n = kVectors * w.t.lanes();
    std::vector<uint32_t> xs = sampleBits(w.t, static_cast<size_t>(n), 11), ys = sampleBits(w.t, static_cast<size_t>(n), 12);
    const uint32_t s = sampleBits(w.t, 1, 13)[0];
    RunResult r = exec(text, {makeTensor(w.t, {n}, xs), makeTensor(w.t, {n}, ys), makeTensor(w.out(), {64, w.members(), 4, kVectors})},
                       {s}, {kVectors, 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> want;
    for (int64_t v = 0; v < kVectors; ++v)
      for (int row = 0; row < 4; ++row)
        for (int k = 0; k < w.members(); ++k)
          for (int i = 0; i < 64; ++i) {
            size_t e = static_cast<size_t>(w.element(v, i, k));
            uint64_t ab = w.product(xs[e], ys[e]), aa = w.product(xs[e], xs[e]);
            uint64_t p = row == 0   ? ab
                         : row == 1 ? w.product(xs[e], s)
                         : row == 2 ? (w.t.intValue(xs[e]) > w.t.intValue(ys[e]) ? ab : aa)
                                    : (v % 2 == 0 ? ab : aa);
            want.push_back(w.lane(p, k));
          }
    expectElements(r.tensors[2], want, std::string("v_") + tag + "_mul_b/_vb");
  }
}

TEST_P(WideProducts, MacAccumulatesWrapsSaturatesAndNegates) {
  for (const char* tag : {"i16", "u16", "i8", "u8"}) {
    SCOPED_TRACE(tag);
    Wide w{type(tag)};
    auto text = build(fill(kMac, w.keys()));
    if (text.empty()) continue;
    const int64_t n = kVectors * w.t.lanes();
    std::vector<uint32_t> xs = sampleBits(w.t, static_cast<size_t>(n), 21), ys = sampleBits(w.t, static_cast<size_t>(n), 22);
    // Accumulators at the extremes of the 32-bit range, so that both wrapping and saturation show.
    std::vector<uint32_t> init = sampleBits(w.out(), static_cast<size_t>(64 * w.members() * kVectors), 23);
    const uint32_t s = sampleBits(w.t, 1, 24)[0];
    RunResult r = exec(text,
                       {makeTensor(w.t, {n}, xs), makeTensor(w.t, {n}, ys),
                        makeTensor(w.out(), {64, w.members(), kVectors}, init),
                        makeTensor(w.out(), {64, w.members(), 6, kVectors})},
                       {s}, {kVectors, 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> want;
    for (int64_t v = 0; v < kVectors; ++v)
      for (int row = 0; row < 6; ++row)
        for (int k = 0; k < w.members(); ++k)
          for (int i = 0; i < 64; ++i) {
            size_t e = static_cast<size_t>(w.element(v, i, k));
            uint32_t acc = init[static_cast<size_t>((v * w.members() + k) * 64 + i)];
            uint64_t ab = w.product(xs[e], ys[e]);
            bool greater = w.t.intValue(xs[e]) > w.t.intValue(ys[e]);
            uint32_t got = row == 0   ? w.accumulate(acc, ab, false)
                           : row == 1 ? w.accumulate(acc, ab, true)
                           : row == 2 ? (v % 2 == 0 ? w.accumulate(acc, ab, false) : acc)
                           : row == 3 ? (greater ? acc : w.accumulate(acc, ab, false))
                           : row == 4 ? w.accumulate(acc, w.product(xs[e], s), false)
                                      : acc - static_cast<uint32_t>(ab);  // SW_NEG, wrapping
            want.push_back(got);
          }
    expectElements(r.tensors[3], want, std::string("v_") + tag + "_mac_b/_vb");
  }
}

// The scalar forms, s_<t>_mul and s_<t>_mac of the 8/16-bit types (32-bit results), each broadcast into one
// row of `out`: 0 a * b, 1 acc + a * b wrapping, 2 saturating, 3 a * b where a > b, else acc (the income).
const char* const kScalar = R"(
void main(tensor out, int a, int b, int acc)
{
    {ST} x = ({ST})a, y = ({ST})b;
    {RS} r[4];
    r[0] = s_{T}_mul(x, y);
    r[1] = s_{T}_mac(x, y, ({RS})acc);
    r[2] = s_{T}_mac(x, y, ({RS})acc, SW_SAT);
    r[3] = s_{T}_mul(x, y, 0, ({RS})acc, x > y);
    for (int row = 0; row < 4; row++) {
        int5 o = {0, row, 0, 0, 0};
        v_{O}_st_tnsr(o, out, v_{O}_mov_b(r[row]));
    }
}
)";

TEST_P(WideProducts, ScalarMulAndMacGiveThirtyTwoBits) {
  for (const char* tag : {"i16", "u16", "i8", "u8"}) {
    SCOPED_TRACE(tag);
    Wide w{type(tag)};
    auto text = build(fill(kScalar, {{"T", w.t.tag}, {"ST", w.t.scalar}, {"RS", w.t.isSigned ? "int32_t" : "uint32_t"},
                                     {"O", w.out().tag}}));
    if (text.empty()) continue;
    std::vector<uint32_t> as = sampleBits(w.t, 12, 31), bs = sampleBits(w.t, 12, 32);
    std::vector<uint32_t> accs = sampleBits(w.out(), 12, 33);
    for (size_t k = 0; k < as.size(); ++k) {
      RunResult r = exec(text, {makeTensor(w.out(), {64, 4})}, {as[k], bs[k], accs[k]}, {1, 1, 1, 1, 1}, 1);
      if (r.tensors.empty()) break;
      const uint64_t p = w.product(as[k], bs[k]);
      const bool greater = w.t.intValue(as[k]) > w.t.intValue(bs[k]);
      const uint32_t rows[4] = {w.lane(p, 0), w.accumulate(accs[k], p, false), w.accumulate(accs[k], p, true),
                                greater ? w.lane(p, 0) : accs[k]};
      std::vector<uint32_t> want;
      for (uint32_t v : rows) want.insert(want.end(), 64, v);
      expectElements(r.tensors[0], want, std::string("s_") + tag + "_mul/_mac of " + hex(as[k]) + ", " + hex(bs[k]));
    }
  }
}

ITEST_INSTANTIATE(WideProducts);

}  // namespace
}  // namespace itest
