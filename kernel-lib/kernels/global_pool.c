// Global pooling over H and W (glue/pooling.cpp): x -> y with H and W of size 1.
//   -DOP_GAVG  the mean: the f32 sum divided by H W (one rounding of the quotient)
//   -DOP_GMAX  the maximum
// -DNHWC: a point is VL channels of one image, summed over the plane vector by vector. -DNCHW: a point is
// one (c, n) plane, summed along W in vectors (the lanes past W read as 0; the maximum masks them), the
// lanes combined in a tree at the end, the result stored as lane 0 of a vector.
#include "cnn.h"

#if defined(OP_GAVG)
#define INIT 0.0f
#define COMBINE(a, v) ((a) + (v))
#define LANES_OF(a) v_f32_reduce_add(a)
#else
#define INIT (-__builtin_inff())
#define COMBINE(a, v) v_f32_max_b(a, v)
#define LANES_OF(a) v_f32_reduce_max(a)
#endif

void main(tensor x, tensor y)
{
  const int5 start = get_index_space_offset();
  const int5 end = start + get_index_space_size();
  const int H = get_dim_size(x, DIM_H), W = get_dim_size(x, DIM_W);
#if defined(OP_GAVG)
  const float64 planeSize = (float64)(float)(H * W);
#endif
#if defined(NHWC)
  for (int n = start[3]; n < end[3]; n++)
    for (int p = start[0]; p < end[0]; p++) {
      const int c0 = p * VL;
      float64 acc[NH];
#pragma unroll
      for (int k = 0; k < NH; k++) acc[k] = INIT;
      for (int h = 0; h < H; h++)
        for (int w = 0; w < W; w++) {
          float64 v[NH];
          LOADP(COORD(c0, w, h, n), x, v);
#pragma unroll
          for (int k = 0; k < NH; k++) acc[k] = COMBINE(acc[k], v[k]);
        }
#if defined(OP_GAVG)
#pragma unroll
      for (int k = 0; k < NH; k++) acc[k] = v_div_f32(acc[k], planeSize);
#endif
      STOREP(COORD(c0, 0, 0, n), y, acc);
    }
#else
#if defined(OP_GMAX)
  const int64 lane = as_int64(read_lane_id_4b_b());
#endif
  for (int n = start[3]; n < end[3]; n++)
    for (int c = start[2]; c < end[2]; c++) {
      float64 acc = INIT;
      for (int h = 0; h < H; h++)
        for (int w = 0; w < W; w += VL) {
          float64 v[NH];
          LOADP(COORD(c, w, h, n), x, v);
#pragma unroll
          for (int k = 0; k < NH; k++) {
#if defined(OP_GMAX)
            v[k] = v_f32_sel_less_i32_b(lane, (int64)(W - w - 64 * k), v[k], -__builtin_inff());
#endif
            acc = COMBINE(acc, v[k]);
          }
        }
      acc = LANES_OF(acc);
#if defined(OP_GAVG)
      acc = v_div_f32(acc, planeSize);
#endif
      STORE1(COORD(c, 0, 0, n), y, acc);
    }
#endif
}
