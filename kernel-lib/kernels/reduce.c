// out = OP over dimension `dim` of x (n elements), the output keeping that dimension with size 1: sum, mean
// (the sum times scale = 1/n), max, min (NaN wins, as in most frameworks), argmax and argmin (i32: the first
// index of the maximum or minimum, with -DSELECT_LAST the last; a NaN is beyond every number, the first NaN
// wins, or the last). Sums accumulate in f32 per lane in
// ROW_CHAINS interleaved partial sums, added at the end with the lanes in a tree. -DAXIS_LANES or
// -DAXIS_OUTER (rows.h), -DDT_*, -DOP_*.
// The chains per form and type, as measured (bench/kernel_lib.py; argmax keeps rows.h's 4): along a row,
// where two rows share a loop, f32 4 per row (561 cycles; 564 with 8), bf16 2 (721; 768 with 1), the loop
// not unrolled further (f32 587 unrolled twice); across rows f32 4, bf16 1 (754, 803).
#if defined(OP_ARGMAX) || defined(OP_ARGMIN)
#define ARG_REDUCE
#endif
#if !defined(ARG_REDUCE) && defined(AXIS_LANES) && defined(DT_F32)
#define ROW_CHAINS 4
#define ROW_GROUP_UNROLL 1
#elif !defined(ARG_REDUCE) && defined(AXIS_LANES)
#define ROW_CHAINS 2
#define ROW_GROUP_UNROLL 1
#elif !defined(ARG_REDUCE) && defined(DT_BF16)
#define ROW_CHAINS 1
#endif
#include "rows.h"

#if defined(OP_SUM) || defined(OP_MEAN)
#define IDENTITY 0.0f
#define COMBINE(acc, v) ((acc) + (v))
#define FINISH_BATCH(accs) BATCH_SUM(accs)
#define REDUCE_LANES(v) v_f32_reduce_add(v)
#elif defined(OP_MAX)
#define IDENTITY (-__builtin_inff())
#define COMBINE(acc, v) v_f32_max_b(acc, v)
#define FINISH_BATCH(accs) BATCH_MAX(accs)
#define REDUCE_LANES(v) v_f32_reduce_max(v)
#elif defined(OP_MIN)
#define IDENTITY __builtin_inff()
#define COMBINE(acc, v) v_f32_min_b(acc, v)
#define FINISH_BATCH(accs) BATCH_MIN(accs)
#define REDUCE_LANES(v) v_f32_reduce_min(v)
#elif !defined(ARG_REDUCE)
#error "compile with -DOP_SUM, -DOP_MEAN, -DOP_MAX, -DOP_MIN, -DOP_ARGMAX or -DOP_ARGMIN"
#endif

#if defined(ARG_REDUCE)
// BEYOND(a, b): a is strictly past b in the order sought (larger for argmax, smaller for argmin); the
// identity is the value every element is at least as far as; LATER(ti, xi): the index that wins a tie.
#if defined(OP_ARGMAX)
#define BEYOND(a, b) (int64)((a) > (b))
#define ARG_IDENTITY (-__builtin_inff())
#else
#define BEYOND(a, b) (int64)((a) < (b))
#define ARG_IDENTITY __builtin_inff()
#endif
#if defined(SELECT_LAST)
#define TIE_WINS(ti, xi) (int64)((ti) > (xi))
#else
#define TIE_WINS(ti, xi) (int64)((ti) < (xi))
#endif
// Whether (t, ti) beats (x, xi): beyond it, a NaN against a number, or equal (or both NaN) with the index
// that wins a tie.
static inline int64 argmax_wins(float64 t, int64 ti, float64 x, int64 xi) {
  const int64 tnan = (int64)(t != t), xnan = (int64)(x != x);
  const int64 tie = ((int64)(t == x) | (tnan & xnan)) & TIE_WINS(ti, xi);
  return BEYOND(t, x) | (tnan & ~xnan) | tie;
}

