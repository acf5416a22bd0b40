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

FORMATS = {"<f4": ("f", 4), "<u2": ("H", 2), "<i4": ("i", 4)}


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

def sample_add_f32(rows, cols):
    a = [f32(((i * 7) % 23) * 0.25 - 2.0) for i in range(rows * cols)]
    b = [f32(((i * 5) % 17) * 0.5 - 3.0) for i in range(rows * cols)]
    want = [f32(x + y) for x, y in zip(a, b)]
    inputs = [("a.npy", "<f4", a, ""), ("b.npy", "<f4", b, "")]
    return inputs, ("out.npy", "f32", want), [rows, cols]


def sample_relu_bf16(rows, cols):
    x = [bf16_bits(((i * 37) % 101 - 50) * 0.25) for i in range(rows * cols)]
    want = [bf16_bits(max(bf16_value(v), 0.0)) for v in x]
    inputs = [("x.npy", "<u2", x, ":bf16")]
    return inputs, ("out.npy", "bf16", want), [rows, cols]


SAMPLES = [
    ("add_f32", "asm/add_f32.s", lambda: sample_add_f32(3, 100), "out = a + b, f32, shape (3, 100)"),
    ("relu_bf16", "asm/relu_bf16.s", lambda: sample_relu_bf16(5, 300), "out = max(x, 0), bf16, shape (5, 300)"),
]


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError("%s failed (exit %d):\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "build", "bin"), help="directory of the SDK tools")
    ap.add_argument("--quiet", action="store_true", help="print only the summary")
    args = ap.parse_args()
    tool = lambda name: os.path.join(os.path.abspath(args.bin), name)  # noqa: E731

    failures = 0
    for name, source, make, what in SAMPLES:
        with tempfile.TemporaryDirectory() as tmp:
            obj = os.path.join(tmp, name + ".o")
            run([tool("tpc-as"), os.path.join(HERE, source), "-o", obj], tmp)
            inputs, (out_name, out_type, want), shape = make()
            cmd = [tool("tpc-sim"), obj, "--strict-hazards", "--json", "stats.json"]
            for fname, descr, values, suffix in inputs:
                write_npy(os.path.join(tmp, fname), descr, shape, values)
                cmd += ["-t", fname + suffix]
            cmd += ["-t", "%s=%s[%s]" % (out_name, out_type, ",".join(str(s) for s in shape))]
            run(cmd, tmp)
            meta, got = read_npy(os.path.join(tmp, out_name))
            stats = json.load(open(os.path.join(tmp, "stats.json")))
            bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
            ok = tuple(meta["shape"]) == tuple(shape) and len(got) == len(want) and not bad
            failures += not ok
            active = [c for c in stats["cores"] if c["bundles"] > 0]
            print("%-10s %-6s %s" % (name, "ok" if ok else "FAILED", what))
            if not args.quiet:
                show = got[:6] if out_type == "f32" else [bf16_value(v) for v in got[:6]]
                print("           first outputs: %s" % ", ".join("%g" % v for v in show))
                print("           %d cores active, %d cycles (slowest core), %d bundles, %d stalls" % (
                    len(active), stats["cycles"], stats["total_bundles"], stats["total_stalls"]))
                util = active[0]["slot_utilization"] if active else {}
                print("           core 0 slot utilization: %s" % ", ".join(
                    "%s %.0f%%" % (k, 100 * v) for k, v in util.items()))
            if bad:
                print("           %d of %d elements differ; first at %d: got %r, want %r" % (
                    len(bad), len(want), bad[0], got[bad[0]], want[bad[0]]))
    print("%d passed, %d failed" % (len(SAMPLES) - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
