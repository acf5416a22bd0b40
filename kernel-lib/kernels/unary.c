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
// bf16: the halves side by side (erf form 19,468 cycles, 21,121 in turn; tanh form 15,778 and 16,066).
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

// Short bodies: the core's whole part in one loop (FOR_EACH_POINT_FLAT), FLAT_U vectors per iteration, so
// that no row pays for a loop of its own; long ones: a loop per row (FOR_EACH_ROW), whose set-up is small
// next to the row's work, unrolled ROW_UNROLL times. The counts are the best measured with
// bench/kernel_lib.py (docs/kernel-lib.md, "Performance"): short bodies want many copies, so that the
// loop's step costs little per vector; long ones few, so that each value lives within the modulo
// schedule's interval.
//
// relu, abs and neg are bound by the scalar slot (a vector's one VPU instruction against its coordinate
// step and the flat loop's wraps): on parts of 16 rows or more they walk bands of 16 rows
// (FOR_EACH_POINT_BANDED), whose loops have no wraps to pay for (32 rows per core: 2,859 to 2,158 cycles
// in f32), and on parts of one to three rows in one band of exactly those rows, 16 vectors an iteration
// (3 rows per core: 313 to 232 cycles in f32, 181 to 136 in bf16).
#if defined(OP_RELU) || defined(OP_ABS) || defined(OP_NEG)
#define FLAT_U 16
#define BANDED
#elif defined(OP_RELU6) || (defined(OP_LEAKY_RELU) && !defined(DT_BF16))
#define FLAT_U 16
#elif defined(OP_LEAKY_RELU) && defined(DT_BF16)
#define FLAT_U 4  // eight VPU instructions a vector (through f32): 870 cycles at 16, 816 at 8, 792 at 4
#elif defined(OP_GELU)
#define ROW_UNROLL 1  // not unrolled: bf16 erf form 19,468 cycles, 33,444 unrolled twice (out of registers)
#elif defined(OP_EXP)
#define ROW_UNROLL 4
#elif defined(OP_RECIPROCAL) && defined(DT_BF16)
#define ROW_UNROLL 1
#else
#define ROW_UNROLL (256 / LANES)  // 4 in f32, 2 in bf16 (two f32 halves per vector)
#endif

#if defined(BANDED)
#define ELEMENTWISE(f) FOR_EACH_POINT_BANDED(c, LANES, FLAT_U, FLAT_U, FLAT_U, layout == 2, STORE(c, out, f(LD(c, in)));)
#elif defined(FLAT_U)
#define ELEMENTWISE(f) FOR_EACH_POINT_FLAT(c, LANES, FLAT_U, layout == 2, STORE(c, out, f(LD(c, in)));)
#else
#define ELEMENTWISE(f)                                        \
    FOR_EACH_ROW(c, layout == 2,                               \
        UNROLL_PRAGMA(ROW_UNROLL)                             \
        for (int d0 = d0Start; d0 < d0End; d0 += LANES) {     \
            c[0] = d0;                                        \
            STORE(c, out, f(LD(c, in)));                      \
        })
#endif

void main(tensor in, tensor out, float alpha, int approximate, int layout)
{
#if !defined(FLAT_U)
    int5 c = 0;
#endif
#if defined(APPLY_APPROXIMATE)
    if (approximate) {
        ELEMENTWISE(APPLY_APPROXIMATE)
        return;
    }
#endif
    ELEMENTWISE(APPLY)
}
