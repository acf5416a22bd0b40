// Cross-entropy of logits along dimension 0 (C classes per row; rows.h with -DAXIS_LANES) against i32
// class labels, one per row, in f32:
//   -DOP_CROSS_ENTROPY      loss = log(sum exp(x - m)) + m - x[label] (m the row's maximum)
//   -DOP_CROSS_ENTROPY_BWD  dx = (softmax(x) - onehot(label)) dloss
// A label outside [0, C) gives a NaN loss (forward) or a gradient without the one-hot term (backward).
// Labels and losses have one element per row: with labelsShifted = 0 at the row's coordinates with
// dimension 0 at 0 (the logits' shape with dimension 0 of size 1), with labelsShifted = 1 at dimensions
// 1-4 moved down by one (the logits' shape without dimension 0).
// One accumulator chain: with more, the exponentials' temporaries of the overlapping iterations need
// more vector registers than the core has, and the compiler's retry gives up overlapping them (the
// exponential is long enough that one chain's adds do not hold the loop). f32 had two until the row
// loops' masks and bounds came to be computed once for the whole kernel (common.h EACH_FROM, rows.h
// ROW_NOT_EMPTY): with two, the loss took 17,643 cycles and the gradient 24,154; with one, 7,415 and 12,554.
#define ROW_CHAINS 1
#include "rows.h"

#if !defined(AXIS_LANES)
#error "cross-entropy works along dimension 0 (-DAXIS_LANES)"
#endif

// The coordinates of the row's label (and loss) element.
static inline int5 label_coords(int5 c, int labelsShifted) {
  return labelsShifted ? (int5){c[1], c[2], c[3], c[4], 0} : (int5){0, c[1], c[2], c[3], c[4]};
}

#if defined(OP_CROSS_ENTROPY)
void main(tensor x, tensor labels, tensor loss, int n, int labelsShifted, int layout)
#elif defined(OP_CROSS_ENTROPY_BWD)
void main(tensor x, tensor labels, tensor dloss, tensor dx, int n, int labelsShifted, int layout)
#else
#error "compile with -DOP_CROSS_ENTROPY or -DOP_CROSS_ENTROPY_BWD"
#endif
{
  int5 c = 0;
  FOR_EACH_POINT(c, layout == 2,
    const int5 lc = label_coords(c, labelsShifted);
    // A label outside [0, C) matches no element (the last vector's lanes past C included).
    const int read = s_i32_ld_g(gen_addr(lc, labels));
    const int label = (unsigned)read < (unsigned)n ? read : -1;
    float64 mc[ROW_CHAINS][1], sc[ROW_CHAINS][1];
    for (int j = 0; j < ROW_CHAINS; j++) mc[j][0] = -__builtin_inff(), sc[j][0] = 0.0f;
    FOR_ROW(c, x, n, p, -__builtin_inff(),
      for (int k = 0; k < NP; k++) mc[j][0] = v_f32_max_b(mc[j][0], p[k]);)
    const float64 m = ROW_MAX(COMBINE_CHAINS(v_f32_max_b, mc, 0));
#if defined(OP_CROSS_ENTROPY)
    // The label's logit: in the lane that holds it, summed over the lanes with a count of hits.
    float64 picked[ROW_CHAINS][1], hits[ROW_CHAINS][1];
    for (int j = 0; j < ROW_CHAINS; j++) picked[j][0] = hits[j][0] = 0.0f;
    FOR_ROW(c, x, n, p, -__builtin_inff(),
      for (int k = 0; k < NP; k++) {
        sc[j][0] += v_exp_f32(p[k] - m);
        const int64 here = piece_element(k) + at;
        picked[j][0] = v_f32_sel_eq_i32_b(here, label, p[k], picked[j][0]);
        hits[j][0] = v_f32_sel_eq_i32_b(here, label, 1.0f, hits[j][0]);
      })
    const float64 s = ROW_SUM(COMBINE_CHAINS(ADD_F32, sc, 0));
    const float64 value = v_log_f32(s) + m - ROW_SUM(COMBINE_CHAINS(ADD_F32, picked, 0));
    // One lane: with shifted labels the next lanes are other rows' losses.
    v_f32_st_tnsr_partial(lc, loss, v_f32_sel_eq_f32_b(ROW_SUM(COMBINE_CHAINS(ADD_F32, hits, 0)), 1.0f, value,
                                                       __builtin_nanf("")), 0, 0);
#else
    FOR_ROW(c, x, n, p, -__builtin_inff(),
      for (int k = 0; k < NP; k++) sc[j][0] += v_exp_f32(p[k] - m);)
    const float g = s_f32_ld_g(gen_addr(lc, dloss));
    const float64 scale = v_reciprocal_f32(ROW_SUM(COMBINE_CHAINS(ADD_F32, sc, 0))) * g;
    FOR_ROW_WRITE(c, x, n, p,
      for (int k = 0; k < NP; k++) {
        const int64 here = piece_element(k) + at;
        const float64 q = v_exp_f32(p[k] - m) * scale;
        p[k] = v_f32_sel_eq_i32_b(here, label, q - g, q);
      }
      ST_PIECES(c, dx, p);)
#endif
  )
}
