// Direct 2-D convolution, forward and backward (glue/conv.cpp), the share of convolution the MME is poor at
// (depthwise, grouped, few channels). Output (oh, ow) of channel m (group g = m / Mg, Mg = M / groups) sums
// x[g Cg + ci, oh sh - pt + i dh, ow sw - pl + j dw] w[m, ci, i, j] over ci < Cg, i < kh, j < kw; taps
// outside x are zeros (padding).
//   -DOP_FWD          x, w[, bias (-DHAS_BIAS)] -> y
//   -DOP_BWD_DATA     dy, w -> dx: dx[c, ih, iw] = sum of dy[m, oh, ow] w[m, c - g Cg, i, j] over the m of c's
//                     group and the taps with oh sh - pt + i dh = ih, ow sw - pl + j dw = iw (ONNX's
//                     ConvTranspose of dy)
//   -DOP_BWD_WEIGHTS  x, dy -> dw: dw[m, ci, i, j] = sum over n, oh, ow of dy[m, oh, ow] x[g Cg + ci, ih, iw]
// Every kernel is elementwise over the tensor it writes and computes each element of it in one place, in f32
// (bf16 rounded once at the store): no accumulation in memory, nothing shared between cores.
// Layouts (TPC dimensions, dimension 0 first): -DNHWC x [C, W, H, N], w [M, Cg, kW, kH] (NumPy [kH, kW, Cg,
// M]); -DNCHW x [W, H, C, N], w [kW, kH, Cg, M] (ONNX's [M, Cg, kH, kW]); y, dy like x with M channels.
// Paths: NHWC forward and weight gradient take vectors of output channels m: depthwise (Cg = Mg = 1) loads x
// as vectors of channels; otherwise each input channel of each group the vector touches is a scalar
// splatted (lanes outside the group keep their sum). NHWC data gradient: depthwise as vectors of channels,
// otherwise one dx element at a time, a dot product over its group's m in vectors, the lanes summed.
// NCHW: -DW_STEP1 (stride_w 1), vectors along W (OW; for the weight gradient a dot product along OW, the
// lanes summed); otherwise one element at a time on the scalar unit, each stored as lane 0 of a vector.
#include "cnn.h"

#if defined(NHWC)
#define WCOORD(m, ci, i, j) ((int5){(m), (ci), (j), (i), 0})
#define DIM_WM 0
#define DIM_WC 1
#define DIM_KW 2
#define DIM_KH 3
#else
#define WCOORD(m, ci, i, j) ((int5){(j), (i), (ci), (m), 0})
#define DIM_WM 3
#define DIM_WC 2
#define DIM_KW 0
#define DIM_KH 1
#endif

// acc[k] = acc[k] + a[k] b[k] in the lanes of the point in [lo, hi) (lane of piece k: 64 k + lane id); the
// other lanes keep acc. whole: every lane is in range.
#define MAC_LANES(acc, a, b, whole, lo, hi)                                                                    \
  do {                                                                                                         \
    _Pragma("unroll") for (int k_ = 0; k_ < NH; k_++) {                                                       \
      const float64 t_ = v_f32_mac_b((a)[k_], (b)[k_], (acc)[k_]);                                            \
      if (whole)                                                                                               \
        (acc)[k_] = t_;                                                                                        \
      else                                                                                                     \
        (acc)[k_] = v_f32_sel_geq_i32_b(lane, (int64)((hi) - 64 * k_), (acc)[k_],                              \
                                        v_f32_sel_less_i32_b(lane, (int64)((lo) - 64 * k_), (acc)[k_], t_));   \
    }                                                                                                          \
  } while (0)

#define ZERO(acc)                                                        \
  do {                                                                   \
    _Pragma("unroll") for (int k_ = 0; k_ < NH; k_++)(acc)[k_] = 0.0f;  \
  } while (0)

// The sum of a point's lanes (every piece), in every lane.
#if NH == 2
#define LANES_SUM(acc) v_f32_reduce_add((acc)[0] + (acc)[1])
#else
#define LANES_SUM(acc) v_f32_reduce_add((acc)[0])
#endif

