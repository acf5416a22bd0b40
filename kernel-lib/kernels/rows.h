// Kernels that reduce along one dimension (reduce.c, softmax.c, norm.c, cross_entropy.c), in f32 whatever
// the data type. Compiled with one of:
//   -DAXIS_LANES  the dimension is 0: a row's elements are the lanes of consecutive vectors; one
//                 index-space point per row (dimensions 1-4), and lanes are combined at the end;
//   -DAXIS_OUTER  the dimension `dim` is 1-4: one index-space point per vector of dimension 0 (and per
//                 element of the others but `dim`), its lanes independent rows along `dim`.
// A vector of the data type is NP f32 pieces (FROM_VECTOR/TO_VECTOR): f32 one; bf16 two, piece k lane i
// holding element 2i + k of the vector (the order of v_convert_bf16_to_f32_all_b).
#pragma once

#include "common.h"

#if defined(DT_F32)
#define NP 1
#define LD_PIECES(c, t, p) ((p)[0] = v_f32_ld_tnsr_b(c, t))
#define ST_PIECES(c, t, p) v_f32_st_tnsr(c, t, (p)[0])
#define ST_PIECES_IF(c, t, p, pred) v_f32_st_tnsr(c, t, (p)[0], 0, pred, 0)
#elif defined(DT_BF16)
#define NP 2
#define LD_PIECES(c, t, p)                                                  \
  do {                                                                      \
    const float64_pair_t w_ = v_convert_bf16_to_f32_all_b(v_bf16_ld_tnsr_b(c, t)); \
    (p)[0] = w_.v1;                                                         \
    (p)[1] = w_.v2;                                                         \
  } while (0)
#define ST_PIECES(c, t, p)                                                  \
  do {                                                                      \
    float64_pair_t w_;                                                      \
    w_.v1 = (p)[0];                                                         \
    w_.v2 = (p)[1];                                                         \
    v_bf16_st_tnsr(c, t, v_convert_f32_to_bf16_all_b(w_));                  \
  } while (0)
#define ST_PIECES_IF(c, t, p, pred)                                         \
  do {                                                                      \
    float64_pair_t w_;                                                      \
    w_.v1 = (p)[0];                                                         \
    w_.v2 = (p)[1];                                                         \
    v_bf16_st_tnsr(c, t, v_convert_f32_to_bf16_all_b(w_), 0, pred, 0);      \
  } while (0)
#else
#error "compile with -DDT_F32 or -DDT_BF16"
#endif

// Stores pieces like p into an f32 tensor (mean, rstd, loss) in element order: f32 one vector; bf16 the
// two vectors of 64 elements at c and c + 64 along dimension 0, element j of vector h from piece j % 2,
// lane 32h + j / 2. c is unchanged.
#if NP == 1
#define ST_PIECES_F32(c, t, p) v_f32_st_tnsr(c, t, (p)[0])
#else
#define ST_PIECES_F32(c, t, p)                                                  \
  do {                                                                          \
    const uint64 lane_ = read_lane_id_4b_b();                                   \
    for (int h_ = 0; h_ < 2; h_++) {                                            \
      const uchar256 from_ = as_uchar256((lane_ >> 1) + (uint64)(32 * h_));      \
      const float64 even_ = as_float64(__lane_shuffle_u32(as_uint64((p)[0]), from_)); \
      const float64 odd_ = as_float64(__lane_shuffle_u32(as_uint64((p)[1]), from_)); \
      v_f32_st_tnsr(c, t, v_f32_sel_eq_u32_b(lane_ & 1, 0, even_, odd_));       \
      c[0] += 64;                                                               \
    }                                                                           \
    c[0] -= 128;                                                                \
  } while (0)
#endif

// The element of its vector that lane i of piece k holds.
static inline int64 piece_element(int k) {
  const int64 lane = as_int64(read_lane_id_4b_b());
  return NP == 1 ? lane : lane * 2 + k;
}

// Independent accumulator chains a row loop keeps (FOR_ROW's j; 4 unless the kernel sets ROW_CHAINS before
// including this file), and f over them: chains[0..ROW_CHAINS - 1][k] combined in a tree.
#if !defined(ROW_CHAINS)
#define ROW_CHAINS 4
#endif
#if ROW_CHAINS == 1
#define COMBINE_CHAINS(f, chains, k) ((chains)[0][k])
#elif ROW_CHAINS == 2
#define COMBINE_CHAINS(f, chains, k) f((chains)[0][k], (chains)[1][k])
#elif ROW_CHAINS == 4
#define COMBINE_CHAINS(f, chains, k) f(f((chains)[0][k], (chains)[1][k]), f((chains)[2][k], (chains)[3][k]))
#elif ROW_CHAINS == 8
#define COMBINE_CHAINS(f, chains, k)                                                                  \
  f(f(f((chains)[0][k], (chains)[1][k]), f((chains)[2][k], (chains)[3][k])),                         \
    f(f((chains)[4][k], (chains)[5][k]), f((chains)[6][k], (chains)[7][k])))
