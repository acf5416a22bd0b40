// dx = OP'(dy, v), elementwise: v is the forward input x (relu, leaky_relu, gelu) or the forward output y
// (sigmoid, tanh), as the frameworks' backward functions take them. Scalars as unary.c.
#include "common.h"
#include "gelu_math.h"

#if defined(OP_RELU)
static inline float64 grad(float64 dy, float64 x) { return v_f32_sel_grt_f32_b(x, 0.0f, dy, 0.0f); }
#define GRAD(dy, x) VIA_F32_2(grad, dy, x)
#elif defined(OP_LEAKY_RELU)
static inline float64 grad(float64 dy, float64 x, float alpha) { return v_f32_sel_grt_f32_b(x, 0.0f, dy, dy * alpha); }
#define GRAD_ALPHA(dy, x) grad(dy, x, alpha)
#define GRAD(dy, x) VIA_F32_2(GRAD_ALPHA, dy, x)
#elif defined(OP_GELU)
static inline float64 grad(float64 dy, float64 x) { return dy * gelu_erf_grad_f32(x); }
static inline float64 gradApproximate(float64 dy, float64 x) { return dy * gelu_tanh_grad_f32(x); }
// bf16: both forms' two halves side by side (the erf form 19,864 cycles, 22,165 in turn; the tanh form,
// one vector per iteration, 16,243, 17,839 in turn).
#define GRAD(dy, x) VIA_F32_2(grad, dy, x)
#define GRAD_APPROXIMATE(dy, x) VIA_F32_2(gradApproximate, dy, x)
#elif defined(OP_SIGMOID)
// dy y (1 - y); 1 - y is exact for y in [0.5, 1].
static inline float64 grad(float64 dy, float64 y) { return dy * y * (1.0f - y); }
#define GRAD(dy, y) VIA_F32_2(grad, dy, y)
#elif defined(OP_TANH)
// dy (1 - y^2) as dy (1 - y)(1 + y): no cancellation next to |y| = 1.
static inline float64 grad(float64 dy, float64 y) { return dy * ((1.0f - y) * (1.0f + y)); }
#define GRAD(dy, y) VIA_F32_2(grad, dy, y)
#else
#error "compile with -DOP_<operation>"
#endif

// The short gradients (all but gelu): the core's whole part in one loop of FLAT_U vectors per iteration
// (common.h, FOR_EACH_POINT_FLAT); gelu's long one a loop per row, whose set-up is small next to it. Of
// 4, 8 and 16 (bench/kernel_lib.py, 2026-11-28): 16 for every f32 gradient, 8 for every bf16 one (twice
// the instructions a vector, through f32); 4 was slower for all.
#if defined(DT_F32)
#define FLAT_U 16
#else
#define FLAT_U 8
#endif
#if !defined(OP_GELU)
#define ELEMENTWISE(g) FOR_EACH_POINT_FLAT(c, LANES, FLAT_U, layout == 2, STORE(c, dx, g(LD(c, dy), LD(c, v)));)
#else
// The tanh form's loop is not unrolled (UNROLL_PRAGMA(1) as `unroll`): its one copy's 74 VPU operations
// overlap over five stages at II 75 in f32, where two copies side by side needed more vector registers than
// the core has below II 175 (23,911 cycles, now 14,992).
#define ROW_LOOP_OF(g, unroll)                                          \
    FOR_EACH_ROW(c, layout == 2,                                         \
        unroll                                                           \
        for (int d0 = d0Start; d0 < d0End; d0 += LANES) {               \
            c[0] = d0;                                                  \
            STORE(c, dx, g(LD(c, dy), LD(c, v)));                       \
        })
#define ELEMENTWISE(g) ROW_LOOP_OF(g, )
#endif

void main(tensor dy, tensor v, tensor dx, float alpha, int approximate, int layout)
{
#if defined(OP_GELU)
    int5 c = 0;
#endif
#if defined(GRAD_APPROXIMATE)
    if (approximate) {
        ROW_LOOP_OF(GRAD_APPROXIMATE, UNROLL_PRAGMA(1))
        return;
    }
#endif
    ELEMENTWISE(GRAD)
}
