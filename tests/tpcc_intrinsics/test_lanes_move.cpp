// Moves between lanes with the reference's semantics: v_<t>_shuffle_b/_vb (a selector byte per destination
// element, within dual groups), v_<t>_mov_group_b/_vb (the other group of each dual group, under a byte
// mask and group / dual-group enables) and v_<t>_pack_b/_vb, v_<t>_unpack_b/_vb (every 2nd / 4th element
// of a group, within dual groups). The host references below follow the reference documentation
// (intrinsics/intrinsics/README.md, "Data movement between lanes").
#include "itest.h"

namespace itest {
namespace {

class LanesMove : public IntrinsicsTest {};

// Vector geometry: 256 bytes = 4 dual groups of 64 bytes = 8 groups of 32 bytes.
struct Geometry {
  int size, lanes, perGroup, perDual;
  explicit Geometry(const Type& t)
      : size(static_cast<int>(t.size)), lanes(t.lanes()), perGroup(32 / static_cast<int>(t.size)),
        perDual(64 / static_cast<int>(t.size)) {}
};

// ------------------------------------------------------------------------------------------ shuffle

const char* const kShuffle = R"(
void main(tensor x, tensor y, tensor sel, tensor out)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * {LANES}, 0, 0, 0, 0};
        int5 cs = {v * 256, 0, 0, 0, 0};
        {VT} a = v_{T}_ld_tnsr_b(c, x);
        {VT} b = v_{T}_ld_tnsr_b(c, y);
        uchar256 d = v_u8_ld_tnsr_b(cs, sel);
        {BT} p = v_{T}_cmp_less_b(a, b);
        {VT} r[6];
        r[0] = v_{T}_shuffle_b(a, d, 0, b);
        r[1] = v_{T}_shuffle_b(a, (uchar256)0x80, 0, b);
        r[2] = v_{T}_shuffle_b(a, d | (uchar256)0x80, 0, b, v < 1);
        r[3] = v_{T}_shuffle_vb(a, d, 0, b, p, 1);
        r[4] = v_{T}_shuffle_b(a, d, 0, b, 0);
        r[5] = v_{T}_shuffle_b(a, (uchar256)0xA3, 0, b);
        for (int k = 0; k < 6; k++) {
            int5 o = {c[0], k, 0, 0, 0};
            v_{T}_st_tnsr(o, out, r[k]);
        }
    }
}
)";