#else
#error "ROW_CHAINS is 1, 2, 4 or 8"
#endif
#define ADD_F32(a, b) ((a) + (b))

// The chains of a loop over R rows at once: ROW_CHAINS per row, and in f32 twice as many for a row alone
// (up to 8), whose loop would otherwise wait for its accumulators' latency (a multiply-accumulate's six
// cycles held rmsnorm's single-row loop to four vectors every eight cycles). bf16's two pieces a vector
// already give a row alone twice the chains (measured slower with more).
#define ROW_CHAINS_FOR(R) ((R) == 1 && NP == 1 && ROW_CHAINS < 8 ? 2 * ROW_CHAINS : ROW_CHAINS)
// f over chains[0..CH - 1][k] in a tree (CH a power of two).
#define COMBINE_CH(f, chains, CH, k)                                                          \
  ({                                                                                          \
    float64 t_[CH];                                                                           \
    _Pragma("unroll") for (int i_ = 0; i_ < (CH); i_++) t_[i_] = (chains)[i_][k];               \
    _Pragma("unroll") for (int w_ = (CH) / 2; w_ > 0; w_ /= 2)                                  \
      _Pragma("unroll") for (int i_ = 0; i_ < w_; i_++) t_[i_] = f(t_[i_], t_[i_ + w_]);        \
    t_[0];                                                                                    \
  })

// (d == 0, d == 1, ..., d == 4): the step of a coordinate along dimension d.
#define UNIT_INT5(d) ((int5){(d) == 0, (d) == 1, (d) == 2, (d) == 3, (d) == 4})

// A kernel may set how many times the compiler unrolls the row loops (whose coordinates, one index
// register per vector, and accumulators otherwise fill the register files): ROW_GROUP_UNROLL for the
// loops over groups of ROW_CHAINS vectors, ROW_WRITE_UNROLL for FOR_ROW_WRITE.
#if defined(ROW_GROUP_UNROLL)
#define ROW_GROUP_UNROLL_ UNROLL_PRAGMA(ROW_GROUP_UNROLL)
#else
#define ROW_GROUP_UNROLL_
#endif
#if defined(ROW_WRITE_UNROLL)
#define ROW_WRITE_UNROLL_ UNROLL_PRAGMA(ROW_WRITE_UNROLL)
#else
#define ROW_WRITE_UNROLL_
#endif
#if defined(ROW_WRITE_PAIR_UNROLL)
#define ROW_WRITE_PAIR_UNROLL_ UNROLL_PRAGMA(ROW_WRITE_PAIR_UNROLL)
#else
#define ROW_WRITE_PAIR_UNROLL_
#endif
#if defined(ROW_WRITE_ROWS_UNROLL)
#define ROW_WRITE_ROWS_UNROLL_ UNROLL_PRAGMA(ROW_WRITE_ROWS_UNROLL)
#else
#define ROW_WRITE_ROWS_UNROLL_
#endif

// A row has at least one element where a kernel runs (the glue rejects or launches no core for an empty
// tensor): said to LLVM, whose loops over a row then need no test before their first iteration.
#define ROW_NOT_EMPTY(n) __builtin_assume((n) >= 1)

#if defined(AXIS_LANES)

