// out = OP over the TPC dimensions set in `dims` (bit d: dimension d; reduced dimensions keep size 1), for
// the reductions over several dimensions at once and for those without a kernel along one dimension
// (glue/rows.cpp): sum, mean (the sum times scale), max, min (a NaN anywhere gives NaN), prod, l1 (sum of
// |x|), l2 (the square root of the sum of squares), sum_square, log_sum (log of the sum) and log_sum_exp
// (max-shifted: m + log(sum(exp(x - m)))). The index space is the output's elementwise space. Each output
// vector accumulates, lane by lane, every input vector its reduced coordinates cover; when dimension 0 is
// reduced, the lanes past the row's end take OP's identity and the lanes are combined at the end. bf16
// accumulates both f32 halves and rounds once.
#include "common.h"

#if defined(OP_SUM) || defined(OP_MEAN) || defined(OP_LOG_SUM)
#define IDENTITY 0.0f
#define COMBINE(a, x) ((a) + (x))
#define LANE_REDUCE(a) v_f32_reduce_add(a)
#elif defined(OP_SUM_SQUARE) || defined(OP_L2)
#define IDENTITY 0.0f
#define COMBINE(a, x) v_f32_mac_b(x, x, a)
#define HALVES(a, b) ((a) + (b))
#define LANE_REDUCE(a) v_f32_reduce_add(a)
#elif defined(OP_L1)
#define IDENTITY 0.0f
#define COMBINE(a, x) ((a) + v_f32_abs_b(x))
#define HALVES(a, b) ((a) + (b))
#define LANE_REDUCE(a) v_f32_reduce_add(a)
#elif defined(OP_PROD)
#define IDENTITY 1.0f
#define COMBINE(a, x) ((a) * (x))
#define LANE_REDUCE(a) v_f32_reduce_mul(a)
#elif defined(OP_MAX) || defined(OP_LOG_SUM_EXP)
#define IDENTITY (-__builtin_inff())
#define COMBINE(a, x) v_f32_max_b(a, x)
#define LANE_REDUCE(a) v_f32_reduce_max(a)
#elif defined(OP_MIN)
#define IDENTITY __builtin_inff()
#define COMBINE(a, x) v_f32_min_b(a, x)
#define LANE_REDUCE(a) v_f32_reduce_min(a)
#else
#error "compile with -DOP_SUM, _MEAN, _MAX, _MIN, _PROD, _L1, _L2, _SUM_SQUARE, _LOG_SUM or _LOG_SUM_EXP"
#endif
#if !defined(HALVES)
#define HALVES(a, b) COMBINE(a, b)  // two f32 halves of a bf16 vector, each already accumulated
#endif

// Every input vector the output vector at o covers, x its vector (f32: one; bf16: its two halves in
// x.v1, x.v2) with the lanes past dimension 0's end set to `identity` when dimension 0 is reduced.
#if defined(DT_F32)
#define HALF_TYPE float64
#define LOAD_PLAIN(c) LD(c, in)
#define LOAD_MASKED(c, valid, identity) \
  v_f32_sel_less_u32_b(read_lane_id_4b_b(), (uint64)(unsigned)(valid), LD(c, in), identity)
#else
#define HALF_TYPE float64_pair_t
#define LOAD_PLAIN(c) v_convert_bf16_to_f32_all_b(LD(c, in))
#define LOAD_MASKED(c, valid, identity)                                                                     \
  v_convert_bf16_to_f32_all_b(v_bf16_sel_less_u16_b(read_lane_id_2b_b(), (ushort128)(unsigned short)(valid), \
                                                    LD(c, in), (bfloat128)(identity)))
#endif