TEST_P(LanesMove, Shuffle) {
  for (const char* tag : {"f32", "bf16", "f16", "i32", "u32", "i16", "u16", "i8", "u8"}) {
    const Type& t = type(tag);
    SCOPED_TRACE(tag);
    auto text = build(fill(kShuffle, typeKeys(t)));
    if (text.empty()) continue;
    const Geometry g(t);
    const int64_t nv = 2, n0 = nv * g.lanes;
    auto xs = sampleBits(t, static_cast<size_t>(n0), 91), ys = sampleBits(t, static_cast<size_t>(n0), 92);
    auto sel = sampleBits(type("u8"), static_cast<size_t>(nv * 256), 93);
    RunResult r = exec(text,
                       {makeTensor(t, {n0}, xs), makeTensor(t, {n0}, ys), makeTensor(type("u8"), {nv * 256}, sel),
                        makeTensor(t, {n0, 6})},
                       {}, {nv, 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> want(static_cast<size_t>(n0 * 6));
    for (int64_t v = 0; v < nv; ++v) {
      auto A = [&](int l) { return xs[static_cast<size_t>(v * g.lanes + l)]; };
      auto B = [&](int l) { return ys[static_cast<size_t>(v * g.lanes + l)]; };
      auto less = [&](int l) {
        return t.isFloat ? decode(A(l), t.fmt) < decode(B(l), t.fmt) : t.intValue(A(l)) < t.intValue(B(l));
      };
      // The selector of element l is the byte of d at the element's first byte.
      auto selector = [&](int l) { return static_cast<uint8_t>(sel[static_cast<size_t>(v * 256 + l * g.size)]); };
      // Destination element l with selector byte b: bit 7 enables, bit 5 picks the group of l's dual group,
      // the low bits (modulo the elements of a group) the element; disabled elements keep the income B.
      auto shuffled = [&](int l, uint8_t b) {
        if (!(b & 0x80)) return B(l);
        int dual = l / g.perDual, group = (b >> 5) & 1, elem = b % g.perGroup;
        return A(dual * g.perDual + group * g.perGroup + elem);
      };
      for (int l = 0; l < g.lanes; ++l) {
        uint32_t res[6];
        res[0] = shuffled(l, selector(l));
        res[1] = shuffled(l, 0x80);
        res[2] = v < 1 ? shuffled(l, static_cast<uint8_t>(selector(l) | 0x80)) : B(l);
        res[3] = !less(l) ? shuffled(l, selector(l)) : B(l);
        res[4] = B(l);
        res[5] = shuffled(l, 0xA3);
        for (int k = 0; k < 6; ++k) want[static_cast<size_t>(k * n0 + v * g.lanes + l)] = res[k];
      }
    }
    expectElements(r.tensors[3], want, std::string(tag) + " shuffle");
  }
}

// ------------------------------------------------------------------------------------------ mov_group

const char* const kMovGroup = R"(
void main(tensor x, tensor y, tensor out, int mask)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * {LANES}, 0, 0, 0, 0};
        {VT} a = v_{T}_ld_tnsr_b(c, x);
        {VT} b = v_{T}_ld_tnsr_b(c, y);
        {BT} p = v_{T}_cmp_less_b(a, b);
        const int all = SW_GROUP0_EN | SW_GROUP1_EN | SW_DUAL_GROUP0_EN | SW_DUAL_GROUP1_EN |
                        SW_DUAL_GROUP2_EN | SW_DUAL_GROUP3_EN;
        {VT} r[6];
        r[0] = v_{T}_mov_group_b(a, 0xFFFFFFFF, all, b);
        r[1] = v_{T}_mov_group_b(a, 0x0F0000F1, SW_GROUP1_EN | SW_DUAL_GROUP0_EN | SW_DUAL_GROUP2_EN, b);
        r[2] = v_{T}_mov_group_b(a, mask, SW_GROUP0_EN | SW_DUAL_GROUP1_EN | SW_DUAL_GROUP3_EN, b);
        r[3] = v_{T}_mov_group_vb(a, -1, all, b, p);
        r[4] = v_{T}_mov_group_b(a, -1, all, b, v > 0, 1);
        r[5] = v_{T}_mov_group_b(a, 0xFFFFFFFF, 0, b);
        for (int k = 0; k < 6; k++) {
            int5 o = {c[0], k, 0, 0, 0};
            v_{T}_st_tnsr(o, out, r[k]);
        }
    }
}
)";

