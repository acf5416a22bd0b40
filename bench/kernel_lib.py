#!/usr/bin/env python3
"""The kernel library's performance table (docs/kernel-lib.md, "Performance"): every GUID on gaudi2, run
by tpc-kernels over its whole index space on all 24 cores, its simulated cycles (the slowest core) against
the slot bound of that core's work: the most instructions any one of the load, store and VPU slots
executes (a core cannot finish before its busiest slot has issued them all). GEMM also shows its share of
the VPU's multiply-accumulate peak (64 f32 MACs per cycle per core over the cores used).

usage: kernel_lib.py [--bin BUILD/bin] [--only SUBSTRING] [--rows N]

--rows sets the rows of the 4096-wide tensors: by default 768, 32 rows per core, where the loops run in
their steady state and the targets are judged (docs/decisions.md, "Where the library's performance
targets are judged"); 64 gives each core 2-3 rows, where its fixed set-up is a visible share of its time.

Targets (issue "kernel library"): elementwise, casts and random numbers <= 1.10x the bound; reductions,
softmax and norms <= 1.25x; GEMM >= 80% of the MAC peak for M, N, K >= 256.
"""
import argparse
import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile

ROWS, COLS = 768, 4096  # the elementwise shape: 768 rows of 4096 elements (--rows changes ROWS)

DESCR = {"f32": ("<f4", "f"), "i32": ("<i4", "i"), "u32": ("<u4", "I"), "u8": ("|u1", "B"), "f16": ("<f2", "e")}


def write_npy(path, dtype, shape, values):
    if dtype == "bf16":
        # NumPy has no bf16: the 16-bit patterns as u16, named bf16 on the command line (FILE.npy:bf16).
        data = struct.pack("<%dH" % len(values), *[(struct.unpack("<I", struct.pack("<f", v))[0] >> 16) for v in values])
        descr = "<u2"
    else:
        descr, fmt = DESCR[dtype]
        data = struct.pack("<%d%s" % (len(values), fmt), *values)
    shape_text = ",".join(str(s) for s in shape) + ("," if len(shape) == 1 else "")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, shape_text)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)


