// Index-register intrinsics (i_i32_* with dimmask, set_indx, mov_irf_dim) and predicate intrinsics
// (s_i1_*, v_i1_*, to_bool64 / from_bool64 and the 128-lane views).
#include "itest.h"

namespace itest {
namespace {

class IndexPredicate : public IntrinsicsTest {};

// ------------------------------------------------------------------------------------------ int5

const char* const kIndex = R"(
#define ROW(k, r) { int64 res = 0;                                       \
    res = v_i32_sel_eq_u32_b(lane, 0u, mov_irf_dim(r, 0, 0), res);        \
    res = v_i32_sel_eq_u32_b(lane, 1u, mov_irf_dim(r, 1, 0), res);        \
    res = v_i32_sel_eq_u32_b(lane, 2u, mov_irf_dim(r, 2, 0), res);        \
    res = v_i32_sel_eq_u32_b(lane, 3u, mov_irf_dim(r, 3, 0), res);        \
    res = v_i32_sel_eq_u32_b(lane, 4u, mov_irf_dim(r, 4, 0), res);        \
    int5 c = {0, k, 0, 0, 0};                                             \
    v_i32_st_tnsr(c, out, res); }
void main(tensor out, int k, int m)
{
    uint64 lane = read_lane_id_4b_b();
    int5 a = {k, 2 * k, -3, 7, 100};
    int5 b = {5, -6, 9, k, -1};
    int5 inc = {1000, 1001, 1002, 1003, 1004};
    ROW(0, i_i32_add(a, b, 0x1f, 0, inc));
    ROW(1, i_i32_sub(a, b, 0x15, 0, inc));
    ROW(2, i_i32_mul(a, b, 0x0a, 0, inc));
    ROW(3, i_i32_max(a, b, 0x1f, 0, inc));
    ROW(4, i_i32_min(a, b, 0x07, 0, inc));
    ROW(5, i_i32_and(a, b, 0x18, 0, inc));
    ROW(6, i_i32_or(a, b, 0x1f, 0, inc));
    ROW(7, i_i32_xor(a, b, 0x01, 0, inc));
    ROW(8, i_i32_mov(a, 0x12, 0, inc));
    ROW(9, set_indx(m, inc, 0x0c, 0));
    ROW(10, i_i32_add(5, b, 0x03, 0, inc));
    ROW(11, i_i32_sub(m, b, 0x1f, 0, inc));
    ROW(12, i_i32_add(a, b, 0x1f, 0, inc, k > 0));
    ROW(13, i_i32_add(a, b, 0x1f, 0, inc, k > 0, 1));
    ROW(14, set_indx(k, inc, 0x11, 0, m > 0));
    int5 x = inc;
    x[0] = mov_irf_dim(a, 2, 0, 999, k > 100);
    x[1] = mov_irf_dim(b, 3, 0, 888, k < 100);
    ROW(15, x);
}
)";

TEST_P(IndexPredicate, IndexRegisterOperations) {
  auto text = build(kIndex);
  if (text.empty()) return;
  const int rows = 16, cols = 5;  // dimension 0 (5) is not a multiple of the 64 lanes
  for (auto [k, m] : std::vector<std::pair<int32_t, int32_t>>{{3, 11}, {-4, -9}, {200, 0}}) {
    SCOPED_TRACE("k=" + std::to_string(k) + " m=" + std::to_string(m));
    RunResult r = exec(text, {makeTensor(type("i32"), {cols, rows})}, {static_cast<uint32_t>(k), static_cast<uint32_t>(m)},
                       {1, 1, 1, 1, 1});
    if (r.tensors.empty()) continue;
    const std::array<int32_t, 5> a = {k, 2 * k, -3, 7, 100}, b = {5, -6, 9, k, -1}, inc = {1000, 1001, 1002, 1003, 1004};
    std::vector<uint32_t> want;
    auto row = [&](std::function<int32_t(int)> f, uint32_t mask) {
      for (int d = 0; d < 5; ++d) want.push_back(static_cast<uint32_t>((mask >> d) & 1u ? f(d) : inc[d]));
    };
    row([&](int d) { return a[d] + b[d]; }, 0x1f);
    row([&](int d) { return a[d] - b[d]; }, 0x15);
    row([&](int d) { return a[d] * b[d]; }, 0x0a);
    row([&](int d) { return std::max(a[d], b[d]); }, 0x1f);
    row([&](int d) { return std::min(a[d], b[d]); }, 0x07);
    row([&](int d) { return a[d] & b[d]; }, 0x18);
    row([&](int d) { return a[d] | b[d]; }, 0x1f);
    row([&](int d) { return a[d] ^ b[d]; }, 0x01);
    row([&](int d) { return a[d]; }, 0x12);
    row([&](int) { return m; }, 0x0c);
    row([&](int d) { return 5 + b[d]; }, 0x03);
    row([&](int d) { return m - b[d]; }, 0x1f);
    row([&](int d) { return a[d] + b[d]; }, k > 0 ? 0x1f : 0);
    row([&](int d) { return a[d] + b[d]; }, k > 0 ? 0 : 0x1f);
    row([&](int) { return k; }, m > 0 ? 0x11 : 0);
    std::array<int32_t, 5> x = inc;
    x[0] = k > 100 ? a[2] : 999;
    x[1] = k < 100 ? b[3] : 888;
    row([&](int d) { return x[d]; }, 0x1f);
    expectElements(r.tensors[0], want, "int5 intrinsics");
  }
}

