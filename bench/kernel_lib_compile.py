#!/usr/bin/env python3
"""How long the kernel library takes to compile (docs/kernel-lib.md, "Build time"): every kernel object of
the library (BUILD/kernel-lib/objects.txt, written by CMake) compiled by BUILD/bin/tpc-clang -O2 as the
build does, into a temporary directory: one `tpc-clang --batch` per source and architecture, --jobs of them
at a time. Prints the wall time of the whole set (the issue's target: under a minute on 2 cores) and the
sum of the batches. With --single, every object is compiled by a tpc-clang of its own instead, and the
slowest compiles are listed.

usage: kernel_lib_compile.py [--build BUILD] [--jobs N] [--single] [--slowest N]
"""
import argparse
import concurrent.futures
import os
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def arguments(kernels_dir, out_dir, line):
    obj, source, arch, defines = line.split("|", 3)
    return ["-Wall", "-Werror", "-O2", "-march=" + arch, "-I", kernels_dir] + shlex.split(defines) + [
        os.path.join(ROOT, "kernel-lib", source), "-c", "-o", os.path.join(out_dir, obj)]


def compile_batch(tool, out_dir, name, lines_of_arguments):
    listing = os.path.join(out_dir, name + ".txt")
    with open(listing, "w") as f:
        f.write("".join("\t".join(a) + "\n" for a in lines_of_arguments))
    start = time.monotonic()
    p = subprocess.run([tool, "--batch", listing], capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError("%s --batch %s: %s" % (tool, listing, p.stderr))
    return time.monotonic() - start, "%s (%d objects)" % (name, len(lines_of_arguments))


def compile_one(tool, kernels_dir, out_dir, line):
    obj = line.split("|", 1)[0]
    cmd = [tool] + arguments(kernels_dir, out_dir, line)
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError("%s: %s" % (" ".join(cmd), p.stderr))
    return time.monotonic() - start, obj


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--single", action="store_true", help="one tpc-clang per object instead of the build's batches")
    ap.add_argument("--slowest", type=int, default=8)
    args = ap.parse_args()
    manifest = os.path.join(args.build, "kernel-lib", "objects.txt")
    tool = os.path.join(args.build, "bin", "tpc-clang")
    for path in (manifest, tool):
        if not os.path.exists(path):
            sys.exit("kernel_lib_compile.py: %s does not exist (build first: bash scripts/build.sh)" % path)
    lines = [l for l in open(manifest).read().splitlines() if l]
    kernels_dir = os.path.join(ROOT, "kernel-lib", "kernels")
    with tempfile.TemporaryDirectory() as out_dir:
        start = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            if args.single:
                times = list(pool.map(lambda l: compile_one(tool, kernels_dir, out_dir, l), lines))
            else:
                batches = {}  # as kernel-lib/CMakeLists.txt groups them: by source and architecture, in order
                for l in lines:
                    _, source, arch, _ = l.split("|", 3)
                    batches.setdefault("%s.%s" % (os.path.basename(source), arch), []).append(
                        arguments(kernels_dir, out_dir, l))
                times = list(pool.map(lambda b: compile_batch(tool, out_dir, b[0], b[1]), batches.items()))
        wall = time.monotonic() - start
    what = "single compiles" if args.single else "%d batches" % len(times)
    print("%d kernel objects on %d jobs: %.1f s wall, %.1f s of %s (median %.2f s)" % (
        len(lines), args.jobs, wall, sum(t for t, _ in times), what, sorted(t for t, _ in times)[len(times) // 2]))
    for t, obj in sorted(times, reverse=True)[:args.slowest]:
        print("  %6.2f s  %s" % (t, obj))
    return 0


if __name__ == "__main__":
    sys.exit(main())
