/* Node parameters of the TPC kernel library (libtpc_kernels.so): one C structure per kernel family, passed
 * as HabanaKernelParams::nodeParams (nodeParamsSize = sizeof the structure). A null nodeParams gives every
 * field its default. docs/kernel-lib.md lists the GUIDs of each family and what each field means. */
#ifndef TPC_KERNELS_PARAMS_H
#define TPC_KERNELS_PARAMS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Unary and unary backward kernels (relu_fwd_f32, gelu_bwd_bf16, ...). */
typedef struct tpc_kernels_unary_params {
  float alpha;         /* leaky_relu's negative slope (default 0.01) */
  int32_t approximate; /* gelu: 0 the exact form (erf, default), 1 the tanh approximation */
} tpc_kernels_unary_params;

/* The activations with parameters and their backward (elu_fwd_f32, selu_bwd_bf16, ...,
 * docs/kernel-lib.md): a GUID without nodeParams takes ONNX's defaults for its operation (elu and celu
 * alpha 1; selu alpha 1.6732632, gamma 1.0507010; hardsigmoid alpha 0.2, beta 0.5; hardswish alpha 1/6,
 * beta 0.5; thresholded_relu alpha 1); the others ignore the fields. */
typedef struct tpc_kernels_activation_params {
  float alpha;
  float beta;
  float gamma;
} tpc_kernels_activation_params;

/* clamp_fwd_*: min(max(x, low), high). */
typedef struct tpc_kernels_clamp_params {
  float low;  /* default -inf */
  float high; /* default +inf */
} tpc_kernels_clamp_params;

/* Reductions, softmax, log-softmax and their backward: the TPC dimension reduced (0: the last NumPy axis).
 * The reductions also take `dims`, a bit per TPC dimension (bit d: dimension d) to reduce several at once
 * (0: just `dim`), and argmax/argmin `select_last` (1: the last index of the extreme, not the first). */
typedef struct tpc_kernels_reduce_params {
  int32_t dim;         /* default 0 */
  uint32_t dims;       /* default 0 */
  int32_t select_last; /* default 0 */
} tpc_kernels_reduce_params;

/* layernorm, rmsnorm: normalized over dimension dim; eps added to the variance (mean square). */
typedef struct tpc_kernels_norm_params {
  int32_t dim; /* default 0 */
  float eps;   /* default 1e-5 */
} tpc_kernels_norm_params;

/* transpose_fwd_*: output TPC dimension d is input dimension perm[d] (default: the identity). */
typedef struct tpc_kernels_transpose_params {
  int32_t perm[5];
} tpc_kernels_transpose_params;

/* slice_fwd_*: output element o reads input element start[d] + step[d] o[d] in each TPC dimension d (the
 * output's shape gives the counts; default start 0, step 1). */
typedef struct tpc_kernels_slice_params {
  int32_t start[5];
  int32_t step[5];
} tpc_kernels_slice_params;

/* pad_fwd_*: before[d] and after[d] elements added in TPC dimension d; mode 0 fills them with value
 * (converted to the tensor's type), 1 repeats the edge element, 2 reflects about the edge (default 0, 0). */
typedef struct tpc_kernels_pad_params {
  int32_t before[5];
  int32_t after[5];
  int32_t mode;
  float value;
} tpc_kernels_pad_params;

/* trilu_fwd_*: keeps the elements of column j and row i (TPC dimensions 0 and 1) with j - i >= k (upper = 1)
 * or j - i <= k (upper = 0), zeroes the others (default k 0, upper 1). */
typedef struct tpc_kernels_trilu_params {
  int32_t k;
  int32_t upper;
} tpc_kernels_trilu_params;

/* concat_fwd_*, gather_fwd_*: the TPC dimension joined along or gathered from (default 0). */
typedef struct tpc_kernels_axis_params {
  int32_t dim;
} tpc_kernels_axis_params;

/* mod_fwd_*: the remainder's sign: 0 the divisor's (Python's %, integers only), 1 the dividend's (C's fmod). */
typedef struct tpc_kernels_mod_params {
  int32_t fmod; /* default 0 */
} tpc_kernels_mod_params;

/* nll_loss_fwd_*, softmax_cross_entropy_fwd_*: ONNX's reductions (0 none, 1 sum, 2 mean: the sum over the
 * weights used), and the label ignored when has_ignore is 1 (default 2, 0, 0). */
typedef struct tpc_kernels_loss_params {
  int32_t reduction;
  int32_t has_ignore;
  int32_t ignore_index;
} tpc_kernels_loss_params;

/* gemm_fwd_*: out = act(op(A) op(B) + bias). */
typedef struct tpc_kernels_gemm_params {
  int32_t transpose_a; /* op(A) = A^T: A is stored [K, M] (default 0) */
  int32_t transpose_b; /* op(B) = B^T: B is stored [N, K] (default 0) */
  int32_t activation;  /* 0 none (default), 1 relu, 2 gelu (tanh approximation) */
} tpc_kernels_gemm_params;

/* random_uniform_fwd_f32, random_normal_fwd_f32, dropout_fwd_*, dropout_bwd_*: Philox4x32-10 streams. */
typedef struct tpc_kernels_random_params {
  uint64_t seed;   /* the Philox key (default 0) */
  uint64_t offset; /* the high half of the Philox counter (default 0) */
  float low;       /* uniform: [low, high) (default 0, 1) */
  float high;
  float mean;      /* normal (default 0, 1) */
  float std;
  float p;         /* dropout: the probability of dropping an element, [0, 1) (default 0.5) */
} tpc_kernels_random_params;

/* sgd_fwd_*: momentum SGD with weight decay, in place. */
typedef struct tpc_kernels_sgd_params {
  float lr;           /* default 0.01 */
  float momentum;     /* default 0 */
  float weight_decay; /* default 0 */
} tpc_kernels_sgd_params;