// ------------------------------------------------------------------------------------------ predicates

const char* const kPredicates = R"(
#define OUT(k, p) { int5 o = c; o[2] = k;                                     \
    v_f32_st_tnsr(o, out, v_f32_mov_vb(1.0f, 0, zero, to_bool64(p), 0)); }
#define SOUT(k, p) { int5 o = c; o[2] = k;                                    \
    v_f32_st_tnsr(o, out, v_f32_mov_b(1.0f, 0, zero, p)); }
void main(tensor x, tensor y, tensor out, int k)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int r = s[1]; r < e[1]; r++) {
        for (int v = s[0]; v < e[0]; v++) {
            int5 c = {v * 64, r, 0, 0, 0};
            float64 a = v_f32_ld_tnsr_b(c, x);
            float64 b = v_f32_ld_tnsr_b(c, y);
            float64 zero = 0.0f;
            bool256 P = from_bool64(v_f32_cmp_grt_b(a, 0.0f));
            bool256 Q = from_bool64(v_f32_cmp_less_b(b, 1.0f));
            OUT(0, v_i1_and_b(P, Q));
            OUT(1, v_i1_or_b(P, Q));
            OUT(2, v_i1_xor_b(P, Q));
            OUT(3, v_i1_not_b(P));
            OUT(4, v_i1_mov_b(Q));
            OUT(5, v_i1_or_vb(P, Q, 0, v_i1_not_b(P), v_i1_xor_b(P, Q)));
            OUT(6, v_i1_not_vb(Q, 0, P, v_i1_and_b(P, Q), 1));
            OUT(7, v_i1_mov_i1_b(k > 0));
            OUT(8, v_i1_mov_i1_vb(k > 5, 0, Q, P));
            OUT(9, v_i1_and_b(P, Q, 0, Q, k > 3));
            OUT(10, from_bool128(to_bool128(v_i1_xor_b(P, Q))));
            bool sa = k > 2, sb = k < 7;
            SOUT(11, s_i1_and(sa, sb));
            SOUT(12, s_i1_or(sa, sb));
            SOUT(13, s_i1_xor(sa, sb));
            SOUT(14, s_i1_not(sa));
            SOUT(15, s_i1_mov(sb));
            SOUT(16, s_i1_and(sa, sb, 0, 1, k & 1));
            SOUT(17, s_i1_not(sb, 0, sa, k == 5, 1));
        }
    }
}
)";

TEST_P(IndexPredicate, PredicateLogic) {
  auto text = build(kPredicates);
  if (text.empty()) return;
  const Type& f = type("f32");
  const int64_t n0 = 150, rows = 2, outs = 18;
  auto xs = sampleBits(f, n0 * rows, 51), ys = sampleBits(f, n0 * rows, 52);
  for (int32_t k : {0, 3, 5, 8}) {
    SCOPED_TRACE("k=" + std::to_string(k));
    RunResult r = exec(text, {makeTensor(f, {n0, rows}, xs), makeTensor(f, {n0, rows}, ys), makeTensor(f, {n0, rows, outs})},
                       {static_cast<uint32_t>(k)}, {vectors(n0, 64), rows, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> want(static_cast<size_t>(n0 * rows * outs));
    bool sa = k > 2, sb = k < 7;
    for (int64_t y = 0; y < rows; ++y)
      for (int64_t i = 0; i < n0; ++i) {
        size_t e = static_cast<size_t>(y * n0 + i);
        bool P = decode(xs[e], kF32) > 0, Q = decode(ys[e], kF32) < 1.0;
        bool vals[outs] = {P && Q,
                           P || Q,
                           P != Q,
                           !P,
                           Q,
                           (P != Q) ? (P || Q) : !P,
                           !(P && Q) ? !Q : P,
                           k > 0,
                           P ? k > 5 : Q,
                           k > 3 ? (P && Q) : Q,
                           P != Q,
                           sa && sb,
                           sa || sb,
                           sa != sb,
                           !sa,
                           sb,
                           (k & 1) ? (sa && sb) : true,
                           k != 5 ? !sb : sa};
        for (int o = 0; o < outs; ++o) want[static_cast<size_t>((o * rows + y) * n0 + i)] = vals[o] ? bitsOf(1.0f) : 0;
      }
    expectElements(r.tensors[2], want, "predicate intrinsics");
  }
}

ITEST_INSTANTIATE(IndexPredicate);

}  // namespace
}  // namespace itest