TEST_P(LanesMove, MovGroup) {
  const uint32_t mask = 0x8000ff0fu;
  for (const char* tag : {"f32", "bf16", "f16", "i32", "u32", "i16", "u16", "i8", "u8"}) {
    const Type& t = type(tag);
    SCOPED_TRACE(tag);
    auto text = build(fill(kMovGroup, typeKeys(t)));
    if (text.empty()) continue;
    const Geometry g(t);
    const int64_t nv = 2, n0 = nv * g.lanes;
    auto xs = sampleBits(t, static_cast<size_t>(n0), 94), ys = sampleBits(t, static_cast<size_t>(n0), 95);
    RunResult r = exec(text, {makeTensor(t, {n0}, xs), makeTensor(t, {n0}, ys), makeTensor(t, {n0, 6})}, {mask},
                       {nv, 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    // Works on bytes: the mask has one bit per byte of a group, so an element may come partly from a
    // (bytes whose bit is set) and partly from the income b.
    std::vector<uint32_t> want(static_cast<size_t>(n0 * 6));
    for (int64_t v = 0; v < nv; ++v) {
      auto bytesOf = [&](const std::vector<uint32_t>& bits) {
        std::vector<uint8_t> out(256);
        for (int l = 0; l < g.lanes; ++l)
          for (int k = 0; k < g.size; ++k)
            out[static_cast<size_t>(l * g.size + k)] = static_cast<uint8_t>(bits[static_cast<size_t>(v * g.lanes + l)] >> (8 * k));
        return out;
      };
      const std::vector<uint8_t> a = bytesOf(xs), b = bytesOf(ys);
      // Group gr of dual group dg, when both are enabled, receives byte j of group 1 - gr where mask bit j is set.
      auto moved = [&](uint32_t m, unsigned groups, unsigned duals) {
        std::vector<uint8_t> out = b;
        for (int dg = 0; dg < 4; ++dg)
          for (int gr = 0; gr < 2; ++gr)
            for (int j = 0; j < 32; ++j)
              if (((duals >> dg) & 1u) && ((groups >> gr) & 1u) && ((m >> j) & 1u))
                out[static_cast<size_t>(64 * dg + 32 * gr + j)] = a[static_cast<size_t>(64 * dg + 32 * (1 - gr) + j)];
        return out;
      };
      auto element = [&](const std::vector<uint8_t>& bytes, int l) {
        uint32_t e = 0;
        for (int k = 0; k < g.size; ++k) e |= static_cast<uint32_t>(bytes[static_cast<size_t>(l * g.size + k)]) << (8 * k);
        return e;
      };
      const std::vector<uint8_t> swapped = moved(0xffffffffu, 3, 15);
      const std::vector<uint8_t> r1 = moved(0x0F0000F1u, 2, 5), r2 = moved(mask, 1, 10);
      for (int l = 0; l < g.lanes; ++l) {
        uint32_t A = xs[static_cast<size_t>(v * g.lanes + l)], B = ys[static_cast<size_t>(v * g.lanes + l)];
        bool less = t.isFloat ? decode(A, t.fmt) < decode(B, t.fmt) : t.intValue(A) < t.intValue(B);
        uint32_t res[6] = {element(swapped, l), element(r1, l), element(r2, l), less ? element(swapped, l) : B,
                           v > 0 ? B : element(swapped, l), B};
        for (int k = 0; k < 6; ++k) want[static_cast<size_t>(k * n0 + v * g.lanes + l)] = res[k];
      }
    }
    expectElements(r.tensors[2], want, std::string(tag) + " mov_group");
  }
}

// ------------------------------------------------------------------------------------------ pack / unpack

const char* const kPackUnpack = R"(
void main(tensor x, tensor y, tensor out)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * {LANES}, 0, 0, 0, 0};
        {VT} a = v_{T}_ld_tnsr_b(c, x);
        {VT} b = v_{T}_ld_tnsr_b(c, y);
        {BT} p = v_{T}_cmp_less_b(a, b);
        {VT} r[8];
        r[0] = v_{T}_pack_b(a, SW_GROUP_0 | SW_STRIDE_2, b);
        r[1] = v_{T}_pack_b(a, SW_GROUP_1 | SW_STRIDE_2, r[0]);
        r[2] = v_{T}_pack_b(a, SW_GROUP_1 | SW_STRIDE_4, b);
        r[3] = v_{T}_unpack_b(a, SW_GROUP_1 | SW_STRIDE_2 | SW_UNPACK_LANE_1, b);
        r[4] = v_{T}_unpack_b(a, SW_GROUP_0 | SW_STRIDE_4 | SW_GROUP_HALF_1 | SW_UNPACK_LANE_3, b);
        r[5] = v_{T}_unpack_vb(a, SW_GROUP_0 | SW_STRIDE_2, b, p, 1);
        r[6] = v_{T}_pack_b(a, SW_GROUP_0 | SW_STRIDE_2, b, v < 1);
        r[7] = v_{T}_unpack_b(a, 0, b);
        for (int k = 0; k < 8; k++) {
            int5 o = {c[0], k, 0, 0, 0};
            v_{T}_st_tnsr(o, out, r[k]);
        }
    }
}
)";

