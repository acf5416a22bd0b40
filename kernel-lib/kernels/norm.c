// Normalizations along dimension 0 (n elements per row; rows.h with -DAXIS_LANES), in f32:
//   -DOP_LAYERNORM      y = (x - mean) rstd gamma + beta, rstd = 1 / sqrt(var + eps); also writes mean and
//                       rstd (f32, the row shape). Two passes for the mean and the variance (no
//                       cancellation of E[x^2] - mean^2), one to write.
//   -DOP_LAYERNORM_BWD  from dy, x, gamma and the forward's mean and rstd: dx = rstd (g - mean(g) - xhat
//                       mean(g xhat)) with g = dy gamma and xhat = (x - mean) rstd; dgamma += sum over rows
//                       of dy xhat and dbeta += sum of dy (f32, added to what they hold: read-modify-write
//                       stores, row by row).
//   -DOP_RMSNORM        y = x rstd gamma, rstd = 1 / sqrt(mean(x^2) + eps); also writes rstd.
// Rows go in batches (FOR_EACH_BATCH): each pass over a batch's rows, then the lane trees, square roots
// and divisions of the whole batch at once. The forward passes take two rows per loop (BATCH_ROW_SUMS,
// FOR_ROW_WRITE_PAIR), each pair paying one loop set-up, fill and drain, and loading gamma and beta once.
// Eight accumulator chains in each loop: a multiply-accumulate takes six cycles, and four would hold the
// loop to one vector every one and a half cycles; so 4 per row where two rows share the loop, 8 in the
// backward's loop. The row loops unrolled no further (a group of 8 vectors; the writing passes as
// measured, rmsnorm f32 8, layernorm f32 4, bf16 2): more copies fill the index registers, and the
// compiler's retry with fewer registers gives up overlapping the loops' iterations. rmsnorm, with one
// multiply per row and vector to write (and f32's sums), takes four rows per loop (FOR_ROWS_WRITE,
// ROW_SUMS_FOUR), after the 1-3 rows beyond a multiple of four in one loop: at 32 rows per core 9,709 to
// 8,438 cycles in f32, 15,792 to 15,408 in bf16 (its sums stay two rows: four measured 17,602);
// layernorm's loops of four rows ran out of registers (1.4-1.8 times slower), and f32 takes only a batch of
// exactly three rows in one loop (LAYERNORM_THREE). rmsnorm keeps a batch of 1-3 rows in registers
// (RMS_DIRECT: each row's own lane tree, one square root for the packed rows).
#if defined(OP_LAYERNORM_BWD)
#define ROW_CHAINS 8
#else
#define ROW_CHAINS 4
#endif
#define ROW_GROUP_UNROLL 1
#define ROW_WRITE_UNROLL 8
#if defined(DT_BF16)
#define ROW_WRITE_PAIR_UNROLL 2
#define ROW_WRITE_ROWS_UNROLL 2  // rmsnorm's loops of four rows
#elif defined(OP_RMSNORM)
#define ROW_WRITE_ROWS_UNROLL 4
#define ROW_SUMS_FOUR 1
#else
#define ROW_WRITE_PAIR_UNROLL 4
#define ROW_WRITE_ROWS_UNROLL 4  // layernorm's loops of three rows
#define ROW_SUMS_THREE 1
#endif
// layernorm f32 takes a batch of exactly three rows in one loop a pass (ROW_SUMS_THREE, the writing
// pass's FOR_ROWS_WRITE): at 2-3 rows per core 1,850 to 1,664 cycles, where a loop of two and one of one
// paid two set-ups, fills and drains; the tests cost 1.8% at 32 rows per core (16,469 to 16,771). bf16's
// loops of three rows run out of vector registers.
#if defined(OP_LAYERNORM) && defined(DT_F32)
#define LAYERNORM_THREE 1
#else
#define LAYERNORM_THREE 0
#endif
#include "rows.h"