/* adamw_fwd_*: AdamW (decoupled weight decay), in place. */
typedef struct tpc_kernels_adamw_params {
  float lr;           /* default 0.001 */
  float beta1;        /* default 0.9 */
  float beta2;        /* default 0.999 */
  float eps;          /* default 1e-8 */
  float weight_decay; /* default 0.01 */
  int32_t step;       /* the step number, from 1 (default 1) */
} tpc_kernels_adamw_params;

/* maxpool2d_*, avgpool2d_* (forward and backward) on 4-D tensors: NCHW (layout 0, TPC dimensions
 * [W, H, C, N]) or NHWC (layout 1, [C, W, H, N]). Output (oh, ow) pools input rows oh stride[0] - pads[0] +
 * i dilation[0] (i < kernel[0]) and columns likewise with index 1; pads are top, left, bottom, right. */
typedef struct tpc_kernels_pool_params {
  int32_t kernel[2];         /* kh, kw (default 1, 1) */
  int32_t stride[2];         /* sh, sw (default 1, 1) */
  int32_t pads[4];           /* top, left, bottom, right (default 0) */
  int32_t dilation[2];       /* dh, dw (default 1, 1) */
  int32_t ceil_mode;         /* output size rounded up (default 0: down) */
  int32_t count_include_pad; /* avgpool: the divisor counts the padding (default 0) */
  int32_t layout;            /* 0 NCHW (default), 1 NHWC */
} tpc_kernels_pool_params;

/* global_avgpool_fwd_*, global_maxpool_fwd_*: the layout of the 4-D tensors (0 NCHW, 1 NHWC). */
typedef struct tpc_kernels_layout_params {
  int32_t layout;
} tpc_kernels_layout_params;

/* batchnorm_fwd_*, batchnorm_bwd_* on 4-D tensors (layout as for pooling); per-channel tensors f32. */
typedef struct tpc_kernels_batchnorm_params {
  float eps;                    /* added to the variance (default 1e-5) */
  float momentum;               /* running = momentum running + (1 - momentum) batch (ONNX's; default 0.9) */
  int32_t training;             /* 1: batch statistics, running ones updated (default); 0: the running ones */
  int32_t unbiased_running_var; /* 0: the running variance takes the biased batch variance (ONNX's, default);
                                   1: the unbiased one, times M/(M-1) (PyTorch's) */
  int32_t layout;               /* 0 NCHW (default), 1 NHWC */
} tpc_kernels_batchnorm_params;

/* instancenorm_fwd_*, groupnorm_fwd_* on 4-D tensors; gamma and beta f32 vectors of C. */
typedef struct tpc_kernels_groupnorm_params {
  float eps;      /* default 1e-5 */
  int32_t groups; /* groupnorm: groups of C/groups channels (default 1); instancenorm ignores it */
  int32_t layout; /* 0 NCHW (default), 1 NHWC (instancenorm only) */
} tpc_kernels_groupnorm_params;

/* cumsum_fwd_*: running sums along TPC dimension dim; exclusive 1 leaves each element out of its own sum
 * (the first output is 0), reverse 1 sums from the row's end (default 0, 0, 0). */
typedef struct tpc_kernels_cumsum_params {
  int32_t dim;
  int32_t exclusive;
  int32_t reverse;
} tpc_kernels_cumsum_params;

/* topk_fwd_*: the k largest (largest 1) or smallest (0) elements along TPC dimension dim, sorted, the lower
 * position first among equal values (default 0, 1, 1). */
typedef struct tpc_kernels_topk_params {
  int32_t dim;
  int32_t k;
  int32_t largest;
} tpc_kernels_topk_params;

/* resize_fwd_*: ONNX Resize (opset 11-13) over TPC dimensions 0 and 1 (the last two NumPy axes). mode 0
 * nearest, 1 linear; coordinate_mode 0 half_pixel, 1 asymmetric, 2 align_corners, 3 pytorch_half_pixel,
 * 4 tf_half_pixel_for_nn; nearest_mode 0 round_prefer_floor, 1 round_prefer_ceil, 2 floor, 3 ceil; scale[d]
 * the factor of TPC dimension d (ONNX's scales, or output/input for sizes; 0: output/input) (default 0, 0,
 * 0, {0, 0}). */
typedef struct tpc_kernels_resize_params {
  int32_t mode;
  int32_t coordinate_mode;
  int32_t nearest_mode;
  float scale[2];
} tpc_kernels_resize_params;

/* conv2d_fwd_*, conv2d_bwd_data_*, conv2d_bwd_weights_* on 4-D tensors, layout as for pooling: NCHW (layout 0)
 * with w in ONNX's [M, C/groups, kH, kW], or NHWC (layout 1) with w [kH, kW, C/groups, M] (NumPy order; TPC
 * dimensions [M, C/groups, kW, kH]). The window's size is w's (dw's). Output (oh, ow) reads input rows
 * oh stride[0] - pads[0] + i dilation[0] (i < kH) and columns likewise with index 1; pads are top, left,
 * bottom, right. */
typedef struct tpc_kernels_conv_params {
  int32_t stride[2];   /* sh, sw (default 1, 1) */
  int32_t pads[4];     /* top, left, bottom, right (default 0) */
  int32_t dilation[2]; /* dh, dw (default 1, 1) */
  int32_t groups;      /* C and M in groups of C/groups and M/groups channels (default 1) */
  int32_t layout;      /* 0 NCHW (default), 1 NHWC */
} tpc_kernels_conv_params;

#ifdef __cplusplus
}
#endif

#endif /* TPC_KERNELS_PARAMS_H */