// Every input vector the output vector at o covers, x its value (f32: one vector; bf16: its two halves in
// x.v1, x.v2), given to STEP(A, x) with A one of four accumulators in turn: four independent chains, so that
// the loop is not one long dependence through an accumulator. When dimension 0 is reduced, the rows of the
// reduced dimensions 1-4 are loops along dimension 0, the lanes past the row's end set to `identity`;
// otherwise a loop over dimension 1 of unmasked vectors, the coordinate stepped, not rebuilt.
#define FOUR_CHAINS(count, LOAD, ADVANCE, STEP, A0, A1, A2, A3)                                            \
  {                                                                                                         \
    int k_ = 0;                                                                                             \
    for (; k_ + 3 < (count); k_ += 4) {                                                                     \
      { const HALF_TYPE x = LOAD; STEP(A0, x) ADVANCE }                                                     \
      { const HALF_TYPE x = LOAD; STEP(A1, x) ADVANCE }                                                     \
      { const HALF_TYPE x = LOAD; STEP(A2, x) ADVANCE }                                                     \
      { const HALF_TYPE x = LOAD; STEP(A3, x) ADVANCE }                                                     \
    }                                                                                                       \
    for (; k_ < (count); k_++) { const HALF_TYPE x = LOAD; STEP(A0, x) ADVANCE }                            \
  }
#define EACH_COVERED(o, identity, STEP, A0, A1, A2, A3)                                                     \
  for (int r4 = 0; r4 < n[4]; r4++)                                                                         \
    for (int r3 = 0; r3 < n[3]; r3++)                                                                       \
      for (int r2 = 0; r2 < n[2]; r2++) {                                                                   \
        int5 ic = {(o)[0], (o)[1], (o)[2] + r2, (o)[3] + r3, (o)[4] + r4};                                  \
        if (reduce0) {                                                                                      \
          const int vectors = (n[0] + LANES - 1) / LANES;                                                   \
          for (int r1 = 0; r1 < n[1]; r1++) {                                                               \
            ic[0] = (o)[0];                                                                                 \
            FOUR_CHAINS(vectors, LOAD_MASKED(ic, n[0] - ic[0], identity), ic[0] += LANES;, STEP, A0, A1, A2, A3) \
            ic[1] += 1;                                                                                     \
          }                                                                                                 \
        } else {                                                                                            \
          FOUR_CHAINS(n[1], LOAD_PLAIN(ic), ic[1] += 1;, STEP, A0, A1, A2, A3)                              \
        }                                                                                                   \
      }

#if defined(DT_F32)
#define COMBINE_STEP(acc, x) acc = COMBINE(acc, x);
#define MERGE_INTO(acc, other) acc = HALVES(acc, other);
#define ACC_INIT(acc, v) float64 acc = (v);
#else
#define COMBINE_STEP(acc, x) acc.v1 = COMBINE(acc.v1, (x).v1); acc.v2 = COMBINE(acc.v2, (x).v2);
#define MERGE_INTO(acc, other) acc.v1 = HALVES(acc.v1, (other).v1); acc.v2 = HALVES(acc.v2, (other).v2);
#define ACC_INIT(acc, v) float64_pair_t acc; acc.v1 = (v); acc.v2 = (v);
#endif

// f applied to each f32 half of the accumulator (the output lanes).
#if defined(DT_F32)
#define EACH_HALF(acc, f) acc = f(acc);
#define TO_OUTPUT(acc) (acc)
#else
#define EACH_HALF(acc, f) acc.v1 = f(acc.v1); acc.v2 = f(acc.v2);
#define TO_OUTPUT(acc) v_convert_f32_to_bf16_all_b(acc)
#endif

#if defined(OP_MEAN)
#define FINISH(a) ((a) * scale)
#elif defined(OP_L2)
#define FINISH(a) v_sqrt_f32(a)
#elif defined(OP_LOG_SUM)
#define FINISH(a) v_log_f32(a)
#else
#define FINISH(a) (a)
#endif

#if defined(OP_LOG_SUM_EXP)
// log_sum_exp: the shift is the maximum m where it is finite, else 0 (all -inf: the sum of zeros gives
// -inf); the result is m + log(sum), or m itself where m is +inf or NaN.
static inline float64 lseShift(float64 m) { return v_f32_sel_eq_f32_b(v_f32_abs_b(m), __builtin_inff(), 0.0f, m); }
static inline float64 lseFinish(float64 sum, float64 m, float64 shift) {
  const float64 r = v_f32_sel_eq_f32_b(m, __builtin_inff(), m, v_log_f32(sum) + shift);
  return v_f32_sel_neq_f32_b(m, m, m, r);
}
#endif

