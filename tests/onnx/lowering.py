"""ONNX operators lowered onto the kernel library's GUIDs, as a graph compiler would lower them.

Each lowering takes the node (onnx_node.Case: attributes, input Values) and a KernelRunner, and returns the
node's outputs. Every value is computed by kernels: the lowering itself only reads attributes and constant
inputs into node parameters, converts element types exactly (int64 indices to i32 and back, bool to u8),
and re-labels shapes where the data is unchanged (a keepdims=0 reduction, Reshape, Flatten, Squeeze: views,
no kernel). A node the library cannot express raises NotApplicable with the reason.
"""

import numpy as np
from onnx import TensorProto

from onnx_node import NotApplicable

LOWERINGS = {}


def lowering(*ops):
    def register(f):
        for op in ops:
            LOWERINGS[op] = f
        return f

    return register


# ---------------------------------------------------------------------------------------------- helpers

FLOAT_TYPES = ("f32", "bf16")


def float_type(v, allowed=FLOAT_TYPES):
    t = v.library_type
    if t not in allowed or v.elem_type in (TensorProto.INT64,):
        raise NotApplicable("type", f"{v.name} is {v.elem_type_name}; the kernels take {', '.join(allowed)}")
    return t


def tpc_dim(axis, rank):
    """The TPC dimension of an ONNX axis (dimension 0 is the last axis)."""
    if axis < -rank or axis >= max(rank, 1):
        raise NotApplicable("attribute", f"axis {axis} outside a rank-{rank} tensor")
    axis = axis % max(rank, 1)
    return rank - 1 - axis


def onnx_output(array, like):
    """A kernel's output as the ONNX output `like` holds it: i32 widened to int64, u8 to bool."""
    if like.elem_type == TensorProto.INT64:
        return array.astype(np.int64)
    if like.elem_type == TensorProto.BOOL:
        return array.astype(bool)
    return array


def out_shape(case, k=0):
    v = case.outputs[k]
    return v.declared_shape if v.declared_shape is not None else v.array.shape


def constant_scalar(v, what):
    """A constant input read as a node parameter (a graph compiler folds it the same way)."""
    if v is None:
        return None
    if v.array.size != 1:
        raise NotApplicable("shape", f"{what} has {v.array.size} elements; the kernel takes one value")
    return v.array.reshape(()).item()


def axes_of(case, rank, input_index=None):
    """The axes of a reduction: the `axes` attribute, or (opset 13/18 forms) the input; None: all axes."""
    axes = case.attr("axes")
    if input_index is not None and case.input(input_index) is not None:
        axes = [int(a) for a in case.input(input_index).array.ravel()]
    if axes is None:
        return None
    return sorted({a % rank for a in axes})


# ---------------------------------------------------------------------------------------------- elementwise

UNARY = {
    "Relu": "relu", "Sigmoid": "sigmoid", "Tanh": "tanh", "Exp": "exp", "Log": "log", "Sqrt": "sqrt",
    "Reciprocal": "reciprocal", "Abs": "abs", "Neg": "neg", "LeakyRelu": "leaky_relu",
}


@lowering(*UNARY)
def unary(case, k):
    x = case.inputs[0]
    t = float_type(x)
    params = {}
    if case.op == "LeakyRelu":
        params["alpha"] = case.attr("alpha", 0.01)
    (y,) = k.run(f"{UNARY[case.op]}_fwd_{t}", [(x.library_array(), t)], [(t, out_shape(case))], params)
    return [y]


BINARY = {"Add": "add", "Sub": "sub", "Mul": "mul", "Div": "div", "Max": "max", "Min": "min"}


def broadcast_shape(*shapes):
    rank = max(len(s) for s in shapes)
    padded = [(1,) * (rank - len(s)) + tuple(s) for s in shapes]
    return tuple(max(d) if min(d) != 0 else 0 for d in zip(*padded))


@lowering(*BINARY, "Sum", "Mean")
def binary(case, k):
    """Two inputs: the binary kernel. Max, Min, Sum and Mean of n inputs: n - 1 binary kernels in turn, the
    partial results broadcast as they grow (Mean then multiplies by 1/n)."""
    xs = [v for v in case.inputs if v is not None]
    t = xs[0].library_type
    op = {"Sum": "add", "Mean": "add"}.get(case.op) or BINARY[case.op]
    if t not in ("f32", "bf16", "i32") or any(v.library_type != t for v in xs) or (op == "div" and t == "i32") or \
            any(v.elem_type != xs[0].elem_type for v in xs):
        raise NotApplicable("type", f"{case.op} on {xs[0].elem_type_name}")
    if case.op == "Mean" and t == "i32":
        raise NotApplicable("type", "Mean of integers")
    if len(xs) == 1:
        (y,) = k.run(f"identity_fwd_{t}", [(xs[0].library_array(), t)], [(t, xs[0].array.shape)])
    else:
        y, shape = xs[0].library_array(), xs[0].array.shape
        for v in xs[1:]:
            shape = broadcast_shape(shape, v.array.shape)
            (y,) = k.run(f"{op}_fwd_{t}", [(y, t), (v.library_array(), t)], [(t, shape)])
    if case.op == "Mean":
        (y,) = k.run(f"mul_fwd_{t}", [(y, t), (scalar_tensor(1.0 / len(xs), t), t)], [(t, y.shape)])
    return [onnx_output(y.reshape(out_shape(case)), case.outputs[0])]


