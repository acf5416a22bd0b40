#!/usr/bin/env python3
"""Differential testing of tpc-clang, tpc-sim and tpc-sim --native on random kernels (docs/fuzzing.md).

For each seed: kernelgen.py writes a kernel and its inputs; the kernel is compiled at -O0 and -O2; each
object runs on the simulator (--strict-hazards) and natively (--native); the four runs must all succeed
and leave the same bits in every output tensor (any NaN equals any NaN). A failing seed (a mismatch, a
compiler error or crash, a fault) is shrunk by delta debugging over the kernel's statements and written to
tests/regressions/seed<N>/ (kernel.c, run.json, README.md).

usage: difftest.py --bin BUILD/bin [--seeds A:B] [--jobs N] [--keep DIR] [--no-shrink] [--out DIR]
                   [--without FEATURE,...] [--timeout S]
       difftest.py --bin BUILD/bin --regression DIR...   (each DIR a tests/regressions/<name>: must pass)
exit status: 0 all seeds passed, 1 some failed, 2 bad usage
"""
import argparse
import json
import multiprocessing
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kernelgen  # noqa: E402

REGRESSIONS = os.path.normpath(os.path.join(HERE, "..", "regressions"))
RUNS = [("O0", "sim"), ("O0", "native"), ("O2", "sim"), ("O2", "native")]
FORMAT = {"f32": "f", "bf16": "H", "i32": "i", "u32": "I", "i16": "h", "u16": "H", "i8": "b", "u8": "B"}
SIZE = {"f32": 4, "bf16": 2, "i32": 4, "u32": 4, "i16": 2, "u16": 2, "i8": 1, "u8": 1}


# ---------------------------------------------------------------------------------------------- .npy

def bf16_bits(x):
    b = struct.unpack("<I", struct.pack("<f", x))[0]
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def write_npy(path, dtype, shape, values):
    descr = kernelgen.TYPES[dtype][7]
    if dtype == "bf16":
        values = [bf16_bits(v) for v in values]
    shape_text = "(%d,)" % shape[0] if len(shape) == 1 else "(" + ", ".join(str(s) for s in shape) + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), FORMAT[dtype]), *values))


def npy_body(data):
    if data[:6] != b"\x93NUMPY":
        raise ValueError("not an .npy file")
    if data[6] == 1:
        hlen, start = struct.unpack("<H", data[8:10])[0], 10
    else:
        hlen, start = struct.unpack("<I", data[8:12])[0], 12
    return data[:start + hlen], data[start + hlen:]


def is_nan(bits, dtype):
    if dtype == "f32":
        return (bits & 0x7F800000) == 0x7F800000 and (bits & 0x007FFFFF) != 0
    if dtype == "bf16":
        return (bits & 0x7F80) == 0x7F80 and (bits & 0x007F) != 0
    return False


