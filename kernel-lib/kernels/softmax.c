// Along dimension `dim` (n elements; rows.h), in f32:
//   -DOP_SOFTMAX      out = exp(x - m) / s, m the row's maximum and s = sum exp(x - m)
//   -DOP_LOG_SOFTMAX  out = (x - m) - log(s)
//   -DOP_SOFTMAX_BWD  dx = y (dy - sum(dy y)), from the output gradient dy and the forward output y
// Three passes over the row (maximum, sum, write) for the forward, two for the backward. Along dimension 0
// the rows go in batches (rows.h, FOR_EACH_BATCH): each pass over the batch's rows (the backward's two
// rows per loop, FOR_ROWS2, so that a pair pays one loop set-up, fill and drain), then the lane trees
// (and the reciprocal or logarithm) of the whole batch at once, the rows' statistics in local memory
// between the passes; along dimensions 1-4 the lanes are independent rows and the statistics stay in
// registers.

// Two accumulator chains for the bf16 forward (two f32 pieces per vector, each through an exponential):
// with four, the temporaries of the overlapping iterations need more vector registers than the core has,
// and the compiler's retry gives up overlapping them (1.6-1.9 times slower). The bf16 backward, two rows
// per loop along dimension 0, also measured fastest with two (20,214 cycles at 32 rows per core against
// 21,654 with four).
#if defined(DT_BF16)
#define ROW_CHAINS 2
#endif
// The f32 backward's loops over groups of four vectors are not unrolled further: unrolled four times (16
// vectors an iteration) its sums at 2-3 rows per core took 1,199 cycles, 1,135 rolled (bf16's measured
// faster as the compiler unrolls them).
#if defined(OP_SOFTMAX_BWD) && defined(DT_F32)
#define ROW_GROUP_UNROLL 1
#endif
#include "rows.h"

#if !defined(OP_SOFTMAX) && !defined(OP_LOG_SOFTMAX) && !defined(OP_SOFTMAX_BWD)
#error "compile with -DOP_SOFTMAX, -DOP_LOG_SOFTMAX or -DOP_SOFTMAX_BWD"
#endif

#if defined(AXIS_LANES)

// Per row of a batch: the row's maximum (backward: sum(dy y)), then its sum's reciprocal or logarithm.
__local__ float64 batch_a[ROW_BATCH], batch_b[ROW_BATCH];

#if defined(OP_SOFTMAX) || defined(OP_LOG_SOFTMAX)

void main(tensor x, tensor out, int dim, int n, int layout)
{
  int5 c = 0;
  FOR_EACH_BATCH(c, row0, rows, layout == 2,
    _Pragma("unroll 1") for (int b = 0; b < rows; b++) {
      c[1] = row0 + b;
      float64 m[NP], mc[ROW_CHAINS][NP];
      for (int j = 0; j < ROW_CHAINS; j++)
        for (int k = 0; k < NP; k++) mc[j][k] = -__builtin_inff();
      FOR_ROW(c, x, n, p, -__builtin_inff(),
        for (int k = 0; k < NP; k++) mc[j][k] = v_f32_max_b(mc[j][k], p[k]);)
      for (int k = 0; k < NP; k++) m[k] = COMBINE_CHAINS(v_f32_max_b, mc, k);
      batch_a[b] = NP == 1 ? m[0] : v_f32_max_b(m[0], m[NP - 1]);
    }
    // Past `rows` the values are stale and unused.
    {
      const float64 m = BATCH_MAX(batch_a);
      _Pragma("unroll") for (int b = 0; b < ROW_BATCH; b++) batch_a[b] = unpack_batch(m, b);
    }
    _Pragma("unroll 1") for (int b = 0; b < rows; b++) {
      c[1] = row0 + b;
      const float64 m = batch_a[b];
      float64 s[NP], sc[ROW_CHAINS][NP];
      for (int j = 0; j < ROW_CHAINS; j++)
        for (int k = 0; k < NP; k++) sc[j][k] = 0.0f;
      FOR_ROW(c, x, n, p, -__builtin_inff(),
        for (int k = 0; k < NP; k++) sc[j][k] += v_exp_f32(p[k] - m);)
      for (int k = 0; k < NP; k++) s[k] = COMBINE_CHAINS(ADD_F32, sc, k);
      batch_b[b] = NP == 1 ? s[0] : s[0] + s[NP - 1];
    }
#if defined(OP_SOFTMAX)
    const float64 f = v_reciprocal_f32(BATCH_SUM(batch_b));
#else
    const float64 f = v_log_f32(BATCH_SUM(batch_b));
#endif
    _Pragma("unroll") for (int b = 0; b < ROW_BATCH; b++) batch_b[b] = unpack_batch(f, b);
    _Pragma("unroll 1") for (int b = 0; b < rows; b++) {
      c[1] = row0 + b;
      const float64 m = batch_a[b], r = batch_b[b];
      FOR_ROW_WRITE(c, x, n, p,
#if defined(OP_SOFTMAX)
        for (int k = 0; k < NP; k++) p[k] = v_exp_f32(p[k] - m) * r;
#else
        for (int k = 0; k < NP; k++) p[k] = (p[k] - m) - r;
#endif
        ST_PIECES(c, out, p);)
    }
  )
}