@lowering("Where")
def where(case, k):
    c, x, y = case.inputs
    t = float_type(x)
    (out,) = k.run(f"where_fwd_{t}", [(c.library_array(), "u8"), (x.library_array(), t), (y.library_array(), t)],
                   [(t, out_shape(case))])
    return [out]


@lowering("Clip")
def clip(case, k):
    x = case.inputs[0]
    t = float_type(x)
    if case.opset < 11:
        low, high = case.attr("min"), case.attr("max")
    else:
        low = constant_scalar(case.input(1), "min")
        high = constant_scalar(case.input(2), "max")
    params = {}
    if low is not None:
        params["low"] = repr(float(low))
    if high is not None:
        params["high"] = repr(float(high))
    (y,) = k.run(f"clamp_fwd_{t}", [(x.library_array(), t)], [(t, out_shape(case))], params)
    return [y]


CASTS = {("f32", "bf16"), ("bf16", "f32"), ("f32", "i32"), ("i32", "f32"), ("f32", "f16"), ("f16", "f32")}


@lowering("Cast", "CastLike")
def cast(case, k):
    x = case.inputs[0]
    src, dst = x.library_type, case.outputs[0].library_type
    if (src, dst) not in CASTS or TensorProto.INT64 in (x.elem_type, case.outputs[0].elem_type):
        raise NotApplicable("type", f"a cast from {x.elem_type_name} to {case.outputs[0].elem_type_name}")
    (y,) = k.run(f"cast_{src}_to_{dst}", [(x.library_array(), src)], [(dst, out_shape(case))])
    return [y]


# ---------------------------------------------------------------------------------------------- along a dimension

REDUCE = {"ReduceSum": "reduce_sum", "ReduceMean": "reduce_mean", "ReduceMax": "reduce_max",
          "ReduceMin": "reduce_min", "ReduceProd": "reduce_prod", "ReduceL1": "reduce_l1", "ReduceL2": "reduce_l2",
          "ReduceSumSquare": "reduce_sum_square", "ReduceLogSum": "reduce_log_sum",
          "ReduceLogSumExp": "reduce_log_sum_exp"}


@lowering(*REDUCE)
def reduce(case, k):
    """Any set of axes at once (`dims`, a bit per TPC dimension); keepdims=0 drops them (a view)."""
    x = case.inputs[0]
    t = float_type(x)
    rank = x.array.ndim
    axes = axes_of(case, rank, 1 if (case.op == "ReduceSum" and case.opset >= 13) else None)
    if axes == [] and case.attr("noop_with_empty_axes", 0):
        (y,) = k.run(f"identity_fwd_{t}", [(x.library_array(), t)], [(t, x.array.shape)])
        return [y]
    if not axes:
        axes = list(range(rank))
    if x.array.size == 0:
        raise NotApplicable("shape", "an empty input: the reductions need an element per output")
    kept = list(x.array.shape)
    for a in axes:
        kept[a] = 1
    dims = sum(1 << tpc_dim(a, rank) for a in axes)
    (y,) = k.run(f"{REDUCE[case.op]}_fwd_{t}", [(x.library_array(), t)], [(t, kept)], {"dims": dims})
    return [y.reshape(out_shape(case))]  # keepdims=0: the same data, the axes dropped


@lowering("ArgMax", "ArgMin")
def argmax(case, k):
    x = case.inputs[0]
    t = float_type(x)
    rank = x.array.ndim
    axis = case.attr("axis", 0) % rank
    kept = list(x.array.shape)
    kept[axis] = 1
    (y,) = k.run(f"{case.op.lower()}_fwd_{t}", [(x.library_array(), t)], [("i32", kept)],
                 {"dim": tpc_dim(axis, rank), "select_last": case.attr("select_last_index", 0)})
    return [onnx_output(y.reshape(out_shape(case)), case.outputs[0])]


@lowering("Softmax", "LogSoftmax")
def softmax(case, k):
    x = case.inputs[0]
    t = float_type(x)
    rank = x.array.ndim
    guid = ("softmax" if case.op == "Softmax" else "log_softmax") + f"_fwd_{t}"
    if case.opset < 13:
        # Opset 1-12: the input seen as 2-D at `axis` (default 1), normalized along the second dimension.
        axis = case.attr("axis", 1) % rank
        rows = int(np.prod(x.array.shape[:axis], dtype=np.int64))
        shape2d = (rows, int(np.prod(x.array.shape[axis:], dtype=np.int64)))
        (y,) = k.run(guid, [(x.library_array().reshape(shape2d), t)], [(t, shape2d)], {"dim": 0})
        return [y.reshape(x.array.shape)]
    axis = case.attr("axis", -1)
    (y,) = k.run(guid, [(x.library_array(), t)], [(t, x.array.shape)], {"dim": tpc_dim(axis, rank)})
    return [y]


@lowering("LayerNormalization")
def layernorm(case, k):
    """Normalized over the axes from `axis` on: those seen as one (a view), the kernel's dimension 0."""
    x, scale = case.inputs[0], case.inputs[1]
    bias = case.input(2)
    t = float_type(x)
    rank = x.array.ndim
    axis = case.attr("axis", -1) % rank
    outer, inner = x.array.shape[:axis], x.array.shape[axis:]
    n = int(np.prod(inner, dtype=np.int64))
    if scale.array.shape != inner or (bias is not None and bias.array.shape != inner):
        raise NotApplicable("shape", "scale and bias must have the normalized axes' shape")
    beta = bias.library_array().reshape(n) if bias is not None else np.zeros(n, np.uint16 if t == "bf16" else np.float32)
    rows = int(np.prod(outer, dtype=np.int64))
    y, mean, rstd = k.run(f"layernorm_fwd_{t}",
                          [(x.library_array().reshape(rows, n), t), (scale.library_array().reshape(n), t), (beta, t)],
                          [(t, (rows, n)), ("f32", (rows, 1)), ("f32", (rows, 1))],
                          {"dim": 0, "eps": repr(case.attr("epsilon", 1e-5))})
    stats = tuple(outer) + (1,) * len(inner)
    return [y.reshape(x.array.shape), mean.reshape(stats), rstd.reshape(stats)][: len(case.outputs)]


