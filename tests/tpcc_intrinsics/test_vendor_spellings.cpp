// Names that kernels written for the vendor's compiler use without declaring them: the e_* field values
// shifted into switch words, MkRMW, V_LANE_ID_*, the fixed-width integer types (int32_t as `long int`, which
// such kernels may also declare themselves), and the newer special-function names. Each is used the way
// those kernels use it and checked against a host reference.
#include <cmath>

#include "itest.h"

namespace itest {
namespace {

class VendorSpellings : public IntrinsicsTest {};

const char* const kSpellings = R"(
typedef long int int32_t;  // as some of the vendor's examples declare it
void main(tensor x, tensor floors, tensor sums, tensor lanes, tensor xb, tensor exps)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int32_t v = s[0]; v < e[0]; v++) {
        int5 c = {v * 64, 0, 0, 0, 0};
        float64 a = v_f32_ld_tnsr_b(c, x);
        v_i32_st_tnsr(c, floors, v_convert_f32_to_i32_b(a, e_round_down << 16));
        v_f32_st_tnsr_rmw(c, sums, a, MkRMW(e_rmw_fp32, e_rmw_add, e_rmw_atomic, e_tnsr_dt_srf));
        int8_t k = (int8_t)v;
        v_i32_st_tnsr(c, lanes, (int64)V_LANE_ID_32 + k);
        int5 h = {v * 128, 0, 0, 0, 0};
        bfloat128 b = v_bf16_ld_tnsr_b(h, xb);
        v_bf16_st_tnsr(h, exps, exp_bf16(b));
    }
}
)";

TEST_P(VendorSpellings, SwitchValuesTypesAndNames) {
  auto text = build(kSpellings);
  ASSERT_FALSE(text.empty());
  const Type& f = type("f32");
  const Type& b = type("bf16");
  const int64_t n = 64 * 3;
  std::vector<uint32_t> xs, init, xb;
  for (int64_t i = 0; i < n; ++i) {
    xs.push_back(bitsOf(static_cast<float>(i % 17) * 0.37f - 3.1f));
    init.push_back(bitsOf(static_cast<float>(i) * 0.5f));
  }
  for (int64_t i = 0; i < 2 * n; ++i) xb.push_back(bitsOf(static_cast<float>(i % 23) * 0.5f - 6.0f) >> 16);
  RunResult r = exec(text,
                     {makeTensor(f, {n}, xs), makeTensor(type("i32"), {n}), makeTensor(f, {n}, init),
                      makeTensor(type("i32"), {n}), makeTensor(b, {2 * n}, xb), makeTensor(b, {2 * n})},
                     {}, {n / 64, 1, 1, 1, 1});
  if (r.tensors.empty()) return;
  std::vector<uint32_t> floors, sums, lanes;
  for (int64_t i = 0; i < n; ++i) {
    const float a = floatOf(xs[static_cast<size_t>(i)]);
    floors.push_back(static_cast<uint32_t>(static_cast<int32_t>(std::floor(a))));
    sums.push_back(bitsOf(floatOf(init[static_cast<size_t>(i)]) + a));
    lanes.push_back(static_cast<uint32_t>(i % 64 + i / 64));
  }
  expectElements(r.tensors[1], floors, "convert with e_round_down << 16");
  expectElements(r.tensors[2], sums, "st_tnsr_rmw with MkRMW(fp32, add, atomic, srf)");
  expectElements(r.tensors[3], lanes, "V_LANE_ID_32 + an int8_t");
  // exp_bf16: within one bf16 ulp of the exact value (docs/special-functions.md).
  for (int64_t i = 0; i < 2 * n; ++i) {
    const double want = std::exp(decode(xb[static_cast<size_t>(i)], b.fmt));
    const double got = decode(r.tensors[5].get(i), b.fmt);
    EXPECT_LE(std::fabs(got - want), std::ldexp(std::fabs(want), -7)) << "exp_bf16 element " << i;
  }
}

ITEST_INSTANTIATE(VendorSpellings);

}  // namespace
}  // namespace itest
