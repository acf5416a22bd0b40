// SW_PACK on v_<t>_st_tnsr and SW_UNPACK on v_<t>_ld_tnsr_b: a register whose wide (32- or 16-bit) lanes
// each hold r narrow elements is stored as part 0 of every wide lane, then part 1, ...; the load is the
// inverse. Checked two ways: the interleaved down-converts followed by a packed store must give the
// elements in their linear order (the vendor's cast kernels rely on it), and the raw element order of a
// packed store and of an unpacked load must be the permutation written out here.
#include "itest.h"

namespace itest {
namespace {

class TensorPack : public IntrinsicsTest {};

// f32 -> bf16 as the vendor's gaudi cast kernel writes it: convert both halves, store with SW_PACK.
const char* const kCastF32ToBf16 = R"(
void main(tensor in, tensor out)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * 128, 0, 0, 0, 0};
        int5 h = {v * 128 + 64, 0, 0, 0, 0};
        float128 x;
        x.v1 = v_f32_ld_tnsr_b(c, in);
        x.v2 = v_f32_ld_tnsr_b(h, in);
        bfloat128 y = 0;
        y = v_convert_f32_to_bf16_all_b(x, SW_RHNE, y);
        v_bf16_st_tnsr(c, out, y, SW_PACK);
    }
}
)";

TEST_P(TensorPack, ConvertAllThenPackedStoreIsLinear) {
  auto text = build(kCastF32ToBf16);
  ASSERT_FALSE(text.empty());
  const Type &f32 = type("f32"), &bf16 = type("bf16");
  const int64_t n = 3 * 128 + 45;
  auto xs = sampleBits(f32, static_cast<size_t>(n), 61);
  RunResult r = exec(text, {makeTensor(f32, {n}, xs), makeTensor(bf16, {n})}, {}, {vectors(n, 128), 1, 1, 1, 1});
  if (r.tensors.empty()) return;
  std::vector<uint32_t> want(static_cast<size_t>(n));
  for (size_t i = 0; i < want.size(); ++i) want[i] = convertBits(xs[i], f32, bf16, Rm::RHNE, false);
  expectElements(r.tensors[1], want, "bf16 cast stored with SW_PACK");
}

// Four f32 vectors narrowed into the four bytes of each 32-bit lane, stored with SW_PCK_32_TO_8; and two
// i16 vectors into the two bytes of each 16-bit lane, stored with SW_PCK_16_TO_8.
const char* const kNarrowToBytes = R"(
void main(tensor in, tensor out, tensor in16, tensor out16)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * 256, 0, 0, 0, 0};
        char256 b = 0;
        for (int k = 0; k < 4; k++) {
            int5 ck = {v * 256 + 64 * k, 0, 0, 0, 0};
            float64 x = v_f32_ld_tnsr_b(ck, in);
            if (k == 0) b = v_convert_f32_to_i8_b(x, 0, SW_RHNE, b);
            if (k == 1) b = v_convert_f32_to_i8_b(x, 1, SW_RHNE, b);
            if (k == 2) b = v_convert_f32_to_i8_b(x, 2, SW_RHNE, b);
            if (k == 3) b = v_convert_f32_to_i8_b(x, 3, SW_RHNE, b);
        }
        v_i8_st_tnsr(c, out, b, SW_PACK | SW_PCK_32_TO_8);
        int5 h = {v * 256 + 128, 0, 0, 0, 0};
        char256 w = 0;
        w = v_convert_i16_to_i8_b(v_i16_ld_tnsr_b(c, in16), 0, 0, w);
        w = v_convert_i16_to_i8_b(v_i16_ld_tnsr_b(h, in16), 1, 0, w);
        v_i8_st_tnsr(c, out16, w, SW_PACK | SW_PCK_16_TO_8);
    }
}
)";

TEST_P(TensorPack, LaneConvertsThenPackedStoreIsLinear) {
  auto text = build(kNarrowToBytes);
  ASSERT_FALSE(text.empty());
  const Type &f32 = type("f32"), &i16 = type("i16"), &i8 = type("i8");
  const int64_t n = 2 * 256 + 77;
  auto xs = sampleBits(f32, static_cast<size_t>(n), 62), ws = sampleBits(i16, static_cast<size_t>(n), 63);
  RunResult r = exec(text, {makeTensor(f32, {n}, xs), makeTensor(i8, {n}), makeTensor(i16, {n}, ws), makeTensor(i8, {n})},
                     {}, {vectors(n, 256), 1, 1, 1, 1});
  if (r.tensors.empty()) return;
  std::vector<uint32_t> bytes(static_cast<size_t>(n)), wrapped(static_cast<size_t>(n));
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = convertBits(xs[i], f32, i8, Rm::RHNE, true);  // float sources saturate
    wrapped[i] = convertBits(ws[i], i16, i8, Rm::RHNE, false);
  }
  expectElements(r.tensors[1], bytes, "f32 -> i8 lanes 0..3, SW_PCK_32_TO_8");
  expectElements(r.tensors[3], wrapped, "i16 -> i8 lanes 0..1, SW_PCK_16_TO_8");
}

