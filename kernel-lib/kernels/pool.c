// 2-D pooling, forward and backward (glue/pooling.cpp). Output (oh, ow) pools input rows oh sh - pt +
// i dh (i < kh) and columns ow sw - pl + j dw (j < kw), taps outside the input left out:
//   -DOP_MAX      x -> y, indices (i32: the flat ih W + iw of the first maximum in the scan order, rows
//                 then columns; a window with no input element gives -inf and -1)
//   -DOP_AVG      x -> y = sum / count: count the taps inside the input (countIncludePad 0), or inside the
//                 padded extent [-pt, hLim) x [-pl, wLim) (1); a division, rounded once
//   -DOP_MAX_BWD  dy, indices -> dx: dx[e] = sum of dy over the outputs whose index is e
//   -DOP_AVG_BWD  dy -> dx: dx[e] = sum of dy / count over the outputs whose window holds e
// The backward kernels compute each dx element from the output windows that contain it (no accumulation
// in memory, nothing shared between cores). -DNHWC: a point is VL channels (vectors); -DNCHW: a point is
// VL elements of dimension 0 (W or OW), computed one element at a time on the scalar unit (a strided
// window has no vector load), each stored as lane 0 of a vector.
#include "cnn.h"

#if defined(OP_MAX) || defined(OP_AVG)
#define FORWARD 1
#else
#define FORWARD 0
#endif

#if defined(OP_AVG) || defined(OP_AVG_BWD)
// The divisor of the window starting at (h0, w0).
static inline int windowCount(int h0, int w0, int kh, int kw, int dh, int dw, int H, int W, int hLim, int wLim,
                              int includePad) {
  int a, b, c, d;
  if (includePad) {  // h0 >= -pt always: only the far end clips
    tapRange(h0, dh, hLim, kh, &a, &b);
    tapRange(w0, dw, wLim, kw, &c, &d);
    a = 0;
    c = 0;
  } else {
    tapRange(h0, dh, H, kh, &a, &b);
    tapRange(w0, dw, W, kw, &c, &d);
  }
  const int rows = b > a ? b - a : 0, cols = d > c ? d - c : 0;
  return rows * cols;
}
#endif

#if FORWARD
#if defined(OP_MAX)
void main(tensor x, tensor y, tensor indices, int kh, int kw, int sh, int sw, int dh, int dw, int pt, int pl,
          int hLim, int wLim, int includePad)
#else
void main(tensor x, tensor y, int kh, int kw, int sh, int sw, int dh, int dw, int pt, int pl, int hLim, int wLim,
          int includePad)
#endif
{
  const int5 start = get_index_space_offset();
  const int5 end = start + get_index_space_size();
  const int H = get_dim_size(x, DIM_H), W = get_dim_size(x, DIM_W);
#if defined(NHWC)
  for (int n = start[3]; n < end[3]; n++)
    for (int oh = start[2]; oh < end[2]; oh++)
      for (int ow = start[1]; ow < end[1]; ow++) {
        const int h0 = oh * sh - pt, w0 = ow * sw - pl;
        int ilo, ihi, jlo, jhi;
        tapRange(h0, dh, H, kh, &ilo, &ihi);
        tapRange(w0, dw, W, kw, &jlo, &jhi);
        for (int p = start[0]; p < end[0]; p++) {
          const int c0 = p * VL;
#if defined(OP_MAX)
          float64 best[NH];
          int64 arg[NH];
          const int none = ilo < ihi && jlo < jhi ? (h0 + ilo * dh) * W + w0 + jlo * dw : -1;
#pragma unroll
          for (int k = 0; k < NH; k++) {
            best[k] = -__builtin_inff();
            arg[k] = (int64)none;
          }
#else
          float64 acc[NH];
#pragma unroll
          for (int k = 0; k < NH; k++) acc[k] = 0.0f;
#endif
          for (int i = ilo; i < ihi; i++) {
            const int ih = h0 + i * dh;
            for (int j = jlo; j < jhi; j++) {
              const int iw = w0 + j * dw;
              float64 v[NH];
              LOADP(COORD(c0, iw, ih, n), x, v);
#pragma unroll
              for (int k = 0; k < NH; k++) {
#if defined(OP_MAX)
                arg[k] = v_i32_sel_grt_f32_b(v[k], best[k], (int64)(ih * W + iw), arg[k]);
                best[k] = v_f32_max_b(best[k], v[k]);
#else
                acc[k] = acc[k] + v[k];
#endif
              }
            }
          }
          const int5 oc = COORD(c0, ow, oh, n);
#if defined(OP_MAX)
          STOREP(oc, y, best);
#pragma unroll
          for (int k = 0; k < NH; k++) v_i32_st_tnsr(pieceAt(oc, k), indices, arg[k]);
#else
          const float count = (float)windowCount(h0, w0, kh, kw, dh, dw, H, W, hLim, wLim, includePad);
#pragma unroll
          for (int k = 0; k < NH; k++) acc[k] = v_div_f32(acc[k], (float64)count);
          STOREP(oc, y, acc);
#endif
        }
      }
#else
  const int OW = get_dim_size(y, 0);
  for (int n = start[3]; n < end[3]; n++)
    for (int c = start[2]; c < end[2]; c++)
      for (int oh = start[1]; oh < end[1]; oh++) {
        const int h0 = oh * sh - pt;
        int ilo, ihi;
        tapRange(h0, dh, H, kh, &ilo, &ihi);
        for (int p = start[0]; p < end[0]; p++) {
          const int last = OW - p * VL < VL ? OW - p * VL : VL;
          for (int l = 0; l < last; l++) {
            const int ow = p * VL + l, w0 = ow * sw - pl;
            int jlo, jhi;
            tapRange(w0, dw, W, kw, &jlo, &jhi);
#if defined(OP_MAX)
            float best = -__builtin_inff();
            int arg = ilo < ihi && jlo < jhi ? (h0 + ilo * dh) * W + w0 + jlo * dw : -1;
#else
            float acc = 0.0f;
#endif
            for (int i = ilo; i < ihi; i++) {
              const int ih = h0 + i * dh;
              for (int j = jlo; j < jhi; j++) {
                const int iw = w0 + j * dw;
                const float v = SLOAD(COORD(c, iw, ih, n), x);
#if defined(OP_MAX)
                arg = v > best ? ih * W + iw : arg;
                best = v > best || v != v ? v : best;
#else
                acc = acc + v;
#endif
              }
            }
            const int5 oc = COORD(c, ow, oh, n);
#if defined(OP_MAX)
            STORE1(oc, y, (float64)best);
            v_i32_st_tnsr_partial(oc, indices, (int64)arg, 0, 0);
#else
            const float count = (float)windowCount(h0, w0, kh, kw, dh, dw, H, W, hLim, wLim, includePad);
            STORE1(oc, y, v_div_f32((float64)acc, (float64)count));
#endif
          }
        }
      }
#endif
}