// The reference model of pack and unpack over element indices (w bytes per element, stride s).
// pack: element k*s of group g of dual group d goes to element (d mod s) * (64/s/w) + g * (32/s/w) + k.
// unpack: element k of group g (s = 2) or of half h of group g (s = 4) goes to element k*s + lane.
std::vector<uint32_t> packRef(const Geometry& g, const std::vector<uint32_t>& a, std::vector<uint32_t> out, int group,
                              int stride) {
  const int count = g.perGroup / stride;
  for (int d = 0; d < 4; ++d)
    for (int k = 0; k < count; ++k)
      out[static_cast<size_t>(d * g.perDual + (d % stride) * (g.perDual / stride) + group * count + k)] =
          a[static_cast<size_t>(d * g.perDual + group * g.perGroup + k * stride)];
  return out;
}

std::vector<uint32_t> unpackRef(const Geometry& g, const std::vector<uint32_t>& a, std::vector<uint32_t> out,
                                int group, int stride, int half, int lane) {
  const int count = g.perDual / stride, first = group * g.perGroup + (stride == 4 ? half * g.perGroup / 2 : 0);
  for (int d = 0; d < 4; ++d)
    for (int k = 0; k < count; ++k)
      out[static_cast<size_t>(d * g.perDual + k * stride + lane)] = a[static_cast<size_t>(d * g.perDual + first + k)];
  return out;
}

TEST_P(LanesMove, PackUnpack) {
  for (const char* tag : {"bf16", "f16", "i16", "u16", "i8", "u8"}) {
    const Type& t = type(tag);
    SCOPED_TRACE(tag);
    auto text = build(fill(kPackUnpack, typeKeys(t)));
    if (text.empty()) continue;
    const Geometry g(t);
    const int64_t nv = 2, n0 = nv * g.lanes;
    auto xs = sampleBits(t, static_cast<size_t>(n0), 96), ys = sampleBits(t, static_cast<size_t>(n0), 97);
    RunResult r = exec(text, {makeTensor(t, {n0}, xs), makeTensor(t, {n0}, ys), makeTensor(t, {n0, 8})}, {},
                       {nv, 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> want(static_cast<size_t>(n0 * 8));
    for (int64_t v = 0; v < nv; ++v) {
      auto first = [&](const std::vector<uint32_t>& all) {
        return std::vector<uint32_t>(all.begin() + v * g.lanes, all.begin() + (v + 1) * g.lanes);
      };
      const std::vector<uint32_t> a = first(xs), b = first(ys);
      std::vector<std::vector<uint32_t>> res(8);
      res[0] = packRef(g, a, b, 0, 2);
      res[1] = packRef(g, a, res[0], 1, 2);
      res[2] = packRef(g, a, b, 1, 4);
      res[3] = unpackRef(g, a, b, 1, 2, 0, 1);
      res[4] = unpackRef(g, a, b, 0, 4, 1, 3);
      const std::vector<uint32_t> all5 = unpackRef(g, a, b, 0, 2, 0, 0);
      res[5] = b;
      for (int l = 0; l < g.lanes; ++l) {
        bool less = t.isFloat ? decode(a[static_cast<size_t>(l)], t.fmt) < decode(b[static_cast<size_t>(l)], t.fmt)
                              : t.intValue(a[static_cast<size_t>(l)]) < t.intValue(b[static_cast<size_t>(l)]);
        if (!less) res[5][static_cast<size_t>(l)] = all5[static_cast<size_t>(l)];
      }
      res[6] = v < 1 ? packRef(g, a, b, 0, 2) : b;
      res[7] = all5;
      for (int k = 0; k < 8; ++k)
        for (int l = 0; l < g.lanes; ++l)
          want[static_cast<size_t>(k * n0 + v * g.lanes + l)] = res[static_cast<size_t>(k)][static_cast<size_t>(l)];
    }
    expectElements(r.tensors[2], want, std::string(tag) + " pack/unpack");
  }
}

ITEST_INSTANTIATE(LanesMove);

}  // namespace
}  // namespace itest