#if defined(OP_FWD)
#if defined(HAS_BIAS)
void main(tensor x, tensor w, tensor bias, tensor y, int sh, int sw, int dlh, int dlw, int pt, int pl, int groups)
#else
void main(tensor x, tensor w, tensor y, int sh, int sw, int dlh, int dlw, int pt, int pl, int groups)
#endif
{
  const int5 start = get_index_space_offset();
  const int5 end = start + get_index_space_size();
  const int H = get_dim_size(x, DIM_H), W = get_dim_size(x, DIM_W);
  const int kh = get_dim_size(w, DIM_KH), kw = get_dim_size(w, DIM_KW), Cg = get_dim_size(w, DIM_WC);
  const int M = get_dim_size(y, DIM_C), Mg = M / groups;
  const int64 lane = as_int64(read_lane_id_4b_b());
  (void)lane, (void)W, (void)sw;  // not every path needs them
#if defined(NHWC)
  const int depthwise = Cg == 1 && Mg == 1;
  for (int n = start[3]; n < end[3]; n++)
    for (int oh = start[2]; oh < end[2]; oh++)
      for (int ow = start[1]; ow < end[1]; ow++) {
        const int h0 = oh * sh - pt, w0 = ow * sw - pl;
        int ilo, ihi, jlo, jhi;
        tapRange(h0, dlh, H, kh, &ilo, &ihi);
        tapRange(w0, dlw, W, kw, &jlo, &jhi);
        for (int p = start[0]; p < end[0]; p++) {
          const int m0 = p * VL;
          float64 acc[NH];
#if defined(HAS_BIAS)
          LOADP(((int5){m0, 0, 0, 0, 0}), bias, acc);
#else
          ZERO(acc);
#endif
          if (depthwise) {
            for (int i = ilo; i < ihi; i++)
              for (int j = jlo; j < jhi; j++) {
                float64 xv[NH], wv[NH];
                LOADP(COORD(m0, w0 + j * dlw, h0 + i * dlh, n), x, xv);
                LOADP(WCOORD(m0, 0, i, j), w, wv);
#pragma unroll
                for (int k = 0; k < NH; k++) acc[k] = v_f32_mac_b(xv[k], wv[k], acc[k]);
              }
          } else {
            const int mEnd = m0 + VL < M ? m0 + VL : M;
            for (int g = m0 / Mg; g * Mg < mEnd; g++) {
              const int lo = g * Mg - m0, hi = lo + Mg, whole = lo <= 0 && hi >= VL, c0 = g * Cg;
              for (int i = ilo; i < ihi; i++)
                for (int j = jlo; j < jhi; j++)
                  for (int ci = 0; ci < Cg; ci++) {
                    float64 xv[NH], wv[NH];
                    const float xs = SLOAD(COORD(c0 + ci, w0 + j * dlw, h0 + i * dlh, n), x);
#pragma unroll
                    for (int k = 0; k < NH; k++) xv[k] = (float64)xs;
                    LOADP(WCOORD(m0, ci, i, j), w, wv);
                    MAC_LANES(acc, xv, wv, whole, lo, hi);
                  }
            }
          }
          STOREP(COORD(m0, ow, oh, n), y, acc);
        }
      }
#else
  const int OW = get_dim_size(y, DIM_W);
  (void)OW;  // the element path only
  for (int n = start[3]; n < end[3]; n++)
    for (int m = start[2]; m < end[2]; m++)
      for (int oh = start[1]; oh < end[1]; oh++) {
        const int c0 = (m / Mg) * Cg, h0 = oh * sh - pt;
        int ilo, ihi;
        tapRange(h0, dlh, H, kh, &ilo, &ihi);
#if defined(HAS_BIAS)
        const float b = SLOAD(((int5){m, 0, 0, 0, 0}), bias);
#else
        const float b = 0.0f;
#endif
        for (int p = start[0]; p < end[0]; p++) {
          const int ow0 = p * VL;
#if defined(W_STEP1)
          {  // vectors along W (stride_w 1): lanes outside x read zeros
            float64 acc[NH];
#pragma unroll
            for (int k = 0; k < NH; k++) acc[k] = (float64)b;
            for (int ci = 0; ci < Cg; ci++)
              for (int i = ilo; i < ihi; i++) {
                int5 wc = WCOORD(m, ci, i, 0), xc = COORD(c0 + ci, ow0 - pl, h0 + i * dlh, n);
                for (int j = 0; j < kw; j++) {
                  const float64 wv = (float64)SLOAD(wc, w);
                  float64 xv[NH];
                  LOADP(xc, x, xv);
#pragma unroll
                  for (int k = 0; k < NH; k++) acc[k] = v_f32_mac_b(xv[k], wv, acc[k]);
                  wc[0] += 1;
                  xc[0] += dlw;
                }
              }
            STOREP(COORD(m, ow0, oh, n), y, acc);
          }
#else
          {
            const int last = OW - ow0 < VL ? OW - ow0 : VL;
            for (int l = 0; l < last; l++) {
              const int ow = ow0 + l, w0 = ow * sw - pl;
              int jlo, jhi;
              tapRange(w0, dlw, W, kw, &jlo, &jhi);
              float acc = b;
              for (int ci = 0; ci < Cg; ci++)
                for (int i = ilo; i < ihi; i++) {
                  int5 wc = WCOORD(m, ci, i, jlo), xc = COORD(c0 + ci, w0 + jlo * dlw, h0 + i * dlh, n);
                  for (int j = jlo; j < jhi; j++) {
                    acc = acc + SLOAD(xc, x) * SLOAD(wc, w);
                    wc[0] += 1;
                    xc[0] += dlw;
                  }
                }
              STORE1(COORD(m, ow, oh, n), y, (float64)acc);
            }
          }
#endif
        }
      }
#endif
}

