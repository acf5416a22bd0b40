#!/usr/bin/env python3
"""Runs every sample kernel the way a user would: assemble it (later: compile it with tpc-clang), make its
input tensors, run it on tpc-sim, compare the output with a reference computed here in Python, and show
the results and cycle counts.

usage: run_samples.py [--bin BUILD/bin] [--quiet]

Pure Python 3 standard library: the .npy reading and writing below is written from the format
specification, independently of the SDK's C++ implementation, so this is also a check of that.
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------------------------- .npy

FORMATS = {"<f4": ("f", 4), "<u2": ("H", 2), "<i4": ("i", 4), "|i1": ("b", 1)}


def write_npy(path, descr, shape, values):
    fmt, _ = FORMATS[descr]
    shape_text = "(%d,)" % shape[0] if len(shape) == 1 else "(" + ", ".join(str(s) for s in shape) + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def read_npy(path):
    data = open(path, "rb").read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError("%s: not an .npy file" % path)
    if data[6] == 1:
        hlen, start = struct.unpack("<H", data[8:10])[0], 10
    else:
        hlen, start = struct.unpack("<I", data[8:12])[0], 12
    meta = eval(data[start:start + hlen].decode("latin1"), {"__builtins__": {}}, {"False": False, "True": True})
    fmt, size = FORMATS[meta["descr"]]
    body = data[start + hlen:]
    count = len(body) // size
    return meta, list(struct.unpack("<%d%s" % (count, fmt), body))


# ------------------------------------------------------------------------------------------ helpers

def f32(x):
    """Rounds a Python float to f32."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def bf16_bits(x):
    """bf16 bits of an f32 value, rounded to nearest even (inputs here are exact and finite)."""
    b = struct.unpack("<I", struct.pack("<f", x))[0]
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def bf16_value(bits):
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


# ------------------------------------------------------------------------------------------ samples
#
# Each sample builds its inputs and its expected output from a shape. A spec holds: inputs as
# (file, descr, values, -t suffix), the output as (file, dtype, expected values), scalar arguments, and
# the index space (None: tpc-sim's default).


def f32_values(n, salt):
    return [f32(((i * (7 + salt)) % (23 + salt)) * 0.25 - 2.0) for i in range(n)]


def spec_add_f32(rows, cols):
    a, b = f32_values(rows * cols, 0), f32_values(rows * cols, 3)
    return dict(inputs=[("a.npy", "<f4", a, ""), ("b.npy", "<f4", b, "")],
                output=("out.npy", "f32", [f32(x + y) for x, y in zip(a, b)]), shape=[rows, cols])


def spec_relu_bf16(rows, cols):
    x = [bf16_bits(((i * 37) % 101 - 50) * 0.25) for i in range(rows * cols)]
    return dict(inputs=[("x.npy", "<u2", x, ":bf16")],
                output=("out.npy", "bf16", [bf16_bits(max(bf16_value(v), 0.0)) for v in x]), shape=[rows, cols])


def spec_axpy_f32(rows, cols):
    x, y = f32_values(rows * cols, 1), f32_values(rows * cols, 2)
    alpha = 1.5
    return dict(inputs=[("x.npy", "<f4", x, ""), ("y.npy", "<f4", y, "")], scalars=[str(alpha)],
                output=("y.npy", "f32", [f32(f32(alpha * a) + b) for a, b in zip(x, y)]), shape=[rows, cols],
                output_is_input=True)


def spec_column_sum_f32(rows, cols):
    x = f32_values(rows * cols, 4)
    want = []
    for j in range(cols):
        s = 0.0
        for i in range(rows):
            s = f32(s + x[i * cols + j])
        want.append(s)
    return dict(inputs=[("x.npy", "<f4", x, "")], scalars=[str(rows)], output=("out.npy", "f32", want),
                shape=[rows, cols], out_shape=[1, cols])


def spec_leaky_relu_f32(rows, cols):
    x = f32_values(rows * cols, 5)
    slope = 0.125
    return dict(inputs=[("x.npy", "<f4", x, "")], scalars=[str(slope)],
                output=("out.npy", "f32", [v if v > 0 else f32(slope * v) for v in x]), shape=[rows, cols])