// The rows of this core's part in batches of up to ROW_BATCH along dimension 1 (dimensions 2-4 one point
// at a time): the body runs once per batch with c[2..4] set, `row0` the batch's first row and `rows` the
// number it has (1 to ROW_BATCH). A row's lanes combine in a tree of six dependent steps, often followed
// by a square root or a division, 50-130 cycles in which the core waits; a kernel that runs its
// passes over each row of the batch and those chains for the whole batch at once (an unrolled loop over
// ROW_BATCH, values kept in local memory between the passes) lets them overlap. 8 rows (one tree for the
// batch, BATCH_SUM): 3-8% faster than 4 at 32 rows per core (a square root, a reciprocal or a logarithm and
// the set-up between passes paid half as often), 0-5% slower at 2-3 rows per core (the trees' stale rows).
// A power of two, at most 64 (a lane group per row).
#define ROW_BATCH 8
#define FOR_EACH_BATCH(c, row0, rows, space2d, ...)                                            \
  {                                                                                            \
    const int5 start_ = get_index_space_offset();                                              \
    const int5 size_ = get_index_space_size();                                                 \
    const int5 end_ = start_ + size_;                                                          \
    c = 0;                                                                                     \
    FOR_DIMS_2_TO_4(c, start_, end_, space2d,                                                  \
      int row0 = start_[1];                                                                    \
      /* The rows left counted down from the core's size: the first batch's count does not wait \
         for the part's end (its start plus its size). */                                      \
      int left_ = size_[1];                                                                    \
      do {                                                                                     \
        const int rows = left_ < ROW_BATCH ? left_ : ROW_BATCH;                                \
        __VA_ARGS__                                                                            \
        row0 += ROW_BATCH;                                                                     \
        left_ -= ROW_BATCH;                                                                    \
      } while (left_ > 0);)                                                                    \
  }

// The lane trees of a whole batch in one: BATCH_SUM(from) (and BATCH_MAX, BATCH_MIN) combines the lanes of
// each row's accumulator from[b] and returns one vector in which every lane of row b's group holds the
// row's value (unpack_batch(packed, b) is that value in every lane). Each of the first log2(ROW_BATCH)
// levels merges two vectors into one: the lanes whose bit 5 - l is clear combine the first row's halves,
// the others the second's (each row's lane swap and combine, then one predicated move into the first's
// result: three dependent steps, where moving the halves before one swap took four, the first a copy),
// so the later levels run once for the whole batch: 41 instructions for 8 rows, where a tree per row
// takes 96. Every
// row's value is loaded before any tree runs: in program order after a tree, a load takes a register that
// tree freed, and the scheduler (after allocation) must keep it after the tree. A square root or a division
// of the statistics then runs once for the whole batch, on the packed vector.
#define BATCH_TREE_FUNCTION(name, COMBINE)                                                              \
  static inline float64 name(const __local__ float64 *from) {                                          \
    const uint64 lane = read_lane_id_4b_b();                                                             \
    float64 v[ROW_BATCH];                                                                                \
    _Pragma("unroll") for (int b = 0; b < ROW_BATCH; b++) v[b] = from[b];                                \
    int count = ROW_BATCH;                                                                               \
    _Pragma("unroll") for (int s = 32; s > 0; s >>= 1) {                                                 \
      const uint64 partner = lane ^ (uint64)s;                                                           \
      const uchar256 swap = as_uchar256(partner);                                                        \
      if (count > 1) {                                                                                   \
        /* The lanes with bit s set (above their partner): a vector predicate, not a vector register. */ \
        const bool64 second = v_u32_cmp_grt_b(lane, partner);                                            \
        _Pragma("unroll") for (int i = 0; i < count / 2; i++) {                                          \
          const float64 first = COMBINE(v[2 * i], as_float64(__lane_shuffle_u32(as_uint64(v[2 * i]), swap))); \
          const float64 next = COMBINE(v[2 * i + 1], as_float64(__lane_shuffle_u32(as_uint64(v[2 * i + 1]), swap))); \
          v[i] = v_f32_mov_vb(next, 0, first, second, 0);                                                \
        }                                                                                                \
        count /= 2;                                                                                      \
      } else {                                                                                           \
        v[0] = COMBINE(v[0], as_float64(__lane_shuffle_u32(as_uint64(v[0]), swap)));                     \
      }                                                                                                  \
    }                                                                                                    \
    return v[0];                                                                                         \
  }
BATCH_TREE_FUNCTION(BATCH_SUM, ADD_F32)
BATCH_TREE_FUNCTION(BATCH_MAX, v_f32_max_b)
BATCH_TREE_FUNCTION(BATCH_MIN, v_f32_min_b)

// Row b's value, in every lane, of a packed batch (BATCH_SUM): its lane has bit 5 - l set where b has bit l.
static inline float64 unpack_batch(float64 packed, int b) {
  int lane = 0;
  for (int l = 0; (1 << l) < ROW_BATCH; l++)
    if (b & (1 << l)) lane |= 32 >> l;
  return as_float64(__lane_shuffle_u32(as_uint64(packed), as_uchar256((uint64)lane)));
}