#elif defined(OP_BWD_DATA)
void main(tensor dy, tensor w, tensor dx, int sh, int sw, int dlh, int dlw, int pt, int pl, int groups)
{
  const int5 start = get_index_space_offset();
  const int5 end = start + get_index_space_size();
  const int OH = get_dim_size(dy, DIM_H), OW = get_dim_size(dy, DIM_W);
  const int kh = get_dim_size(w, DIM_KH), kw = get_dim_size(w, DIM_KW), Cg = get_dim_size(w, DIM_WC);
  const int M = get_dim_size(dy, DIM_C), Mg = M / groups;
  const int64 lane = as_int64(read_lane_id_4b_b());
  (void)lane, (void)OW, (void)sw;  // not every path needs them
#if defined(NHWC)
  const int C = get_dim_size(dx, DIM_C);
  const int depthwise = Cg == 1 && Mg == 1;
  for (int n = start[3]; n < end[3]; n++)
    for (int ih = start[2]; ih < end[2]; ih++)
      for (int iw = start[1]; iw < end[1]; iw++)
        for (int p = start[0]; p < end[0]; p++) {
          const int c0 = p * VL;
          if (depthwise) {
            float64 acc[NH];
            ZERO(acc);
            for (int i = 0; i < kh; i++) {
              const int t = ih + pt - i * dlh;
              if (t < 0) break;
              const int oh = t / sh;
              if (oh * sh != t || oh >= OH) continue;
              for (int j = 0; j < kw; j++) {
                const int u = iw + pl - j * dlw;
                if (u < 0) break;
                const int ow = u / sw;
                if (ow * sw != u || ow >= OW) continue;
                float64 gv[NH], wv[NH];
                LOADP(COORD(c0, ow, oh, n), dy, gv);
                LOADP(WCOORD(c0, 0, i, j), w, wv);
#pragma unroll
                for (int k = 0; k < NH; k++) acc[k] = v_f32_mac_b(gv[k], wv[k], acc[k]);
              }
            }
            STOREP(COORD(c0, iw, ih, n), dx, acc);
          } else {
            const int last = C - c0 < VL ? C - c0 : VL;
            for (int l = 0; l < last; l++) {
              const int c = c0 + l, g = c / Cg, ci = c - g * Cg, mA = g * Mg;
              float64 acc[NH];
              ZERO(acc);
              for (int i = 0; i < kh; i++) {
                const int t = ih + pt - i * dlh;
                if (t < 0) break;
                const int oh = t / sh;
                if (oh * sh != t || oh >= OH) continue;
                for (int j = 0; j < kw; j++) {
                  const int u = iw + pl - j * dlw;
                  if (u < 0) break;
                  const int ow = u / sw;
                  if (ow * sw != u || ow >= OW) continue;
                  for (int mm = 0; mm < Mg; mm += VL) {
                    float64 gv[NH], wv[NH];
                    LOADP(COORD(mA + mm, ow, oh, n), dy, gv);
                    LOADP(WCOORD(mA + mm, ci, i, j), w, wv);
                    MAC_LANES(acc, gv, wv, Mg - mm >= VL, 0, Mg - mm);
                  }
                }
              }
              STORE1(COORD(c, iw, ih, n), dx, LANES_SUM(acc));
            }
          }
        }
#else
  const int W = get_dim_size(dx, DIM_W);
  (void)W;  // the element path only
  for (int n = start[3]; n < end[3]; n++)
    for (int c = start[2]; c < end[2]; c++)
      for (int ih = start[1]; ih < end[1]; ih++) {
        const int g = c / Cg, ci = c - g * Cg, mA = g * Mg;
        for (int p = start[0]; p < end[0]; p++) {
          const int iw0 = p * VL;
#if defined(W_STEP1)
          {  // vectors along W (stride_w 1): ow = iw + pl - j dlw; lanes outside dy read zeros
            float64 acc[NH];
            ZERO(acc);
            for (int m = mA; m < mA + Mg; m++)
              for (int i = 0; i < kh; i++) {
                const int t = ih + pt - i * dlh;
                if (t < 0) break;
                const int oh = t / sh;
                if (oh * sh != t || oh >= OH) continue;
                int5 wc = WCOORD(m, ci, i, 0), gc = COORD(m, iw0 + pl, oh, n);
                for (int j = 0; j < kw; j++) {
                  const float64 wv = (float64)SLOAD(wc, w);
                  float64 gv[NH];
                  LOADP(gc, dy, gv);
#pragma unroll
                  for (int k = 0; k < NH; k++) acc[k] = v_f32_mac_b(gv[k], wv, acc[k]);
                  wc[0] += 1;
                  gc[0] -= dlw;
                }
              }
            STOREP(COORD(c, iw0, ih, n), dx, acc);
          }
#else
          {
            const int last = W - iw0 < VL ? W - iw0 : VL;
            for (int l = 0; l < last; l++) {
              const int iw = iw0 + l;
              float acc = 0.0f;
              for (int m = mA; m < mA + Mg; m++)
                for (int i = 0; i < kh; i++) {
                  const int t = ih + pt - i * dlh;
                  if (t < 0) break;
                  const int oh = t / sh;
                  if (oh * sh != t || oh >= OH) continue;
                  for (int j = 0; j < kw; j++) {
                    const int u = iw + pl - j * dlw;
                    if (u < 0) break;
                    const int ow = u / sw;
                    if (ow * sw != u || ow >= OW) continue;
                    acc = acc + SLOAD(COORD(m, ow, oh, n), dy) * SLOAD(WCOORD(m, ci, i, j), w);
                  }
                }
              STORE1(COORD(c, iw, ih, n), dx, (float64)acc);
            }
          }
#endif
        }
      }
#endif
}