def count(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def values(dtype, shape, lo=-4.0, hi=4.0, seed=1):
    rng = random.Random(seed)
    n = count(shape)
    if dtype == "i32":
        return [rng.randrange(-1000, 1000) for _ in range(n)]
    if dtype == "u8":
        return [rng.randrange(0, 2) for _ in range(n)]
    if dtype == "u32":
        return [rng.randrange(1, 9) for _ in range(n)]
    return [rng.uniform(lo, hi) for _ in range(n)]


class Case:
    def __init__(self, guid, family, inputs, outputs, params=(), lo=-4.0, hi=4.0, macs=0):
        self.guid, self.family, self.inputs, self.outputs = guid, family, inputs, outputs
        self.params, self.lo, self.hi, self.macs = list(params), lo, hi, macs


MOVEMENT = ("transpose", "slice", "pad", "expand", "identity", "concat", "gather", "embedding", "trilu")
MOVE_OTHER_TYPES = ("_f16", "_u32", "_i16", "_u16", "_i8", "_u8") + tuple(
    "%s_fwd_i32" % op for op in ("transpose", "slice", "pad", "expand", "identity", "concat", "gather", "trilu"))


def movement_case(g, op, t, shape):
    """Data movement along the vector path (dimension 0 unmoved, step 1): the slot bound is its loads and
    stores."""
    rows, cols = shape
    if op == "transpose":  # dimensions 1 and 2 swapped
        return Case(g, "movement", [(t, [2, rows // 2, cols])], [(t, [rows // 2, 2, cols])], ["perm=0,2,1"])
    if op == "slice":
        return Case(g, "movement", [(t, [rows + 2, cols + 64])], [(t, shape)], ["start=5,1"])
    if op == "pad":
        return Case(g, "movement", [(t, [rows - 2, cols - 64])], [(t, shape)], ["before=5,1", "after=59,1"])
    if op == "expand":
        return Case(g, "movement", [(t, [1, cols])], [(t, shape)])
    if op == "concat":
        return Case(g, "movement", [(t, [rows // 2, cols]), (t, [rows - rows // 2, cols])], [(t, shape)], ["dim=1"])
    if op in ("gather", "embedding"):
        return Case(g, "movement", [(t, [rows, cols]), ("i32", [rows])], [(t, shape)], [] if op == "embedding" else ["dim=1"],
                    lo=0, hi=rows - 1)
    return Case(g, "movement", [(t, shape)], [(t, shape)])


def pool_cases(g, op, t):
    """Pooling, 3x3 windows of stride 2 with padding 1 (ResNet's), NHWC [8, 56, 56, C] (C one vector: 64 f32,
    128 bf16; the vector path), and NCHW [2, 16, 56, 56] (elements one at a time)."""
    out = []
    for layout, x, y in ((1, [8, 56, 56, 64], [8, 28, 28, 64]), (0, [2, 16, 56, 56], [2, 16, 28, 28])):
        if t == "bf16" and layout == 1:
            x, y = x[:3] + [128], y[:3] + [128]
        name = "%s layout=%d" % (g, layout)
        if op.startswith("global_"):
            gx = [8, 7, 7, x[3] * 8] if layout == 1 else [8, 512, 7, 7]
            gy = [8, 1, 1, gx[3]] if layout == 1 else [8, 512, 1, 1]
            out.append(Case(name, "pooling", [(t, gx)], [(t, gy)], ["layout=%d" % layout]))
            continue
        params = ["kernel=3,3", "stride=2,2", "pads=1,1,1,1", "layout=%d" % layout]
        if "_bwd" in g:
            ins = [(t, y)] + ([("i32", y)] if op == "maxpool2d" else [])
            out.append(Case(name, "pooling", ins, [(t, x)], params))
        else:
            outs = [(t, y)] + ([("i32", y)] if op == "maxpool2d" else [])
            out.append(Case(name, "pooling", [(t, x)], outs, params))
    return out


def chnorm_cases(g, op, t):
    """Normalizations over channels on [8, 28, 28, 256] NHWC and [8, 256, 28, 28] NCHW (group norm: NCHW,
    32 groups); batch norm in training mode (and inference as its own row)."""
    out = []
    for layout in (1, 0):
        if op == "groupnorm" and layout == 1:
            continue
        x = [8, 28, 28, 256] if layout == 1 else [8, 256, 28, 28]
        v = ("f32", [256])
        name = "%s layout=%d" % (g, layout)
        if op == "batchnorm" and "_bwd" in g:
            out.append(Case(name, "chnorm", [(t, x), (t, x), v, v, v], [(t, x), v, v], ["layout=%d" % layout], lo=0.5, hi=2))
        elif op == "batchnorm":
            ins = [(t, x), v, v, v, v]
            out.append(Case(name, "chnorm", ins, [(t, x), v, v, v, v], ["layout=%d" % layout], lo=0.5, hi=2))
            out.append(Case(name + " training=0", "chnorm", ins, [(t, x)], ["layout=%d" % layout, "training=0"], lo=0.5, hi=2))
        else:
            ps = ["layout=%d" % layout] + (["groups=32"] if op == "groupnorm" else [])
            out.append(Case(name, "chnorm", [(t, x), v, v], [(t, x)], ps))
    return out


def conv_cases(g, t):
    """Convolution: NHWC 3x3 depthwise with padding 1 (MobileNet's) on [8, 56, 56, C] (C one vector: 64 f32,
    128 bf16), NHWC 1x1 [8, 28, 28, 64] -> 64 channels (a GEMM over channels), NCHW 3x3 with padding 1 on
    [2, 16, 56, 56] -> 16 channels (stride 1: vectors along W)."""
    vc = 64 if t == "f32" else 128
    configs = [("depthwise3x3 layout=1", [8, 56, 56, vc], [3, 3, 1, vc], [8, 56, 56, vc],
                ["pads=1,1,1,1", "groups=%d" % vc, "layout=1"]),
               ("1x1 layout=1", [8, 28, 28, 64], [1, 1, 64, 64], [8, 28, 28, 64], ["layout=1"]),
               ("3x3 layout=0", [2, 16, 56, 56], [16, 16, 3, 3], [2, 16, 56, 56], ["pads=1,1,1,1", "layout=0"])]
    out = []
    for name, x, w, y, params in configs:
        full = "%s %s" % (g, name)
        if "_bwd_data" in g:
            out.append(Case(full, "conv", [(t, y), (t, w)], [(t, x)], params))
        elif "_bwd_weights" in g:
            out.append(Case(full, "conv", [(t, x), (t, y)], [(t, w)], params))
        else:
            out.append(Case(full, "conv", [(t, x), (t, w)], [(t, y)], params))
    return out


def cases(guids):
    shape = [ROWS, COLS]
    out = []
    for g in guids:
        t = "bf16" if g.endswith("_bf16") else "i32" if g.endswith("_i32") else "f32"
        op = g.split("_fwd")[0].split("_bwd")[0]
        if op in MOVEMENT and g.endswith(MOVE_OTHER_TYPES) and "_bwd" not in g:
            continue  # data movement is measured on f32 and bf16 (the objects are per element size)
        if op in MOVEMENT and "_bwd" not in g:
            out.append(movement_case(g, op, t, shape))
            if op == "transpose":  # a transpose that moves dimension 0: elements one at a time
                out.append(Case(g + " perm=1,0", "movement", [(t, [COLS // 16, ROWS])], [(t, [ROWS, COLS // 16])], ["perm=1,0"]))
        elif op in ("and", "or", "xor", "shl", "shr", "mod", "not"):
            it = g.rsplit("_", 1)[1]
            if it not in ("u8", "i32", "f32", "u32"):
                continue  # measured on one narrow and one wide type
            ins = [(it, shape)] * (1 if op == "not" else 2)
            out.append(Case(g, "integer", ins, [(it, shape)], ["fmod=1"] if it == "f32" else [], lo=1, hi=9))
        elif op in ("equal", "greater", "greater_equal", "less", "less_equal"):
            out.append(Case(g, "integer", [(t, shape), (t, shape)], [("u8", shape)]))
        elif g.startswith("cast_"):
            src, dst = g[5:].split("_to_")
            out.append(Case(g, "cast", [(src, shape)], [(dst, shape)]))
        elif op in ("add", "sub", "mul", "div", "pow", "max", "min"):
            out.append(Case(g, "elementwise", [(t, shape), (t, shape)], [(t, shape)], lo=0.5, hi=4.0))
        elif op == "where":
            out.append(Case(g, "elementwise", [("u8", shape), (t, shape), (t, shape)], [(t, shape)]))
        elif op.startswith("reduce_") or op in ("argmax", "argmin"):
            for dim in (0, 1):
                red = [ROWS, 1] if dim == 0 else [1, COLS]
                out.append(Case(g + " dim=%d" % dim, "reduction", [(t, shape)], [("i32" if op.startswith("arg") else t, red)],
                                ["dim=%d" % dim]))
        elif op in ("softmax", "log_softmax"):
            ins = [(t, shape), (t, shape)] if "_bwd" in g else [(t, shape)]
            for dim in (0, 1):
                out.append(Case(g + " dim=%d" % dim, "softmax", ins, [(t, shape)], ["dim=%d" % dim]))
        elif op == "layernorm" and "_fwd" in g:
            out.append(Case(g, "norm", [(t, shape), (t, [COLS]), (t, [COLS])], [(t, shape), ("f32", [ROWS, 1]), ("f32", [ROWS, 1])]))
        elif op == "layernorm":
            out.append(Case(g, "norm", [(t, shape), (t, shape), (t, [COLS]), ("f32", [ROWS, 1]), ("f32", [ROWS, 1])],
                            [(t, shape), ("f32", [COLS]), ("f32", [COLS])]))
        elif op == "rmsnorm":
            out.append(Case(g, "norm", [(t, shape), (t, [COLS])], [(t, shape), ("f32", [ROWS, 1])]))
        elif op == "cross_entropy":
            labels = ("i32", [ROWS])
            ins = [(t, shape), labels] + ([("f32", [ROWS])] if "_bwd" in g else [])
            outs = [(t, shape)] if "_bwd" in g else [("f32", [ROWS])]
            out.append(Case(g, "norm", ins, outs))
        elif op == "gemm":
            for n in (256, 512):
                out.append(Case(g + " %d^3" % n, "gemm", [(t, [n, n]), (t, [n, n])], [(t, [n, n])], macs=n ** 3))
        elif op in ("random_uniform", "random_normal"):
            out.append(Case(g, "random", [], [("f32", shape)]))
        elif op == "dropout" and "_fwd" in g:
            out.append(Case(g, "random", [(t, shape)], [(t, shape), ("u8", shape)], ["p=0.25"]))
        elif op == "dropout":
            out.append(Case(g, "elementwise", [(t, shape), ("u8", shape)], [(t, shape)], ["p=0.25"]))
        elif op in ("maxpool2d", "avgpool2d", "global_avgpool", "global_maxpool"):
            out.extend(pool_cases(g, op, t))
        elif op in ("batchnorm", "instancenorm", "groupnorm"):
            out.extend(chnorm_cases(g, op, t))
        elif op == "cumsum":
            out.append(Case(g + " dim=1", "scan", [(t, shape)], [(t, shape)], ["dim=1"]))
            out.append(Case(g + " dim=0", "scan", [(t, [ROWS, 512])], [(t, [ROWS, 512])], ["dim=0"]))
        elif op == "topk":
            for dim, x in ((1, [256, COLS]), (0, [ROWS, 256])):
                y = [4, COLS] if dim == 1 else [ROWS, 4]
                out.append(Case(g + " dim=%d k=4" % dim, "scan", [(t, x)], [(t, y), ("i32", y)], ["dim=%d" % dim, "k=4"]))
        elif op == "hardmax":
            out.append(Case(g + " dim=1", "scan", [(t, shape)], [(t, shape)], ["dim=1"]))
            out.append(Case(g + " dim=0", "scan", [(t, [ROWS, 512])], [(t, [ROWS, 512])], ["dim=0"]))
        elif op == "embedding" and "_bwd" in g:
            out.append(Case(g, "scan", [(t, [2048, 256]), ("i32", [2048])], [(t, [512, 256])], lo=0, hi=511))
        elif op == "resize":
            for mode in (0, 1):
                out.append(Case(g + " mode=%d" % mode, "scan", [(t, [8, 64, 64])], [(t, [8, 128, 128])], ["mode=%d" % mode]))
        elif op == "conv2d":
            out.extend(conv_cases(g, t))
        elif op in ("sgd", "adamw"):
            state = 1 if op == "sgd" else 2
            out.append(Case(g, "optimizer", [("f32", shape), (t, shape)] + [("f32", shape)] * state,
                            [("f32", shape)] * (1 + state), ["momentum=0.9"] if op == "sgd" else []))
        elif op == "clamp":
            out.append(Case(g, "elementwise", [(t, shape)], [(t, shape)], ["low=-1", "high=1"]))
        elif "_bwd" in g:
            out.append(Case(g, "elementwise", [(t, shape), (t, shape)], [(t, shape)], lo=0.1, hi=0.9))
        else:
            lo = 0.01 if op in ("log", "sqrt", "rsqrt", "reciprocal") else -4.0
            out.append(Case(g, "elementwise", [(t, shape)], [(t, shape)], lo=lo))
        if op == "gelu":  # the tanh form is a loop of its own
            last = out[-1]
            out.append(Case(g + " approximate=1", last.family, last.inputs, last.outputs, ["approximate=1"], last.lo,
                            last.hi))
    return out


# Gaudi2's HBM, 2.45 TB/s, over the modelled clock of 1.648 GHz (harness DeviceModel::clockHz), in bytes a cycle.
HBM_BYTES_PER_CYCLE = 2.45e12 / 1.648e9
ELEMENT_BYTES = {"f32": 4, "i32": 4, "u32": 4, "bf16": 2, "f16": 2, "u8": 1}

TARGET = {"elementwise": 1.10, "cast": 1.10, "random": 1.10, "optimizer": 1.10, "reduction": 1.25, "softmax": 1.25,
          "norm": 1.25, "movement": 1.25, "integer": 1.25, "pooling": 1.25, "chnorm": 1.25, "scan": 1.25,
          "conv": 1.25}


def print_summary(results):
    """By family: how many kernels, the ratio's (GEMM: the share of peak's) minimum, median and maximum, and
    how many meet the target (docs/kernel-lib.md's summary table)."""
    print("\n| family | kernels | min | median | max | meet the target | median ratio to 4 slots |")
    print("|---|---|---|---|---|---|---|")
    median = lambda v: v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2  # noqa: E731
    for family in ["gemm"] + list(TARGET):
        got = sorted(r for f, r, _, _ in results if f == family)
        if not got:
            continue
        ok = sum(1 for f, _, good, _ in results if f == family and good)
        all_slots = median(sorted(a for f, _, _, a in results if f == family))
        fmt = (lambda v: "%.0f%%" % (100 * v)) if family == "gemm" else (lambda v: "%.2f" % v)
        target = ">= 80%" if family == "gemm" else "<= %.2f" % TARGET[family]
        print("| %s | %d | %s | %s | %s | %d (%s) | %.2f |" % (family, len(got), fmt(got[0]), fmt(median(got)),
                                                               fmt(got[-1]), ok, target, all_slots))


def measure(tool, case, tmp):
    args = [tool, "run", case.guid.split(" ")[0], "--arch", "gaudi2", "--json", os.path.join(tmp, "stats.json")]
    files = []
    for k, (t, shape) in enumerate(case.inputs):
        path = os.path.join(tmp, "in%d.npy" % k)
        write_npy(path, t, shape, values(t, shape, case.lo, case.hi, seed=k + 1))
        files.append(path + (":bf16" if t == "bf16" else ""))
    if files:
        args += ["-t"] + files
    args += ["-t"] + ["%s=%s[%s]" % (os.path.join(tmp, "out%d.npy" % k), t, ",".join(map(str, s)))
                      for k, (t, s) in enumerate(case.outputs)]
    for p in case.params:
        args += ["-p", p]
    p = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if p.returncode:
        raise RuntimeError("%s: %s" % (case.guid, (p.stdout + p.stderr)[-500:]))
    stats = json.load(open(os.path.join(tmp, "stats.json")))
    slowest = max(stats["cores"], key=lambda c: c["cycles"])
    busy = {k: v * slowest["cycles"] for k, v in slowest["slot_utilization"].items()}
    bound = max(busy["load"], busy["store"], busy["vpu"])
    used = sum(1 for c in stats["cores"] if c["bundles"] > 0)
    return slowest["cycles"], bound, busy["spu"], used


def main():
    global ROWS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin"))
    ap.add_argument("--only", default="")
    ap.add_argument("--rows", type=int, default=ROWS, help="rows of the 4096-wide tensors (default %(default)s)")
    args = ap.parse_args()
    if args.rows < 1:
        ap.error("--rows: expected a positive number of rows, got %d" % args.rows)
    ROWS = args.rows
    tool = os.path.join(args.bin, "tpc-kernels")
    guids = subprocess.run([tool, "list", "--arch", "gaudi2"], capture_output=True, text=True, check=True).stdout.split()
    results, misses = [], 0
    # The last two columns are for reading the table, not the target: the scalar slot's instructions (index
    # arithmetic, loop control, set-up), which the slot bound leaves out, and the cycles against the busiest
    # of all four slots (docs/kernel-lib.md, "Performance").
    print("| kernel | family | cycles | slot bound | ratio | target | scalar slot | ratio to 4 slots |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases(guids):
            if args.only not in case.guid:
                continue
            cycles, bound, scalar, used = measure(tool, case, tmp)
            all_slots = cycles / max(bound, scalar) if max(bound, scalar) else float("inf")
            if case.family == "gemm":
                peak = case.macs / 64.0 / used
                share = peak / cycles
                ok = share >= 0.80
                print("| %s | gemm | %d | %d MAC-cycles/core | %.0f%% of peak | >= 80%% %s | %d | %.2f |" % (
                    case.guid, cycles, peak, 100 * share, "" if ok else "(missed)", scalar, all_slots))
            else:
                if case.family == "movement":
                    # Data movement's bound is the larger of the slot bound and HBM's: every output element read
                    # once and written once at 2.45 TB/s, the device's, at the modelled clock (docs/pipeline.md).
                    moved = 2 * sum(count(shp) * ELEMENT_BYTES[t] for t, shp in case.outputs)
                    bound = max(bound, moved / HBM_BYTES_PER_CYCLE)
                ratio = cycles / bound if bound else float("inf")
                ok = ratio <= TARGET[case.family]
                print("| %s | %s | %d | %d | %.2f | <= %.2f %s | %d | %.2f |" % (
                    case.guid, case.family, cycles, bound, ratio, TARGET[case.family], "" if ok else "(missed)",
                    scalar, all_slots))
            misses += 0 if ok else 1
            results.append((case.family, share if case.family == "gemm" else ratio, ok, all_slots))
            sys.stdout.flush()
    print_summary(results)
    print("\n%d kernels miss their target" % misses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
