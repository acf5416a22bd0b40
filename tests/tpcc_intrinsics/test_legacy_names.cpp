// Kernels written with the intrinsic names of older TPC-C compilers (tpc-legacy-aliases.h): loads, stores,
// arithmetic with scalar operands, mac, select, compare into a bool vector, predicated move, scalar
// broadcast and convert, each checked against a host reference; and -DNO_TPC_INTRINSICS_ALIASES, which
// leaves the names to the kernel.
#include <cmath>

#include "itest.h"

namespace itest {
namespace {

class LegacyNames : public IntrinsicsTest {};

const char* const kLegacyKernel = R"(
void main(tensor x, tensor y, tensor o1, tensor o2, tensor o3, float alpha, int k)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * 64, 0, 0, 0, 0};
        float64 a = v_f32_ld_tnsr_i(c, x);
        float64 b = v_f32_ld_tnsr_i_b(c, y, a, 1, 0);
        float64 m = v_f32_mul_v_s(v_f32_add_v_v(a, b), alpha);
        float64 acc = v_f32_mov_s(1.0f);
        acc = v_f32_mac_v_v(a, b, acc, 0);
        f32_st_tnsr_i_v(c, o1, v_f32_f32_sel_less_v_s_v_v(a, 0.0f, m, acc));
        bool256 g = bv_f32_cmp_grt_v_v(a, b);
        float64 mx = v_f32_max_v_v(a, b);
        mx = v_f32_mov_v_vb(m, mx, g, 0);
        f32_st_tnsr_i_v(c, o2, mx);
        int64 n = v_i32_mov_s(k);
        i32_st_tnsr_i_v(c, o3, v_i32_add_v_v(v_convert_f32_to_i32_v(a, 1), n));
    }
}
)";

TEST_P(LegacyNames, OldNamesComputeWhatTheyAlwaysDid) {
  auto text = build(kLegacyKernel);
  ASSERT_FALSE(text.empty());
  const Type &f32 = type("f32"), &i32 = type("i32");
  const int64_t n = 3 * 64 + 29;
  // Multiples of 1/8 in [-8, 8): sums, products and the mac are exact; only the scaling by alpha rounds.
  std::mt19937 rng(71);
  std::vector<uint32_t> xs(static_cast<size_t>(n)), ys(static_cast<size_t>(n));
  for (size_t i = 0; i < xs.size(); ++i) {
    xs[i] = bitsOf(static_cast<float>(static_cast<int>(rng() % 128) - 64) / 8.0f);
    ys[i] = bitsOf(static_cast<float>(static_cast<int>(rng() % 128) - 64) / 8.0f);
  }
  const float alpha = 0.3f;
  const int32_t k = -5;
  RunResult r = exec(text,
                     {makeTensor(f32, {n}, xs), makeTensor(f32, {n}, ys), makeTensor(f32, {n}), makeTensor(f32, {n}),
                      makeTensor(i32, {n})},
                     {bitsOf(alpha), static_cast<uint32_t>(k)}, {vectors(n, 64), 1, 1, 1, 1});
  if (r.tensors.empty()) return;
  std::vector<uint32_t> want1(xs.size()), want2(xs.size()), want3(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    float a = floatOf(xs[i]), b = floatOf(ys[i]);
    float m = (a + b) * alpha;
    float acc = 1.0f + a * b;
    want1[i] = bitsOf(a < 0.0f ? m : acc);
    want2[i] = bitsOf(a > b ? m : std::fmax(a, b));
    want3[i] = static_cast<uint32_t>(static_cast<int32_t>(std::trunc(a)) + k);
  }
  expectElements(r.tensors[2], want1, "sel_less of (a+b)*alpha and 1+a*b");
  expectElements(r.tensors[3], want2, "max, then mov where cmp_grt");
  expectElements(r.tensors[4], want3, "convert toward zero plus a broadcast scalar");
}

TEST_P(LegacyNames, OptOutLeavesTheNamesToTheKernel) {
  // With the aliases off, a kernel may define a function of a legacy name ...
  const char* own = R"(
float64 v_f32_add_v_v(float64 a, float64 b) { return a - b; }
void main(tensor x, tensor o)
{
    int5 c = {0, 0, 0, 0, 0};
    float64 a = v_f32_ld_tnsr_b(c, x);
    v_f32_st_tnsr(c, o, v_f32_add_v_v(a, a + a));
}
)";
  Compiled c = compile(own, GetParam(), "-DNO_TPC_INTRINSICS_ALIASES");
  EXPECT_EQ(c.status, 0) << c.diagnostics;
  // ... and the old names are gone.
  Compiled gone = compile("void main(tensor x, tensor o) { int5 c = {0}; f32_st_tnsr_i_v(c, o, v_f32_ld_tnsr_i(c, x)); }",
                          GetParam(), "-DNO_TPC_INTRINSICS_ALIASES");
  EXPECT_NE(gone.status, 0);
  EXPECT_NE(gone.diagnostics.find("v_f32_ld_tnsr_i"), std::string::npos) << gone.diagnostics;
  EXPECT_FALSE(gone.objectWritten);
}

ITEST_INSTANTIATE(LegacyNames);

}  // namespace
}  // namespace itest