#if !defined(AXIS_LANES)
#error "the normalizations work along dimension 0 (-DAXIS_LANES)"
#endif

#if !defined(OP_LAYERNORM_BWD)
// Stores a row statistic (the same in every lane) as the f32 element of the row at c.
static inline void store_stat(int5 c, tensor t, float64 v) {
  c[0] = 0;
  v_f32_st_tnsr(c, t, v);
}
#endif

#if defined(OP_LAYERNORM) || defined(OP_RMSNORM)
// Per row of a batch (FOR_EACH_BATCH): the accumulators' sum, then the statistics computed from it.
__local__ float64 batch_sum[ROW_BATCH], batch_mean[ROW_BATCH], batch_rstd[ROW_BATCH];

// BATCH_ROW_SUMS steps: x, x^2, and (x - mean)^2 (the tail's lanes were zeroed: subtracting the mean
// would count them).
#define SUM_STEP(acc, x, k, b) ((acc) + (x))
#define SQUARE_STEP(acc, x, k, b) v_f32_mac_b(x, x, acc)
#define DEVIATION_STEP(acc, x, k, b) v_f32_mac_b(MASK(k, (x) - batch_mean[b], 0.0f), MASK(k, (x) - batch_mean[b], 0.0f), acc)
#endif

#if defined(OP_LAYERNORM)

void main(tensor x, tensor gamma, tensor beta, tensor y, tensor mean, tensor rstd, int n, float eps, float invN, int layout)
{
  int5 c = 0;
  FOR_EACH_BATCH(c, row0, rows, layout == 2,
    BATCH_ROW_SUMS(c, x, n, row0, rows, batch_sum, SUM_STEP)
    // Past `rows` the values are stale and unused.
    const float64 m = BATCH_SUM(batch_sum) * invN;
    _Pragma("unroll") for (int b = 0; b < ROW_BATCH; b++) batch_mean[b] = unpack_batch(m, b);
    BATCH_ROW_SUMS(c, x, n, row0, rows, batch_sum, DEVIATION_STEP)
    const float64 r = v_rsqrt_f32(v_f32_mac_b(BATCH_SUM(batch_sum), invN, eps));
    _Pragma("unroll") for (int b = 0; b < ROW_BATCH; b++) batch_rstd[b] = unpack_batch(r, b);
    // Two rows per loop while two are left (gamma and beta loaded once for both), then one alone; in f32 a
    // batch of three in one loop.
    int b = 0;
    if (LAYERNORM_THREE && rows == 3) {
      c[1] = row0;
      float64 mu3[3], r3[3];
      for (int q = 0; q < 3; q++) mu3[q] = batch_mean[q], r3[q] = batch_rstd[q];
      FOR_ROWS_WRITE(c, x, n, 3, P,
        float64 g[NP], bt[NP];
        LD_ALONG(gamma, g);
        LD_ALONG(beta, bt);
        for (int q = 0; q < 3; q++) {
          for (int k = 0; k < NP; k++) P[q][k] = v_f32_mac_b((P[q][k] - mu3[q]) * r3[q], g[k], bt[k]);
          ST_PIECES(c + UNIT_INT5(1) * q, y, P[q]);
        })
      for (int q = 0; q < 3; q++) {
        store_stat(c, mean, mu3[q]);
        store_stat(c, rstd, r3[q]);
        c[1] += 1;
      }
      b = 3;
    }
    _Pragma("unroll 1") for (; b + 1 < rows; b += 2) {
      c[1] = row0 + b;
      const float64 mua = batch_mean[b], ra = batch_rstd[b], mub = batch_mean[b + 1], rb = batch_rstd[b + 1];
      FOR_ROW_WRITE_PAIR(c, c2, x, n, p, q,
        float64 g[NP], bt[NP];
        LD_ALONG(gamma, g);
        LD_ALONG(beta, bt);
        for (int k = 0; k < NP; k++) {
          p[k] = v_f32_mac_b((p[k] - mua) * ra, g[k], bt[k]);
          q[k] = v_f32_mac_b((q[k] - mub) * rb, g[k], bt[k]);
        }
        ST_PIECES(c, y, p);
        ST_PIECES(c2, y, q);)
      store_stat(c, mean, mua);
      store_stat(c, rstd, ra);
      c[1] += 1;
      store_stat(c, mean, mub);
      store_stat(c, rstd, rb);
    }
    if (b < rows) {
      c[1] = row0 + b;
      const float64 mu = batch_mean[b], r = batch_rstd[b];
      FOR_ROW_WRITE(c, x, n, p,
        float64 g[NP], bt[NP];
        LD_ALONG(gamma, g);
        LD_ALONG(beta, bt);
        for (int k = 0; k < NP; k++) p[k] = v_f32_mac_b((p[k] - mu) * r, g[k], bt[k]);
        ST_PIECES(c, y, p);)
      store_stat(c, mean, mu);
      store_stat(c, rstd, r);
    }
  )
}