#else  // backward

// Outputs o in [0, O) with o s - p + k d = e for some tap k < K: walked by k ascending. For each, body(o).
#if defined(OP_MAX_BWD)
void main(tensor dy, tensor indices, tensor dx, int kh, int kw, int sh, int sw, int dh, int dw, int pt, int pl,
          int hLim, int wLim, int includePad)
#else
void main(tensor dy, tensor dx, int kh, int kw, int sh, int sw, int dh, int dw, int pt, int pl, int hLim, int wLim,
          int includePad)
#endif
{
  const int5 start = get_index_space_offset();
  const int5 end = start + get_index_space_size();
  const int H = get_dim_size(dx, DIM_H), W = get_dim_size(dx, DIM_W);
  (void)H;  // the max's index needs W only
  const int OH = get_dim_size(dy, DIM_H), OW = get_dim_size(dy, DIM_W);
#if defined(NHWC)
  for (int n = start[3]; n < end[3]; n++)
    for (int ih = start[2]; ih < end[2]; ih++)
      for (int iw = start[1]; iw < end[1]; iw++)
        for (int p = start[0]; p < end[0]; p++) {
          const int c0 = p * VL;
          float64 acc[NH];
#pragma unroll
          for (int k = 0; k < NH; k++) acc[k] = 0.0f;
          for (int i = 0; i < kh; i++) {
            const int t = ih + pt - i * dh;
            if (t < 0) break;
            const int oh = t / sh;
            if (oh * sh != t || oh >= OH) continue;
            for (int j = 0; j < kw; j++) {
              const int u = iw + pl - j * dw;
              if (u < 0) break;
              const int ow = u / sw;
              if (ow * sw != u || ow >= OW) continue;
              const int5 oc = COORD(c0, ow, oh, n);
              float64 g[NH];
              LOADP(oc, dy, g);
#if defined(OP_MAX_BWD)
              const int64 flat = (int64)(ih * W + iw);
#pragma unroll
              for (int k = 0; k < NH; k++)
                acc[k] = acc[k] + v_f32_sel_eq_i32_b(v_i32_ld_tnsr_b(pieceAt(oc, k), indices), flat, g[k], 0.0f);
#else
              const float count = (float)windowCount(oh * sh - pt, ow * sw - pl, kh, kw, dh, dw, H, W, hLim, wLim,
                                                     includePad);
#pragma unroll
              for (int k = 0; k < NH; k++) acc[k] = acc[k] + v_div_f32(g[k], (float64)count);
#endif
            }
          }
          STOREP(COORD(c0, iw, ih, n), dx, acc);
        }
#else
  for (int n = start[3]; n < end[3]; n++)
    for (int c = start[2]; c < end[2]; c++)
      for (int ih = start[1]; ih < end[1]; ih++)
        for (int p = start[0]; p < end[0]; p++) {
          const int last = W - p * VL < VL ? W - p * VL : VL;
          for (int l = 0; l < last; l++) {
            const int iw = p * VL + l;
#if defined(OP_MAX_BWD)
            float acc = 0.0f;
#else
            float64 acc = 0.0f;
#endif
            for (int i = 0; i < kh; i++) {
              const int t = ih + pt - i * dh;
              if (t < 0) break;
              const int oh = t / sh;
              if (oh * sh != t || oh >= OH) continue;
              for (int j = 0; j < kw; j++) {
                const int u = iw + pl - j * dw;
                if (u < 0) break;
                const int ow = u / sw;
                if (ow * sw != u || ow >= OW) continue;
                const int5 oc = COORD(c, ow, oh, n);
                const float g = SLOAD(oc, dy);
#if defined(OP_MAX_BWD)
                acc = s_i32_ld_g(gen_addr(oc, indices)) == ih * W + iw ? acc + g : acc;
#else
                const float count = (float)windowCount(oh * sh - pt, ow * sw - pl, kh, kw, dh, dw, H, W, hLim, wLim,
                                                       includePad);
                acc = acc + v_div_f32((float64)g, (float64)count);
#endif
              }
            }
            STORE1(COORD(c, iw, ih, n), dx, (float64)acc);
          }
        }
#endif
}

#endif
