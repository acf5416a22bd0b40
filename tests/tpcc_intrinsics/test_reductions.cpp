// The lane reductions of tpc-special.h: v_<t>_reduce_{add,mul,min,max,argmin,argmax} (and the vendor's
// reduce_nolut_ names of add, mul, min, max) for every data type that has them. The reference reduces on the host in the documented order (a butterfly over lane pairs
// i, i^k for k = lanes/2 ... 1, each step rounded in the data type) and checks that every lane of the
// result holds it.
#include "itest.h"

namespace itest {
namespace {

class Reductions : public IntrinsicsTest {};

const char* const kReductions = R"(
void main(tensor x, tensor values, tensor indices)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * {LANES}, 0, 0, 0, 0};
        {VT} a = v_{T}_ld_tnsr_b(c, x);
        int5 o = {0, 0, v, 0, 0};
        v_{T}_st_tnsr(o, values, v_{T}_reduce_{NL}add(a));
        o[1] = 1;
        v_{T}_st_tnsr(o, values, v_{T}_reduce_{NL}mul(a));
        o[1] = 2;
        v_{T}_st_tnsr(o, values, v_{T}_reduce_{NL}min(a));
        o[1] = 3;
        v_{T}_st_tnsr(o, values, v_{T}_reduce_{NL}max(a));
        {PAIR} lo = v_{T}_reduce_argmin(a);
        {PAIR} hi = v_{T}_reduce_argmax(a);
        o[1] = 4;
        v_{T}_st_tnsr(o, values, lo.v2);
        v_{IT}_st_tnsr(o, indices, lo.v1);
        o[1] = 5;
        v_{T}_st_tnsr(o, values, hi.v2);
        v_{IT}_st_tnsr(o, indices, hi.v1);
    }
}
)";

struct Case {
  const char* tag;
  const char* indexTag;
  const char* pair;
};
const Case kCases[] = {
    {"f32", "u32", "uint64_float64_pair_t"},     {"bf16", "u16", "ushort128_bfloat128_pair_t"},
    {"i32", "u32", "uint64_int64_pair_t"},       {"u32", "u32", "uint64_uint64_pair_t"},
    {"i16", "u16", "ushort128_short128_pair_t"}, {"u16", "u16", "ushort128_ushort128_pair_t"},
    {"i8", "u8", "uchar256_char256_pair_t"},     {"u8", "u8", "uchar256_uchar256_pair_t"},
};

// One step of the reference, rounded (floats) or wrapped (integers) in the type.
uint32_t combine(const Type& t, int op, uint32_t a, uint32_t b) {
  if (t.isFloat) {
    const double x = decode(a, t.fmt), y = decode(b, t.fmt);
    switch (op) {
      case 0: return encode(x + y, t.fmt);
      case 1: return encode(x * y, t.fmt);
      default: {
        if (std::isnan(x) || std::isnan(y)) return t.fmt.nan();
        if (x == y) {  // equal: the same bits, except min(-0, +0) = -0 and max(-0, +0) = +0
          const bool negativeZero = (op == 2) ? ((a | b) & t.fmt.signBit()) : ((a & b) & t.fmt.signBit());
          return x == 0 ? (negativeZero ? t.fmt.signBit() : 0) : a;
        }
        return (op == 2) == (x < y) ? a : b;
      }
    }
  }
  const int64_t x = t.intValue(a), y = t.intValue(b);
  switch (op) {
    case 0: return static_cast<uint32_t>(x + y) & t.mask();
    case 1: return static_cast<uint32_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y)) & t.mask();
    case 2: return (x < y ? a : b) & t.mask();
    default: return (x > y ? a : b) & t.mask();
  }
}

uint32_t butterfly(const Type& t, int op, std::vector<uint32_t> lanes) {
  for (size_t k = lanes.size() / 2; k > 0; k /= 2) {
    std::vector<uint32_t> next(lanes.size());
    for (size_t i = 0; i < lanes.size(); ++i) next[i] = combine(t, op, lanes[i], lanes[i ^ k]);
    lanes = next;
  }
  return lanes[0];
}

// The winning lane of argmin (largest = false) or argmax: any NaN first, then the extreme value; the lowest
// lane among equals.
size_t winner(const Type& t, const std::vector<uint32_t>& lanes, bool largest) {
  size_t best = 0;
  auto value = [&](size_t i) { return t.isFloat ? decode(lanes[i], t.fmt) : static_cast<double>(t.intValue(lanes[i])); };
  for (size_t i = 1; i < lanes.size(); ++i) {
    const double v = value(i), b = value(best);
    if (std::isnan(b)) continue;
    if (std::isnan(v) || (largest ? v > b : v < b)) best = i;
  }
  return best;
}

TEST_P(Reductions, EveryOperationAndType) {
  // The vendor's reduce_nolut_ names (reductions that use no lookup table) are the same functions.
  for (const char* nolut : {"", "nolut_"})
  for (const Case& k : kCases) {
    const Type& t = type(k.tag);
    const Type& it = type(k.indexTag);
    SCOPED_TRACE(std::string(k.tag) + " " + nolut);
    auto keys = typeKeys(t);
    keys["IT"] = k.indexTag;
    keys["PAIR"] = k.pair;
    keys["NL"] = nolut;
    auto text = build(fill(kReductions, keys));
    if (text.empty()) continue;
    const int lanes = t.lanes();
    const int64_t nvec = 4;
    auto xs = sampleBits(t, static_cast<size_t>(nvec * lanes), 311, true);
    // Vector 1 has ties (one value everywhere but two lanes), vector 2 small integers (exact products).
    for (int l = 0; l < lanes; ++l) xs[static_cast<size_t>(lanes + l)] = xs[static_cast<size_t>(lanes)];
    xs[static_cast<size_t>(lanes + 7)] = xs[7];
    for (int l = 0; l < lanes; ++l)
      xs[static_cast<size_t>(2 * lanes + l)] = t.isFloat ? encode((l % 3) - 1 + (l % 5 == 0 ? 0.5 : 0), t.fmt) : (l % 3) & t.mask();
    RunResult r = exec(text, {makeTensor(t, {nvec * lanes}, xs), makeTensor(t, {lanes, 6, nvec}), makeTensor(it, {lanes, 6, nvec})},
                       {}, {nvec, 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> wantValues(static_cast<size_t>(lanes * 6 * nvec)), wantIndices(wantValues.size(), 0);
    for (int64_t v = 0; v < nvec; ++v) {
      std::vector<uint32_t> in(xs.begin() + v * lanes, xs.begin() + (v + 1) * lanes);
      uint32_t res[6], idx[6] = {0, 0, 0, 0, 0, 0};
      for (int op = 0; op < 4; ++op) res[op] = butterfly(t, op, in);
      for (int m = 0; m < 2; ++m) {
        const size_t w = winner(t, in, m == 1);
        idx[4 + m] = static_cast<uint32_t>(w);
        res[4 + m] = in[w];
      }
      for (int row = 0; row < 6; ++row)
        for (int l = 0; l < lanes; ++l) {
          const size_t at = static_cast<size_t>((v * 6 + row) * lanes + l);
          wantValues[at] = res[row];
          if (row >= 4) wantIndices[at] = idx[row];
        }
    }
    // Rows 0-3 of the index tensor are never written; they stay zero.
    expectElements(r.tensors[1], wantValues, std::string(k.tag) + " reductions");
    expectElements(r.tensors[2], wantIndices, std::string(k.tag) + " argmin/argmax lanes");
  }
}

ITEST_INSTANTIATE(Reductions);

}  // namespace
}  // namespace itest