// Up to four values the same in every lane (rows' statistics) in one vector, value r in lanes 16r to
// 16r + 15, so that a square root or a division runs once for them; unpack_row(packed, r) is value r in
// every lane again. (Two selects, where the batch tree's merges take three dependent steps a level.)
static inline float64 pack_rows(const float64 *v, int R) {
  const uint64 lane = read_lane_id_4b_b();
  float64 low = v[0], high = R > 2 ? v[2] : v[0];
  if (R > 1) low = v_f32_sel_grt_u32_b(lane, 15u, v[1], low);
  if (R > 3) high = v_f32_sel_grt_u32_b(lane, 47u, v[3], high);
  return R > 2 ? v_f32_sel_grt_u32_b(lane, 31u, high, low) : low;
}
static inline float64 unpack_row(float64 packed, int r) {
  return as_float64(__lane_shuffle_u32(as_uint64(packed), as_uchar256((uint64)(16 * r))));
}

// A lane tree's shuffle patterns (lane ^ 32, ..., lane ^ 1), made before a row loop (whose first cycles
// leave the vector slot idle) rather than after it, where they took the vector slot from the tree;
// LANE_TREE(f, v, swaps) is f over the lanes of v, in every lane (v_f32_reduce_add's butterfly).
#define LANE_SWAPS(swaps)                                                                     \
  uchar256 swaps[6];                                                                          \
  {                                                                                           \
    const uint64 lane_ = read_lane_id_4b_b();                                                 \
    for (int i_ = 0; i_ < 6; i_++) swaps[i_] = as_uchar256(lane_ ^ (uint64)(32 >> i_));       \
  }
#define LANE_TREE(f, v, swaps) LANE_TREE_FROM(f, v, swaps, 0)
// The tree's levels from `first` on (v the result of the levels before).
#define LANE_TREE_FROM(f, v, swaps, first)                                                    \
  ({                                                                                          \
    float64 t_ = (v);                                                                         \
    for (int i_ = (first); i_ < 6; i_++)                                                      \
      t_ = f(t_, as_float64(__lane_shuffle_u32(as_uint64(t_), (swaps)[i_])));                 \
    t_;                                                                                       \
  })
// A lane's value and its partner's at the tree's first level.
#define LANE_PARTNER(v, swaps) as_float64(__lane_shuffle_u32(as_uint64(v), (swaps)[0]))

// Every row of this core's part: c[1..4] set, c[0] = 0.
#define FOR_EACH_POINT(c, space2d, ...) FOR_EACH_INDEX(c, 0, space2d, __VA_ARGS__)

// Runs `body` on the pieces p of every vector of the row at c (n elements), those after the whole groups
// of ROW_CHAINS vectors with the lanes past the row's end set to `identity` (they read the tensor's
// padding, whatever it is). `at` is the vector's first element; c[0] is left at the last vector. In the
// body, MASK(k, v, identity) is v with the lanes of piece k past the row's end set to identity (nothing in
// the whole groups: a constant condition the compiler removes), and j (a constant 0 to ROW_CHAINS - 1)
// numbers the vector within its group of ROW_CHAINS: a body that accumulates into acc[j] keeps ROW_CHAINS
// independent chains, so that the loop waits for no add's latency (the partial results are combined after
// the row).
#define FOR_ROW(c, t, n, p, identity, ...)                                                     \
  ROW_LOOP(c, n, float64 p[NP], { LD_PIECES(c, t, p); },                                        \
           { for (int k_ = 0; k_ < NP; k_++) p[k_] = MASK(k_, p[k_], identity); }, __VA_ARGS__)

// FOR_ROW over two tensors of the same shape, their pieces p and q, both masked in the last vector.
#define FOR_ROW2(c, t, p, u, q, n, identity, ...)                                              \
  ROW_LOOP(c, n, float64 p[NP]; float64 q[NP], { LD_PIECES(c, t, p); LD_PIECES(c, u, q); },     \
           {                                                                                   \
             for (int k_ = 0; k_ < NP; k_++) {                                                 \
               p[k_] = MASK(k_, p[k_], identity);                                              \
               q[k_] = MASK(k_, q[k_], identity);                                              \
             }                                                                                 \
           },                                                                                  \
           __VA_ARGS__)