# ---------------------------------------------------------------------------------------------- GEMM

def scalar_tensor(value, t):
    """A one-element constant tensor of an attribute's value (a graph compiler's constant)."""
    if t == "bf16":
        return (np.array([value], np.float32).view(np.uint32) + 0x8000 >> 16).astype(np.uint16)
    return np.array([value], np.float32)


@lowering("Gemm")
def gemm(case, k):
    """alpha A B + beta C: the GEMM with C as its bias where C is one value per column and alpha and beta are 1;
    otherwise the GEMM, then mul and add kernels with the scalars and C broadcast."""
    a, b = case.inputs[0], case.inputs[1]
    c = case.input(2)
    t = float_type(a)
    alpha, beta = case.attr("alpha", 1.0), case.attr("beta", 1.0)
    shape = out_shape(case)
    n = shape[1]
    trans = {"transpose_a": case.attr("transA", 0), "transpose_b": case.attr("transB", 0)}
    column_bias = c is not None and c.array.size == n and c.array.ndim >= 1 and (c.array.ndim == 1 or c.array.shape[0] == 1)
    if alpha == 1.0 and beta == 1.0 and (c is None or column_bias):
        inputs = [(a.library_array(), t), (b.library_array(), t)]
        if c is not None:
            inputs.append((c.library_array().reshape(n), t))
        (y,) = k.run(f"gemm_fwd_{t}", inputs, [(t, shape)], trans)
        return [y]
    (y,) = k.run(f"gemm_fwd_{t}", [(a.library_array(), t), (b.library_array(), t)], [(t, shape)], trans)
    if alpha != 1.0:
        (y,) = k.run(f"mul_fwd_{t}", [(y, t), (scalar_tensor(alpha, t), t)], [(t, shape)])
    if c is not None:
        cv = c.library_array().reshape(c.array.shape if c.array.ndim else (1,))
        if beta != 1.0:
            (cv,) = k.run(f"mul_fwd_{t}", [(cv, t), (scalar_tensor(beta, t), t)], [(t, cv.shape)])
        (y,) = k.run(f"add_fwd_{t}", [(y, t), (cv, t)], [(t, shape)])
    return [y]


@lowering("MatMul")
def matmul(case, k):
    a, b = case.inputs
    t = float_type(a)
    if a.array.ndim < 2 or b.array.ndim < 2:
        raise NotApplicable("shape", "a 1-D operand of MatMul")
    (y,) = k.run(f"gemm_fwd_{t}", [(a.library_array(), t), (b.library_array(), t)], [(t, out_shape(case))])
    return [y]


# ---------------------------------------------------------------------------------------------- activations

ACTIVATIONS = {  # ONNX operator: (GUID operation, its attributes as the family's parameters)
    "Elu": ("elu", {"alpha": "alpha"}),
    "Selu": ("selu", {"alpha": "alpha", "gamma": "gamma"}),
    "Celu": ("celu", {"alpha": "alpha"}),
    "Softplus": ("softplus", {}),
    "Softsign": ("softsign", {}),
    "HardSigmoid": ("hardsigmoid", {"alpha": "alpha", "beta": "beta"}),
    "HardSwish": ("hardswish", {}),
    "Mish": ("mish", {}),
    "Erf": ("erf", {}),
    "ThresholdedRelu": ("thresholded_relu", {"alpha": "alpha"}),
}


@lowering(*ACTIVATIONS)
def activation(case, k):
    x = case.inputs[0]
    t = float_type(x)
    op, attrs = ACTIVATIONS[case.op]
    params = {p: repr(float(case.attr(a))) for a, p in attrs.items() if case.attr(a) is not None}
    (y,) = k.run(f"{op}_fwd_{t}", [(x.library_array(), t)], [(t, out_shape(case))], params)
    return [y]


@lowering("Pow")
def pow_(case, k):
    a, b = case.inputs
    t = float_type(a)
    if b.elem_type != a.elem_type:
        raise NotApplicable("type", f"Pow of {a.elem_type_name} by {b.elem_type_name}: the kernel takes one type")
    (y,) = k.run(f"pow_fwd_{t}", [(a.library_array(), t), (b.library_array(), t)], [(t, out_shape(case))])
    return [y]


# ---------------------------------------------------------------------------------------------- data movement

def any_type(v):
    """Data movement takes every library type."""
    return v.library_type


def lists(values, rank, fill):
    """A per-axis list (NumPy order) as the kernels' per-TPC-dimension comma list."""
    out = [fill] * rank
    for axis, v in values.items():
        out[rank - 1 - axis] = v
    return ",".join(str(int(v)) for v in out)


@lowering("Transpose")
def transpose(case, k):
    x = case.inputs[0]
    t = any_type(x)
    r = x.array.ndim
    perm = case.attr("perm", list(reversed(range(r))))
    # Output axis j is input axis perm[j]: in TPC dimensions, output r-1-j is input r-1-perm[j].
    tpc_perm = [0] * r
    for j, p in enumerate(perm):
        tpc_perm[r - 1 - j] = r - 1 - p
    (y,) = k.run(f"transpose_fwd_{t}", [(x.library_array(), t)], [(t, out_shape(case))],
                 {"perm": ",".join(map(str, tpc_perm))})
    return [onnx_output(y, case.outputs[0])]