void main(tensor in, tensor out, int dims, float scale)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    const _Bool reduce0 = dims & 1;
    int n[5];  // the reduced extent of each dimension (1 for a kept one)
#pragma unroll
    for (int d = 0; d < 5; d++) n[d] = (dims >> d) & 1 ? get_dim_size(in, d) : 1;
    n[0] = reduce0 ? n[0] : 1;
    for (int d4 = start[4]; d4 < end[4]; d4++)
        for (int d3 = start[3]; d3 < end[3]; d3++)
            for (int d2 = start[2]; d2 < end[2]; d2++)
                for (int d1 = start[1]; d1 < end[1]; d1++)
                    for (int p0 = start[0]; p0 < end[0]; p0++) {
                        const int o[5] = {reduce0 ? 0 : p0 * LANES, d1, d2, d3, d4};
                        const int5 oc = {o[0], d1, d2, d3, d4};
                        ACC_INIT(acc, IDENTITY)
                        ACC_INIT(acc1, IDENTITY)
                        ACC_INIT(acc2, IDENTITY)
                        ACC_INIT(acc3, IDENTITY)
                        EACH_COVERED(o, IDENTITY, COMBINE_STEP, acc, acc1, acc2, acc3)
                        MERGE_INTO(acc, acc1)
                        MERGE_INTO(acc2, acc3)
                        MERGE_INTO(acc, acc2)
#if defined(OP_LOG_SUM_EXP)
                        // acc holds the maximum: the sum of exp(x - max) in a second pass.
#if defined(DT_F32)
                        float64 m1 = acc, m2 = acc;
#else
                        float64 m1 = acc.v1, m2 = acc.v2;
#endif
                        if (reduce0) {
                            m1 = LANE_REDUCE(HALVES(m1, m2));
                            m2 = m1;
                        }
                        const float64 s1 = lseShift(m1);
                        float64 t1 = 0.0f, t2 = 0.0f;
#if defined(DT_F32)
#define EXP_STEP(t, x) t = t + v_exp_f32((x) - s1);
                        float64 u1 = 0.0f, u2 = 0.0f, u3 = 0.0f;
                        EACH_COVERED(o, -__builtin_inff(), EXP_STEP, t1, u1, u2, u3)
                        t1 = (t1 + u1) + (u2 + u3);
#else
                        const float64 s2 = lseShift(m2);
#define EXP_STEP(t, x) t.v1 = t.v1 + v_exp_f32((x).v1 - s1); t.v2 = t.v2 + v_exp_f32((x).v2 - s2);
                        float64_pair_t e0, e1, e2, e3;
                        e0.v1 = e0.v2 = e1.v1 = e1.v2 = e2.v1 = e2.v2 = e3.v1 = e3.v2 = 0.0f;
                        EACH_COVERED(o, -__builtin_inff(), EXP_STEP, e0, e1, e2, e3)
                        t1 = (e0.v1 + e1.v1) + (e2.v1 + e3.v1);
                        t2 = (e0.v2 + e1.v2) + (e2.v2 + e3.v2);
#endif
                        if (reduce0) {
                            t1 = v_f32_reduce_add(t1 + t2);
                            t2 = t1;
                        }
#if defined(DT_F32)
                        STORE(oc, out, lseFinish(t1, m1, s1));
#else
                        float64_pair_t r;
                        r.v1 = lseFinish(t1, m1, s1);
                        r.v2 = lseFinish(t2, m2, s2);
                        STORE(oc, out, v_convert_f32_to_bf16_all_b(r));
#endif
#else
                        if (reduce0) {
#if defined(DT_F32)
                            acc = LANE_REDUCE(acc);
#else
                            acc.v1 = LANE_REDUCE(HALVES(acc.v1, acc.v2));
                            acc.v2 = acc.v1;
#endif
                        }
                        EACH_HALF(acc, FINISH)
                        STORE(oc, out, TO_OUTPUT(acc));
#endif
                    }
}