#else  // OP_SOFTMAX_BWD

// R rows of the batch from b on, in one loop each pass: sum(dy y) of each into to[b + r], or (write) dx of
// each from from[b + r].
#define BWD_SUMS(c, R, to)                                                          \
  {                                                                                 \
    c[1] = row0 + b;                                                                \
    float64 sc[R][ROW_CHAINS][NP];                                                  \
    for (int r = 0; r < (R); r++)                                                   \
      for (int j = 0; j < ROW_CHAINS; j++)                                          \
        for (int k = 0; k < NP; k++) sc[r][j][k] = 0.0f;                            \
    FOR_ROWS2(c, dy, G, y, P, R, n, 0.0f,                                           \
      for (int r = 0; r < (R); r++)                                                 \
        for (int k = 0; k < NP; k++) sc[r][j][k] = v_f32_mac_b(G[r][k], P[r][k], sc[r][j][k]);) \
    for (int r = 0; r < (R); r++) {                                                 \
      float64 s[NP];                                                                \
      for (int k = 0; k < NP; k++) s[k] = COMBINE_CHAINS(ADD_F32, sc[r], k);        \
      (to)[b + r] = NP == 1 ? s[0] : s[0] + s[NP - 1];                              \
    }                                                                               \
  }
#define BWD_WRITE(c, R, from)                                                       \
  {                                                                                 \
    c[1] = row0 + b;                                                                \
    float64 s[R];                                                                   \
    for (int r = 0; r < (R); r++) s[r] = (from)[b + r];                             \
    FOR_ROWS2(c, dy, G, y, P, R, n, 0.0f,                                           \
      for (int r = 0; r < (R); r++) {                                               \
        for (int k = 0; k < NP; k++) P[r][k] = P[r][k] * (G[r][k] - s[r]);          \
        ST_PIECES(c + UNIT_INT5(1) * r, dx, P[r]);                                  \
      })                                                                            \
  }

// Each pass over the batch's rows: f32 two rows per loop while more than three are left, then the 1-3
// left in one loop (at 2-3 rows per core 1,128 cycles to 1,063); bf16 two rows per loop, then the last
// one alone (a loop of three rows, four bf16 vectors a row in flight, ran out of vector registers).
#if defined(DT_F32)
#define BWD_PASS(PASS)                                                              \
  b = 0;                                                                            \
  _Pragma("unroll 1") for (; b + 3 < rows; b += 2) PASS(c, 2, batch_a)              \
  if (b < rows) {                                                                   \
    if (b + 2 < rows) PASS(c, 3, batch_a)                                           \
    else if (b + 1 < rows) PASS(c, 2, batch_a)                                      \
    else PASS(c, 1, batch_a)                                                        \
  }