@lowering("Slice")
def slice_(case, k):
    x = case.inputs[0]
    t = any_type(x)
    r = x.array.ndim
    if case.opset < 10:
        starts, ends = case.attr("starts"), case.attr("ends")
        axes, steps = case.attr("axes", list(range(len(starts)))), [1] * len(starts)
    else:
        starts, ends = list(case.inputs[1].array), list(case.inputs[2].array)
        axes = list(case.input(3).array) if case.input(3) is not None else list(range(len(starts)))
        steps = list(case.input(4).array) if case.input(4) is not None else [1] * len(starts)
    first = {}
    step = {}
    for s, e, a, st in zip(starts, ends, axes, steps):
        a = int(a) % r
        n = x.array.shape[a]
        # ONNX's clamping of starts and ends (the count comes from the output's shape).
        s = int(s) + n if s < 0 else int(s)
        s = min(max(s, 0), n) if st > 0 else min(max(s, -1), n - 1)
        first[a], step[a] = s, int(st)
    if 0 in out_shape(case):
        raise NotApplicable("shape", "an empty tensor: tpc-kernels' -t takes sizes of 1 or more")
    (y,) = k.run(f"slice_fwd_{t}", [(x.library_array(), t)], [(t, out_shape(case))],
                 {"start": lists(first, r, 0), "step": lists(step, r, 1)})
    return [onnx_output(y, case.outputs[0])]


PAD_MODES = {"constant": 0, "edge": 1, "reflect": 2}


@lowering("Pad")
def pad(case, k):
    x = case.inputs[0]
    t = any_type(x)
    r = x.array.ndim
    mode = case.attr("mode", "constant")
    if case.opset < 11:
        pads, value = case.attr("pads"), case.attr("value", 0.0)
    else:
        pads = list(case.inputs[1].array)
        value = constant_scalar(case.input(2), "constant_value") if case.input(2) is not None else 0
    before = {a: pads[a] for a in range(r)}
    after = {a: pads[r + a] for a in range(r)}
    (y,) = k.run(f"pad_fwd_{t}", [(x.library_array(), t)], [(t, out_shape(case))],
                 {"before": lists(before, r, 0), "after": lists(after, r, 0), "mode": PAD_MODES[mode],
                  "value": repr(float(value))})
    return [onnx_output(y, case.outputs[0])]


@lowering("Expand")
def expand(case, k):
    x = case.inputs[0]
    t = any_type(x)
    shape = out_shape(case)
    # NumPy broadcasting aligns the last axes: the input gains leading axes of size 1 (a view).
    xs = x.library_array().reshape((1,) * (len(shape) - x.array.ndim) + x.array.shape)
    (y,) = k.run(f"expand_fwd_{t}", [(xs, t)], [(t, shape)])
    return [onnx_output(y, case.outputs[0])]


@lowering("Concat")
def concat(case, k):
    xs = [v for v in case.inputs if v is not None]
    t = any_type(xs[0])
    r = xs[0].array.ndim
    axis = case.attr("axis") % r
    if len(xs) > 8:
        raise NotApplicable("shape", f"{len(xs)} inputs; concat takes 2 to 8")
    if len(xs) == 1:
        (y,) = k.run(f"identity_fwd_{t}", [(xs[0].library_array(), t)], [(t, out_shape(case))])
    else:
        (y,) = k.run(f"concat_fwd_{t}", [(v.library_array(), t) for v in xs], [(t, out_shape(case))],
                     {"dim": r - 1 - axis})
    return [onnx_output(y, case.outputs[0])]


@lowering("Gather")
def gather(case, k):
    data, idx = case.inputs
    t = any_type(data)
    r = data.array.ndim
    axis = case.attr("axis", 0) % r
    indices = idx.library_array()
    if indices.ndim == 0:
        raise NotApplicable("shape", "a scalar index (the output loses the axis; a view of a one-index gather)")
    (y,) = k.run(f"gather_fwd_{t}", [(data.library_array(), t), (indices, "i32")], [(t, out_shape(case))],
                 {"dim": r - 1 - axis})
    return [onnx_output(y, case.outputs[0])]


@lowering("Identity")
def identity(case, k):
    x = case.inputs[0]
    t = any_type(x)
    (y,) = k.run(f"identity_fwd_{t}", [(x.library_array(), t)], [(t, x.array.shape)])
    return [onnx_output(y, case.outputs[0])]


@lowering("Reshape", "Flatten", "Squeeze", "Unsqueeze")
def view(case, k):
    """Shape-only operators: the same elements in the same order under the output's shape (no kernel)."""
    x = case.inputs[0]
    x.library_type  # a type the library has
    return [x.array.reshape(out_shape(case))]


# ---------------------------------------------------------------------------------------------- integers, logic

INT_TYPES = ("u8", "i8", "u16", "i16", "u32", "i32")


def same_int_type(case, xs, allowed=INT_TYPES):
    t = xs[0].library_type
    if t not in allowed or any(v.elem_type != xs[0].elem_type for v in xs):
        raise NotApplicable("type", f"{case.op} on {', '.join(v.elem_type_name for v in xs)}")
    return t


@lowering("And", "Or", "Xor")
def bitwise(case, k):
    a, b = case.inputs
    t = same_int_type(case, [a, b])
    (y,) = k.run(f"{case.op.lower()}_fwd_{t}", [(a.library_array(), t), (b.library_array(), t)], [(t, out_shape(case))])
    return [onnx_output(y, case.outputs[0])]


