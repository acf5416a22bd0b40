// v_<t>_mac_acc32_b/_vb and v_<t>_mul_acc32_b/_vb (bf16, f16): products of 16-bit floats (summed) into an f32 pair
// (.v1 the even elements, .v2 the odd ones), with SW_NEG, a scalar b and a per-element predicate. The
// product of two 16-bit floats is exact in f32, so the reference is one fused multiply-add in float.
#include <cmath>
#include <random>

#include "itest.h"

namespace itest {
namespace {

class MacAcc32 : public IntrinsicsTest {};

// The accumulator pair of vector v lives in f32 elements [128v, 128v + 64) (.v1) and [128v + 64, 128v + 128)
// (.v2) of `acc`; the results are stored the same way, one row per form.
const char* const kMacAcc32 = R"(
void main(tensor x, tensor y, tensor acc, tensor out, float s)
{
    const int5 st = get_index_space_offset();
    const int5 e = st + get_index_space_size();
    for (int v = st[0]; v < e[0]; v++) {
        int5 c = {v * 128, 0, 0, 0, 0};
        int5 h = {v * 128 + 64, 0, 0, 0, 0};
        {VT} a = v_{T}_ld_tnsr_b(c, x);
        {VT} b = v_{T}_ld_tnsr_b(c, y);
        float128 z;
        z.v1 = v_f32_ld_tnsr_b(c, acc);
        z.v2 = v_f32_ld_tnsr_b(h, acc);
        float128 r[6];
        r[0] = v_{T}_mac_acc32_b(a, b, z);
        r[1] = v_{T}_mac_acc32_b(a, b, z, SW_NEG);
        r[2] = v_{T}_mac_acc32_vb(a, ({ST})s, z, 0, v_{T}_cmp_less_b(b, a));
        r[3] = v_{T}_mac_acc32_b(a, b, z, (true) << 1, v > 0);
        r[4] = v_{T}_mul_acc32_b(a, b);
        r[5] = v_{T}_mul_acc32_vb(a, b, 0, z, v_{T}_cmp_less_b(b, a), 1);
        for (int k = 0; k < 6; k++) {
            int5 o = {v * 128, k, 0, 0, 0};
            int5 p = {v * 128 + 64, k, 0, 0, 0};
            v_f32_st_tnsr(o, out, r[k].v1);
            v_f32_st_tnsr(p, out, r[k].v2);
        }
    }
}
)";

TEST_P(MacAcc32, EvenAndOddElementsIntoF32) {
  for (const char* tag : {"bf16", "f16"}) {
    SCOPED_TRACE(tag);
    const Type &t = type(tag), &f32 = type("f32");
    auto text = build(fill(kMacAcc32, typeKeys(t)));
    if (text.empty()) continue;
    const int vecs = 3;
    const int64_t n = vecs * 128;
    // Values in [-8, 8): no product or sum is denormal, which the core would flush.
    std::mt19937 rng(81);
    auto sample = [&](const Type& ty) {
      std::vector<uint32_t> v;
      for (int64_t i = 0; i < n; ++i) v.push_back(encode(std::uniform_real_distribution<double>(-8, 8)(rng), ty.fmt));
      return v;
    };
    auto xs = sample(t), ys = sample(t), zs = sample(f32);
    const float scalar = -1.375f;
    RunResult r = exec(text, {makeTensor(t, {n}, xs), makeTensor(t, {n}, ys), makeTensor(f32, {n}, zs), makeTensor(f32, {n, 6})},
                       {bitsOf(scalar)}, {vecs, 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> want(static_cast<size_t>(n * 6));
    for (int v = 0; v < vecs; ++v)
      for (int k = 0; k < 128; ++k) {
        const size_t in = static_cast<size_t>(v * 128 + k);
        const size_t at = static_cast<size_t>(v * 128 + (k % 2) * 64 + k / 2);  // member k % 2, lane k / 2
        const float a = static_cast<float>(decode(xs[in], t.fmt)), b = static_cast<float>(decode(ys[in], t.fmt));
        const float acc = floatOf(zs[at]);
        want[at] = bitsOf(std::fma(a, b, acc));
        want[static_cast<size_t>(n) + at] = bitsOf(std::fma(-a, b, acc));
        want[static_cast<size_t>(2 * n) + at] = a > b ? bitsOf(std::fma(a, scalar, acc)) : zs[at];
        want[static_cast<size_t>(3 * n) + at] = v > 0 ? bitsOf(std::fma(-a, b, acc)) : zs[at];
        want[static_cast<size_t>(4 * n) + at] = bitsOf(a * b);  // exact
        want[static_cast<size_t>(5 * n) + at] = a > b ? zs[at] : bitsOf(a * b);  // polarity 1: where a <= b
      }
    expectElements(r.tensors[3], want, std::string(tag) + " mac_acc32: plain, SW_NEG, scalar b with _vb, predicated; mul_acc32 _b and _vb");
  }
}

// The scalar forms: s_<t>_mac_acc32 (plain, SW_NEG, an immediate b, a predicate) and s_<t>_mul_acc32, one
// f32 each, for pairs of 16-bit floats given as exactly representable f32 parameters.
const char* const kScalarAcc32 = R"(
void main(tensor out, float acc, float xa, float xb)
{
    {ST} a = ({ST})xa, b = ({ST})xb;
    float r[5];
    r[0] = s_{T}_mac_acc32(a, b, acc);
    r[1] = s_{T}_mac_acc32(a, b, acc, SW_NEG);
    r[2] = s_{T}_mul_acc32(a, b);
    r[3] = s_{T}_mac_acc32(a, ({ST})1.5f, acc, 0, xa > xb);
    r[4] = s_{T}_mul_acc32(a, b, 0, acc, xa > xb, 1);
    for (int k = 0; k < 5; k++) {
        int5 c = {k, 0, 0, 0, 0};
        s_f32_st_g((__global__ float*)gen_addr(c, out), r[k]);
    }
}
)";

TEST_P(MacAcc32, ScalarFormsIntoF32) {
  for (const char* tag : {"bf16", "f16"}) {
    SCOPED_TRACE(tag);
    const Type &t = type(tag), &f32 = type("f32");
    auto text = build(fill(kScalarAcc32, typeKeys(t)));
    if (text.empty()) continue;
    std::mt19937 rng(82);
    for (int trial = 0; trial < 6; ++trial) {
      auto value = [&](const Fmt& f) {
        return static_cast<float>(decode(encode(std::uniform_real_distribution<double>(-8, 8)(rng), f), f));
      };
      const float a = value(t.fmt), b = value(t.fmt), acc = value(f32.fmt);
      SCOPED_TRACE(std::to_string(a) + " " + std::to_string(b) + " " + std::to_string(acc));
      RunResult r = exec(text, {makeTensor(f32, {5})}, {bitsOf(acc), bitsOf(a), bitsOf(b)}, {1, 1, 1, 1, 1});
      if (r.tensors.empty()) return;
      const bool greater = a > b;
      std::vector<uint32_t> want = {bitsOf(std::fma(a, b, acc)), bitsOf(std::fma(-a, b, acc)), bitsOf(a * b),
                                    greater ? bitsOf(std::fma(a, 1.5f, acc)) : bitsOf(acc),
                                    greater ? bitsOf(acc) : bitsOf(a * b)};
      expectElements(r.tensors[0], want, std::string("s_") + tag + "_mac_acc32 / _mul_acc32");
    }
  }
}

ITEST_INSTANTIATE(MacAcc32);

}  // namespace
}  // namespace itest
