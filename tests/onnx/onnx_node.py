"""One ONNX backend test case as the runner sees it: the single node, its attributes, its input and expected
output arrays, and the conversions between ONNX's element types and the kernel library's.

The kernel library's tensors are f32 bf16 f16 i32 u32 i16 u16 i8 u8 (docs/kernel-lib.md). ONNX's int64
index tensors are given to the kernels as i32 when every value fits, and i32 results are widened back for
the comparison; bool is u8; double has no type on the core (the test is not applicable).
"""

import os
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class NotApplicable(Exception):
    """The node cannot run on the library: `kind` is operator, type, attribute or shape."""

    def __init__(self, kind, why):
        super().__init__(why)
        self.kind = kind
        self.why = why


# ONNX element type -> (the library's type name, NumPy dtype of the .npy file tpc-kernels reads).
LIBRARY_TYPES = {
    TensorProto.FLOAT: ("f32", np.float32),
    TensorProto.BFLOAT16: ("bf16", np.uint16),
    TensorProto.FLOAT16: ("f16", np.float16),
    TensorProto.INT32: ("i32", np.int32),
    TensorProto.UINT32: ("u32", np.uint32),
    TensorProto.INT16: ("i16", np.int16),
    TensorProto.UINT16: ("u16", np.uint16),
    TensorProto.INT8: ("i8", np.int8),
    TensorProto.UINT8: ("u8", np.uint8),
    TensorProto.BOOL: ("u8", np.uint8),
    TensorProto.INT64: ("i32", np.int32),  # narrowed when the values fit (below)
}


def type_name(elem_type):
    return TensorProto.DataType.Name(elem_type)


@dataclass
class Value:
    """An input or output of the node: its ONNX element type, the array (inputs: the test's data;
    outputs: the expected data), and its shape as the graph declares it."""

    name: str
    elem_type: int
    array: np.ndarray
    declared_shape: tuple = None

    @property
    def elem_type_name(self):
        return type_name(self.elem_type)

    @property
    def library_type(self):
        if self.elem_type not in LIBRARY_TYPES:
            raise NotApplicable("type", f"{self.name} is {type_name(self.elem_type)}, which the core has no type for")
        return LIBRARY_TYPES[self.elem_type][0]

    def library_array(self):
        """The array as the kernel reads it, in the library's type."""
        t = self.library_type
        a = self.array
        if self.elem_type == TensorProto.INT64:
            if a.size and (a.min() < -(2**31) or a.max() >= 2**31):
                raise NotApplicable("type", f"{self.name}: int64 values outside the i32 range")
        return np.ascontiguousarray(a.astype(LIBRARY_TYPES[self.elem_type][1]))


@dataclass
class Case:
    name: str
    path: str
    op: str
    opset: int
    attrs: dict
    inputs: list  # Value, or None for an omitted optional input
    outputs: list  # Value (expected)
    data_sets: list = field(default_factory=list)  # further (inputs, outputs) arrays from test_data_set_N

    def attr(self, name, default=None):
        return self.attrs.get(name, default)

    def input(self, k):
        return self.inputs[k] if k < len(self.inputs) else None


def _declared_shape(value_info):
    dims = value_info.type.tensor_type.shape.dim
    if not value_info.type.tensor_type.HasField("shape"):
        return None
    shape = []
    for d in dims:
        if not d.HasField("dim_value"):
            return None
        shape.append(d.dim_value)
    return tuple(shape)


def _elem_type(value_info, tensor):
    """The graph's declared element type, else the data's (the suite stores bf16 data as UINT16 tensors)."""
    if value_info is not None and value_info.type.tensor_type.elem_type:
        return value_info.type.tensor_type.elem_type
    return tensor.data_type


def load_case(path):
    """The test case in directory `path`; raises NotApplicable for one that is not a single node."""
    name = os.path.basename(path)
    model = onnx.load(os.path.join(path, "model.onnx"))
    nodes = list(model.graph.node)
    if len(nodes) != 1:
        raise NotApplicable("operator", f"a graph of {len(nodes)} nodes, not a single-node test")
    node = nodes[0]
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    if node.domain not in ("", "ai.onnx"):
        raise NotApplicable("operator", f"operator {node.domain}.{node.op_type} is not in the default domain")
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    for k, v in list(attrs.items()):
        if isinstance(v, bytes):
            attrs[k] = v.decode()
    graph_inputs = {v.name: v for v in model.graph.input}
    graph_outputs = {v.name: v for v in model.graph.output}
    initializers = {t.name: t for t in model.graph.initializer}
    sets = sorted(d for d in os.listdir(path) if d.startswith("test_data_set_"))
    if not sets:
        raise NotApplicable("shape", "no test data set")

    def read_set(d):
        def tensors(prefix, count):
            out = []
            for k in range(count):
                f = os.path.join(path, d, f"{prefix}_{k}.pb")
                if not os.path.exists(f):
                    out.append(None)
                    continue
                t = onnx.TensorProto()
                with open(f, "rb") as fh:
                    t.ParseFromString(fh.read())
                out.append(t)
            return out

        return tensors("input", len([i for i in node.input if i and i not in initializers])), tensors(
            "output", len([o for o in node.output if o]))

    def values(set_dir):
        ins, outs = read_set(set_dir)
        inputs, k = [], 0
        for n in node.input:
            if not n:
                inputs.append(None)
            elif n in initializers:
                t = initializers[n]
                inputs.append(Value(n, t.data_type, numpy_helper.to_array(t)))
            else:
                t = ins[k]
                k += 1
                vi = graph_inputs.get(n)
                if t is None or (vi is not None and not vi.type.HasField("tensor_type")):
                    raise NotApplicable("type", f"input {n} is not a tensor (a sequence or an optional)")
                inputs.append(Value(n, _elem_type(vi, t), numpy_helper.to_array(t)))
        outputs, k = [], 0
        for n in node.output:
            if not n:
                continue
            t = outs[k]
            k += 1
            if t is None:
                raise NotApplicable("type", f"output {n} is not a tensor (a sequence or an optional)")
            vi = graph_outputs.get(n)
            if vi is not None and not vi.type.HasField("tensor_type"):
                raise NotApplicable("type", f"output {n} is not a tensor (a sequence or an optional)")
            outputs.append(Value(n, _elem_type(vi, t), numpy_helper.to_array(t), _declared_shape(vi) if vi else None))
        return inputs, outputs

    inputs, outputs = values(sets[0])
    case = Case(name, path, node.op_type, opset, attrs, inputs, outputs)
    for s in sets[1:]:
        case.data_sets.append(values(s))
    return case