void main(tensor x, tensor out, int dim, int n, float scale, int layout)
{
  int5 c = 0;
#if defined(AXIS_OUTER)
  const int5 unit = UNIT_INT5(dim);
#endif
  FOR_EACH_POINT(c, layout == 2,
    float64 best[ROW_CHAINS][NP];
    int64 index[ROW_CHAINS][NP];
    for (int j = 0; j < ROW_CHAINS; j++)
      for (int k = 0; k < NP; k++) {
        best[j][k] = ARG_IDENTITY;
        index[j][k] = 0;
      }
    // Per chain and lane, the first element beyond the rest: a later one replaces it only when beyond it,
    // or a NaN over a number (with SELECT_LAST also when equal, or a NaN over a NaN).
    FOR_ROW(c, x, n, p, ARG_IDENTITY,
      for (int k = 0; k < NP; k++) {
#if defined(SELECT_LAST)
        const int64 tied = BEYOND(p[k], best[j][k]) | (int64)(p[k] == best[j][k]) | (int64)(p[k] != p[k]);
#else
        const int64 wins = BEYOND(p[k], best[j][k]) | ((int64)(p[k] != p[k]) & (int64)(best[j][k] == best[j][k]));
#endif
#if defined(AXIS_LANES)
        const int64 at_k = piece_element(k) + at;
#else
        const int64 at_k = at;
#endif
#if defined(SELECT_LAST)
        // Lanes past the row's end hold the identity, which an equal element must not be taken for.
        const int64 wins = v_i32_sel_less_i32_b(at_k, n, tied, 0);
#endif
        best[j][k] = v_f32_sel_neq_i32_b(wins, 0, p[k], best[j][k]);
        index[j][k] = v_i32_sel_neq_i32_b(wins, 0, at_k, index[j][k]);
      })
    // The chains' candidates, by value then index.
    for (int j = 1; j < ROW_CHAINS; j++)
      for (int k = 0; k < NP; k++) {
        const int64 w = argmax_wins(best[j][k], index[j][k], best[0][k], index[0][k]);
        best[0][k] = v_f32_sel_neq_i32_b(w, 0, best[j][k], best[0][k]);
        index[0][k] = v_i32_sel_neq_i32_b(w, 0, index[j][k], index[0][k]);
      }
#if defined(AXIS_LANES)
    // The lanes' candidates, combined in a tree; a lane that never saw anything beyond the identity keeps
    // index 0 (with SELECT_LAST its last element), which is right when the whole row is the identity.
    float64 b = best[0][0];
    int64 i = index[0][0];
    for (int k = 1; k < NP; k++) {
      const int64 w = argmax_wins(best[0][k], index[0][k], b, i);
      b = v_f32_sel_neq_i32_b(w, 0, best[0][k], b);
      i = v_i32_sel_neq_i32_b(w, 0, index[0][k], i);
    }
    for (int k = 32; k > 0; k >>= 1) {
      const float64 t = __tpc_sf_lane_swap_f32(b, k);
      const int64 ti = as_int64(__tpc_sf_lane_swap_index_f32(as_uint64(i), k));
      const int64 w = argmax_wins(t, ti, b, i);
      b = v_f32_sel_neq_i32_b(w, 0, t, b);
      i = v_i32_sel_neq_i32_b(w, 0, ti, i);
    }
    c[0] = 0;
    v_i32_st_tnsr(c, out, i);
#elif NP == 1
    v_i32_st_tnsr(c, out, index[0][0]);
#else
    // Back to element order: output vector h (64 elements) takes element j from piece j % 2, lane 32h + j / 2.
    const uint64 lane = read_lane_id_4b_b();
    for (int h = 0; h < 2; h++) {
      const uchar256 from = as_uchar256((lane >> 1) + (uint64)(32 * h));
      const int64 even = as_int64(__lane_shuffle_u32(as_uint64(index[0][0]), from));
      const int64 odd = as_int64(__lane_shuffle_u32(as_uint64(index[0][1]), from));
      v_i32_st_tnsr(c, out, v_i32_sel_eq_u32_b(lane & 1, 0, even, odd));
      c[0] += 64;
    }
#endif
  )
}

#else

// acc[k]: OP over the row at c of the pieces k (the row's chains combined).
#define ACCUMULATE_ROW(c, acc)                                                   \
  {                                                                              \
    float64 chains[ROW_CHAINS][NP];                                              \
    for (int j = 0; j < ROW_CHAINS; j++)                                         \
      for (int k = 0; k < NP; k++) chains[j][k] = IDENTITY;                      \
    FOR_ROW(c, x, n, p, IDENTITY,                                                \
      for (int k = 0; k < NP; k++) chains[j][k] = COMBINE(chains[j][k], p[k]);)  \
    for (int k = 0; k < NP; k++) (acc)[k] = COMBINE_CHAINS(COMBINE, chains, k);  \
  }

#if defined(AXIS_LANES)

