// The negative log-likelihood loss (nll_loss_fwd, x: log-probabilities) and, with -DSOFTMAX, softmax cross-
// entropy (softmax_cross_entropy_fwd, x: scores, their log-probabilities computed here and, with
// -DWITH_LOG_PROB, written), as ONNX defines them (glue/loss.cpp). x is [N, C] (-DCLASS_DIM=0: the classes
// along TPC dimension 0) or [N, C, d1, ...] (-DCLASS_DIM=r-2, f32); labels (i32) have x's shape without the
// class dimension. A position's loss is -w[label] logp[label] (w from -DWITH_WEIGHT, else 1), 0 where
// label == ignore (hasIgnore); reduction 0 writes every position's loss, 1 their sum, 2 the sum over the sum of
// the weights used (ONNX's mean), as one element. Each index-space point is one row (CLASS_DIM 0) or 64
// positions along dimension 0 (else); with a reduction the one point walks all of them, in order.
#include "common.h"

#if defined(WITH_WEIGHT) && defined(WITH_LOG_PROB)
#define TENSORS tensor x, tensor labels, tensor weight, tensor loss, tensor logProb
#elif defined(WITH_WEIGHT)
#define TENSORS tensor x, tensor labels, tensor weight, tensor loss
#elif defined(WITH_LOG_PROB)
#define TENSORS tensor x, tensor labels, tensor loss, tensor logProb
#else
#define TENSORS tensor x, tensor labels, tensor loss
#endif

#define NEG_INF (-__builtin_inff())
#if defined(SOFTMAX)
// The shift of a log-sum-exp: the maximum where finite, else 0; and its result (the maximum itself where it
// is +inf or NaN; -inf where every term is -inf).
static inline float64 lseShift(float64 m) { return v_f32_sel_eq_f32_b(v_f32_abs_b(m), __builtin_inff(), 0.0f, m); }
static inline float64 lseOf(float64 sum, float64 m, float64 shift) {
  const float64 r = v_f32_sel_eq_f32_b(m, __builtin_inff(), m, v_log_f32(sum) + shift);
  return v_f32_sel_neq_f32_b(m, m, m, r);
}
#endif
#define nanMax(a, b) v_f32_max_b(a, b)  // a NaN anywhere gives NaN

#if CLASS_DIM == 0
// ------------------------------------------------------------------------------------------ [N, C]
#if defined(DT_F32)
#define CLASS_VECTOR(c, valid) v_f32_sel_less_u32_b(read_lane_id_4b_b(), (uint64)(unsigned)(valid), LD(c, x), NEG_INF)
#define LANE_MAX(v) v_f32_reduce_max(v)
#define SUM_EXP(v, s) v_exp_f32((v) - (s))
#define FIRST(c) ((float64)s_f32_ld_g(gen_addr(c, x)))
#else
#define CLASS_VECTOR(c, valid) \
  v_convert_bf16_to_f32_all_b(v_bf16_sel_less_u16_b(read_lane_id_2b_b(), (ushort128)(unsigned short)(valid), LD(c, x), (bfloat128)NEG_INF))
#define LANE_MAX(v) v_f32_reduce_max(v_f32_max_b((v).v1, (v).v2))
#define SUM_EXP(v, s) (v_exp_f32((v).v1 - (s)) + v_exp_f32((v).v2 - (s)))
#define FIRST(c) ((float64)s_convert_bf16_to_f32(s_bf16_ld_g(gen_addr(c, x))))
#endif