#else
#define BWD_PASS(PASS)                                                              \
  b = 0;                                                                            \
  _Pragma("unroll 1") for (; b + 1 < rows; b += 2) PASS(c, 2, batch_a)              \
  if (b < rows) PASS(c, 1, batch_a)
#endif

// A batch of R rows (f32 1-3) in registers: each row's own lane tree between the passes, no round trip
// through local memory and no batch tree (its merges and unpacking shuffle). At 2-3 rows per core f32
// 1,002 to 917 cycles; bf16's three rows in one loop run out of vector registers, and with two its
// three-row cores took 1,934 to 1,981 (the test before the batch path): bf16 keeps the batch path.
#define BWD_DIRECT(c, R)                                                            \
  {                                                                                 \
    float64 sums[R];                                                                \
    BWD_SUMS(c, R, sums)                                                            \
    for (int r = 0; r < (R); r++) sums[r] = v_f32_reduce_add(sums[r]);              \
    BWD_WRITE(c, R, sums)                                                           \
  }
#if defined(DT_F32)
#define DIRECT_ROWS 3
#else
#define DIRECT_ROWS 0
#endif

void main(tensor dy, tensor y, tensor dx, int dim, int n, int layout)
{
  int5 c = 0;
  FOR_EACH_BATCH(c, row0, rows, layout == 2,
    int b = 0;
    if (DIRECT_ROWS && rows <= DIRECT_ROWS) {
      if (rows == 3) BWD_DIRECT(c, 3)
      else if (rows == 2) BWD_DIRECT(c, 2)
      else BWD_DIRECT(c, 1)
    } else {
      BWD_PASS(BWD_SUMS)
      // Past `rows` the values are stale and unused.
      {
        const float64 s = BATCH_SUM(batch_a);
        _Pragma("unroll") for (int k = 0; k < ROW_BATCH; k++) batch_a[k] = unpack_batch(s, k);
      }
      BWD_PASS(BWD_WRITE)
    }
  )
}

#endif

#else  // AXIS_OUTER

#if defined(OP_SOFTMAX) || defined(OP_LOG_SOFTMAX)

void main(tensor x, tensor out, int dim, int n, int layout)
{
  int5 c = 0;
  const int5 unit = UNIT_INT5(dim);
  FOR_EACH_POINT(c, layout == 2,
    float64 m[NP], s[NP], mc[ROW_CHAINS][NP], sc[ROW_CHAINS][NP];
    for (int j = 0; j < ROW_CHAINS; j++)
      for (int k = 0; k < NP; k++) mc[j][k] = -__builtin_inff(), sc[j][k] = 0.0f;
    FOR_ROW(c, x, n, p, -__builtin_inff(),
      for (int k = 0; k < NP; k++) mc[j][k] = v_f32_max_b(mc[j][k], p[k]);)
    for (int k = 0; k < NP; k++) m[k] = COMBINE_CHAINS(v_f32_max_b, mc, k);
    FOR_ROW(c, x, n, p, -__builtin_inff(),
      for (int k = 0; k < NP; k++) sc[j][k] += v_exp_f32(p[k] - m[k]);)
    for (int k = 0; k < NP; k++) s[k] = COMBINE_CHAINS(ADD_F32, sc, k);
#if defined(OP_SOFTMAX)
    float64 r[NP];
    for (int k = 0; k < NP; k++) r[k] = v_reciprocal_f32(s[k]);
    FOR_ROW_WRITE(c, x, n, p,
      for (int k = 0; k < NP; k++) p[k] = v_exp_f32(p[k] - m[k]) * r[k];
      ST_PIECES(c, out, p);)
#else
    float64 l[NP];
    for (int k = 0; k < NP; k++) l[k] = v_log_f32(s[k]);
    FOR_ROW_WRITE(c, x, n, p,
      for (int k = 0; k < NP; k++) p[k] = (p[k] - m[k]) - l[k];
      ST_PIECES(c, out, p);)
#endif
  )
}

#else  // OP_SOFTMAX_BWD

