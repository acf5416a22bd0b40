#!/usr/bin/env python3
"""Compiler performance figures: for every TPC-C sample at -O2, the steady-state cycles per vector of its
innermost loop next to the slot bound, and the compile time; then every sample of samples/run_samples.py
at its own (small) size at -O0 and -O2, where -O2 must not be slower.

usage: bench_compiler.py [--bin BUILD/bin]

Steady state: the kernel runs on one core over two problem sizes that differ only in the innermost trip
count; (cycles2 - cycles1) / (vectors2 - vectors1) removes the fixed costs. The slot bound is what the
slots must do per vector however well the code is scheduled: tensor loads (load slot), tensor stores
(store slot) and VPU instructions (VPU slot), taken from the simulator's counts over the same difference.
Targets: within 10% of the slot bound on every sample; at most 0.5 s to compile; -O2 never slower than
-O0 at the samples' own sizes (a row or a few vectors per core: there, setup costs count).

Reductions (column_sum, row_sum) accumulate in chains of dependent adds, 4 cycles each: with one chain per
core no schedule beats 4 cycles per vector (the order of a float sum is the source's). Their sizes give
the core 8 columns or 8 rows, whose chains the compiler interleaves (unroll-and-jam, as for matmul's 8
output vectors).

The last column, scalar/vector, is the scalar slot's instructions per vector in the code as compiled. It is
not part of the bound (the compiler chooses that work), but it shows where a loop is bound by it: each
distinct tensor coordinate costs one i_add per iteration (the ISA has no offset form of ld_tnsr/st_tnsr
and no index arithmetic outside the scalar slot), so a loop touching more coordinates per vector than it
loads or stores vectors is bound there.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "samples"))
import run_samples  # noqa: E402  (the samples' specs and .npy writer)

# name, source, spec function, (rows, cols) for size 1 and size 2, lanes per vector, axis varied
CASES = [
    ("add_f32", "add_f32.c", run_samples.spec_add_f32, (1, 64 * 64), (1, 64 * 128), 64, "cols"),
    ("relu_bf16", "relu_bf16.c", run_samples.spec_relu_bf16, (1, 128 * 64), (1, 128 * 128), 128, "cols"),
    ("axpy_f32", "axpy_f32.c", run_samples.spec_axpy_f32, (1, 64 * 64), (1, 64 * 128), 64, "cols"),
    ("leaky_relu_f32", "leaky_relu_predicated_f32.c", run_samples.spec_leaky_relu_f32, (1, 64 * 64),
     (1, 64 * 128), 64, "cols"),
    ("scale_rows_i32", "scale_rows_branchy_i32.c", run_samples.spec_scale_rows_i32, (2, 64 * 64),
     (2, 64 * 128), 64, "cols"),
    ("scale_add_unroll8", "scale_add_unroll8_f32.c", run_samples.spec_scale_add_f32, (1, 64 * 64), (1, 64 * 128),
     64, "cols"),
    ("column_sum_f32", "column_sum_f32.c", run_samples.spec_column_sum_f32, (64, 64 * 8), (128, 64 * 8), 64, "rows"),
    ("staged_local_f32", "staged_local_f32.c", run_samples.spec_staged_local_f32, (1, 256 * 16),
     (1, 256 * 32), 64, "cols"),
    ("loop_invariant_f32", "loop_invariant_f32.c", run_samples.spec_loop_invariant_f32, (1, 64 * 64),
     (1, 64 * 128), 64, "cols"),
    ("many_live_vectors", "many_live_vectors_f32.c", run_samples.spec_many_live_vectors_f32, (1, 64 * 16),
     (1, 64 * 32), 64, "cols"),
    # Reductions along dim 0: per input vector of a row (the output is one value per row).
    ("row_sum_f32", "row_sum_f32.c", run_samples.spec_row_sum_f32, (8, 64 * 64), (8, 64 * 128), 64, "cols"),
    ("softmax_f32", "softmax_f32.c", run_samples.spec_softmax_f32, (2, 64 * 32), (2, 64 * 64), 64, "cols"),
    # (m, k, n): output rows of n columns, k multiply-accumulates each.
    ("matmul_f32", "matmul_f32.c", run_samples.spec_matmul_f32, (2, 32, 64 * 8), (2, 32, 64 * 16), 64, "n"),
    ("convert_f32_to_bf16", "convert_f32_to_bf16.c", run_samples.spec_convert_f32_to_bf16, (1, 128 * 64),
     (1, 128 * 128), 128, "cols"),
    ("convert_bf16_to_f32", "convert_bf16_to_f32.c", run_samples.spec_convert_bf16_to_f32, (1, 128 * 64),
     (1, 128 * 128), 128, "cols"),
    ("requantize_i8", "requantize_i8.c", run_samples.spec_requantize_i8, (1, 256 * 64), (1, 256 * 128), 256, "cols"),
]


def simulate(tool, obj, spec, tmp):
    cmd = [tool("tpc-sim"), obj, "--cores", "1", "--json", "stats.json"]
    shape = spec["shape"]
    for fname, descr, values, suffix in spec["inputs"]:
        run_samples.write_npy(os.path.join(tmp, fname), descr, spec.get("shapes", {}).get(fname, shape), values)
        cmd += ["-t", fname + suffix]
    if not spec.get("output_is_input"):
        out_name, out_type, _ = spec["output"]
        out_shape = spec.get("out_shape", shape)
        cmd += ["-t", "%s=%s[%s]" % (out_name, out_type, ",".join(str(s) for s in out_shape))]
    for v in spec.get("scalars", []):
        cmd += ["-s", v]
    if spec.get("index_space"):
        cmd += ["--index-space", ",".join(str(d) for d in spec["index_space"])]
    subprocess.run(cmd, cwd=tmp, check=True, capture_output=True)
    return json.load(open(os.path.join(tmp, "stats.json")))["cores"][0]


def measure(tool, case, compiles=3):
    """(cycles per vector, slot bound, scalar-slot instructions per vector, best compile time in s) of one case."""
    name, source, make, size1, size2, lanes, axis = case
    with tempfile.TemporaryDirectory() as tmp:
        obj = os.path.join(tmp, "k.o")
        times = []
        for _ in range(compiles):
            t0 = time.perf_counter()
            subprocess.run([tool("tpc-clang"), "-O2", "-c", os.path.join(HERE, "..", "samples", "tpc-c", source),
                            "-o", obj], check=True)
            times.append(time.perf_counter() - t0)
        s1 = simulate(tool, obj, make(*size1), tmp)
        s2 = simulate(tool, obj, make(*size2), tmp)
    if axis == "cols":
        vectors = (size2[1] - size1[1]) // lanes * size1[0]
    elif axis == "n":
        vectors = (size2[2] - size1[2]) // lanes * size1[0]
    else:
        vectors = (size2[0] - size1[0]) * ((size1[1] + lanes - 1) // lanes)
    cycles = (s2["cycles"] - s1["cycles"]) / vectors
    # Instructions per vector in each slot (bundles with that slot in use), not bytes or lanes: bytes would
    # leave out the load slot's scalar loads and address generation (matmul's gen_addr and ld_g for a[m, k]),
    # lane counts would undercount kernels that mix widths (requantize_i8 works on 256 i8 lanes and 64 i32).
    slot_insns = lambda s, slot: s["slot_utilization"][slot] * s["bundles"]  # noqa: E731
    per_vector = lambda slot: round(slot_insns(s2, slot) - slot_insns(s1, slot)) / vectors  # noqa: E731
    bound = max(per_vector("load"), per_vector("store"), per_vector("vpu"), 1.0)
    return cycles, bound, per_vector("spu"), min(times)


def small_sizes(tool):
    """(name, -O0 cycles, -O2 cycles) of every TPC-C sample of run_samples.py at its own size and core count."""
    out = []
    for name, source, make, shape, what, *rest in run_samples.SAMPLES:
        if source.endswith(".s"):
            continue
        flags = rest[0] if rest else []
        cycles = []
        for opt in (0, 2):
            with tempfile.TemporaryDirectory() as tmp:
                ok, _, _, _, stats = run_samples.run_one(tool, name, source, make(*shape), tmp, opt, flags)
                if not ok:
                    raise RuntimeError("%s -O%d: wrong output" % (name, opt))
                cycles.append(stats["cycles"])
        out.append((name, cycles[0], cycles[1]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "build", "bin"))
    args = ap.parse_args()
    tool = lambda name: os.path.join(os.path.abspath(args.bin), name)  # noqa: E731
    print("%-18s %14s %11s %7s %12s %14s" % ("sample (-O2)", "cycles/vector", "slot bound", "ratio", "compile (s)",
                                             "scalar/vector"))
    for case in CASES:
        cycles, bound, spu, compile_time = measure(tool, case)
        print("%-18s %14.2f %11.2f %7.2f %12.3f %14.2f" % (case[0], cycles, bound, cycles / bound, compile_time, spu))
    print()
    print("%-32s %10s %10s %7s" % ("sample at its own size", "-O0 cycles", "-O2 cycles", "-O2/-O0"))
    for name, o0, o2 in small_sizes(tool):
        print("%-32s %10d %10d %7.2f" % (name, o0, o2, o2 / o0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