// FOR_ROW over R rows at once, the one at c and the next R - 1 along dimension 1, P[r] the pieces of row
// c[1] + r, all masked in the last vector: one loop, one pipeline fill and drain and one chain tree for
// the R rows. Row r's coordinate is c's plus (0, r, 0, 0, 0), one full-mask add.
#define FOR_ROWS(c, t, R, P, n, identity, ...) FOR_ROWS_CH(c, t, R, ROW_CHAINS, P, n, identity, __VA_ARGS__)
// FOR_ROWS in groups of CH vectors (ROW_CHAINS_FOR(R), say).
#define FOR_ROWS_CH(c, t, R, CH, P, n, identity, ...)                                          \
  ROW_LOOP_CH(c, n, CH, float64 P[R][NP],                                                      \
           {                                                                                   \
             LD_PIECES(c, t, P[0]);                                                            \
             for (int r_ = 1; r_ < (R); r_++) LD_PIECES(c + UNIT_INT5(1) * r_, t, P[r_]);        \
           },                                                                                  \
           {                                                                                   \
             for (int r_ = 0; r_ < (R); r_++)                                                  \
               for (int k_ = 0; k_ < NP; k_++) P[r_][k_] = MASK(k_, P[r_][k_], identity);      \
           },                                                                                  \
           __VA_ARGS__)

// FOR_ROWS over two tensors of the same shape: P[r] and Q[r] the pieces of row r of t and of u.
#define FOR_ROWS2(c, t, P, u, Q, R, n, identity, ...)                                          \
  ROW_LOOP(c, n, float64 P[R][NP]; float64 Q[R][NP],                                           \
           {                                                                                   \
             LD_PIECES(c, t, P[0]);                                                            \
             LD_PIECES(c, u, Q[0]);                                                            \
             for (int r_ = 1; r_ < (R); r_++) {                                                \
               LD_PIECES(c + UNIT_INT5(1) * r_, t, P[r_]);                                     \
               LD_PIECES(c + UNIT_INT5(1) * r_, u, Q[r_]);                                     \
             }                                                                                 \
           },                                                                                  \
           {                                                                                   \
             for (int r_ = 0; r_ < (R); r_++)                                                  \
               for (int k_ = 0; k_ < NP; k_++) {                                               \
                 P[r_][k_] = MASK(k_, P[r_][k_], identity);                                    \
                 Q[r_][k_] = MASK(k_, Q[r_][k_], identity);                                    \
               }                                                                               \
           },                                                                                  \
           __VA_ARGS__)

// out[b] for each row b of a batch (FOR_EACH_BATCH's row0 and rows): the sum over the row's elements x
// (pieces, k the piece) of STEP(acc, x, k, b), a chain's next value, e.g. v_f32_mac_b(x, x, acc); the
// tail's lanes are 0 before STEP. Where the kernel sets ROW_SUMS_FOUR to 1 (its chains and pieces fit the
// registers four rows at once): the 1-3 rows beyond a multiple of four in one loop, then four rows per
// loop (FOR_ROWS). Otherwise two rows per loop, then one; a batch of exactly three in one loop where the
// kernel sets ROW_SUMS_THREE to 1 (layernorm f32; pairs then 1-3 rows in one loop made layernorm 3% slower
// at 32 rows per core, bf16 also at 2-3). c[1] is changed.
#if !defined(ROW_SUMS_FOUR)
#define ROW_SUMS_FOUR 0
#endif
#if !defined(ROW_SUMS_THREE)
#define ROW_SUMS_THREE 0
#endif
#define BATCH_ROW_SUMS(c, t, n, row0, rows, out, STEP)                                          \
  {                                                                                            \
    int b_ = 0;                                                                                \
    if (ROW_SUMS_FOUR) {                                                                       \
      /* The 1-3 rows beyond a multiple of four first, in one loop (two loops paid two set-ups,  \
         fills and drains), chosen by a test on `rows` alone that need not wait for a loop. */ \
      const int rest_ = (rows) & 3;                                                            \
      const _Bool fours_ = (rows) > 3; /* tested before the first loop: no wait after it */    \
      if (rest_ == 3) ROW_SUMS_(c, t, n, row0, 0, 3, out, STEP)                                \
      else if (rest_ == 2) ROW_SUMS_(c, t, n, row0, 0, 2, out, STEP)                           \
      else if (rest_ == 1) ROW_SUMS_(c, t, n, row0, 0, 1, out, STEP)                           \
      if (fours_) {                                                                            \
        b_ = rest_;                                                                            \
        _Pragma("unroll 1") do ROW_SUMS_(c, t, n, row0, b_, 4, out, STEP) while ((b_ += 4) < (rows)); \
      }                                                                                        \
    } else if (ROW_SUMS_THREE && (rows) == 3) {                                                \
      ROW_SUMS_(c, t, n, row0, 0, 3, out, STEP)                                                \
    } else {                                                                                   \
      _Pragma("unroll 1") for (; b_ + 1 < (rows); b_ += 2) ROW_SUMS_(c, t, n, row0, b_, 2, out, STEP) \
      if (b_ < (rows)) ROW_SUMS_(c, t, n, row0, b_, 1, out, STEP)                              \
    }                                                                                          \
  }
