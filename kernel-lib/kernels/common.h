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

// Every point of this core's part of the index space, with c its coordinates: dimension 0 in steps of
// `width` elements per point, or (width 0) not iterated, c[0] = 0 (one point a row, for kernels that loop
// along dimension 0 themselves).
#define FOR_EACH_INDEX(c, width, ...)                                                      \
  {                                                                                        \
    const int5 start_ = get_index_space_offset();                                          \
    const int5 end_ = start_ + get_index_space_size();                                     \
    const int w_ = (width), d0End_ = w_ ? end_[0] * w_ : 1;                                \
    for (int d4_ = start_[4]; d4_ < end_[4]; d4_++)                                        \
      for (int d3_ = start_[3]; d3_ < end_[3]; d3_++)                                      \
        for (int d2_ = start_[2]; d2_ < end_[2]; d2_++)                                    \
          for (int d1_ = start_[1]; d1_ < end_[1]; d1_++)                                  \
            for (int d0_ = start_[0] * w_; d0_ < d0End_; d0_ += w_ ? w_ : 1) {             \
              c = (int5){d0_, d1_, d2_, d3_, d4_};                                         \
              __VA_ARGS__                                                                  \
            }                                                                              \
  }

// The index space of an elementwise kernel: dimension 0 in vectors of LANES elements, the others one
// point per element. FOR_EACH_ROW runs the body for every point of dimensions 1-4 of this core's part,
// with c[1..4] set; the body loops over dimension 0 from d0Start to d0End (elements).
#define FOR_EACH_ROW(c, ...)                                                      \
  {                                                                               \
    const int5 start_ = get_index_space_offset();                                 \
    const int5 end_ = start_ + get_index_space_size();                            \
    const int d0Start = start_[0] * LANES, d0End = end_[0] * LANES;               \
    for (int d4_ = start_[4]; d4_ < end_[4]; d4_++) {                             \
      c[4] = d4_;                                                                 \
      for (int d3_ = start_[3]; d3_ < end_[3]; d3_++) {                           \
        c[3] = d3_;                                                               \
        for (int d2_ = start_[2]; d2_ < end_[2]; d2_++) {                         \
          c[2] = d2_;                                                             \
          for (int d1_ = start_[1]; d1_ < end_[1]; d1_++) {                       \
            c[1] = d1_;                                                           \
            __VA_ARGS__                                                           \
          }                                                                       \
        }                                                                         \
      }                                                                           \
    }                                                                             \
  }