@lowering("Not")
def not_(case, k):
    x = case.inputs[0]
    t = same_int_type(case, [x])
    (y,) = k.run(f"not_fwd_{t}", [(x.library_array(), t)], [(t, out_shape(case))])
    return [onnx_output(y, case.outputs[0])]


@lowering("BitShift")
def bitshift(case, k):
    a, b = case.inputs
    t = same_int_type(case, [a, b], ("u8", "u16", "u32"))
    op = "shl" if case.attr("direction") == "LEFT" else "shr"
    (y,) = k.run(f"{op}_fwd_{t}", [(a.library_array(), t), (b.library_array(), t)], [(t, out_shape(case))])
    return [onnx_output(y, case.outputs[0])]


@lowering("Mod")
def mod(case, k):
    a, b = case.inputs
    t = same_int_type(case, [a, b], INT_TYPES + ("f32",))
    fmod = case.attr("fmod", 0)
    (y,) = k.run(f"mod_fwd_{t}", [(a.library_array(), t), (b.library_array(), t)], [(t, out_shape(case))],
                 {"fmod": fmod})
    return [onnx_output(y, case.outputs[0])]


COMPARE = {"Equal": "equal", "Greater": "greater", "GreaterOrEqual": "greater_equal", "Less": "less",
           "LessOrEqual": "less_equal"}


@lowering(*COMPARE)
def compare(case, k):
    a, b = case.inputs
    t = a.library_type
    if t not in ("f32", "bf16", "i32") or b.elem_type != a.elem_type:
        raise NotApplicable("type", f"{case.op} on {a.elem_type_name}")
    (y,) = k.run(f"{COMPARE[case.op]}_fwd_{t}", [(a.library_array(), t), (b.library_array(), t)], [("u8", out_shape(case))])
    return [onnx_output(y, case.outputs[0])]


@lowering("Trilu")
def trilu(case, k):
    x = case.inputs[0]
    t = any_type(x)
    if x.array.size == 0:
        raise NotApplicable("shape", "an empty tensor: tpc-kernels' -t takes sizes of 1 or more")
    diagonal = constant_scalar(case.input(1), "k") if case.input(1) is not None else 0
    diagonal = max(min(int(diagonal), 2**31 - 1), -(2**31))
    (y,) = k.run(f"trilu_fwd_{t}", [(x.library_array(), t)], [(t, out_shape(case))],
                 {"k": diagonal, "upper": case.attr("upper", 1)})
    return [onnx_output(y, case.outputs[0])]


# ---------------------------------------------------------------------------------------------- losses

REDUCTIONS = {"none": 0, "sum": 1, "mean": 2}


@lowering("NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss")
def loss(case, k):
    x, labels = case.inputs[0], case.inputs[1]
    weight = case.input(2)
    t = float_type(x)
    if weight is not None and weight.library_type != "f32":
        raise NotApplicable("type", f"weights of {weight.elem_type_name}")
    softmax = case.op == "SoftmaxCrossEntropyLoss"
    reduction = REDUCTIONS[case.attr("reduction", "mean")]
    ignore = case.attr("ignore_index")
    params = {"reduction": reduction, "has_ignore": int(ignore is not None), "ignore_index": ignore or 0}
    # The dimensions after the classes seen as one (a view): [N, C, D].
    n, c = x.array.shape[:2]
    xs = x.library_array() if x.array.ndim <= 3 else x.library_array().reshape(n, c, -1)
    ls = labels.library_array().reshape(xs.shape[:1] + xs.shape[2:])
    inputs = [(xs, t), (ls, "i32")]
    if weight is not None:
        inputs.append((weight.library_array(), "f32"))
    outputs = [("f32", ls.shape if reduction == 0 else (1,))]
    if len(case.outputs) == 2:
        outputs.append((t, xs.shape))
    guid = ("softmax_cross_entropy" if softmax else "nll_loss") + f"_fwd_{t}"
    got = k.run(guid, inputs, outputs, params)
    got[0] = got[0].reshape(out_shape(case))
    if len(got) == 2:
        got[1] = got[1].reshape(x.array.shape)
    return got


# ---------------------------------------------------------------------------------------------- pooling