// BATCH_ROW_SUMS for the R rows from row0 + b in one loop.
#define ROW_SUMS_(c, t, n, row0, b, R, out, STEP)                                               \
  {                                                                                            \
    c[1] = (row0) + (b);                                                                       \
    float64 s_[R][ROW_CHAINS_FOR(R)][1];                                                       \
    for (int r_ = 0; r_ < (R); r_++)                                                           \
      for (int j = 0; j < ROW_CHAINS_FOR(R); j++) s_[r_][j][0] = 0.0f;                         \
    FOR_ROWS_CH(c, t, R, ROW_CHAINS_FOR(R), P_, n, 0.0f,                                       \
      for (int r_ = 0; r_ < (R); r_++)                                                         \
        for (int k = 0; k < NP; k++) s_[r_][j][0] = STEP(s_[r_][j][0], P_[r_][k], k, (b) + r_);) \
    for (int r_ = 0; r_ < (R); r_++) (out)[(b) + r_] = COMBINE_CH(ADD_F32, s_[r_], ROW_CHAINS_FOR(R), 0); \
  }

// The row loop behind FOR_ROW: `decl` declares the pieces, `load` fills them at c, `mask` masks them in
// the last vector.
#define ROW_LOOP(c, n, decl, load, mask, ...) ROW_LOOP_CH(c, n, ROW_CHAINS, decl, load, mask, __VA_ARGS__)
// ROW_LOOP in groups of CH vectors (j from 0 to CH - 1).
#define ROW_LOOP_CH(c, n, CH, decl, load, mask, ...)                                           \
  {                                                                                            \
    ROW_NOT_EMPTY(n);                                                                          \
    const int groups_ = (n) / ((CH) * LANES) * ((CH) * LANES);                                 \
    decl;                                                                                      \
    ROW_GROUP_UNROLL_                                                                          \
    for (int at0_ = 0; at0_ < groups_; at0_ += (CH) * LANES) {                                 \
      _Pragma("unroll") for (int j = 0; j < (CH); j++) {                                       \
        const int at = at0_ + j * LANES, tail_ = 0, rem_ = LANES;                              \
        (void)tail_, (void)rem_;                                                               \
        c[0] = at;                                                                             \
        load;                                                                                  \
        __VA_ARGS__                                                                            \
      }                                                                                        \
    }                                                                                          \
    /* The vectors after the whole groups, each with its lanes past the row's end masked: one rolled  \
       loop, not a loop of whole vectors and a masked last one (their guards and the trip counts of   \
       the runtime-unrolled loop cost more than a select per vector). It counts vectors: its trip     \
       count is then one expression, where `at < n` made each loop's a longer one of its own. */       \
    const int tailVectors_ = ((n) - groups_ + LANES - 1) / LANES;                              \
    _Pragma("unroll 1") for (int v_ = 0; v_ < tailVectors_; v_++) {                            \
      const int at = groups_ + v_ * LANES, j = 0, tail_ = 1, rem_ = (n) - at;                  \
      (void)j, (void)tail_;                                                                    \
      c[0] = at;                                                                               \
      load;                                                                                    \
      mask;                                                                                    \
      __VA_ARGS__                                                                              \
    }                                                                                          \
  }

#define MASK(k, v, identity) (tail_ ? v_f32_sel_less_i32_b(piece_element(k), rem_, v, identity) : (v))

// A one-dimensional tensor of n elements (gamma, beta) at the row's position `at`, as pieces like p.
#define LD_ALONG(t, p) LD_PIECES(((int5){at, 0, 0, 0, 0}), t, p)

// Runs `body` on the pieces p of every vector of the row at c, with no masking (writes: stores past the
// end are dropped). `at` is the vector's first element.
#define FOR_ROW_WRITE(c, t, n, p, ...)                                          \
  {                                                                             \
    float64 p[NP];                                                              \
    ROW_NOT_EMPTY(n);                                                           \
    ROW_WRITE_UNROLL_                                                           \
    for (int at = 0; at < (n); at += LANES) {                                   \
      c[0] = at;                                                                \
      LD_PIECES(c, t, p);                                                       \
      __VA_ARGS__                                                               \
    }                                                                           \
  }

