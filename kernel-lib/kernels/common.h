// Data-type-generic helpers of the kernel library. A kernel source is compiled once per data type, with
// -DDT_F32, -DDT_BF16 or -DDT_I32 (kernels.cmake): VT is the vector type, S the scalar type, LANES the
// elements of one vector, LD/STORE the tensor load and store, and VIA_F32(f, x) applies a float64
// function to a vector (bf16: both halves widened to f32, the results rounded once back to bf16).
#pragma once

#if defined(DT_F32)
#define VT float64
#define S float
#define LANES 64
#define LD(c, t) v_f32_ld_tnsr_b(c, t)
#define STORE(c, t, v) v_f32_st_tnsr(c, t, v)
#define LD_SCALAR(c, t) s_f32_ld_g(gen_addr(c, t))
#define VMAX(a, b) v_f32_max_b(a, b)
#define VMIN(a, b) v_f32_min_b(a, b)
#define VABS(a) v_f32_abs_b(a)
#define VIA_F32(f, x) f(x)
#define VIA_F32_2(f, x, y) f(x, y)
#elif defined(DT_BF16)
#define VT bfloat128
#define S bf16
#define LANES 128
#define LD(c, t) v_bf16_ld_tnsr_b(c, t)
#define STORE(c, t, v) v_bf16_st_tnsr(c, t, v)
#define LD_SCALAR(c, t) s_bf16_ld_g(gen_addr(c, t))
#define VMAX(a, b) v_bf16_max_b(a, b)
#define VMIN(a, b) v_bf16_min_b(a, b)
#define VABS(a) v_bf16_abs_b(a)
// f on both f32 halves of a bf16 vector, the results rounded once back to bf16.
#define VIA_F32(f, x)                                         \
  ({                                                          \
    float64_pair_t w_ = v_convert_bf16_to_f32_all_b(x);       \
    w_.v1 = f(w_.v1);                                         \
    w_.v2 = f(w_.v2);                                         \
    v_convert_f32_to_bf16_all_b(w_);                          \
  })
#define VIA_F32_2(f, x, y)                                    \
  ({                                                          \
    float64_pair_t a_ = v_convert_bf16_to_f32_all_b(x);       \
    float64_pair_t b_ = v_convert_bf16_to_f32_all_b(y);       \
    a_.v1 = f(a_.v1, b_.v1);                                  \
    a_.v2 = f(a_.v2, b_.v2);                                  \
    v_convert_f32_to_bf16_all_b(a_);                          \
  })
#elif defined(DT_I32)
#define VT int64
#define S int
#define LANES 64
#define LD(c, t) v_i32_ld_tnsr_b(c, t)
#define STORE(c, t, v) v_i32_st_tnsr(c, t, v)
#define LD_SCALAR(c, t) s_i32_ld_g(gen_addr(c, t))
#define VMAX(a, b) v_i32_max_b(a, b)
#define VMIN(a, b) v_i32_min_b(a, b)
#define VABS(a) v_i32_abs_b(a)
#else
#error "compile with -DDT_F32, -DDT_BF16 or -DDT_I32"
#endif

// `#pragma unroll(n)` with n a macro: the kernels choose their row loop's unroll count per operation
// (docs/kernel-lib.md, "Performance": cheap bodies want more copies to hide the loop's overhead, long ones
// fewer, so that the modulo schedule keeps each value's lifetime within its initiation interval).
#define PRAGMA_TEXT_(x) _Pragma(#x)
#define UNROLL_PRAGMA(n) PRAGMA_TEXT_(unroll(n))