#elif defined(OP_BWD_WEIGHTS)
void main(tensor x, tensor dy, tensor dw, int sh, int sw, int dlh, int dlw, int pt, int pl, int groups)
{
  const int5 start = get_index_space_offset();
  const int5 end = start + get_index_space_size();
  const int H = get_dim_size(x, DIM_H), W = get_dim_size(x, DIM_W), N = get_dim_size(x, 3);
  const int OH = get_dim_size(dy, DIM_H), OW = get_dim_size(dy, DIM_W);
  const int kw = get_dim_size(dw, DIM_KW), Cg = get_dim_size(dw, DIM_WC);
  (void)kw, (void)W, (void)sw;  // not every path needs them
  const int M = get_dim_size(dy, DIM_C), Mg = M / groups;
  const int64 lane = as_int64(read_lane_id_4b_b());
  (void)lane;
#if defined(NHWC)
  const int depthwise = Cg == 1 && Mg == 1;
  for (int i = start[3]; i < end[3]; i++)
    for (int j = start[2]; j < end[2]; j++) {
      // The outputs whose tap (i, j) lies inside x.
      int olo, ohi, wlo, whi;
      tapRange(i * dlh - pt, sh, H, OH, &olo, &ohi);
      tapRange(j * dlw - pl, sw, W, OW, &wlo, &whi);
      for (int ci = start[1]; ci < end[1]; ci++)
        for (int p = start[0]; p < end[0]; p++) {
          const int m0 = p * VL;
          float64 acc[NH];
          ZERO(acc);
          if (depthwise) {
            for (int n = 0; n < N; n++)
              for (int oh = olo; oh < ohi; oh++)
                for (int ow = wlo; ow < whi; ow++) {
                  float64 gv[NH], xv[NH];
                  LOADP(COORD(m0, ow, oh, n), dy, gv);
                  LOADP(COORD(m0, ow * sw - pl + j * dlw, oh * sh - pt + i * dlh, n), x, xv);
#pragma unroll
                  for (int k = 0; k < NH; k++) acc[k] = v_f32_mac_b(gv[k], xv[k], acc[k]);
                }
          } else {
            const int mEnd = m0 + VL < M ? m0 + VL : M;
            for (int g = m0 / Mg; g * Mg < mEnd; g++) {
              const int lo = g * Mg - m0, hi = lo + Mg, whole = lo <= 0 && hi >= VL, c = g * Cg + ci;
              for (int n = 0; n < N; n++)
                for (int oh = olo; oh < ohi; oh++)
                  for (int ow = wlo; ow < whi; ow++) {
                    float64 gv[NH], xv[NH];
                    const float xs = SLOAD(COORD(c, ow * sw - pl + j * dlw, oh * sh - pt + i * dlh, n), x);
#pragma unroll
                    for (int k = 0; k < NH; k++) xv[k] = (float64)xs;
                    LOADP(COORD(m0, ow, oh, n), dy, gv);
                    MAC_LANES(acc, gv, xv, whole, lo, hi);
                  }
            }
          }
          STOREP(WCOORD(m0, ci, i, j), dw, acc);
        }
    }
#else
  for (int m = start[3]; m < end[3]; m++)
    for (int ci = start[2]; ci < end[2]; ci++)
      for (int i = start[1]; i < end[1]; i++) {
        const int c = (m / Mg) * Cg + ci;
        int olo, ohi;
        tapRange(i * dlh - pt, sh, H, OH, &olo, &ohi);
        for (int p = start[0]; p < end[0]; p++) {
          const int last = kw - p * VL < VL ? kw - p * VL : VL;
          for (int l = 0; l < last; l++) {
            const int j = p * VL + l;
            float64 sum;
#if defined(W_STEP1)
            {  // a dot product along OW: lanes past OW read zero dy, lanes outside x zero x
              float64 acc[NH];
              ZERO(acc);
              for (int n = 0; n < N; n++)
                for (int oh = olo; oh < ohi; oh++)
                  for (int ow0 = 0; ow0 < OW; ow0 += VL) {
                    float64 gv[NH], xv[NH];
                    LOADP(COORD(m, ow0, oh, n), dy, gv);
                    LOADP(COORD(c, ow0 - pl + j * dlw, oh * sh - pt + i * dlh, n), x, xv);
#pragma unroll
                    for (int k = 0; k < NH; k++) acc[k] = v_f32_mac_b(gv[k], xv[k], acc[k]);
                  }
              sum = LANES_SUM(acc);
            }
#else
            {
              int wlo, whi;
              tapRange(j * dlw - pl, sw, W, OW, &wlo, &whi);
              float s = 0.0f;
              for (int n = 0; n < N; n++)
                for (int oh = olo; oh < ohi; oh++)
                  for (int ow = wlo; ow < whi; ow++)
                    s = s + SLOAD(COORD(m, ow, oh, n), dy) *
                                SLOAD(COORD(c, ow * sw - pl + j * dlw, oh * sh - pt + i * dlh, n), x);
              sum = (float64)s;
            }
#endif
            STORE1(WCOORD(m, ci, i, j), dw, sum);
          }
        }
      }
#endif
}
#endif