// FOR_ROW_WRITE over two rows at once: p the pieces of the row at c, q those of the next row along
// dimension 1, at coordinate c2 (declared here), so that what both rows read from a one-dimensional
// tensor (gamma, beta) is loaded once and the loop's set-up, fill and drain are paid once.
#define FOR_ROW_WRITE_PAIR(c, c2, t, n, p, q, ...)                              \
  {                                                                             \
    float64 p[NP], q[NP];                                                       \
    ROW_NOT_EMPTY(n);                                                           \
    ROW_WRITE_PAIR_UNROLL_                                                      \
    for (int at = 0; at < (n); at += LANES) {                                   \
      c[0] = at;                                                                \
      const int5 c2 = c + UNIT_INT5(1);                                         \
      LD_PIECES(c, t, p);                                                       \
      LD_PIECES(c2, t, q);                                                      \
      __VA_ARGS__                                                               \
    }                                                                           \
  }

// FOR_ROW_WRITE over R rows at once: P[r] the pieces of row c[1] + r (at c + (0, r, 0, 0, 0)), so that what
// the rows read from a one-dimensional tensor is loaded once and the loop's set-up, fill and drain are paid
// once for the R rows.
#define FOR_ROWS_WRITE(c, t, n, R, P, ...)                                      \
  {                                                                             \
    float64 P[R][NP];                                                           \
    ROW_NOT_EMPTY(n);                                                           \
    ROW_WRITE_ROWS_UNROLL_                                                      \
    for (int at = 0; at < (n); at += LANES) {                                   \
      c[0] = at;                                                                \
      for (int r_ = 0; r_ < (R); r_++) LD_PIECES(c + UNIT_INT5(1) * r_, t, P[r_]); \
      __VA_ARGS__                                                               \
    }                                                                           \
  }

// Combines the lanes of a row's accumulators: every lane of the result holds the row's value.
#define ROW_SUM(acc) v_f32_reduce_add(acc)
#define ROW_MAX(acc) v_f32_reduce_max(acc)
#define ROW_MIN(acc) v_f32_reduce_min(acc)

#elif defined(AXIS_OUTER)

// Every point of this core's part: c set, dimension 0 in vectors, c[dim] = 0.
#define FOR_EACH_POINT(c, space2d, ...) FOR_EACH_INDEX(c, LANES, space2d, __VA_ARGS__)

// Runs `body` on the pieces p at every coordinate of dimension `dim` (n of them) from c (whose c[dim] is 0),
// with c and `at` at that coordinate; c is back at the start afterwards. Needs `unit` = UNIT_INT5(dim). j
// numbers the coordinate within its group of ROW_CHAINS, as in the AXIS_LANES FOR_ROW.
#define FOR_ROW(c, t, n, p, identity, ...) ROW_LOOP(c, n, float64 p[NP], { LD_PIECES(c, t, p); }, __VA_ARGS__)
#define FOR_ROW_WRITE(c, t, n, p, ...) FOR_ROW(c, t, n, p, 0.0f, __VA_ARGS__)
#define FOR_ROW2(c, t, p, u, q, n, identity, ...) \
  ROW_LOOP(c, n, float64 p[NP]; float64 q[NP], { LD_PIECES(c, t, p); LD_PIECES(c, u, q); }, __VA_ARGS__)
// Each chain j has a coordinate of its own, stepped ROW_CHAINS units at a time: with one coordinate
// stepped by `unit` after every access, the compiler's copies of the unrolled loop would form one chain of
// index-register adds (two cycles each), holding the loop to one load every two cycles.
#define ROW_LOOP(c, n, decl, load, ...)                                         \
  {                                                                             \
    ROW_NOT_EMPTY(n);                                                           \
    const int5 base_ = c, stride_ = unit * ROW_CHAINS;                          \
    const int groups_ = (n) / ROW_CHAINS * ROW_CHAINS;                          \
    int5 chain_[ROW_CHAINS];                                                    \
    _Pragma("unroll") for (int j = 0; j < ROW_CHAINS; j++) chain_[j] = base_ + unit * j; \
    decl;                                                                       \
    for (int at0_ = 0; at0_ < groups_; at0_ += ROW_CHAINS) {                    \
      _Pragma("unroll") for (int j = 0; j < ROW_CHAINS; j++) {                  \
        const int at = at0_ + j;                                                \
        (void)at;                                                               \
        c = chain_[j];                                                          \
        load;                                                                   \
        __VA_ARGS__                                                             \
        chain_[j] += stride_;                                                   \
      }                                                                         \
    }                                                                           \
    c = chain_[0];                                                              \
    for (int at = groups_; at < (n); at++) {                                    \
      const int j = 0;                                                          \
      (void)j;                                                                  \
      load;                                                                     \
      __VA_ARGS__                                                               \
      c += unit;                                                                \
    }                                                                           \
    c = base_;                                                                  \
  }
