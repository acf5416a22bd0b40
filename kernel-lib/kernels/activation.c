// out = OP(x), elementwise, for the activations with parameters (glue/activation.cpp): alpha, beta and
// gamma are the node's (docs/kernel-lib.md); compiled once per operation (-DOP_ELU, ...) and data type
// (common.h: bf16 computes in f32 and rounds once).
#include "common.h"
#include "activation_math.h"

#if defined(OP_ELU)
#define F(x) act_elu(x, alpha)
#elif defined(OP_SELU)
#define F(x) (act_elu(x, alpha) * gamma)
#elif defined(OP_CELU)
// max(0, x) + min(0, alpha expm1(x / alpha)): the first term for x > 0, the second elsewhere.
#define F(x) v_f32_sel_grt_f32_b(x, 0.0f, x, act_expm1(v_div_f32(x, alpha)) * alpha)
#elif defined(OP_SOFTPLUS)
#define F(x) act_softplus(x)
#elif defined(OP_SOFTSIGN)
#define F(x) act_softsign(x)
#elif defined(OP_HARDSIGMOID)
#define F(x) act_hardsigmoid(x, alpha, beta)
#define SHORT_BODY
#elif defined(OP_HARDSWISH)
#define F(x) ((x) * act_hardsigmoid(x, alpha, beta))
#define SHORT_BODY
#elif defined(OP_MISH)
#define F(x) act_mish(x)
#elif defined(OP_SILU)
#define F(x) ((x) * v_sigmoid_f32(x))
#elif defined(OP_ERF)
#define F(x) erf_f32(x)
#elif defined(OP_THRESHOLDED_RELU)
#define F(x) v_f32_sel_leq_f32_b(x, alpha, 0.0f, x)  // NaN stays NaN
#define SHORT_BODY
#else
#error "compile with -DOP_<operation>"
#endif

// Two copies of a long body per iteration, but one for softplus in bf16, whose two halves' values do not
// fit the registers twice (2.28 of its bound unrolled; measured with bench/kernel_lib.py).
#if defined(OP_SOFTPLUS) && defined(DT_BF16)
#define ROW_UNROLL 1
#else
#define ROW_UNROLL 2
#endif

void main(tensor in, tensor out, float alpha, float beta, float gamma, int layout)
{
#if defined(SHORT_BODY)
    // A few VPU instructions a vector: the core's whole part in one loop, 8 vectors an iteration (common.h).
    FOR_EACH_POINT_FLAT(c, LANES, 8, layout == 2, STORE(c, out, VIA_F32(F, LD(c, in)));)
#else
    // Long bodies: a loop per row, whose set-up is small next to the row's work (as unary.c).
    int5 c = 0;
    FOR_EACH_ROW(c, layout == 2,
        UNROLL_PRAGMA(ROW_UNROLL)
        for (int d0 = d0Start; d0 < d0End; d0 += LANES) {
            c[0] = d0;
            STORE(c, out, VIA_F32(F, LD(c, in)));
        })
#endif
}
