// ONNX Resize (opset 11-13), nearest and linear, over TPC dimensions 0 and 1 (glue/resize.cpp); the other
// dimensions keep their sizes. Output coordinate o of a dimension reads the source coordinate
//   half_pixel (o + 0.5) / scale - 0.5      asymmetric o / scale      tf_half_pixel_for_nn (o + 0.5) / scale
//   align_corners o (n - 1) / (L - 1), 0 where L = 1      pytorch_half_pixel: half_pixel, -0.5 where L = 1
// with n the input's size, scale the node's factor and L = scale n (f32), as ONNX's reference defines them
// (computed here in f32, each operation rounded once). nearest takes the source element by nearest_mode
// (an integral coordinate is itself); linear weighs the two neighbours of each dimension, dimension 0 first,
// then dimension 1 (ONNX's order). Coordinates outside the input take its edge element. Each output element
// is computed on the scalar unit (the source coordinates differ lane by lane): correct, not fast.
#include "common.h"

#if defined(DT_F32)
#define S_LOAD(c) s_f32_ld_g(gen_addr(c, in))
#define S_STORE(c, v) s_f32_st_g(gen_addr(c, out), v)
#else
#define S_LOAD(c) s_convert_bf16_to_f32(s_bf16_ld_g(gen_addr(c, in)))
#define S_STORE(c, v) s_bf16_st_g(gen_addr(c, out), s_convert_f32_to_bf16(v))
#endif

// The largest integer not above v (|v| < 2^31).
static inline int floorInt(float v)
{
    int t = s_convert_f32_to_i32(v, SW_RZ);
    return (float)t > v ? t - 1 : t;
}

// The scalar unit has no divide: a / b for b normal from a reciprocal by Newton's iteration, the
// quotient corrected once from its exact residual (a - q b from 12-bit halves, each product exact), so it
// is rounded once as a division would be (up to the correction's rare miss next to a rounding boundary).
static inline float bitsToFloat(int i)
{
    union { int i; float f; } u;
    u.i = i;
    return u.f;
}
static inline int floatToBits(float f)
{
    union { int i; float f; } u;
    u.f = f;
    return u.i;
}
static inline float hi12(float x) { return bitsToFloat(floatToBits(x) & (int)0xfffff000); }
static inline float divide(float a, float b)
{
    if (b < 0.0f) {
        a = -a;
        b = -b;
    }
    float y = bitsToFloat(0x7ef311c7 - floatToBits(b));  // 1/b within 12%
#pragma unroll
    for (int k = 0; k < 4; k++) y = y * (2.0f - b * y);
    float q = a * y;
    const float qh = hi12(q), ql = q - qh, bh = hi12(b), bl = b - bh;
    const float r = (((a - qh * bh) - qh * bl) - ql * bh) - ql * bl;
    return q + r * y;
}

static inline float sourceOf(int o, float scale, float length, int n, int mode)
{
    const float x = (float)o;
    if (mode == 1) return divide(x, scale);
    if (mode == 2) return length == 1.0f ? 0.0f : divide((float)(o * (n - 1)), length - 1.0f);
    if (mode == 3 && length == 1.0f) return -0.5f;
    if (mode == 4) return divide(x + 0.5f, scale);
    return divide(x + 0.5f, scale) - 0.5f;
}

static inline int clampInt(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

// The neighbours i0 <= i1 of source coordinate v in [0, n) and the weight w of i1 (linear), or the
// nearest element in i0 = i1 (nearest, by nearestMode).
static inline void neighbours(float v, int n, int linear, int nearestMode, int* i0, int* i1, float* w)
{
    const int f = floorInt(v);
    const float ratio = v - (float)f;
    if (linear) {
        *i0 = clampInt(f, 0, n - 1);
        *i1 = clampInt(f + 1, 0, n - 1);
        *w = ratio;
        return;
    }
    int up;
    if (ratio == 0.0f) up = 0;
    else if (nearestMode == 0) up = ratio > 0.5f;
    else if (nearestMode == 1) up = ratio >= 0.5f;
    else up = nearestMode == 3;
    *i0 = *i1 = clampInt(f + up, 0, n - 1);
    *w = 0.0f;
}

void main(tensor in, tensor out, int mode, int coordinateMode, int nearestMode, float scale0, float scale1)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    const int n0 = get_dim_size(in, 0), n1 = get_dim_size(in, 1), outSize0 = get_dim_size(out, 0);
    const float length0 = scale0 * (float)n0, length1 = scale1 * (float)n1;
    const int linear = mode == 1;
    for (int d4 = start[4]; d4 < end[4]; d4++)
        for (int d3 = start[3]; d3 < end[3]; d3++)
            for (int d2 = start[2]; d2 < end[2]; d2++)
                for (int d1 = start[1]; d1 < end[1]; d1++) {
                    int y0, y1;
                    float wy;
                    neighbours(sourceOf(d1, scale1, length1, n1, coordinateMode), n1, linear, nearestMode, &y0, &y1, &wy);
                    for (int p0 = start[0]; p0 < end[0]; p0++) {
                        const int o0 = p0 * LANES;
                        const int last = outSize0 - o0 < LANES ? outSize0 - o0 : LANES;
                        int5 oc = {o0, d1, d2, d3, d4};
                        for (int l = 0; l < last; l++) {
                            int x0, x1;
                            float wx;
                            neighbours(sourceOf(o0 + l, scale0, length0, n0, coordinateMode), n0, linear, nearestMode, &x0,
                                       &x1, &wx);
                            int5 c = {x0, y0, d2, d3, d4};
                            float r;
                            if (linear) {
                                const float a00 = S_LOAD(c);
                                c[0] = x1;
                                const float a01 = S_LOAD(c);
                                c[1] = y1;
                                const float a11 = S_LOAD(c);
                                c[0] = x0;
                                const float a10 = S_LOAD(c);
                                const float r0 = (1.0f - wx) * a00 + wx * a01;
                                const float r1 = (1.0f - wx) * a10 + wx * a11;
                                r = (1.0f - wy) * r0 + wy * r1;
                            } else {
                                r = S_LOAD(c);
                            }
                            S_STORE(oc, r);
                            oc[0] += 1;
                        }
                    }
                }
}