// acc[r][k]: ACCUMULATE_ROW of the row at c and of the R - 1 rows after it, in one loop.
#define ACCUMULATE_ROWS(c, R, acc)                                               \
  {                                                                              \
    float64 chains[R][ROW_CHAINS_FOR(R)][NP];                                    \
    for (int r = 0; r < (R); r++)                                                \
      for (int j = 0; j < ROW_CHAINS_FOR(R); j++)                                \
        for (int k = 0; k < NP; k++) chains[r][j][k] = IDENTITY;                 \
    FOR_ROWS_CH(c, x, R, ROW_CHAINS_FOR(R), P, n, IDENTITY,                      \
      for (int r = 0; r < (R); r++)                                              \
        for (int k = 0; k < NP; k++) chains[r][j][k] = COMBINE(chains[r][j][k], P[r][k]);) \
    for (int r = 0; r < (R); r++)                                                \
      for (int k = 0; k < NP; k++) (acc)[r][k] = COMBINE_CH(COMBINE, chains[r], ROW_CHAINS_FOR(R), k); \
  }

// R rows of the batch from row r0 on: their OP in batch_acc[b..b + R - 1], b = r0 - row0.
#define BATCH_ROWS(c, R, r0)                                                     \
  {                                                                              \
    c[1] = r0;                                                                   \
    const int b = (r0) - row0;                                                   \
    float64 acc[R][NP];                                                          \
    ACCUMULATE_ROWS(c, R, acc)                                                   \
    for (int r = 0; r < (R); r++) {                                              \
      float64 v = acc[r][0];                                                     \
      for (int k = 1; k < NP; k++) v = COMBINE(v, acc[r][k]);                    \
      batch_acc[b + r] = LANE_SCALED(v);                                         \
    }                                                                            \
  }

// The R rows from c (c[1] = r0) in one loop, each combined over its lanes and stored. f32 makes the trees'
// patterns before the loop (rows.h, LANE_SWAPS: at 2-3 rows per core reduce_sum 339 to 333 cycles);
// bf16's loop, two pieces a vector in flight, has no vector registers to hold them (535 to 557).
// A mean's scale goes into the first level: the lane's value scaled beside its partner's shuffle, then one
// multiply-accumulate (12 cycles, where a multiply before the level took 14).
#if defined(DT_F32) && defined(OP_MEAN)
#define SWAPS_BEFORE_LOOP LANE_SWAPS(swaps)
#define DIRECT_TREE(v) LANE_TREE_FROM(COMBINE, v_f32_mac_b(LANE_PARTNER(v, swaps), scale, (v) * scale), swaps, 1)
#elif defined(DT_F32)
#define SWAPS_BEFORE_LOOP LANE_SWAPS(swaps)
#define DIRECT_TREE(v) LANE_TREE(COMBINE, v, swaps)
#else
#define SWAPS_BEFORE_LOOP
#define DIRECT_TREE(v) REDUCE_LANES(LANE_SCALED(v))
#endif
#define ROWS_DIRECT(c, R, r0)                                                    \
  {                                                                              \
    SWAPS_BEFORE_LOOP                                                            \
    float64 acc[R][NP];                                                          \
    ACCUMULATE_ROWS(c, R, acc)                                                   \
    c[0] = 0;                                                                    \
    for (int r = 0; r < (R); r++) {                                              \
      float64 v = acc[r][0];                                                     \
      for (int k = 1; k < NP; k++) v = COMBINE(v, acc[r][k]);                    \
      const float64 all = DIRECT_TREE(v);                                        \
      float64 o[NP];                                                             \
      for (int k = 0; k < NP; k++) o[k] = all;                                   \
      c[1] = (r0) + r;                                                           \
      ST_PIECES(c, out, o);                                                      \
    }                                                                            \
  }

// A mean's lane partials are scaled before the lanes are summed: the multiply is then off the path from
// the batch's last row to its stores (one more rounding per lane, well inside the sum's error bound).
#if defined(OP_MEAN)
#define LANE_SCALED(v) ((v) * scale)
#else
#define LANE_SCALED(v) (v)
#endif

// Rows in batches (rows.h, FOR_EACH_BATCH): each row's loop leaves its lane accumulator in local memory,
// and the batch's lane trees run side by side, instead of every row waiting for its own.
__local__ float64 batch_acc[ROW_BATCH];