def spec_staged_local_f32(rows, cols):
    x = f32_values(rows * cols, 6)
    at = lambda r, c: x[r * cols + c] if c < cols else 0.0  # noqa: E731  (reads past the edge give 0)
    want = []
    for r in range(rows):
        for c in range(cols):
            g, lane = c // 256, c % 64
            s = 0.0
            for k in range(4):
                s = f32(s + at(r, g * 256 + k * 64 + lane))
            want.append(f32(x[r * cols + c] - f32(s * 0.25)))
    return dict(inputs=[("x.npy", "<f4", x, "")], output=("out.npy", "f32", want), shape=[rows, cols],
                index_space=[(cols + 255) // 256, rows])


def spec_scale_rows_i32(rows, cols):
    x = [((i * 13) % 41) - 20 for i in range(rows * cols)]
    limit = rows // 2 + 1
    wrap = lambda v: (v + 2**31) % 2**32 - 2**31  # noqa: E731
    want = [wrap(v * (i // cols % 3 + 1)) if i // cols < limit else wrap(-v) for i, v in enumerate(x)]
    return dict(inputs=[("x.npy", "<i4", x, "")], scalars=[str(limit)], output=("out.npy", "i32", want),
                shape=[rows, cols])


def spec_scale_add_f32(rows, cols):
    a, b = f32_values(rows * cols, 8), f32_values(rows * cols, 9)
    alpha = -0.75
    return dict(inputs=[("a.npy", "<f4", a, ""), ("b.npy", "<f4", b, "")], scalars=[str(alpha)],
                output=("out.npy", "f32", [f32(f32(x * alpha) + y) for x, y in zip(a, b)]), shape=[rows, cols])


def spec_loop_invariant_f32(rows, cols):
    x = f32_values(rows * cols, 10)
    w = f32_values(64, 11)
    k = 3.0
    want = []
    for i, v in enumerate(x):
        lane = (i % cols) % 64
        want.append(f32(f32(f32(v + w[lane]) * k) + f32(v * 0.5)))
    return dict(inputs=[("x.npy", "<f4", x, ""), ("w.npy", "<f4", w, "")], scalars=[str(k)],
                output=("out.npy", "f32", want), shape=[rows, cols], shapes={"w.npy": [64]}, cores=1)


def spec_many_live_vectors_f32(rows, cols):
    x = f32_values(rows * cols, 7)
    want = []
    for v in x:
        t = [f32(v * float(k + 1)) for k in range(45)]
        s = 0.0
        for k in range(45):
            s = f32(s + f32(t[k] * t[44 - k]))
        want.append(s)
    return dict(inputs=[("x.npy", "<f4", x, "")], output=("out.npy", "f32", want), shape=[rows, cols])


def butterfly_sum(lanes):
    """v_f32_reduce_add's order (docs/special-functions.md): lane i adds lane i^k, k = 32, 16, ..., 1."""
    k = len(lanes) // 2
    while k:
        lanes = [f32(lanes[i] + lanes[i ^ k]) for i in range(len(lanes))]
        k //= 2
    return lanes[0]


def spec_row_sum_f32(rows, cols):
    x = f32_values(rows * cols, 12)
    want = []
    for r in range(rows):
        acc = [0.0] * 64
        for base in range(0, cols, 64):
            acc = [f32(acc[l] + (x[r * cols + base + l] if base + l < cols else 0.0)) for l in range(64)]
        want.append(butterfly_sum(acc))
    return dict(inputs=[("x.npy", "<f4", x, "")], output=("out.npy", "f32", want), shape=[rows, cols],
                out_shape=[rows, 1], index_space=[1, rows])


def spec_softmax_f32(rows, cols):
    import math
    x = f32_values(rows * cols, 13)
    want = []
    for r in range(rows):
        row = x[r * cols:(r + 1) * cols]
        m = max(row)
        e = [math.exp(v - m) for v in row]
        s = sum(e)
        want += [v / s for v in e]
    # exp and reciprocal are accurate to a few ulp (docs/special-functions.md), the sum is rounded in f32.
    return dict(inputs=[("x.npy", "<f4", x, "")], output=("out.npy", "f32", want), shape=[rows, cols],
                index_space=[1, rows], rtol=1e-5)


def spec_matmul_f32(m, k, n):
    a, b = f32_values(m * k, 14), f32_values(k * n, 15)
    want = []
    for i in range(m):
        for j in range(n):
            acc = 0.0
            for t in range(k):
                acc = f32(acc + f32(a[i * k + t] * b[t * n + j]))  # mac rounds the product and the sum
            want.append(acc)
    return dict(inputs=[("a.npy", "<f4", a, ""), ("b.npy", "<f4", b, "")], output=("c.npy", "f32", want),
                shape=[m, n], shapes={"a.npy": [m, k], "b.npy": [k, n]})


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bf16_round_bits(x):
    """bf16 bits of an f32 value as the core rounds it (nearest even): NaN gives the canonical 0x7fc0,
    denormal inputs read as signed zeros, overflow gives infinity."""
    b = f32_bits(x)
    exp = (b >> 23) & 0xFF
    if exp == 0xFF:
        return 0x7FC0 if b & 0x7FFFFF else b >> 16
    if exp == 0:
        return (b >> 16) & 0x8000
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def convert_inputs(n):
    """f32 values for the conversion samples: ordinary ones, ties, and the special values."""
    special = [float("inf"), float("-inf"), float("nan"), 1e-40, -1e-40, 0.0, -0.0, 3.4028234663852886e38,
               f32(1.0 + 2.0 ** -8), f32(1.0 + 3 * 2.0 ** -8), f32(-(1.0 + 2.0 ** -8)), 1.1754943508222875e-38]
    return [special[i // 7 % len(special)] if i % 7 == 3 else f32(((i * 7919) % 2003 - 1001) * 0.0137)
            for i in range(n)]


def spec_convert_f32_to_bf16(rows, cols):
    x = convert_inputs(rows * cols)
    return dict(inputs=[("x.npy", "<f4", x, "")],
                output=("out.npy", "bf16", [bf16_round_bits(v) for v in x]), shape=[rows, cols])


def spec_convert_bf16_to_f32(rows, cols):
    x = [bf16_round_bits(v) for v in convert_inputs(rows * cols)]
    x = [0x7F80 if (b & 0x7FFF) > 0x7F80 else b for b in x]  # no NaN (the comparison is by value)
    want = [0.0 if (b & 0x7F80) == 0 else bf16_value(b) for b in x]  # denormals read as zeros
    return dict(inputs=[("x.npy", "<u2", x, ":bf16")], output=("out.npy", "f32", want), shape=[rows, cols],
                index_space=[(cols + 127) // 128, rows])


def spec_requantize_i8(rows, cols):
    x = [((i * 89) % 256) - 128 for i in range(rows * cols)]
    scale, shift, bias = 77, 5, -3
    # floor(p / 2^shift + 1/2) is round half up; then the bias, then saturation to int8.
    want = [max(-128, min(127, ((v * scale + (1 << (shift - 1))) >> shift) + bias)) for v in x]
    return dict(inputs=[("x.npy", "|i1", x, "")], scalars=[str(scale), str(shift), str(bias)],
                output=("out.npy", "i8", want), shape=[rows, cols], index_space=[(cols + 255) // 256, rows])


# (name, source, spec, shape, what)
SAMPLES = [
    ("add_f32 (asm)", "asm/add_f32.s", spec_add_f32, (3, 100), "out = a + b, f32"),
    ("relu_bf16 (asm)", "asm/relu_bf16.s", spec_relu_bf16, (5, 300), "out = max(x, 0), bf16"),
    ("add_f32", "tpc-c/add_f32.c", spec_add_f32, (3, 100), "out = a + b, f32"),
    ("relu_bf16", "tpc-c/relu_bf16.c", spec_relu_bf16, (5, 300), "out = max(x, 0), bf16"),
    ("axpy_f32", "tpc-c/axpy_f32.c", spec_axpy_f32, (4, 130), "y = alpha * x + y, scalar alpha"),
    ("column_sum_f32", "tpc-c/column_sum_f32.c", spec_column_sum_f32, (7, 150), "sum over rows"),
    ("leaky_relu_f32", "tpc-c/leaky_relu_predicated_f32.c", spec_leaky_relu_f32, (3, 200),
     "vector predicate and income"),
    ("staged_local_f32", "tpc-c/staged_local_f32.c", spec_staged_local_f32, (2, 300),
     "__local__ vector memory"),
    ("scale_rows_i32", "tpc-c/scale_rows_branchy_i32.c", spec_scale_rows_i32, (6, 70),
     "data-dependent branches, i32 % and *"),
    ("scale_add_unroll8_f32", "tpc-c/scale_add_unroll8_f32.c", spec_scale_add_f32, (3, 64 * 41 + 5),
     "software-pipelined loop"),
    ("loop_invariant_f32", "tpc-c/loop_invariant_f32.c", spec_loop_invariant_f32, (2, 64 * 37 + 3),
     "values live across loop back edges"),
    ("many_live_vectors_f32", "tpc-c/many_live_vectors_f32.c", spec_many_live_vectors_f32, (2, 100),
     "45 live vectors: spills"),
    ("row_sum_f32", "tpc-c/row_sum_f32.c", spec_row_sum_f32, (5, 150), "sum along dim 0, v_f32_reduce_add"),
    ("softmax_f32", "tpc-c/softmax_f32.c", spec_softmax_f32, (4, 150), "softmax along dim 0 (rtol 1e-5)"),
    ("matmul_f32", "tpc-c/matmul_f32.c", spec_matmul_f32, (5, 7, 100), "(5,7) x (7,100), v_f32_mac_b"),
    ("convert_f32_to_bf16", "tpc-c/convert_f32_to_bf16.c", spec_convert_f32_to_bf16, (3, 128 * 5 + 77),
     "f32 -> bf16, NaN, inf, denormals, ties"),
    ("convert_bf16_to_f32", "tpc-c/convert_bf16_to_f32.c", spec_convert_bf16_to_f32, (3, 128 * 5 + 77),
     "bf16 -> f32"),
    ("requantize_i8", "tpc-c/requantize_i8.c", spec_requantize_i8, (3, 256 * 2 + 70),
     "int8: v_i8_mul_b, v_i32_ash_b, v_convert_int32_to_i8_b lanes"),
    # Rows long enough for the modulo-scheduled loops at -O2 (unrolled 16 times, or 8 by pragma), with
    # per-core trip counts of the unrolled loop of about 1, 2 and 6 and ragged remainders: the prologue
    # and epilogue alone, one pass of the kernel, several, and the fallback loop for short trip counts.
    ("axpy_f32 rows of 17", "tpc-c/axpy_f32.c", spec_axpy_f32, (2, 64 * 17 * 12 + 5), "modulo schedule, in place"),
    ("axpy_f32 rows of 33", "tpc-c/axpy_f32.c", spec_axpy_f32, (1, 64 * 33 * 24 + 37), "modulo schedule, in place"),
    ("add_f32 rows of 100", "tpc-c/add_f32.c", spec_add_f32, (1, 64 * 100 * 24 + 63), "modulo schedule"),
    ("relu_bf16 rows of 40", "tpc-c/relu_bf16.c", spec_relu_bf16, (2, 128 * 40 * 12 + 1), "modulo schedule, bf16"),
    ("scale_add_unroll8 rows of 9", "tpc-c/scale_add_unroll8_f32.c", spec_scale_add_f32, (1, 64 * 9 * 24 + 3),
     "modulo schedule, unroll 8"),
    # The same sources compiled as C++ (-x c++), as the vendor's compiler allows.
    ("axpy_f32 c++", "tpc-c/axpy_f32.c", spec_axpy_f32, (4, 130), "y = alpha * x + y, as C++", ["-x", "c++"]),
    ("staged_local_f32 c++", "tpc-c/staged_local_f32.c", spec_staged_local_f32, (2, 300), "__local__, as C++",
     ["-x", "c++"]),
]


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError("%s failed (exit %d):\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p.stdout


def write_inputs(spec, directory):
    """Writes the sample's input files into directory."""
    for fname, descr, values, _ in spec["inputs"]:
        write_npy(os.path.join(directory, fname), descr, spec.get("shapes", {}).get(fname, spec["shape"]), values)


def sim_arguments(spec, obj):
    """The tpc-sim arguments that run the sample's object on its inputs (tensors, scalars, index space)."""
    cmd = [obj]
    out_name, out_type, _ = spec["output"]
    for fname, _, _, suffix in spec["inputs"]:
        cmd += ["-t", fname + suffix]
    if not spec.get("output_is_input"):
        out_shape = spec.get("out_shape", spec["shape"])
        cmd += ["-t", "%s=%s[%s]" % (out_name, out_type, ",".join(str(s) for s in out_shape))]
    for v in spec.get("scalars", []):
        cmd += ["-s", v]
    if spec.get("index_space"):
        cmd += ["--index-space", ",".join(str(d) for d in spec["index_space"])]
    if spec.get("cores"):
        cmd += ["--cores", str(spec["cores"])]
    return cmd


def run_one(tool, name, source, spec, tmp, opt, flags):
    """Builds the sample (assembles or compiles at -O<opt>), runs it, returns (ok, details)."""
    obj = os.path.join(tmp, "k.o")
    if source.endswith(".s"):
        run([tool("tpc-as"), os.path.join(HERE, source), "-o", obj], tmp)
    else:
        run([tool("tpc-clang"), "-O%d" % opt] + flags + ["-c", os.path.join(HERE, source), "-o", obj], tmp)
    out_name, out_type, want = spec["output"]
    write_inputs(spec, tmp)
    run([tool("tpc-sim")] + sim_arguments(spec, obj) + ["--strict-hazards", "--json", "stats.json"], tmp)
    meta, got = read_npy(os.path.join(tmp, out_name))
    stats = json.load(open(os.path.join(tmp, "stats.json")))
    rtol = spec.get("rtol")
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if (abs(g - w) > rtol * abs(w) if rtol else g != w)]
    ok = len(got) == len(want) and not bad
    return ok, got, want, bad, stats


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "build", "bin"), help="directory of the SDK tools")
    ap.add_argument("--quiet", action="store_true", help="print only one line per sample")
    args = ap.parse_args()
    tool = lambda name: os.path.join(os.path.abspath(args.bin), name)  # noqa: E731

    passed = failed = 0
    for name, source, make, shape, what, *rest in SAMPLES:
        flags = rest[0] if rest else []
        levels = [None] if source.endswith(".s") else [0, 2]
        for opt in levels:
            label = name if opt is None else "%s -O%d" % (name, opt)
            spec = make(*shape)
            with tempfile.TemporaryDirectory() as tmp:
                try:
                    ok, got, want, bad, stats = run_one(tool, name, source, spec, tmp, opt, flags)
                except RuntimeError as e:
                    ok, got, want, bad, stats = False, [], [], [], None
                    print("%-24s FAILED  %s" % (label, str(e).strip().splitlines()[0]))
                    print("\n".join("           " + line for line in str(e).strip().splitlines()[1:6]))
                    failed += 1
                    continue
            passed += ok
            failed += not ok
            active = [c for c in stats["cores"] if c["bundles"] > 0]
            print("%-24s %-6s %-40s %3d cores, %6d cycles, %7d bundles" % (
                label, "ok" if ok else "FAILED", what + " " + str(tuple(shape)), len(active), stats["cycles"],
                stats["total_bundles"]))
            if not args.quiet and ok and opt != 0:
                out_type = spec["output"][1]
                show = [bf16_value(v) for v in got[:6]] if out_type == "bf16" else got[:6]
                print("%24s first outputs: %s" % ("", ", ".join("%g" % v for v in show)))
            if bad:
                print("%24s %d of %d elements differ; first at %d: got %r, want %r" % (
                    "", len(bad), len(want), bad[0], got[bad[0]], want[bad[0]]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
