#!/usr/bin/python3
"""ONNX conformance: every single-node test of ONNX's backend suite (Debian's libonnx-testdata) lowered onto
the kernel library (lowering.py), run through `tpc-kernels run`, and compared with the suite's expected
outputs.

    /usr/bin/python3 tests/onnx/run_onnx.py --bin build/bin [--only REGEX] [--jobs N] [--verbose]

Prints, per operator, passed / applicable / total; the reason each test that is not applicable is not; each
failure; and ends with the line `N passed, M failed`. Exit status: 0 when nothing failed, 1 otherwise, 77
when the suite or the onnx module is missing (ctest reports a skip).
"""

import argparse
import collections
import concurrent.futures
import os
import re
import sys
import tempfile

SUITE = "/usr/share/libonnx-testdata/data/node"

try:
    import numpy as np
    from onnx import TensorProto
except ImportError as e:  # Debian's python3-onnx (scripts/install-deps.sh)
    print(f"run_onnx: {e}: install python3-onnx (scripts/install-deps.sh)")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_runner import KernelError, KernelRunner  # noqa: E402
from lowering import LOWERINGS  # noqa: E402
from onnx_node import NotApplicable, load_case  # noqa: E402

# Tolerances per output type (|got - want| <= atol + rtol |want|), the element types' own precision with room
# for the kernels' documented ulp bounds (docs/kernel-lib.md) and for the suite's references, computed in
# float64 and rounded once. Integer and bool outputs are exact.
TOLERANCE = {
    TensorProto.FLOAT: (1e-5, 1e-5),
    TensorProto.FLOAT16: (2e-3, 1e-3),
    TensorProto.BFLOAT16: (1.6e-2, 1e-3),  # one bf16 ulp
}


def as_float(a, elem_type):
    if elem_type == TensorProto.BFLOAT16:
        return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return a.astype(np.float64)


def compare(got, want_value):
    """None when `got` matches the expected output, else what differs."""
    want = want_value.array
    if tuple(got.shape) != tuple(want.shape):
        return f"{want_value.name}: shape {tuple(got.shape)}, expected {tuple(want.shape)}"
    et = want_value.elem_type
    if et in TOLERANCE:
        rtol, atol = TOLERANCE[et]
        g, w = as_float(got, et), as_float(want, et)
        bad = ~((np.abs(g - w) <= atol + rtol * np.abs(w)) | (np.isnan(g) & np.isnan(w)) | (g == w))
        if bad.any():
            i = np.flatnonzero(bad)[0]
            return (f"{want_value.name}: {bad.sum()} of {bad.size} elements differ, first at flat index {i}: "
                    f"{g.ravel()[i]!r}, expected {w.ravel()[i]!r}")
        return None
    if not np.array_equal(got.astype(want.dtype), want):
        i = np.flatnonzero(got.astype(want.dtype) != want)[0]
        return f"{want_value.name}: element {i} is {got.ravel()[i]!r}, expected {want.ravel()[i]!r}"
    return None


Result = collections.namedtuple("Result", "name op status why guids")  # status: pass, fail, n/a


def run_case(path, tool, workdir):
    name = os.path.basename(path)
    try:
        case = load_case(path)
    except NotApplicable as e:
        return Result(name, "(graph)", "n/a", f"{e.kind}: {e.why}", [])
    lower = LOWERINGS.get(case.op)
    if lower is None:
        return Result(name, case.op, "n/a", f"operator: no lowering of {case.op}", [])
    k = KernelRunner(tool, workdir)
    try:
        for inputs, outputs in [(case.inputs, case.outputs)] + case.data_sets:
            case.inputs, case.outputs = inputs, outputs
            got = lower(case, k)
            if len(got) != len(outputs):
                return Result(name, case.op, "fail", f"{len(got)} outputs, expected {len(outputs)}", k.launches)
            for g, want in zip(got, outputs):
                why = compare(np.asarray(g), want)
                if why:
                    return Result(name, case.op, "fail", why, k.launches)
    except NotApplicable as e:
        return Result(name, case.op, "n/a", f"{e.kind}: {e.why}", k.launches)
    except KernelError as e:
        return Result(name, case.op, "fail", str(e), k.launches)
    return Result(name, case.op, "pass", "", k.launches)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="the directory with tpc-kernels")
    ap.add_argument("--suite", default=SUITE, help=f"ONNX's node tests (default {SUITE})")
    ap.add_argument("--only", help="run the tests whose directory name matches this regular expression")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--verbose", action="store_true", help="print every test's result and its GUIDs")
    args = ap.parse_args()

    tool = os.path.join(args.bin, "tpc-kernels")
    if not os.access(tool, os.X_OK):
        print(f"run_onnx: --bin {args.bin!r}: no tpc-kernels there")
        return 1
    if not os.path.isdir(args.suite):
        print(f"run_onnx: --suite {args.suite!r} does not exist: install libonnx-testdata (scripts/install-deps.sh)")
        return 77
    dirs = sorted(d for d in os.listdir(args.suite) if d.startswith("test_"))
    if args.only:
        dirs = [d for d in dirs if re.search(args.only, d)]

    with tempfile.TemporaryDirectory(prefix="onnx-") as work:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
            results = list(pool.map(lambda d: run_case(os.path.join(args.suite, d), tool, work), dirs))

    per_op = collections.defaultdict(lambda: collections.Counter())
    for r in results:
        per_op[r.op][r.status] += 1
    print(f"ONNX backend node tests in {args.suite}: {len(results)}")
    print(f"{'operator':28} {'passed':>6} {'applicable':>10} {'total':>6}")
    for op in sorted(per_op):
        c = per_op[op]
        if c["pass"] + c["fail"]:
            print(f"{op:28} {c['pass']:6} {c['pass'] + c['fail']:10} {sum(c.values()):6}")
    na = [r for r in results if r.status == "n/a"]
    print(f"\nNot applicable ({len(na)}):")
    for r in sorted(na, key=lambda r: (r.op, r.name)):
        print(f"  {r.name} [{r.op}]: {r.why}")
    failed = [r for r in results if r.status == "fail"]
    if failed:
        print(f"\nFailed ({len(failed)}):")
        for r in failed:
            print(f"  {r.name} [{r.op}] ({', '.join(r.guids)}): {r.why}")
    if args.verbose:
        print("\nEvery result:")
        for r in results:
            print(f"  {r.status:4} {r.name}: {', '.join(r.guids)} {r.why}")
    passed = sum(r.status == "pass" for r in results)
    applicable = passed + len(failed)
    print(f"\n{applicable} applicable of {len(results)} tests ({len(na)} not applicable)")
    print(f"{passed} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