// The points of dimensions 2-4 from start to end (int5s), each loop setting its own dimension of the int5
// p: the loops around a kernel's walk over dimensions 0 and 1. Setting each dimension in its own loop, not
// all five per point, spares every point a chain of index-register writes. The loops test at their end
// only (EACH_FROM): a core runs only on a part with at least one point in every dimension, so a test
// before the first iteration (a compare and a branch, 5-9 cycles each on the scalar unit) never fails.
#define EACH_FROM(d, from, to, ...)                                                        \
  {                                                                                        \
    int d = (from);                                                                        \
    const int dEnd_##d = (to);                                                             \
    do {                                                                                   \
      __VA_ARGS__                                                                          \
    } while (++d < dEnd_##d);                                                              \
  }
// `space2d` (the kernels pass `layout == 2`, the glue's word that the whole index space has one point in
// each of dimensions 2-4: glue/node.cpp, flatLayout) leaves all three loops after their first point with
// one branch on a predicate instead of three latches (an add, a compare and a branch, 9 cycles each), and
// no second copy of the body. A jump out of the nest, not `break`s: LLVM would fold those into each
// latch's condition, adding to the latches instead.
#define CONCAT_TEXT_(a, b) a##b
#define CONCAT_(a, b) CONCAT_TEXT_(a, b)
#define FOR_DIMS_2_TO_4(p, start, end, space2d, ...) \
  FOR_DIMS_2_TO_4_(p, start, end, space2d, CONCAT_(dims2to4Done_, __COUNTER__), __VA_ARGS__)
#define FOR_DIMS_2_TO_4_(p, start, end, space2d, done, ...)                                \
  {                                                                                        \
    EACH_FROM(d4_, (start)[4], (end)[4],                                                   \
      (p)[4] = d4_;                                                                        \
      EACH_FROM(d3_, (start)[3], (end)[3],                                                 \
        (p)[3] = d3_;                                                                      \
        EACH_FROM(d2_, (start)[2], (end)[2],                                               \
          (p)[2] = d2_;                                                                    \
          __VA_ARGS__                                                                      \
          if (space2d) goto done;)))                                                       \
    done:;                                                                                 \
  }

// Every point of this core's part of the index space, with c its coordinates: dimension 0 in steps of
// `width` elements per point, or (width 0) not iterated, c[0] = 0 (one point a row, for kernels that loop
// along dimension 0 themselves).
#define FOR_EACH_INDEX(c, width, space2d, ...)                                             \
  {                                                                                        \
    const int5 start_ = get_index_space_offset();                                          \
    const int5 end_ = start_ + get_index_space_size();                                     \
    const int w_ = (width), d0End_ = w_ ? end_[0] * w_ : 1;                                \
    int5 point_ = 0;                                                                       \
    FOR_DIMS_2_TO_4(point_, start_, end_, space2d,                                         \
      EACH_FROM(d1_, start_[1], end_[1],                                                   \
        point_[1] = d1_;                                                                   \
        int d0_ = start_[0] * w_;                                                          \
        do {                                                                               \
          c = point_;                                                                      \
          c[0] = d0_;                                                                      \
          __VA_ARGS__                                                                      \
          d0_ += w_ ? w_ : 1;                                                              \
        } while (d0_ < d0End_);))                                                          \
  }

// The index space of an elementwise kernel: dimension 0 in vectors of LANES elements, the others one
// point per element. FOR_EACH_ROW runs the body for every point of dimensions 1-4 of this core's part,
// with c[1..4] set; the body loops over dimension 0 from d0Start to d0End (elements).
#define FOR_EACH_ROW(c, space2d, ...)                                             \
  {                                                                               \
    const int5 start_ = get_index_space_offset();                                 \
    const int5 end_ = start_ + get_index_space_size();                            \
    const int d0Start = start_[0] * LANES, d0End = end_[0] * LANES;               \
    FOR_DIMS_2_TO_4(c, start_, end_, space2d,                                     \
      EACH_FROM(d1_, start_[1], end_[1],                                          \
        c[1] = d1_;                                                               \
        __VA_ARGS__))                                                             \
  }

// Every index-space point of this core's part, as FOR_EACH_INDEX(c, width, ...) visits them (c[0] the
// point's first element of dimension 0), but with dimensions 0 and 1 in one loop, `u` points per
// iteration: a loop per row would pay its set-up, its pipeline's fill and drain and its loop control once
// per row, which on rows of a few dozen vectors costs as much as the row itself (docs/kernel-lib.md,
// "Performance"). Each of the u points has coordinates of its own, advanced by one step per iteration,
// along the row or, after a row's last group, to the next row's first; the body is written u times, each
// with its own `c`. The points of a row left after its whole groups go one at a time in a second loop of
// the same kind. Dimensions 2-4 are loops around both, skipped when `space2d` is true: the kernels pass
// `layout == 2`, the glue's word (glue/node.cpp, flatLayout) that the whole index space has one point in
// each of them. Comparing a parameter is one scalar instruction; testing the core's own sizes took six
// and a wait.
#define FOR_EACH_POINT_FLAT(c, width, u, space2d, ...) WALK_POINTS_(c, width, u, 0, space2d, __VA_ARGS__)

// FOR_EACH_POINT_FLAT, but (fewU > 0) a part of one, two or three rows is one band of exactly those
// rows (FEW_BAND_), about fewU points per iteration: the flat loop's row wraps cost four or five scalar
// instructions an iteration, which bodies of one load and one store cannot hide (relu f32 on 3 rows of
// 64 vectors: 313 cycles flat, 232 in a band). Only for such bodies: where the scalar slot has room, a
// band's larger set-up costs more than the wraps (the binary operations, 229 to 230 cycles in bf16).
#define WALK_POINTS_(c, width, u, fewU, space2d, ...)                                                  \
  {                                                                                                    \
    const int5 start_ = get_index_space_offset();                                                      \
    const int5 size_ = get_index_space_size();                                                         \
    const int w_ = (width);                                                                            \
    /* {w, 0, 0, 0, 0}, one point along dimension 0. LLVM folds each copy's coordinates to row_ + {k w, 0, \
       0, 0, 0}; tpc-clang makes them a chain of adds of one_ again (coordinate_chains.cpp). */         \
    const int5 one_ = {w_, 0, 0, 0, 0}, nextRow_ = {0, 1, 0, 0, 0};                                    \
    int5 row_ = start_;                                                                                \
    row_[0] = start_[0] * w_;                                                                          \
    if ((fewU) && size_[1] == 3 && size_[0] >= FEW_U_(fewU, 3)) {                                      \
      EACH_PLANE_(space2d, FEW_BAND_(c, 3, FEW_U_(fewU, 3), __VA_ARGS__))                              \
    } else if ((fewU) && size_[1] == 2 && size_[0] >= FEW_U_(fewU, 2)) {                               \
      EACH_PLANE_(space2d, FEW_BAND_(c, 2, FEW_U_(fewU, 2), __VA_ARGS__))                              \
    } else if ((fewU) && size_[1] == 1 && size_[0] >= FEW_U_(fewU, 1)) {                               \
      EACH_PLANE_(space2d, FEW_BAND_(c, 1, FEW_U_(fewU, 1), __VA_ARGS__))                              \
    } else {                                                                                           \
      const int groups_ = (int)((unsigned)size_[0] / (u));                                             \
      const _Bool hasGroups_ = groups_ > 0;                                                            \
      EACH_PLANE_(space2d, FLAT_ROWS_(c, u, __VA_ARGS__))                                              \
    }                                                                                                  \
  }

// Points of each of v rows per iteration in a band of about n points: n / v down to a power of two (a
// shift for the trip count). 16: 4, 8 and 16 for 3, 2 and 1 rows.
#define FEW_U_(n, v) ((n) / (v) >= 16 ? 16 : (n) / (v) >= 8 ? 8 : (n) / (v) >= 4 ? 4 : (n) / (v) >= 2 ? 2 : 1)

// One band of exactly v rows from row_, U points of each row per iteration (size_[0] >= U), each point on
// a coordinate of its own, all stepped U points per iteration: a hardware loop with no scalar instruction
// besides those steps. U points of a row, not one: a row's coordinate is read by the load early in the
// iteration and by the store late in it, so the next step must wait for the store; with one coordinate a
// row the loop would be as long as a point's latency (10 cycles for relu). The points of each row left
// after the whole iterations follow one at a time.
#define FEW_BAND_(c, v, U, ...)                                                                        \
  {                                                                                                    \
    int5 at_[(v) * (U)];                                                                               \
    at_[0] = row_;                                                                                     \
    _Pragma("unroll") for (int k_ = 1; k_ < (v) * (U); k_++)                                           \
      at_[k_] = k_ % (U) == 0 ? at_[k_ - (U)] + nextRow_ : at_[k_ - 1] + one_;                         \
    const int5 stepU_ = {(U) * w_, 0, 0, 0, 0};                                                        \
    const int iters_ = (int)((unsigned)size_[0] / (U));                                                \
    __builtin_assume(iters_ >= 1);                                                                     \
    _Pragma("unroll 1") for (int p_ = 0; p_ < iters_; p_++) {                                          \
      _Pragma("unroll") for (int k_ = 0; k_ < (v) * (U); k_++) {                                       \
        int5 c = at_[k_];                                                                              \
        __VA_ARGS__                                                                                    \
      }                                                                                                \
      _Pragma("unroll") for (int k_ = 0; k_ < (v) * (U); k_++) at_[k_] += stepU_;                      \
    }                                                                                                  \
    if ((U) > 1) {                                                                                     \
      _Pragma("unroll 1") for (int p_ = iters_ * (U); p_ < size_[0]; p_++) {                           \
        _Pragma("unroll") for (int r_ = 0; r_ < (v); r_++) {                                           \
          int5 c = at_[r_ * (U)];                                                                      \
          __VA_ARGS__                                                                                  \
        }                                                                                              \
        _Pragma("unroll") for (int r_ = 0; r_ < (v); r_++) at_[r_ * (U)] += one_;                      \
      }                                                                                                \
    }                                                                                                  \
  }

// The planes of dimensions 2-4 of this core's part (start_, size_), row_[2..4] set to each; when
// `space2d`, the one plane row_ is in.
#define EACH_PLANE_(space2d, ...)                                                                      \
  if (space2d) {                                                                                       \
    __VA_ARGS__                                                                                        \
  } else {                                                                                             \
    for (int d4_ = start_[4]; d4_ < start_[4] + size_[4]; d4_++)                                       \
      for (int d3_ = start_[3]; d3_ < start_[3] + size_[3]; d3_++)                                     \
        for (int d2_ = start_[2]; d2_ < start_[2] + size_[2]; d2_++) {                                 \
          row_[2] = d2_;                                                                               \
          row_[3] = d3_;                                                                               \
          row_[4] = d4_;                                                                               \
          __VA_ARGS__                                                                                  \
        }                                                                                              \
  }

// Every point of this core's part, as FOR_EACH_POINT_FLAT visits them, but on a part of at least `u` rows
// (u a power of two, at most 16) in bands of rows: a band's rows side by side, each on a coordinate of its
// own, all stepped one point along dimension 0 per iteration. A band's loop has no row to wrap to: a
// hardware loop with no scalar instruction of its own, so a body of one load and one store runs at its
// one coordinate step per point, where the flat loop's wraps cost four or five more scalar instructions
// each iteration. Bands of u rows, then at most one each of u/2, u/4, ..., 1 for the rows left. On fewer
// rows, WALK_POINTS_ with `flatU` and `fewU`: four or more rows would be several small bands, each with
// its own fill and drain. Short rows do not matter: there the flat loop wraps every iteration.
#define FOR_EACH_POINT_BANDED(c, width, u, flatU, fewU, space2d, ...)                                  \
  {                                                                                                    \
    const int5 size0_ = get_index_space_size();                                                        \
    if (size0_[1] < (u)) {                                                                             \
      WALK_POINTS_(c, width, flatU, fewU, space2d, __VA_ARGS__)                                        \
    } else {                                                                                           \
      const int5 start_ = get_index_space_offset();                                                    \
      const int5 size_ = size0_;                                                                       \
      const int w_ = (width);                                                                          \
      const int5 one_ = {w_, 0, 0, 0, 0}, nextRow_ = {0, 1, 0, 0, 0};                                  \
      int5 row_ = start_;                                                                              \
      row_[0] = start_[0] * w_;                                                                        \
      EACH_PLANE_(space2d, BANDS_(c, u, __VA_ARGS__))                                                  \
    }                                                                                                  \
  }

// FOR_EACH_POINT_BANDED's bands over the rows of dimension 1 from row_ (u at most 16).
#define BANDS_(c, u, ...)                                                                              \
  {                                                                                                    \
    int5 band_ = row_;                                                                                 \
    int left_ = size_[1];                                                                              \
    BAND_(c, (u), while, __VA_ARGS__)                                                                  \
    BAND_(c, (u) / 2, if, __VA_ARGS__)                                                                 \
    BAND_(c, (u) / 4, if, __VA_ARGS__)                                                                 \
    BAND_(c, (u) / 8, if, __VA_ARGS__)                                                                 \
    BAND_(c, (u) / 16, if, __VA_ARGS__)                                                                \
  }

// One band of `v` rows from band_ (none when v is 0), repeated while (or if) left_ has that many.
#define BAND_(c, v, kind, ...)                                                                         \
  kind ((v) > 0 && left_ >= (v)) {                                                                     \
    int5 at_[(v) > 0 ? (v) : 1];                                                                       \
    at_[0] = band_;                                                                                    \
    _Pragma("unroll") for (int k_ = 1; k_ < (v); k_++) at_[k_] = at_[k_ - 1] + nextRow_;               \
    const int points_ = size_[0];                                                                      \
    __builtin_assume(points_ >= 1);                                                                    \
    _Pragma("unroll 1") for (int p_ = 0; p_ < points_; p_++) {                                         \
      _Pragma("unroll") for (int k_ = 0; k_ < (v); k_++) {                                             \
        int5 c = at_[k_];                                                                              \
        __VA_ARGS__                                                                                    \
      }                                                                                                \
      _Pragma("unroll") for (int k_ = 0; k_ < (v); k_++) at_[k_] += one_;                              \
    }                                                                                                  \
    band_[1] += (v);                                                                                   \
    left_ -= (v);                                                                                      \
  }

// FOR_EACH_POINT_FLAT's two loops over the rows of dimension 1 from row_.
#define FLAT_ROWS_(c, u, ...)                                                                          \
  if (hasGroups_) {                                                                                    \
    int5 at_[u];                                                                                       \
    at_[0] = row_;                                                                                     \
    _Pragma("unroll") for (int k_ = 1; k_ < (u); k_++) at_[k_] = at_[k_ - 1] + one_;                   \
    /* Steps subtracted, not added: after a row's last group, back (groups - 1) groups and one row on. \
       (groups - 1) u w is one scalar instruction fewer than its negation, 512 - ... needing the 512 in a  \
       register first. */                                                                              \
    const int5 along_ = {-(u) * w_, 0, 0, 0, 0}, down_ = {(groups_ - 1) * (u) * w_, -1, 0, 0, 0};      \
    int left_ = groups_;                                                                               \
    /* A core runs only on a part with at least one point in every dimension, so n_ >= 1 here. */       \
    int n_ = groups_ * size_[1];                                                                       \
    __builtin_assume(n_ >= 1); /* LLVM's trip count is then n_, not max(n_, 1). */                     \
    _Pragma("unroll 1") do {                                                                           \
      _Pragma("unroll") for (int k_ = 0; k_ < (u); k_++) {                                             \
        int5 c = at_[k_];                                                                              \
        __VA_ARGS__                                                                                    \
      }                                                                                                \
      const int5 step_ = --left_ == 0 ? down_ : along_;                                                \
      left_ = left_ == 0 ? groups_ : left_;                                                            \
      _Pragma("unroll") for (int k_ = 0; k_ < (u); k_++) at_[k_] -= step_;                             \
    } while (--n_ > 0);                                                                                \
  }                                                                                                    \
  const int tail_ = size_[0] - groups_ * (u);                                                          \
  if (tail_ > 0) {                                                                                     \
    int5 at_ = row_;                                                                                   \
    at_[0] += groups_ * (u) * w_;                                                                      \
    const int5 along_ = one_, down_ = {(1 - tail_) * w_, 1, 0, 0, 0};                                  \
    int left_ = tail_;                                                                                 \
    _Pragma("unroll 1") for (int n_ = tail_ * size_[1]; n_ > 0; n_--) {                               \
      {                                                                                                \
        int5 c = at_;                                                                                  \
        __VA_ARGS__                                                                                    \
      }                                                                                                \
      const int5 step_ = --left_ == 0 ? down_ : along_;                                                \
      left_ = left_ == 0 ? tail_ : left_;                                                              \
      at_ += step_;                                                                                    \
    }                                                                                                  \
  }
