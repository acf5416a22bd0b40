// out = OP(in), elementwise over tensors of the same shape (rank 1 to 5); compiled once per operation
// (-DOP_RELU, ...) and data type (common.h). Scalars: alpha (leaky_relu's slope) and approximate (gelu:
// 0 the exact form, 1 the tanh approximation); the other operations ignore them.
#include "common.h"
#include "gelu_math.h"

#if defined(OP_RELU)
#define APPLY(x) VMAX(x, (VT)0)
#elif defined(OP_RELU6)
#define APPLY(x) VMIN(VMAX(x, (VT)0), (VT)6)
#elif defined(OP_LEAKY_RELU)
static inline float64 leaky(float64 x, float alpha) { return v_f32_sel_less_f32_b(x, 0.0f, x * alpha, x); }
#define LEAKY(x) leaky(x, alpha)
#define APPLY(x) VIA_F32(LEAKY, x)
#elif defined(OP_GELU)
#define APPLY(x) VIA_F32(gelu_erf_f32, x)
#define APPLY_APPROXIMATE(x) VIA_F32(gelu_tanh_f32, x)
#elif defined(OP_SIGMOID)
#define APPLY(x) VIA_F32(v_sigmoid_f32, x)
#elif defined(OP_TANH)
#define APPLY(x) VIA_F32(v_tanh_f32, x)
#elif defined(OP_EXP)
#define APPLY(x) VIA_F32(v_exp_f32, x)
#elif defined(OP_LOG)
#define APPLY(x) VIA_F32(v_log_f32, x)
#elif defined(OP_SQRT)
#define APPLY(x) VIA_F32(v_sqrt_f32, x)
#elif defined(OP_RSQRT)
#define APPLY(x) VIA_F32(v_rsqrt_f32, x)
#elif defined(OP_RECIPROCAL)
#define APPLY(x) VIA_F32(v_reciprocal_f32, x)
#elif defined(OP_ABS)
#define APPLY(x) VABS(x)
#elif defined(OP_NEG)
#define APPLY(x) (-(x))
#else
#error "compile with -DOP_<operation>"
#endif

// The row loop's unroll count, per operation and type: the best of 1, 2, 3, 4, 6 and 8 measured with
// bench/kernel_lib.py (docs/kernel-lib.md, "Performance"). Short bodies want many copies to hide the row
// loop's overhead; long ones few, so that each value lives within the modulo schedule's interval.
#if defined(OP_RELU) || defined(OP_ABS) || defined(OP_NEG) || defined(OP_GELU)
#define ROW_UNROLL 8
#elif defined(OP_RELU6)
#define ROW_UNROLL 4
#elif defined(OP_EXP)
#define ROW_UNROLL 2
#elif (defined(OP_LEAKY_RELU) || defined(OP_TANH)) && defined(DT_BF16)
#define ROW_UNROLL 1
#elif defined(OP_LEAKY_RELU)
#define ROW_UNROLL 8
#else
#define ROW_UNROLL (256 / LANES)  // 4 in f32, 2 in bf16 (two f32 halves per vector)
#endif

#define ELEMENTWISE(f)                                        \
    FOR_EACH_ROW(c,                                           \
        UNROLL_PRAGMA(ROW_UNROLL)                             \
        for (int d0 = d0Start; d0 < d0End; d0 += LANES) {     \
            c[0] = d0;                                        \
            STORE(c, out, f(LD(c, in)));                      \
        })

void main(tensor in, tensor out, float alpha, int approximate)
{
    int5 c = 0;
#if defined(APPLY_APPROXIMATE)
    if (approximate) {
        ELEMENTWISE(APPLY_APPROXIMATE)
        return;
    }
#endif
    ELEMENTWISE(APPLY)
}
