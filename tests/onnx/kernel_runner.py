"""Runs one kernel-library node through `tpc-kernels run`, as a graph compiler's launch: the inputs written
to .npy files, the outputs created by type and shape, the node parameters by name. The lowerings
(lowering.py) call it; nothing else computes a result.
"""

import os
import subprocess
import tempfile

import numpy as np

NPY_TYPES = {
    "f32": np.float32,
    "bf16": np.uint16,  # raw bits, read with :bf16
    "f16": np.float16,
    "i32": np.int32,
    "u32": np.uint32,
    "i16": np.int16,
    "u16": np.uint16,
    "i8": np.int8,
    "u8": np.uint8,
}


class KernelError(Exception):
    """tpc-kernels rejected the node or the kernel faulted: the command and what it printed."""


class KernelRunner:
    def __init__(self, tpc_kernels, workdir, arch="gaudi2"):
        self.tool = tpc_kernels
        self.workdir = workdir
        self.arch = arch
        self.launches = []  # the GUIDs run, in order, for the report

    def run(self, guid, inputs, outputs, params=None):
        """inputs: (array, type) pairs; outputs: (type, shape) pairs. Returns the output arrays, in the
        library's types (bf16 as uint16 bits). A rank-0 tensor travels as shape (1,)."""
        self.launches.append(guid)
        with tempfile.TemporaryDirectory(dir=self.workdir) as d:
            cmd = [self.tool, "run", guid, "--arch", self.arch]
            for k, (array, t) in enumerate(inputs):
                a = np.ascontiguousarray(np.asarray(array).astype(NPY_TYPES[t], copy=False))
                if a.ndim == 0:
                    a = a.reshape(1)
                f = os.path.join(d, f"in{k}.npy")
                np.save(f, a)
                cmd += ["-t", f + (":bf16" if t == "bf16" else "")]
            files, shapes = [], []
            for k, (t, shape) in enumerate(outputs):
                shape = tuple(int(s) for s in shape)
                shapes.append(shape)
                f = os.path.join(d, f"out{k}.npy")
                files.append(f)
                cmd += ["-t", f"{f}={t}[{','.join(str(s) for s in (shape or (1,)))}]"]
            for name, value in (params or {}).items():
                cmd += ["-p", f"{name}={value}"]
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            if r.returncode != 0:
                raise KernelError(f"{' '.join(os.path.basename(c) if c.startswith(d) else c for c in cmd)}\n"
                                  f"exit {r.returncode}: {r.stderr.strip()}")
            return [np.load(f).reshape(shape) for f, shape in zip(files, shapes)]