void main(tensor x, tensor out, int dim, int n, float scale, int layout)
{
  int5 c = 0;
  FOR_EACH_BATCH(c, row0, rows, layout == 2,
    if (rows <= 3) {
      // A batch of 1-3 rows (a core's whole part at 2-3 rows per core) in one loop, each row's own lane
      // tree on its accumulator in registers: no round trip through local memory, and six dependent steps
      // instead of the batch tree's nine (its merges) and an unpacking shuffle.
      c[1] = row0;
      if (rows == 3) ROWS_DIRECT(c, 3, row0)
      else if (rows == 2) ROWS_DIRECT(c, 2, row0)
      else ROWS_DIRECT(c, 1, row0)
    } else {
      // Two rows per loop while two are left, then the last one alone. (A whole batch of 4 in one loop,
      // with 2 chains per row, measured 10% faster at 32 rows per core but 20% slower at 3.)
      // The loop runs over the rows themselves, so that the first row's coordinate is row0 as it is, not
      // row0 plus a batch index of 0 (an add that the loads wait for).
      const int rowEnd = row0 + rows;
      int r0 = row0;
#if defined(DT_F32)
      // f32 first four rows per loop while four are left: at 32 rows per core 3,379 to 3,139 cycles (bf16's
      // two pieces per vector, four rows at once: 5,432 to 5,963).
      _Pragma("unroll 1") for (; r0 + 3 < rowEnd; r0 += 4) BATCH_ROWS(c, 4, r0)
      // The 1-3 rows left in one loop (a loop of two and one of one paid two set-ups, fills and drains).
      if (r0 < rowEnd) {
        if (r0 + 2 < rowEnd) BATCH_ROWS(c, 3, r0)
        else if (r0 + 1 < rowEnd) BATCH_ROWS(c, 2, r0)
        else BATCH_ROWS(c, 1, r0)
      }
#else
      _Pragma("unroll 1") for (; r0 + 1 < rowEnd; r0 += 2) BATCH_ROWS(c, 2, r0)
      if (r0 < rowEnd) BATCH_ROWS(c, 1, r0)
#endif
      // The trees of the whole batch (those past `rows` combine stale values and are not stored).
      const float64 packed = FINISH_BATCH(batch_acc);
      // Predicated stores, not branches: the trees stay in one block.
      c[0] = 0;
      _Pragma("unroll") for (int b = 0; b < ROW_BATCH; b++) {
        float64 acc[NP];
        for (int k = 0; k < NP; k++) acc[k] = unpack_batch(packed, b);
        c[1] = row0 + b;
        ST_PIECES_IF(c, out, acc, b < rows);
      }
    })
}

#else  // AXIS_OUTER: the lanes are separate rows, stored as they are.

// COLS columns from c (vectors of dimension 0, LANES elements apart), each reduced along `dim` over its n
// rows in one loop (rows.h, COLUMN_ROWS) and stored: a core's columns of a row of the index space go four
// at a time (FOR_EACH_COLUMN_GROUP), so that the loop's set-up, fill and drain and the chains' combination
// are paid once per four columns (a loop per column paid them for each: half the cycles at a few columns
// per core). The loops stay rolled (reduce_sum f32 over 64 rows measured 7-20% slower with 2 to 16
// copies).
#define REDUCE_STEP(at, b, j)                                                                \
  {                                                                                          \
    float64 p_[NP];                                                                          \
    LD_PIECES(at, x, p_);                                                                    \
    _Pragma("unroll") for (int k = 0; k < NP; k++) ch_[b][j][k] = COMBINE(ch_[b][j][k], p_[k]); \
  }
#define REDUCE_COLUMNS(c, COLS, CH)                                                          \
  {                                                                                          \
    float64 ch_[COLS][CH][NP];                                                               \
    _Pragma("unroll") for (int b = 0; b < (COLS); b++)                                       \
      _Pragma("unroll") for (int j = 0; j < (CH); j++)                                       \
        _Pragma("unroll") for (int k = 0; k < NP; k++) ch_[b][j][k] = IDENTITY;              \
    COLUMN_ROWS(c, COLS, CH, REDUCE_STEP)                                                    \
    int5 at_ = c;                                                                            \
    _Pragma("unroll") for (int b = 0; b < (COLS); b++) {                                     \
      _Pragma("unroll") for (int s_ = 1; s_ < (CH); s_ *= 2)                                 \
        _Pragma("unroll") for (int j = 0; j + s_ < (CH); j += 2 * s_)                        \
          _Pragma("unroll") for (int k = 0; k < NP; k++) ch_[b][j][k] = COMBINE(ch_[b][j][k], ch_[b][j + s_][k]); \
      float64 acc_[NP];                                                                      \
      _Pragma("unroll") for (int k = 0; k < NP; k++) acc_[k] = SCALED(ch_[b][0][k]);        \
      ST_PIECES(at_, out, acc_);                                                             \
      at_[0] += LANES;                                                                       \
    }                                                                                        \
  }
#if defined(OP_MEAN)
#define SCALED(v) ((v) * scale)
#else
#define SCALED(v) (v)
#endif

void main(tensor x, tensor out, int dim, int n, float scale, int layout)
{
  int5 c = 0;
  const int5 unit = UNIT_INT5(dim);
  ROW_NOT_EMPTY(n);
  // bf16's third column alone (a triple's set-up cost more than its loop saves).
  FOR_EACH_COLUMN_GROUP(c, layout == 2, NP == 1, REDUCE_COLUMNS)
}

#endif

#endif