// bf16 loaded with SW_UNPACK: the first 64 elements in the low halves of the 32-bit lanes, the next 64 in
// the high halves, which v_convert_bf16_to_f32_all_b takes as .v1 and .v2.
const char* const kUnpackBf16 = R"(
void main(tensor in, tensor out)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * 128, 0, 0, 0, 0};
        int5 h = {v * 128 + 64, 0, 0, 0, 0};
        float128 y = v_convert_bf16_to_f32_all_b(v_bf16_ld_tnsr_b(c, in, SW_UNPACK | SW_UNPCK_16_TO_32));
        v_f32_st_tnsr(c, out, y.v1);
        v_f32_st_tnsr(h, out, y.v2);
    }
}
)";

TEST_P(TensorPack, UnpackedLoadThenConvertAllIsLinear) {
  auto text = build(kUnpackBf16);
  ASSERT_FALSE(text.empty());
  const Type &f32 = type("f32"), &bf16 = type("bf16");
  const int64_t n = 2 * 128 + 100;
  auto xs = sampleBits(bf16, static_cast<size_t>(n), 64);
  RunResult r = exec(text, {makeTensor(bf16, {n}, xs), makeTensor(f32, {n})}, {}, {vectors(n, 128), 1, 1, 1, 1});
  if (r.tensors.empty()) return;
  std::vector<uint32_t> want(static_cast<size_t>(n));
  for (size_t i = 0; i < want.size(); ++i) want[i] = xs[i] << 16;  // bf16 is the upper half of an f32
  expectElements(r.tensors[1], want, "bf16 loaded with SW_UNPACK, widened");
}

// The raw orders, every narrow type and code: out1 is the register stored with SW_PACK (memory element
// p*(n/r) + j holds lane r*j + p), out2 the tensor loaded with SW_UNPACK and stored plainly (lane r*j + p
// holds element p*(n/r) + j), out3 the round trip (SW_UNPACK then SW_PACK: the input again).
const char* const kRawOrders = R"(
void main(tensor x, tensor o1, tensor o2, tensor o3)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * {LANES}, 0, 0, 0, 0};
        v_{T}_st_tnsr(c, o1, v_{T}_ld_tnsr_b(c, x), SW_PACK | {PCK});
        {VT} u = v_{T}_ld_tnsr_b(c, x, SW_UNPACK | {UNPCK});
        v_{T}_st_tnsr(c, o2, u);
        v_{T}_st_tnsr(c, o3, u, SW_PACK | {PCK});
    }
}
)";

TEST_P(TensorPack, RawElementOrders) {
  struct Case { const char* type; const char* pack; const char* unpack; int ratio; };
  const Case cases[] = {{"bf16", "SW_PCK_32_TO_16", "SW_UNPCK_16_TO_32", 2}, {"u16", "SW_PCK_32_TO_16", "SW_UNPCK_16_TO_32", 2},
                        {"i8", "SW_PCK_16_TO_8", "SW_UNPCK_8_TO_16", 2},     {"u8", "SW_PCK_32_TO_8", "SW_UNPCK_8_TO_32", 4},
                        {"f16", "SW_PCK_32_TO_16", "SW_UNPCK_16_TO_32", 2}};
  for (const Case& k : cases) {
    SCOPED_TRACE(std::string(k.type) + " " + k.pack);
    const Type& t = type(k.type);
    auto keys = typeKeys(t);
    keys["PCK"] = k.pack;
    keys["UNPCK"] = k.unpack;
    auto text = build(fill(kRawOrders, keys));
    if (text.empty()) continue;
    const int lanes = t.lanes(), perPart = lanes / k.ratio;
    const int64_t n = 3 * lanes;  // whole vectors: the permutation moves elements across the vector
    auto xs = sampleBits(t, static_cast<size_t>(n), 65);
    RunResult r = exec(text, {makeTensor(t, {n}, xs), makeTensor(t, {n}), makeTensor(t, {n}), makeTensor(t, {n})}, {},
                       {vectors(n, lanes), 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> packed(static_cast<size_t>(n)), unpacked(static_cast<size_t>(n));
    for (int64_t base = 0; base < n; base += lanes)
      for (int wide = 0; wide < perPart; ++wide)
        for (int part = 0; part < k.ratio; ++part) {
          size_t lane = static_cast<size_t>(base + wide * k.ratio + part);
          size_t element = static_cast<size_t>(base + part * perPart + wide);
          packed[element] = xs[lane];
          unpacked[lane] = xs[element];
        }
    expectElements(r.tensors[1], packed, "stored with SW_PACK");
    expectElements(r.tensors[2], unpacked, "loaded with SW_UNPACK");
    expectElements(r.tensors[3], xs, "SW_UNPACK then SW_PACK");
  }
}

ITEST_INSTANTIATE(TensorPack);

}  // namespace
}  // namespace itest