#elif defined(OP_LAYERNORM_BWD)

// Adds pieces like p to an f32 one-dimensional tensor at the row's position `at`, in element order.
#if NP == 1
#define ADD_ALONG(t, p) v_f32_st_tnsr_rmw(((int5){at, 0, 0, 0, 0}), t, (p)[0], RMW_DT_FP32 | RMW_OP_ADD | RMW_SET)
#else
#define ADD_ALONG(t, p)                                                                          \
  do {                                                                                           \
    const uint64 lane_ = read_lane_id_4b_b();                                                    \
    for (int h_ = 0; h_ < 2; h_++) {                                                             \
      const uchar256 from_ = as_uchar256((lane_ >> 1) + (uint64)(32 * h_));                       \
      const float64 even_ = as_float64(__lane_shuffle_u32(as_uint64((p)[0]), from_));             \
      const float64 odd_ = as_float64(__lane_shuffle_u32(as_uint64((p)[1]), from_));              \
      v_f32_st_tnsr_rmw(((int5){at + 64 * h_, 0, 0, 0, 0}), t, v_f32_sel_eq_u32_b(lane_ & 1, 0, even_, odd_), \
                        RMW_DT_FP32 | RMW_OP_ADD | RMW_SET);                                               \
    }                                                                                            \
  } while (0)
#endif

void main(tensor dy, tensor x, tensor gamma, tensor mean, tensor rstd, tensor dx, tensor dgamma, tensor dbeta,
          int n, float invN, int layout)
{
  int5 c = 0;
  FOR_EACH_POINT(c, layout == 2,
    const float mu = s_f32_ld_g(gen_addr(c, mean));
    const float r = s_f32_ld_g(gen_addr(c, rstd));
    // a = sum g, b = sum g xhat (tail lanes: dy masked to 0).
    float64 a[ROW_CHAINS][1], b[ROW_CHAINS][1];
    for (int j = 0; j < ROW_CHAINS; j++) a[j][0] = b[j][0] = 0.0f;
    FOR_ROW2(c, dy, d, x, p, n, 0.0f,
      float64 w[NP];
      LD_ALONG(gamma, w);
      for (int k = 0; k < NP; k++) {
        const float64 g = d[k] * MASK(k, w[k], 0.0f);  // gamma's padding may be anything
        a[j][0] += g;
        b[j][0] = v_f32_mac_b(g, (p[k] - mu) * r, b[j][0]);
      })
    const float64 ma = ROW_SUM(COMBINE_CHAINS(ADD_F32, a, 0)) * invN, mb = ROW_SUM(COMBINE_CHAINS(ADD_F32, b, 0)) * invN;
    FOR_ROW2(c, dy, d, x, p, n, 0.0f,
      float64 w[NP], dg[NP];
      LD_ALONG(gamma, w);
      for (int k = 0; k < NP; k++) {
        const float64 xhat = (p[k] - mu) * r;
        dg[k] = d[k] * xhat;
        p[k] = (d[k] * w[k] - ma - xhat * mb) * r;
      }
      ST_PIECES(c, dx, p);
      ADD_ALONG(dgamma, dg);
      ADD_ALONG(dbeta, d);)
  )
}

