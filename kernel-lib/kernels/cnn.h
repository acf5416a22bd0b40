// Helpers of the CNN kernels (pool.c, global_pool.c, chnorm.c, conv.c): layouts, f32 "pieces", window taps.
// -DNHWC: TPC dimensions [C, W, H, N] (channels in dimension 0, vectors of channels); -DNCHW: [W, H, C, N].
// COORD(c, w, h, n) builds the coordinate of element (n, c, h, w) in either layout.
// Data are computed in f32: a point of the vector paths covers VL elements of dimension 0 (64 f32, 128
// bf16) as NH f32 vectors ("pieces", 1 or 2) in element order (bf16 loaded unpacked, so that piece 0 holds
// elements 0-63 and piece 1 elements 64-127; stored packed, rounded once to bf16).
#pragma once

#if defined(NHWC)
#define COORD(c, w, h, n) ((int5){(c), (w), (h), (n), 0})
#define DIM_C 0
#define DIM_W 1
#define DIM_H 2
#elif defined(NCHW)
#define COORD(c, w, h, n) ((int5){(w), (h), (c), (n), 0})
#define DIM_C 2
#define DIM_W 0
#define DIM_H 1
#elif !defined(NO_LAYOUT)
#error "compile with -DNHWC or -DNCHW"
#endif

#if defined(DT_F32)
#define VL 64
#define NH 1
#define LOADP(c, t, p) ((p)[0] = v_f32_ld_tnsr_b(c, t))
#define STOREP(c, t, p) v_f32_st_tnsr(c, t, (p)[0])
#define SLOAD(c, t) s_f32_ld_g(gen_addr(c, t))
// Lane 0 of v as the one element at c.
#define STORE1(c, t, v) v_f32_st_tnsr_partial(c, t, v, 0, 0)
#elif defined(DT_BF16)
#define VL 128
#define NH 2
#define LOADP(c, t, p)                                                                          \
  do {                                                                                          \
    const float64_pair_t w_ = v_convert_bf16_to_f32_all_b(v_bf16_ld_tnsr_b(c, t, SW_UNPACK));   \
    (p)[0] = w_.v1;                                                                             \
    (p)[1] = w_.v2;                                                                             \
  } while (0)
#define STOREP(c, t, p)                                                                         \
  do {                                                                                          \
    float64_pair_t w_;                                                                          \
    w_.v1 = (p)[0];                                                                             \
    w_.v2 = (p)[1];                                                                             \
    v_bf16_st_tnsr(c, t, v_convert_f32_to_bf16_all_b(w_), SW_PACK);                             \
  } while (0)
#define SLOAD(c, t) s_convert_bf16_to_f32(s_bf16_ld_g(gen_addr(c, t)))
#define STORE1(c, t, v)                                                                         \
  do {                                                                                          \
    float64_pair_t w_;                                                                          \
    w_.v1 = (v);                                                                                \
    w_.v2 = (v);                                                                                \
    v_bf16_st_tnsr_partial(c, t, v_convert_f32_to_bf16_all_b(w_), 0, 0);                        \
  } while (0)
#else
#error "compile with -DDT_F32 or -DDT_BF16"
#endif

// Piece k of a point at c: dimension 0 moved by 64 k elements.
static inline int5 pieceAt(int5 c, int k) {
  c[0] += 64 * k;
  return c;
}

// Taps k in [0, K) with 0 <= s + k d < n: [*lo, *hi) (empty: lo >= hi). The taps of a window starting at s
// with dilation d that fall inside an input of n elements (pooling, convolution), or, with d a stride, the
// outputs whose tap at offset s lies inside the input (convolution's weight gradient).
__attribute__((unused)) static inline void tapRange(int s, int d, int n, int K, int* lo, int* hi) {
  int a = 0, b = K;
  if (d == 1) {
    a = s < 0 ? -s : 0;
    b = n - s < K ? n - s : K;
  } else {
    a = s < 0 ? (-s + d - 1) / d : 0;
    const int e = n > s ? (n - s + d - 1) / d : 0;
    b = e < K ? e : K;
  }
  *lo = a;
  *hi = b;
}