def compare(a, b, dtype):
    """None if the files hold the same elements (any NaN equal to any NaN), else a description."""
    if a == b:
        return None
    ha, ba = npy_body(a)
    hb, bb = npy_body(b)
    if ha != hb:
        return "the .npy headers differ"
    if len(ba) != len(bb):
        return "sizes differ (%d, %d bytes)" % (len(ba), len(bb))
    size = SIZE[dtype]
    bad = []
    for i in range(0, len(ba), size):
        x = int.from_bytes(ba[i:i + size], "little")
        y = int.from_bytes(bb[i:i + size], "little")
        if x != y and not (is_nan(x, dtype) and is_nan(y, dtype)):
            bad.append((i // size, x, y))
    if not bad:
        return None
    i, x, y = bad[0]
    return "%d elements differ; first: element %d, 0x%x vs 0x%x" % (len(bad), i, x, y)


# ----------------------------------------------------------------------------------------- one case

class Case:
    """A kernel source plus its run description (what kernelgen.Kernel and run.json hold)."""

    def __init__(self, source, tensors, scalars, index_space, cores):
        self.source, self.tensors, self.scalars = source, tensors, scalars
        self.index_space, self.cores = index_space, cores

    @staticmethod
    def of_kernel(k, body=None):
        return Case(k.source(body), k.tensors, k.scalars, k.index_space, k.cores)

    def spec(self):
        return {"tensors": self.tensors, "scalars": self.scalars, "index_space": self.index_space,
                "cores": self.cores}


MUTATE = None  # self-test: (run, tensor) whose output is changed by one bit before the comparison


def run_case(case, bindir, work, timeout):
    """Compiles and runs the four ways. Returns (signature, details): signature None when all agree."""
    os.makedirs(work, exist_ok=True)
    src = os.path.join(work, "kernel.c")
    with open(src, "w") as f:
        f.write(case.source)
    for t in case.tensors:
        if t["values"] is not None:
            write_npy(os.path.join(work, t["name"] + ".npy"), t["dtype"], t["shape"], t["values"])
    clang, sim = os.path.join(bindir, "tpc-clang"), os.path.join(bindir, "tpc-sim")
    for opt in ("O0", "O2"):
        obj = os.path.join(work, "k_%s.o" % opt)
        try:
            p = subprocess.run([clang, "-" + opt, "-c", src, "-o", obj], capture_output=True, text=True,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            return ("compile-timeout", opt), "tpc-clang -%s timed out after %ss" % (opt, timeout)
        if p.returncode != 0:
            lines = p.stderr.strip().splitlines() or ["(no message)"]
            first = next((x for x in lines if ": error: " in x), lines[0])
            kind = "compile-error" if p.returncode == 1 else "compile-crash"
            # the signature keeps the message without the position (it moves while shrinking)
            msg = first.split(": error: ", 1)[-1].split(" (IR: ")[0]  # IR value names change too
            return (kind, opt, msg[:120]), "tpc-clang -%s exit %d: %s" % (opt, p.returncode, p.stderr.strip()[-2000:])
    outputs = {}
    for opt, how in RUNS:
        run_dir = os.path.join(work, "%s_%s" % (opt, how))
        os.makedirs(run_dir, exist_ok=True)
        cmd = [sim, os.path.join(work, "k_%s.o" % opt), "--strict-hazards",
               "--index-space", ",".join(str(x) for x in case.index_space), "--cores", str(case.cores),
               "--threads", "1"]  # one host thread: the native path compiles the kernel once per thread
        if how == "native":
            cmd.append("--native")
        for t in case.tensors:
            if t["values"] is not None:
                cmd += ["-t", os.path.join(work, t["name"] + ".npy") + kernelgen.TYPES[t["dtype"]][8]]
            else:
                cmd += ["-t", "%s.npy=%s[%s]" % (os.path.join(run_dir, t["name"]), t["dtype"],
                                                 ",".join(str(s) for s in t["shape"]))]
        for _, v in case.scalars:
            cmd += ["-s", v]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return ("run-timeout", opt, how), "tpc-sim (-%s, %s) timed out after %ss" % (opt, how, timeout)
        if p.returncode != 0:
            kind = "fault" if p.returncode == 2 else "run-error" if p.returncode == 1 else "run-crash"
            return (kind, opt, how), "tpc-sim (-%s, %s) exit %d: %s" % (opt, how, p.returncode, p.stderr.strip()[-2000:])
        outputs[(opt, how)] = {t["name"]: open(os.path.join(run_dir, t["name"] + ".npy"), "rb").read()
                               for t in case.tensors if t["values"] is None}
        if MUTATE and MUTATE[0] == (opt, how):
            data = bytearray(outputs[(opt, how)][MUTATE[1]])
            data[-1] ^= 1
            outputs[(opt, how)][MUTATE[1]] = bytes(data)
    ref = RUNS[0]
    differing, details = [], []
    for run in RUNS[1:]:
        bad = []
        for t in case.tensors:
            if t["values"] is not None:
                continue
            d = compare(outputs[ref][t["name"]], outputs[run][t["name"]], t["dtype"])
            if d:
                bad.append(t["name"])
                details.append("%s: -%s %s vs -%s %s: %s" % (t["name"], ref[0], ref[1], run[0], run[1], d))
        if bad:
            differing.append((run, tuple(bad)))
    if differing:
        return ("mismatch",) + tuple(differing), "\n".join(details)
    return None, ""


# ------------------------------------------------------------------------------------------ shrinking

def shrink(kernel, signature, bindir, work, timeout, log=None):
    """ddmin over the kernel's statements: the smallest subset (1-minimal) that keeps the signature."""
    tries = [0]

    def failing(indices):
        tries[0] += 1
        body = [kernel.body[i] for i in indices]
        d = os.path.join(work, "shrink")
        shutil.rmtree(d, ignore_errors=True)
        sig, _ = run_case(Case.of_kernel(kernel, body), bindir, d, timeout)
        return sig == signature

    current = list(range(len(kernel.body)))
    n = 2
    while len(current) >= 2:
        chunk = max(1, len(current) // n)
        subsets = [current[i:i + chunk] for i in range(0, len(current), chunk)]
        reduced = False
        for s in subsets:  # try each complement
            comp = [i for i in current if i not in s]
            if failing(comp):
                current, n, reduced = comp, max(n - 1, 2), True
                break
        if not reduced:
            if n >= len(current):
                break
            n = min(len(current), n * 2)
    if len(current) == 1 and failing([]):
        current = []
    if log:
        log("  shrunk %d -> %d statements in %d runs" % (len(kernel.body), len(current), tries[0]))
    return current


def write_regression(kernel, indices, signature, details, features, outdir):
    name = "seed%d" % kernel.seed
    d = os.path.join(outdir, name)
    os.makedirs(d, exist_ok=True)
    case = Case.of_kernel(kernel, [kernel.body[i] for i in indices])
    with open(os.path.join(d, "kernel.c"), "w") as f:
        f.write(case.source)
    spec = case.spec()
    spec["seed"] = kernel.seed
    spec["features"] = sorted(features)
    with open(os.path.join(d, "run.json"), "w") as f:
        json.dump(spec, f, indent=1)
    with open(os.path.join(d, "README.md"), "w") as f:
        how = ("shrunk to %d statements" % len(indices)) if details else \
            "kept whole (%d statements; the bug was fixed before the shrinker ran)" % len(indices)
        f.write("# Regression %s\n\nFound by `tests/fuzz/difftest.py --seeds %d:%d`, %s.\n\n"
                "What failed: `%s`\n\n```\n%s\n```\n\nThe test (`fuzz.regression.%s`) compiles kernel.c at -O0 "
                "and -O2 and runs each on the simulator and natively with run.json's tensors, scalars, index space "
                "and core count; all four must succeed and agree.\n"
                % (name, kernel.seed, kernel.seed + 1, how, signature, details.strip()[:3000], name))
    return d


# ---------------------------------------------------------------------------------------------- main

def check_seed(args):
    seed, bindir, features, keep, do_shrink, outdir, timeout = args
    t0 = time.time()
    kernel = kernelgen.generate(seed, features)
    work = tempfile.mkdtemp(prefix="difftest%d_" % seed)
    try:
        sig, details = run_case(Case.of_kernel(kernel), bindir, work, timeout)
        result = {"seed": seed, "signature": sig, "details": details, "statements": len(kernel.body)}
        if sig is not None and do_shrink:
            lines = []
            indices = shrink(kernel, sig, bindir, work, timeout, lines.append)
            result["regression"] = write_regression(kernel, indices, sig, details, features, outdir)
            result["shrink"] = "; ".join(lines)
        result["seconds"] = time.time() - t0
        return result
    finally:
        if keep:
            dst = os.path.join(keep, "seed%d" % seed)
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(work, dst)
        shutil.rmtree(work, ignore_errors=True)


def run_regression(path, bindir, timeout):
    spec = json.load(open(os.path.join(path, "run.json")))
    case = Case(open(os.path.join(path, "kernel.c")).read(), spec["tensors"], [tuple(s) for s in spec["scalars"]],
                spec["index_space"], spec["cores"])
    work = tempfile.mkdtemp(prefix="regression_")
    try:
        return run_case(case, bindir, work, timeout)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def self_test(bindir, timeout):
    """The checks themselves can fail: NaN handling of compare(), and a one-bit change of one run's output
    (as a miscompiled or mis-simulated kernel would leave) is reported as a mismatch of that run."""
    global MUTATE
    hdr = b"\x93NUMPY\x01\x00" + struct.pack("<H", 6) + b"{}    "
    f = lambda *w: hdr + struct.pack("<%dI" % len(w), *w)
    assert compare(f(1, 2), f(1, 2), "f32") is None
    assert compare(f(0x7FC00000), f(0xFFFFFFFF), "f32") is None, "any NaN equals any NaN"
    assert compare(f(0x7F800000), f(0x7FC00000), "f32"), "infinity is not NaN"
    assert compare(f(0, 5), f(0, 4), "i32"), "one bit differs"
    assert compare(f(0x7FC00000), f(0x7FC00000 >> 16 << 16 | 1), "i32"), "NaN bits of integers differ"
    k = kernelgen.generate(0, sorted(set(kernelgen.FEATURES) - kernelgen.DEFAULT_OFF))
    work = tempfile.mkdtemp(prefix="difftest_self_")
    try:
        sig, _ = run_case(Case.of_kernel(k), bindir, work, timeout)
        assert sig is None, "seed 0 fails: %s" % (sig,)
        MUTATE = (("O2", "native"), "misc")
        sig, details = run_case(Case.of_kernel(k), bindir, os.path.join(work, "m"), timeout)
        MUTATE = None
        assert sig == ("mismatch", (("O2", "native"), ("misc",))), "a changed output went unnoticed: %s" % (sig,)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("self-test ok")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True, help="the build's bin directory (tpc-clang, tpc-sim)")
    ap.add_argument("--seeds", default="0:100", help="A:B, the seeds A..B-1")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--keep", help="keep every seed's files under this directory")
    ap.add_argument("--no-shrink", action="store_true", help="report failures without shrinking them")
    ap.add_argument("--out", default=REGRESSIONS, help="where shrunk reproducers go (default tests/regressions)")
    ap.add_argument("--without", default="", help="comma-separated generator features to turn off (%s)"
                    % ", ".join(kernelgen.FEATURES))
    ap.add_argument("--with", dest="with_", default="", help="comma-separated features that are off by default "
                    "(%s) to turn on" % ", ".join(sorted(kernelgen.DEFAULT_OFF)))
    ap.add_argument("--timeout", type=float, default=120, help="seconds per tool invocation")
    ap.add_argument("--regression", nargs="+", metavar="DIR", help="run these reproducers instead of seeds")
    ap.add_argument("--print", type=int, metavar="SEED", help="print the kernel of SEED and exit")
    ap.add_argument("--self-test", action="store_true", help="check that the comparison can fail, and exit")
    ap.add_argument("--save", type=int, metavar="SEED",
                    help="write SEED's whole kernel as a regression (with --why) and exit, e.g. for a bug "
                         "fixed before the shrinker ran on it")
    ap.add_argument("--why", default="", help="with --save: what failed")
    a = ap.parse_args()
    without = {f for f in a.without.split(",") if f}
    unknown = without - set(kernelgen.FEATURES)
    if unknown:
        ap.error("unknown feature(s) in --without: %s (known: %s)" % (", ".join(sorted(unknown)),
                                                                      ", ".join(kernelgen.FEATURES)))
    with_ = {f for f in a.with_.split(",") if f}
    unknown = with_ - set(kernelgen.FEATURES)
    if unknown:
        ap.error("unknown feature(s) in --with: %s" % ", ".join(sorted(unknown)))
    features = sorted((set(kernelgen.FEATURES) - kernelgen.DEFAULT_OFF - without) | with_)
    if a.save is not None:
        k = kernelgen.generate(a.save, features)
        print(write_regression(k, list(range(len(k.body))), a.why, "", features, a.out))
        return 0
    if a.print is not None:
        print(kernelgen.generate(a.print, features).source(), end="")
        return 0
    for tool in ("tpc-clang", "tpc-sim"):
        if not os.access(os.path.join(a.bin, tool), os.X_OK):
            ap.error("%s: no executable %s there" % (a.bin, tool))
    if a.self_test:
        return self_test(a.bin, a.timeout)
    if a.regression:
        failed = 0
        for path in a.regression:
            sig, details = run_regression(path, a.bin, a.timeout)
            print("%s %s" % ("FAIL" if sig else "ok", path))
            if sig:
                failed += 1
                print("  %s\n  %s" % (sig, details.replace("\n", "\n  ")))
        return 1 if failed else 0
    try:
        if ":" in a.seeds:
            lo, hi = (int(x) for x in a.seeds.split(":"))
            seeds = list(range(lo, hi))
        else:
            seeds = [int(x) for x in a.seeds.split(",")]
    except ValueError:
        ap.error("--seeds wants A:B (the seeds A..B-1) or a comma-separated list, got %r" % a.seeds)
    t0 = time.time()
    jobs = [(s, a.bin, features, a.keep, not a.no_shrink, a.out, a.timeout) for s in seeds]
    failures = []
    with multiprocessing.Pool(max(1, a.jobs)) as pool:
        for r in pool.imap_unordered(check_seed, jobs):
            if r["signature"] is not None:
                failures.append(r)
                print("FAIL seed %d: %s" % (r["seed"], r["signature"]), flush=True)
                print("  " + r["details"].replace("\n", "\n  ")[:2000], flush=True)
                if "regression" in r:
                    print("  %s; reproducer in %s" % (r["shrink"], r["regression"]), flush=True)
    n = len(seeds)
    print("%d seeds, %d failed, %.1f s (%d jobs)" % (n, len(failures), time.time() - t0, a.jobs))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
