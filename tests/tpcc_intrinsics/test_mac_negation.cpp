// mac with SW_NEG (bit 1 of the switches, as kernels also write it: `(true) << 1`): accumulator - a * b,
// the product rounded before the subtraction as it is before the addition without SW_NEG. Vector forms for
// f32, bf16 and f16 against a host reference (the reference has no v_i32_mac_b).
#include <string>
#include <cmath>
#include <random>

#include "itest.h"

namespace itest {
namespace {

class MacNegation : public IntrinsicsTest {};

const char* const kVectorMac = R"(
void main(tensor x, tensor y, tensor z, tensor out)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * {LANES}, 0, 0, 0, 0};
        {VT} a = v_{T}_ld_tnsr_b(c, x);
        {VT} b = v_{T}_ld_tnsr_b(c, y);
        {VT} acc = v_{T}_ld_tnsr_b(c, z);
        int5 o = c;
        v_{T}_st_tnsr(o, out, v_{T}_mac_b(a, b, acc, SW_NEG));
        o[1] = 1;
        v_{T}_st_tnsr(o, out, v_{T}_mac_b(a, b, acc, (true) << 1));
        o[1] = 2;
        v_{T}_st_tnsr(o, out, v_{T}_mac_b(a, b, acc));
    }
}
)";

TEST_P(MacNegation, Vector) {
  for (const char* tag : {"f32", "bf16", "f16"}) {
    const Type& t = type(tag);
    SCOPED_TRACE(tag);
    auto text = build(fill(kVectorMac, typeKeys(t)));
    if (text.empty()) continue;
    const int lanes = t.lanes();
    const int64_t n0 = lanes + 7;
    // Floats in [-8, 8): no product or sum is denormal, which the core would flush.
    std::mt19937 rng(71);
    auto sample = [&] {
      std::vector<uint32_t> v;
      for (int64_t i = 0; i < n0; ++i)
        v.push_back(encode(std::uniform_real_distribution<double>(-8, 8)(rng), t.fmt));
      return v;
    };
    auto xs = sample(), ys = sample(), zs = sample();
    RunResult r = exec(text, {makeTensor(t, {n0}, xs), makeTensor(t, {n0}, ys), makeTensor(t, {n0}, zs), makeTensor(t, {n0, 3})},
                       {}, {vectors(n0, lanes), 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> want(static_cast<size_t>(n0 * 3));
    for (int64_t i = 0; i < n0; ++i) {
      const size_t k = static_cast<size_t>(i);
      // f32: fused, one rounding. 16-bit floats: the product is exact in f32, the sum rounds to f32 and
      // then to the type.
      const float x = static_cast<float>(decode(xs[k], t.fmt)), y = static_cast<float>(decode(ys[k], t.fmt));
      const float acc = static_cast<float>(decode(zs[k], t.fmt));
      const float p = x * y;
      const bool f32 = std::string(tag) == "f32";
      const uint32_t sub = encode(static_cast<double>(f32 ? std::fma(-x, y, acc) : acc - p), t.fmt);
      const uint32_t add = encode(static_cast<double>(f32 ? std::fma(x, y, acc) : acc + p), t.fmt);
      want[k] = sub;
      want[k + static_cast<size_t>(n0)] = sub;
      want[k + 2 * static_cast<size_t>(n0)] = add;
    }
    expectElements(r.tensors[3], want, std::string(tag) + " mac with SW_NEG");
  }
}

ITEST_INSTANTIATE(MacNegation);

}  // namespace
}  // namespace itest