def window_attributes(case, spatial, kernel, sizes):
    """strides, dilations and pads (top, left, bottom, right) of a 1-D or 2-D window operator (pooling,
    convolution), auto_pad's SAME_UPPER, SAME_LOWER and VALID turned into the pads they stand for, and 1-D
    seen as 2-D with H = 1 (attribute processing)."""
    strides = list(case.attr("strides", [1] * spatial))
    dilations = list(case.attr("dilations", [1] * spatial))
    pads = list(case.attr("pads", [0] * 2 * spatial))
    auto_pad = case.attr("auto_pad", "NOTSET")
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        pads = [0] * 2 * spatial
        for a in range(spatial):
            extent = (kernel[a] - 1) * dilations[a] + 1
            total = max((-(-sizes[a] // strides[a]) - 1) * strides[a] + extent - sizes[a], 0)
            small = total // 2
            pads[a], pads[spatial + a] = (small, total - small) if auto_pad == "SAME_UPPER" else (total - small, small)
    elif auto_pad == "VALID":
        pads = [0] * 2 * spatial
    if spatial == 1:  # [N, C, L] as [N, C, 1, L]
        strides, dilations, pads = [1] + strides, [1] + dilations, [0, pads[0], 0, pads[1]]
    return strides, dilations, pads


def pool_params(case, x):
    """ONNX's pooling attributes (2-D, or 1-D seen as 2-D with H = 1) as the library's pool parameters;
    auto_pad's SAME_UPPER and SAME_LOWER turned into the pads they stand for (attribute processing)."""
    spatial = x.array.ndim - 2
    if spatial not in (1, 2):
        raise NotApplicable("shape", f"{spatial}-D pooling: the kernels pool 2-D planes (and 1-D as H = 1)")
    if case.attr("storage_order", 0):
        raise NotApplicable("attribute", "storage_order=1 (column-major indices)")
    kernel = list(case.attr("kernel_shape"))
    ceil = case.attr("ceil_mode", 0)
    strides, dilations, pads = window_attributes(case, spatial, kernel, list(x.array.shape[2:]))
    kernel = [1] * (2 - spatial) + kernel
    return {"kernel": f"{kernel[0]},{kernel[1]}", "stride": f"{strides[0]},{strides[1]}",
            "dilation": f"{dilations[0]},{dilations[1]}", "pads": ",".join(str(int(p)) for p in pads),
            "ceil_mode": int(ceil), "layout": 0}


def as_planes(x):
    """The input as 4-D NCHW (a 1-D input [N, C, L] viewed as [N, C, 1, L])."""
    a = x.library_array()
    return a.reshape(a.shape[:2] + (1,) + a.shape[2:]) if a.ndim == 3 else a


@lowering("MaxPool")
def maxpool(case, k):
    x = case.inputs[0]
    t = float_type(x)
    params = pool_params(case, x)
    shape = out_shape(case)
    planes = as_planes(x)
    shape4 = tuple(shape[:2]) + (1,) + tuple(shape[2:]) if len(shape) == 3 else tuple(shape)
    if len(case.outputs) > 1 and planes.shape[0] * planes.shape[1] > 1:
        raise NotApplicable("shape", "Indices with N x C > 1: ONNX counts them over the whole tensor, the kernel "
                                     "within each plane (h W + w)")
    y, idx = k.run(f"maxpool2d_fwd_{t}", [(planes, t)], [(t, shape4), ("i32", shape4)], params)
    outs = [y.reshape(shape)]
    if len(case.outputs) > 1:
        outs.append(onnx_output(idx.reshape(out_shape(case, 1)), case.outputs[1]))
    return outs


@lowering("AveragePool")
def avgpool(case, k):
    x = case.inputs[0]
    t = float_type(x)
    params = pool_params(case, x)
    params["count_include_pad"] = case.attr("count_include_pad", 0)
    shape = out_shape(case)
    shape4 = tuple(shape[:2]) + (1,) + tuple(shape[2:]) if len(shape) == 3 else tuple(shape)
    (y,) = k.run(f"avgpool2d_fwd_{t}", [(as_planes(x), t)], [(t, shape4)], params)
    return [y.reshape(shape)]


@lowering("GlobalAveragePool", "GlobalMaxPool")
def global_pool(case, k):
    x = case.inputs[0]
    t = float_type(x)
    if x.array.ndim not in (3, 4):
        raise NotApplicable("shape", f"a {x.array.ndim}-D input: the kernels pool 2-D planes (and 1-D as H = 1)")
    planes = as_planes(x)
    op = "global_avgpool" if case.op == "GlobalAveragePool" else "global_maxpool"
    (y,) = k.run(f"{op}_fwd_{t}", [(planes, t)], [(t, planes.shape[:2] + (1, 1))], {"layout": 0})
    return [y.reshape(out_shape(case))]


# ---------------------------------------------------------------------------------------------- normalizations over channels

def as_nchw(x):
    """[N, C, ...] viewed as 4-D NCHW [N, C, 1, the rest's size] (the statistics are over all but C)."""
    a = x.library_array()
    if a.ndim < 2:
        raise NotApplicable("shape", f"a {a.ndim}-D input: the channels are axis 1")
    return a.reshape(a.shape[:2] + (1, int(np.prod(a.shape[2:], dtype=np.int64))))


def channel_vector(v, what):
    if v.elem_type != TensorProto.FLOAT:
        raise NotApplicable("type", f"{what} is {v.elem_type_name}; the kernels take f32 per-channel tensors")
    return v.library_array().reshape(-1)


@lowering("BatchNormalization")
def batchnorm(case, k):
    x, scale, bias, mean, var = case.inputs[:5]
    t = float_type(x)
    planes = as_nchw(x)
    c = planes.shape[1]
    vectors = [(channel_vector(v, n), "f32") for v, n in ((scale, "scale"), (bias, "B"), (mean, "mean"), (var, "var"))]
    training = case.attr("training_mode", 0) if case.opset >= 14 else int(len(case.outputs) > 1)
    if case.opset < 14 and training:
        raise NotApplicable("attribute", "opset < 14 training outputs (mean, var, saved_mean, saved_var)")
    # ONNX's running variance takes the biased batch variance (unbiased_running_var 0).
    params = {"eps": repr(case.attr("epsilon", 1e-5)), "momentum": repr(case.attr("momentum", 0.9)),
              "training": int(training), "unbiased_running_var": 0, "layout": 0}
    outs = [(t, planes.shape)] + ([("f32", (c,))] * 4 if training else [])
    got = k.run(f"batchnorm_fwd_{t}", [(planes, t)] + vectors, outs, params)
    if not training:
        return [got[0].reshape(x.array.shape)]
    y, _saved_mean, _saved_invstd, running_mean, running_var = got
    return [y.reshape(x.array.shape), running_mean, running_var][: len(case.outputs)]


@lowering("InstanceNormalization")
def instancenorm(case, k):
    x, scale, bias = case.inputs
    t = float_type(x)
    planes = as_nchw(x)
    (y,) = k.run(f"instancenorm_fwd_{t}",
                 [(planes, t), (channel_vector(scale, "scale"), "f32"), (channel_vector(bias, "B"), "f32")],
                 [(t, planes.shape)], {"eps": repr(case.attr("epsilon", 1e-5)), "layout": 0})
    return [y.reshape(x.array.shape)]


# ---------------------------------------------------------------------------------------------- scans, selection, resize

def scalar_input(v, what):
    """A constant scalar input (CumSum's axis, TopK's K) as a node parameter."""
    if v is None or v.array.size != 1:
        raise NotApplicable("shape", f"{what} must be one value")
    return int(np.asarray(v.array).reshape(-1)[0])


@lowering("CumSum")
def cumsum(case, k):
    x = case.inputs[0]
    t = float_type(x, ("f32", "bf16", "i32"))
    rank = x.array.ndim
    if rank == 0:
        raise NotApplicable("shape", "a scalar input: CumSum needs an axis")
    dim = tpc_dim(scalar_input(case.input(1), "axis"), rank)
    (y,) = k.run(f"cumsum_fwd_{t}", [(x.library_array(), t)], [(t, x.array.shape)],
                 {"dim": dim, "exclusive": case.attr("exclusive", 0), "reverse": case.attr("reverse", 0)})
    return [y]


@lowering("TopK")
def topk(case, k):
    x = case.inputs[0]
    t = float_type(x)
    rank = x.array.ndim
    count = case.attr("k") if case.opset < 10 else scalar_input(case.input(1), "K")
    if case.attr("sorted", 1) != 1:
        raise NotApplicable("attribute", "sorted=0 (any order): the kernel returns them sorted")
    axis = case.attr("axis", -1) % max(rank, 1)
    if count < 1:
        raise NotApplicable("shape", f"K={count}: empty outputs")
    shape = list(x.array.shape)
    shape[axis] = count
    values, indices = k.run(f"topk_fwd_{t}", [(x.library_array(), t)], [(t, shape), ("i32", shape)],
                            {"dim": tpc_dim(axis, rank), "k": count, "largest": case.attr("largest", 1)})
    return [values, onnx_output(indices, case.outputs[1])]


RESIZE_COORDINATES = {"half_pixel": 0, "asymmetric": 1, "align_corners": 2, "pytorch_half_pixel": 3,
                      "tf_half_pixel_for_nn": 4}
NEAREST_MODES = {"round_prefer_floor": 0, "round_prefer_ceil": 1, "floor": 2, "ceil": 3}


@lowering("Resize")
def resize(case, k):
    x = case.inputs[0]
    t = float_type(x)
    if case.opset < 11:
        raise NotApplicable("attribute", "opset 10 Resize (scales as input 1, no coordinate modes)")
    mode = case.attr("mode", "nearest")
    if mode not in ("nearest", "linear"):
        raise NotApplicable("attribute", f"mode={mode}: the kernel takes nearest and linear")
    coordinates = case.attr("coordinate_transformation_mode", "half_pixel")
    if coordinates not in RESIZE_COORDINATES:
        raise NotApplicable("attribute", f"coordinate_transformation_mode={coordinates} (needs roi and extrapolation)")
    nearest = case.attr("nearest_mode", "round_prefer_floor")
    rank = x.array.ndim
    scales, sizes = case.input(2), case.input(3)
    if scales is not None and scales.array.size:
        factors = [float(np.float32(s)) for s in scales.array.reshape(-1)]
    elif sizes is not None and sizes.array.size:
        factors = [float(o) / float(i) for o, i in zip(sizes.array.reshape(-1), x.array.shape)]
    else:
        raise NotApplicable("shape", "neither scales nor sizes")
    shape = tuple(out_shape(case))
    for a in range(rank - 2):
        if shape[a] != x.array.shape[a] or factors[a] != 1.0:
            raise NotApplicable("attribute", f"axis {a} resized: the kernel resizes the last two axes")
    tpc = list(reversed(factors[-2:]))  # TPC dimensions 0 and 1
    if len(tpc) == 1:
        tpc.append(1.0)
    params = {"mode": 0 if mode == "nearest" else 1, "coordinate_mode": RESIZE_COORDINATES[coordinates],
              "nearest_mode": NEAREST_MODES[nearest], "scale": f"{tpc[0]!r},{tpc[1]!r}"}
    (y,) = k.run(f"resize_fwd_{t}", [(x.library_array(), t)], [(t, shape)], params)
    return [y]


@lowering("Hardmax")
def hardmax(case, k):
    x = case.inputs[0]
    t = float_type(x)
    rank = x.array.ndim
    if case.opset < 13:
        # Opset 1-12: the input seen as 2-D at `axis` (default 1), the maximum along the second dimension.
        axis = case.attr("axis", 1) % rank
        rows = int(np.prod(x.array.shape[:axis], dtype=np.int64))
        shape2d = (rows, int(np.prod(x.array.shape[axis:], dtype=np.int64)))
        (y,) = k.run(f"hardmax_fwd_{t}", [(x.library_array().reshape(shape2d), t)], [(t, shape2d)], {"dim": 0})
        return [y.reshape(x.array.shape)]
    axis = case.attr("axis", -1)
    (y,) = k.run(f"hardmax_fwd_{t}", [(x.library_array(), t)], [(t, x.array.shape)], {"dim": tpc_dim(axis, rank)})
    return [y]


# ---------------------------------------------------------------------------------------------- convolution

def conv_geometry(case, x, w):
    """Conv's attributes (2-D, or 1-D seen as 2-D with H = 1) as the library's conv parameters, with x and w
    as 4-D NCHW arrays; auto_pad's SAME_UPPER, SAME_LOWER and VALID turned into the pads they stand for
    (attribute processing)."""
    spatial = x.array.ndim - 2
    if spatial not in (1, 2):
        raise NotApplicable("shape", f"{spatial}-D convolution: the kernels convolve 2-D planes (and 1-D as H = 1)")
    kernel = list(w.array.shape[2:])
    if list(case.attr("kernel_shape", kernel)) != kernel:
        raise NotApplicable("attribute", f"kernel_shape {case.attr('kernel_shape')} differs from W's {kernel}")
    return window_attributes(case, spatial, kernel, list(x.array.shape[2:]))


def conv_params(strides, dilations, pads, groups):
    return {"stride": f"{strides[0]},{strides[1]}", "dilation": f"{dilations[0]},{dilations[1]}",
            "pads": ",".join(str(int(p)) for p in pads), "groups": int(groups), "layout": 0}


@lowering("Conv")
def conv(case, k):
    x, w = case.inputs[:2]
    b = case.input(2)
    t = float_type(x)
    float_type(w)
    strides, dilations, pads = conv_geometry(case, x, w)
    params = conv_params(strides, dilations, pads, case.attr("group", 1))
    shape = out_shape(case)
    shape4 = tuple(shape[:2]) + (1,) + tuple(shape[2:]) if len(shape) == 3 else tuple(shape)
    inputs = [(as_planes(x), t), (as_planes(w), t)]
    if b is not None:
        float_type(b)
        inputs.append((b.library_array().reshape(-1), t))
    (y,) = k.run(f"conv2d_fwd_{t}", inputs, [(t, shape4)], params)
    return [y.reshape(shape)]


@lowering("ConvTranspose")
def conv_transpose(case, k):
    """ConvTranspose is conv2d_bwd_data of its input: X [N, C_in, ...] is dy, W [C_in, C_out/group, ...] the
    convolution's weight [M, C/group, ...] as it stands, the output dx. Its pads, output_padding and
    output_shape become the output's size and the convolution's pads (attribute processing); a bias is one
    add_fwd kernel, broadcast over [1, C_out, 1, 1]."""
    x, w = case.inputs[:2]
    b = case.input(2)
    t = float_type(x)
    float_type(w)
    spatial = x.array.ndim - 2
    if spatial not in (1, 2):
        raise NotApplicable("shape", f"{spatial}-D ConvTranspose: the kernels convolve 2-D planes (and 1-D as H = 1)")
    kernel = list(w.array.shape[2:])
    if list(case.attr("kernel_shape", kernel)) != kernel:
        raise NotApplicable("attribute", f"kernel_shape {case.attr('kernel_shape')} differs from W's {kernel}")
    strides = list(case.attr("strides", [1] * spatial))
    dilations = list(case.attr("dilations", [1] * spatial))
    pads = list(case.attr("pads", [0] * 2 * spatial))
    out_pad = list(case.attr("output_padding", [0] * spatial))
    sizes = list(x.array.shape[2:])
    auto_pad = case.attr("auto_pad", "NOTSET")
    output_shape = case.attr("output_shape")
    if auto_pad == "VALID":
        pads = [0] * 2 * spatial
    if output_shape is not None or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        target = list(output_shape)[-spatial:] if output_shape is not None else [s * n for s, n in zip(strides, sizes)]
        for a in range(spatial):
            extent = (kernel[a] - 1) * dilations[a] + 1
            total = strides[a] * (sizes[a] - 1) + out_pad[a] + extent - target[a]
            half = total // 2
            pads[a], pads[spatial + a] = (half, total - half) if auto_pad == "SAME_UPPER" else (total - half, half)
    out = []
    for a in range(spatial):
        extent = (kernel[a] - 1) * dilations[a] + 1
        out.append(strides[a] * (sizes[a] - 1) + out_pad[a] + extent - pads[a] - pads[spatial + a])
    # A negative far pad is more output at the end (no input reaches it: zeros, as output_padding).
    for a in range(spatial):
        if pads[a] < 0:
            raise NotApplicable("attribute", f"a negative leading pad ({pads}): the output would start before the "
                                             "first input's window")
        pads[spatial + a] = max(pads[spatial + a], 0)
        extent = (kernel[a] - 1) * dilations[a] + 1
        if (out[a] + pads[a] + pads[spatial + a] - extent) // strides[a] + 1 != sizes[a]:
            raise NotApplicable("attribute", f"output size {out[a]} along spatial axis {a}: output padding of a "
                                             f"stride or more (strides {strides}, pads {pads})")
    if spatial == 1:
        strides, dilations, pads, out = [1] + strides, [1] + dilations, [0, pads[0], 0, pads[1]], [1] + out
    group = case.attr("group", 1)
    c_out = w.array.shape[1] * group
    shape4 = (x.array.shape[0], c_out) + tuple(out)
    (y,) = k.run(f"conv2d_bwd_data_{t}", [(as_planes(x), t), (as_planes(w), t)], [(t, shape4)],
                 conv_params(strides, dilations, pads, group))
    if b is not None:
        float_type(b)
        (y,) = k.run(f"add_fwd_{t}", [(y, t), (b.library_array().reshape(1, c_out, 1, 1), t)], [(t, shape4)])
    return [y.reshape(out_shape(case))]