// Every lane is in its row: nothing to mask.
#define MASK(k, v, identity) (v)

// The columns (vectors of dimension 0) of every index-space row of this core's part, c[dim] = 0 (the index
// space has one point along `dim`): COLUMNS(c, COLS, CH) for four at a time, then for the 1-3 left, with c
// at the first. TRIPLE: three left in one call (else two, then one). CH: COLUMN_CHAINS(COLS).
#define FOR_EACH_COLUMN_GROUP(c, space2d, TRIPLE, COLUMNS)                                   \
  FOR_EACH_ROW(c, space2d,                                                                   \
    int d0_ = d0Start;                                                                       \
    for (; d0_ + 3 * LANES < d0End; d0_ += 4 * LANES) {                                      \
      c[0] = d0_;                                                                            \
      COLUMNS(c, 4, COLUMN_CHAINS(4))                                                        \
    }                                                                                        \
    c[0] = d0_;                                                                              \
    const int left_ = (d0End - d0_) / LANES;                                                 \
    if ((TRIPLE) && left_ == 3) {                                                            \
      COLUMNS(c, 3, COLUMN_CHAINS(3))                                                        \
    } else if (left_ >= 2) {                                                                 \
      COLUMNS(c, 2, COLUMN_CHAINS(2))                                                        \
      if (left_ == 3) {                                                                      \
        c[0] += 2 * LANES;                                                                   \
        COLUMNS(c, 1, COLUMN_CHAINS(1))                                                      \
      }                                                                                      \
    } else if (left_ == 1) {                                                                 \
      COLUMNS(c, 1, COLUMN_CHAINS(1))                                                        \
    })
// Accumulator chains per column in a loop over COLS columns: at least four in all, an add's or a
// multiply-accumulate's latency (a bf16 vector is two f32 pieces).
#define COLUMN_CHAINS(COLS) ((COLS) * NP >= 4 ? 1 : (COLS) * NP >= 2 ? 2 : 4)
// The n rows along `dim` (`unit` its step) of COLS columns from c: STEP(at, b, j) for column b at `at` into
// chain j, CH rows a step each on a coordinate of its own (one coordinate stepped row by row would make the
// unrolled rows a chain of index-register adds), then the rows left from whole steps on chain 0. Both loops
// stay rolled: a step already holds COLS x CH rows' loads, and copies only lengthen the fill and drain.
#define COLUMN_ROWS(c, COLS, CH, STEP)                                                       \
  {                                                                                          \
    const int steps_ = n / (CH) * (CH);                                                      \
    int5 row_[CH];                                                                           \
    _Pragma("unroll") for (int j = 0; j < (CH); j++) row_[j] = c + unit * j;                 \
    _Pragma("unroll 1") for (int r_ = 0; r_ < steps_; r_ += (CH)) {                         \
      _Pragma("unroll") for (int j = 0; j < (CH); j++) {                                     \
        int5 at_ = row_[j];                                                                  \
        _Pragma("unroll") for (int b = 0; b < (COLS); b++) {                                 \
          STEP(at_, b, j)                                                                    \
          at_[0] += LANES;                                                                   \
        }                                                                                    \
        row_[j] += unit * (CH);                                                              \
      }                                                                                      \
    }                                                                                        \
    int5 left_ = row_[0];                                                                    \
    _Pragma("unroll 1") for (int r_ = steps_; r_ < n; r_++) {                                \
      int5 at_ = left_;                                                                      \
      _Pragma("unroll") for (int b = 0; b < (COLS); b++) {                                   \
        STEP(at_, b, 0)                                                                      \
        at_[0] += LANES;                                                                     \
      }                                                                                      \
      left_ += unit;                                                                         \
    }                                                                                        \
  }

// A one-dimensional tensor of n elements (gamma, beta) at the row's position `at`: one element, in every
// lane of pieces like p.
#if NP == 1
#define LD_ALONG(t, p) ((p)[0] = s_f32_ld_g(gen_addr(((int5){at, 0, 0, 0, 0}), t)))
#else
#define LD_ALONG(t, p) ((p)[0] = (p)[1] = s_convert_bf16_to_f32(s_bf16_ld_g(gen_addr(((int5){at, 0, 0, 0, 0}), t))))
#endif

// The lanes are separate rows: nothing to combine.
#define ROW_SUM(acc) (acc)
#define ROW_MAX(acc) (acc)
#define ROW_MIN(acc) (acc)

#else
#error "compile with -DAXIS_LANES or -DAXIS_OUTER"
#endif
