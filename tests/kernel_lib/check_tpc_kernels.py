#!/usr/bin/env python3
"""tpc-kernels from the command line (DESIGN.md, "Kernel library: C entry points and tpc-kernels"):
list (per architecture), run with inputs, created outputs and -p parameters, --json, --trace, and every rejection:
exit 1 with the glue code's name and what was expected, and no output file written.

usage: check_tpc_kernels.py BUILD/bin
"""
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile

FAILURES = []


def check(ok, what, detail=""):
    if not ok:
        FAILURES.append("%s%s" % (what, (": " + detail[-600:]) if detail else ""))


def write_npy(path, values, shape, descr="<f4", fmt="f"):
    shape_text = ",".join(str(s) for s in shape) + ("," if len(shape) == 1 else "")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, shape_text)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def read_npy_f32(path):
    data = open(path, "rb").read()
    header_len = struct.unpack("<H", data[8:10])[0]
    body = data[10 + header_len:]
    return list(struct.unpack("<%df" % (len(body) // 4), body))


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def main():
    tool = os.path.join(os.path.abspath(sys.argv[1]), "tpc-kernels")

    def run(args, cwd):
        p = subprocess.run([tool] + args, capture_output=True, text=True, cwd=cwd, timeout=300)
        return p.returncode, p.stdout + p.stderr

    with tempfile.TemporaryDirectory() as tmp:
        # list: one GUID per line, every family; f16 casts only where the architecture has f16.
        code, out = run(["list"], tmp)
        guids = out.split()
        check(code == 0 and len(guids) >= 100, "list prints the GUIDs", out[-300:])
        for g in ["relu_fwd_f32", "gelu_bwd_bf16", "add_fwd_i32", "where_fwd_bf16", "cast_f32_to_f16", "reduce_max_fwd_f32",
                  "argmax_fwd_bf16", "softmax_bwd_f32", "layernorm_fwd_bf16", "rmsnorm_fwd_f32", "cross_entropy_bwd_f32",
                  "gemm_fwd_bf16", "random_uniform_fwd_f32", "dropout_fwd_bf16", "sgd_fwd_bf16", "adamw_fwd_f32"]:
            check(g in guids, "list shows " + g)
        code, out = run(["list", "--arch", "gaudi"], tmp)
        check(code == 0 and "relu_fwd_f32" in out.split() and "cast_f32_to_f16" not in out.split(),
              "list --arch gaudi has no f16 casts", out[-300:])
        code, out = run(["list", "--arch", "gaudi9"], tmp)
        check(code == 1 and "gaudi9" in out and "gaudi2" in out, "list --arch gaudi9: exit 1 naming the argument", out)

        # run relu on a 3 x 100 f32 tensor: exact.
        xs = [f32(math.sin(i * 0.7) * 5) for i in range(300)]
        write_npy(os.path.join(tmp, "x.npy"), xs, [3, 100])
        code, out = run(["run", "relu_fwd_f32", "-t", "x.npy", "-t", "y.npy=f32[3,100]", "--json", "stats.json",
                         "--trace", "trace.txt"], tmp)
        check(code == 0 and "cycles" in out, "run relu_fwd_f32", out)
        if code == 0:
            ys = read_npy_f32(os.path.join(tmp, "y.npy"))
            check(ys == [max(x, 0.0) for x in xs], "relu_fwd_f32 gives max(x, 0) exactly")
            stats = json.load(open(os.path.join(tmp, "stats.json")))
            check("cycles" in json.dumps(stats), "--json writes the statistics", json.dumps(stats)[:300])
            # --trace: one line per executed bundle, as many as the run reports for all cores.
            lines = [l for l in open(os.path.join(tmp, "trace.txt")) if re.match(r"core \d+ cycle \d+ 0x", l)]
            bundles = re.search(r"bundles (\d+) \(all cores\)", out)
            check(bundles is not None and len(lines) == int(bundles.group(1)) > 0,
                  "--trace writes a line per executed bundle", "%d lines, run says %s" % (len(lines), bundles and bundles.group(0)))

        # softmax along dim 1 (the first NumPy axis of a 2-D tensor), -p by name.
        code, out = run(["run", "softmax_fwd_f32", "-t", "x.npy", "-t", "s.npy=f32[3,100]", "-p", "dim=1"], tmp)
        check(code == 0, "run softmax_fwd_f32 -p dim=1", out)
        if code == 0:
            s = read_npy_f32(os.path.join(tmp, "s.npy"))
            worst = 0.0
            for c in range(100):
                col = [xs[r * 100 + c] for r in range(3)]
                m = max(col)
                total = sum(math.exp(v - m) for v in col)
                for r in range(3):
                    want = math.exp(col[r] - m) / total
                    worst = max(worst, abs(s[r * 100 + c] - want) / want)
            check(worst < 1e-6, "softmax along dim 1 matches the definition", "largest relative error %g" % worst)

        # Rejections: exit 1, the glue code and what was expected, and no output file.
        rejections = [
            (["run", "relu_fwd_f32", "-t", "x.npy"], ["GLUE_INCOMPATIBLE_OUTPUT_COUNT", "1 output"]),
            (["run", "relu_fwd_f32", "-t", "x.npy", "-t", "bad1.npy=bf16[3,100]"], ["GLUE_INCOMPATIBLE_DATA_TYPE", "f32"]),
            (["run", "relu_fwd_f32", "-t", "x.npy", "-t", "bad2.npy=f32[3,101]"], ["GLUE_INCOMPATIBLE_OUTPUT_SIZE", "(3, 100)"]),
            (["run", "reduce_sum_fwd_f32", "-t", "x.npy", "-t", "bad3.npy=f32[3,1]", "-p", "dim=5"],
             ["GLUE_KERNEL_INVALID_SCALAR_ARGUMENT", "dim", "0 to 1"]),
            (["run", "reduce_sum_fwd_f32", "-t", "x.npy", "-t", "bad4.npy=f32[3,1]", "-p", "bogus=1"], ["bogus", "dim"]),
            (["run", "reduce_sum_fwd_f32", "-t", "x.npy", "-t", "bad5.npy=f32[3,1]", "-p", "dim=abc"], ["abc", "integer"]),
            (["run", "dropout_fwd_f32", "-t", "x.npy", "-t", "bad6.npy=f32[3,100]", "bad7.npy=u8[3,100]", "-p", "p=1.5"],
             ["GLUE_KERNEL_INVALID_SCALAR_ARGUMENT", "[0, 1)"]),
            (["run", "no_such_kernel_f32", "-t", "x.npy", "-t", "bad8.npy=f32[3,100]"], ["GLUE_NODE_NOT_FOUND", "no_such_kernel_f32"]),
            (["run", "relu_fwd_f32", "-t", "missing.npy", "-t", "bad9.npy=f32[3,100]"], ["missing.npy"]),
        ]
        for args, words in rejections:
            code, out = run(args, tmp)
            check(code == 1, "%s: exit 1" % " ".join(args), "exit %d: %s" % (code, out))
            for w in words:
                check(w in out, "%s: the message names %r" % (" ".join(args), w), out)
            written = [f for f in os.listdir(tmp) if f.startswith("bad")]
            check(not written, "%s: no output file" % " ".join(args), " ".join(written))

    for f in FAILURES:
        print("FAIL " + f)
    print("tpc-kernels: %s" % ("FAILED" if FAILURES else "ok"))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