#elif defined(OP_RMSNORM)

// The rstd of the R rows of the batch from b on (from[b + r]), then their y in one loop. (The statistics
// first: their stores wait for the square root, not for the loop's drain.)
#define RMS_WRITE_ROWS(c, R, from)                                               \
  {                                                                              \
    float64 rq[R];                                                               \
    for (int r = 0; r < (R); r++) {                                              \
      rq[r] = (from)[b + r];                                                     \
      c[1] = row0 + b + r;                                                       \
      store_stat(c, rstd, rq[r]);                                                \
    }                                                                            \
    c[1] = row0 + b;                                                             \
    FOR_ROWS_WRITE(c, x, n, R, P,                                                \
      float64 g[NP];                                                             \
      LD_ALONG(gamma, g);                                                        \
      for (int r = 0; r < (R); r++) {                                            \
        for (int k = 0; k < NP; k++) P[r][k] = P[r][k] * rq[r] * g[k];           \
        ST_PIECES(c + UNIT_INT5(1) * r, y, P[r]);                                \
      })                                                                         \
  }

// A batch of R rows (1-3) in registers: their sums in one loop, each row's own lane tree, one square root
// for the R rows, then y in one loop.
#define RMS_DIRECT(c, R)                                                         \
  {                                                                              \
    float64 sums[R], r_[R];                                                      \
    ROW_SUMS_(c, x, n, row0, 0, R, sums, SQUARE_STEP)                            \
    for (int r = 0; r < (R); r++) sums[r] = v_f32_reduce_add(sums[r]);           \
    const float64 packed = v_rsqrt_f32(v_f32_mac_b(pack_rows(sums, R), invN, eps)); \
    for (int r = 0; r < (R); r++) r_[r] = unpack_row(packed, r);                 \
    RMS_WRITE_ROWS(c, R, r_)                                                     \
  }

void main(tensor x, tensor gamma, tensor y, tensor rstd, int n, float eps, float invN, int layout)
{
  int5 c = 0;
  FOR_EACH_BATCH(c, row0, rows, layout == 2,
    int b = 0;
    if (rows <= 3) {
      // A batch of 1-3 rows (a core's whole part at 2-3 rows per core): no round trip through local
      // memory, and each row's lane tree six dependent steps where the batch tree takes nine and an
      // unpacking shuffle.
      if (rows == 3) RMS_DIRECT(c, 3)
      else if (rows == 2) RMS_DIRECT(c, 2)
      else RMS_DIRECT(c, 1)
    } else {
      __builtin_assume(rows > 3);
      BATCH_ROW_SUMS(c, x, n, row0, rows, batch_sum, SQUARE_STEP)
      // Past `rows` the values are stale and unused.
      const float64 r = v_rsqrt_f32(v_f32_mac_b(BATCH_SUM(batch_sum), invN, eps));
      _Pragma("unroll") for (int b = 0; b < ROW_BATCH; b++) batch_rstd[b] = unpack_batch(r, b);
      // The 1-3 rows beyond a multiple of four in one loop, then four rows per loop (gamma loaded once
      // for the rows of a loop; a loop of two and one of one paid two set-ups, fills and drains).
      const int rest = rows & 3;
      if (rest == 3) RMS_WRITE_ROWS(c, 3, batch_rstd)
      else if (rest == 2) RMS_WRITE_ROWS(c, 2, batch_rstd)
      else if (rest == 1) RMS_WRITE_ROWS(c, 1, batch_rstd)
      b = rest;
      _Pragma("unroll 1") do RMS_WRITE_ROWS(c, 4, batch_rstd) while ((b += 4) < rows);
    })
}

#else
#error "compile with -DOP_LAYERNORM, -DOP_LAYERNORM_BWD or -DOP_RMSNORM"
#endif
