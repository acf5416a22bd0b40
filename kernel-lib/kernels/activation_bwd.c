// dx = dy OP'(x), elementwise, for the activations of activation.c: x is the forward input; alpha, beta and
// gamma as in the forward node (glue/activation.cpp).
#include "common.h"
#include "activation_math.h"

#if defined(OP_ELU)
#define G(dy, x) act_elu_grad(dy, x, alpha)
#elif defined(OP_SELU)
#define G(dy, x) (act_elu_grad(dy, x, alpha) * gamma)
#elif defined(OP_CELU)
// 1 for x > 0, exp(x / alpha) elsewhere.
#define G(dy, x) v_f32_sel_grt_f32_b(x, 0.0f, dy, dy * v_exp_f32(v_div_f32(x, alpha)))
#elif defined(OP_SOFTPLUS)
#define G(dy, x) ((dy) * v_sigmoid_f32(x))
#elif defined(OP_SOFTSIGN)
#define G(dy, x) act_softsign_grad(dy, x)
#elif defined(OP_HARDSIGMOID)
#define G(dy, x) ((dy) * act_hardsigmoid_slope(x, alpha, beta))
#define SHORT_BODY
#elif defined(OP_HARDSWISH)
// d/dx (x h(x)) = h(x) + x h'(x).
#define G(dy, x) ((dy) * v_f32_mac_b(x, act_hardsigmoid_slope(x, alpha, beta), act_hardsigmoid(x, alpha, beta)))
#define SHORT_BODY
#elif defined(OP_MISH)
#define G(dy, x) act_mish_grad(dy, x)
#elif defined(OP_SILU)
#define G(dy, x) act_silu_grad(dy, x)
#elif defined(OP_ERF)
#define G(dy, x) act_erf_grad(dy, x)
#elif defined(OP_THRESHOLDED_RELU)
#define G(dy, x) v_f32_sel_grt_f32_b(x, alpha, dy, 0.0f)
#define SHORT_BODY
#else
#error "compile with -DOP_<operation>"
#endif

void main(tensor dy, tensor x, tensor dx, float alpha, float beta, float gamma, int layout)
{
#if defined(SHORT_BODY)
    // A few VPU instructions a vector: the core's whole part in one loop, 8 vectors an iteration (common.h).
    FOR_EACH_POINT_FLAT(c, LANES, 8, layout == 2, STORE(c, dx, VIA_F32_2(G, LD(c, dy), LD(c, x)));)
    return;
#endif
    int5 c = 0;
    FOR_EACH_ROW(c, layout == 2,
        UNROLL_PRAGMA(2)
        for (int d0 = d0Start; d0 < d0End; d0 += LANES) {
            c[0] = d0;
            STORE(c, dx, VIA_F32_2(G, LD(c, dy), LD(c, x)));
        })
}