// COLS columns from c (vectors of dimension 0, LANES elements apart), their lanes rows along `dim` (n long):
// sum(dy y) of each in one loop (rows.h, COLUMN_ROWS), then dx in one loop. A core's columns of an
// index-space row go four at a time (FOR_EACH_COLUMN_GROUP), so that both loops' set-up, fill and drain are
// paid once per four columns (a loop pair per column paid them for each: at 2-3 columns per core f32 1,083
// cycles to 912, bf16 2,266 to 2,196).
#define BWD_SUM_STEP(at, b, j)                                                               \
  {                                                                                          \
    float64 g_[NP], p_[NP];                                                                  \
    LD_PIECES(at, dy, g_);                                                                   \
    LD_PIECES(at, y, p_);                                                                    \
    _Pragma("unroll") for (int k = 0; k < NP; k++) s_[b][j][k] = v_f32_mac_b(g_[k], p_[k], s_[b][j][k]); \
  }
#define BWD_COLUMNS(c, COLS, CH)                                                             \
  {                                                                                          \
    float64 s_[COLS][CH][NP];                                                                \
    _Pragma("unroll") for (int b = 0; b < (COLS); b++)                                       \
      _Pragma("unroll") for (int j = 0; j < (CH); j++)                                       \
        _Pragma("unroll") for (int k = 0; k < NP; k++) s_[b][j][k] = 0.0f;                   \
    COLUMN_ROWS(c, COLS, CH, BWD_SUM_STEP)                                                   \
    float64 sum_[COLS][NP];                                                                  \
    _Pragma("unroll") for (int b = 0; b < (COLS); b++)                                       \
      _Pragma("unroll") for (int k = 0; k < NP; k++) sum_[b][k] = COMBINE_CH(ADD_F32, s_[b], CH, k); \
    /* dx WR rows a step, each on a coordinate of its own (one stepped row by row made a chain  \
       of index-register adds that held the loop to 17 cycles for 12 loads; two rows a step    \
       needed copies of the stores' coordinates, 13 cycles for 12 loads), then the rows left. */ \
    const int wsteps_ = n / WR * WR;                                                         \
    int5 w_[WR];                                                                             \
    _Pragma("unroll") for (int j = 0; j < WR; j++) w_[j] = c + unit * j;                     \
    _Pragma("unroll 1") for (int r_ = 0; r_ < wsteps_; r_ += WR) {                           \
      _Pragma("unroll") for (int j = 0; j < WR; j++) {                                       \
        BWD_WRITE_ROW(w_[j], COLS)                                                           \
        w_[j] += unit * WR;                                                                  \
      }                                                                                      \
    }                                                                                        \
    int5 wl_ = w_[0];                                                                        \
    _Pragma("unroll 1") for (int r_ = wsteps_; r_ < n; r_++) {                               \
      BWD_WRITE_ROW(wl_, COLS)                                                               \
      wl_ += unit;                                                                           \
    }                                                                                        \
  }
#define WR 4
// dx of a row of COLS columns from `row` (sum_ their sums).
#define BWD_WRITE_ROW(row, COLS)                                                             \
  {                                                                                          \
    int5 at_ = (row);                                                                        \
    _Pragma("unroll") for (int b = 0; b < (COLS); b++) {                                     \
      float64 g_[NP], p_[NP];                                                                \
      LD_PIECES(at_, dy, g_);                                                                \
      LD_PIECES(at_, y, p_);                                                                 \
      _Pragma("unroll") for (int k = 0; k < NP; k++) p_[k] = p_[k] * (g_[k] - sum_[b][k]);   \
      ST_PIECES(at_, dx, p_);                                                                \
      at_[0] += LANES;                                                                       \
    }                                                                                        \
  }
void main(tensor dy, tensor y, tensor dx, int dim, int n, int layout)
{
  int5 c = 0;
  const int5 unit = UNIT_INT5(dim);
  ROW_NOT_EMPTY(n);
  FOR_EACH_COLUMN_GROUP(c, layout == 2, 1, BWD_COLUMNS)
}

#endif

#endif