void main(TENSORS, int reduction, int hasIgnore, int ignore)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    const int rows = get_dim_size(x, 1);
    float64 lossSum = 0.0f, weightSum = 0.0f;
    const int first = reduction ? 0 : start[1], last = reduction ? rows : end[1];
    for (int n = first; n < last; n++) {
        float64 lse = 0.0f;
#if defined(SOFTMAX)
        const int classes = get_dim_size(x, 0);
        int5 c = {0, n, 0, 0, 0};
        float64 m = NEG_INF;
        for (int k = 0; k < classes; k += LANES) {
            c[0] = k;
            m = nanMax(m, LANE_MAX(CLASS_VECTOR(c, classes - k)));
        }
        const float64 shift = lseShift(m);
        float64 s = 0.0f;
        for (int k = 0; k < classes; k += LANES) {
            c[0] = k;
            s = s + v_f32_reduce_add(SUM_EXP(CLASS_VECTOR(c, classes - k), shift));
        }
        lse = lseOf(s, m, shift);
#if defined(WITH_LOG_PROB)
#define MINUS_LSE(v) ((v) - lse)
        for (int k = 0; k < classes; k += LANES) {
            c[0] = k;
            STORE(c, logProb, VIA_F32(MINUS_LSE, LD(c, x)));
        }
#endif
#endif
        const int label = s_i32_ld_g(gen_addr(((int5){n, 0, 0, 0, 0}), labels));
        float64 w = 0.0f, l = 0.0f;
        if (!(hasIgnore && label == ignore)) {
#if defined(WITH_WEIGHT)
            w = v_f32_ld_tnsr_b(((int5){label, 0, 0, 0, 0}), weight);
#else
            w = 1.0f;
#endif
            l = -(FIRST(((int5){label, n, 0, 0, 0})) - lse) * w;
        }
        if (reduction == 0) {
            v_f32_st_tnsr_partial(((int5){n, 0, 0, 0, 0}), loss, l, 0, 0);
        } else {
            lossSum = lossSum + l;
            weightSum = weightSum + w;
        }
    }
    if (reduction) v_f32_st_tnsr_partial(((int5)0), loss, reduction == 2 ? v_div_f32(lossSum, weightSum) : lossSum, 0, 0);
}
#else
// ------------------------------------------------------------------------------------------ [N, C, d...]
#if !defined(DT_F32)
#error "the spatial form is f32 only (glue/loss.cpp rejects bf16 there)"
#endif
// x's coordinate of class k for the positions at labels' coordinate lc: labels' dimensions below the class
// dimension, the class, then N.
#define X_AT(lc, k)                                                                                       \
  ((int5){CLASS_DIM == 0 ? (k) : (lc)[0], CLASS_DIM == 1 ? (k) : CLASS_DIM < 1 ? (lc)[0] : (lc)[1],         \
          CLASS_DIM == 2 ? (k) : CLASS_DIM < 2 ? (lc)[1] : (lc)[2], CLASS_DIM == 3 ? (k) : CLASS_DIM < 3 ? (lc)[2] : (lc)[3], \
          CLASS_DIM == 4 ? (k) : (lc)[3]})

void main(TENSORS, int reduction, int hasIgnore, int ignore)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    const int classes = get_dim_size(x, CLASS_DIM), size0 = get_dim_size(labels, 0);
    const int5 from = reduction ? (int5)0 : start;
    const int5 to = reduction ? (int5){(size0 + 63) / 64, get_dim_size(labels, 1), get_dim_size(labels, 2),
                                       get_dim_size(labels, 3), get_dim_size(labels, 4)}
                              : end;
    float64 lossSum = 0.0f, weightSum = 0.0f;
    for (int l4 = from[4]; l4 < to[4]; l4++)
    for (int l3 = from[3]; l3 < to[3]; l3++)
    for (int l2 = from[2]; l2 < to[2]; l2++)
    for (int l1 = from[1]; l1 < to[1]; l1++)
    for (int p0 = from[0]; p0 < to[0]; p0++) {
        const int5 lc = {p0 * 64, l1, l2, l3, l4};
        const int64 label = v_i32_ld_tnsr_b(lc, labels);
        float64 m = NEG_INF, pick = 0.0f, w = 1.0f;
        for (int k = 0; k < classes; k++) {
            const float64 xk = v_f32_ld_tnsr_b(X_AT(lc, k), x);
            m = nanMax(m, xk);
            pick = v_f32_sel_eq_i32_b(label, k, xk, pick);
#if defined(WITH_WEIGHT)
            w = v_f32_sel_eq_i32_b(label, k, (float64)s_f32_ld_g(gen_addr(((int5){k, 0, 0, 0, 0}), weight)), w);
#endif
        }
        float64 lse = 0.0f;
#if defined(SOFTMAX)
        const float64 shift = lseShift(m);
        float64 sum = 0.0f;
        for (int k = 0; k < classes; k++) sum = sum + v_exp_f32(v_f32_ld_tnsr_b(X_AT(lc, k), x) - shift);
        lse = lseOf(sum, m, shift);
#if defined(WITH_LOG_PROB)
        for (int k = 0; k < classes; k++) v_f32_st_tnsr(X_AT(lc, k), logProb, v_f32_ld_tnsr_b(X_AT(lc, k), x) - lse);
#endif
#else
        (void)m;
#endif
        // Ignored positions and the lanes past the row's end count nothing.
        const uint64 lane = read_lane_id_4b_b();
        float64 keep = v_f32_sel_less_u32_b(lane, (uint64)(unsigned)(size0 - lc[0]), 1.0f, 0.0f);
        if (hasIgnore) keep = v_f32_sel_eq_i32_b(label, ignore, 0.0f, keep);
        w = w * keep;
        const float64 l = v_f32_sel_eq_f32_b(keep, 0.0f, 0.0f, -(pick - lse) * w);
        if (reduction == 0) {
            v_f32_st_tnsr(lc, loss, l);
        } else {
            lossSum = lossSum + l;
            weightSum = weightSum + w;
        }
    }
    if (reduction) {
        const float64 total = v_f32_reduce_add(lossSum), weights = v_f32_reduce_add(weightSum);
        v_f32_st_tnsr_partial(((int5)0), loss, reduction == 2 ? v_div_f32(total, weights) : total, 0, 0);
    }
}
#endif
