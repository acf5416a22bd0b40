#!/usr/bin/env python3
"""Checks unroll-and-jam (tpcc/backend/src/unroll_and_jam.cpp): a loop around an accumulating innermost
loop runs several of its iterations side by side, one accumulator each, with the results of the source.

- Results bit for bit against a host reference, at -O0 and -O2, for outer trip counts around the jam
  factors (0, 1, F-1, F, F+1 for F = 8 and the remainder's 4 and 2) and inner trip counts 0, 1 and more:
  a column sum and a matrix product (v_f32_mac_b, fused, whose scalar operand the copies share), on inputs whose
  sums depend on the order of their additions (one sum reassociated would show).
- Nests that are not legal to jam keep the source's results and are left alone: one that stores a tensor
  it reads (each column's sum replaces row 0 of the next column, which the next outer iteration then
  reads), one whose inner trip count changes with the outer iteration, and one whose outer loop
  accumulates the inner sums (all = all * 0.5 + sum: the next outer iteration needs this one's sum).
- TPC_DEBUG_UNROLL_AND_JAM reports the jams: a copy of the nest as it was for one outer iteration, 8
  copies, then 4 and 2 for the remainder; nothing for the illegal nests.
- The samples column_sum_f32, row_sum_f32 and matmul_f32 run within 1.1 times their slot bound in steady
  state (bench/bench_compiler.py's measure, which counts each slot's instructions: matmul's load slot also
  issues the gen_addr and ld_g of a[m, k]): 4, 4 and 7.8 times without the transformation
  (TPC_UNROLL_AND_JAM=0); matmul was 1.19 before its set-up between groups of columns was made cheaper
  (lane_offsets.cpp, constant_coordinates.cpp, iv_increments.cpp, two chains in coordinate_chains.cpp).

usage: check_unroll_and_jam.py BUILD/bin
"""
import os
import re
import struct
import subprocess
import sys
import tempfile
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "samples"))
import bench_compiler  # noqa: E402
import run_samples  # noqa: E402
from run_samples import f32, read_npy, write_npy  # noqa: E402

COLUMNS = """void main(tensor x, tensor out, int vectors, int rows)
{
    int5 c = 0;
    for (int col = 0; col < vectors * 64; col += 64) {
        c[0] = col;
        float64 sum = 0.0f;
        for (int row = 0; row < rows; row++) {
            c[1] = row;
            sum += v_f32_ld_tnsr_b(c, x);
        }
        c[1] = 0;
        v_f32_st_tnsr(c, out, sum);
    }
}
"""

MATMUL = """void main(tensor a, tensor b, tensor c, int vectors, int depth)
{
    for (int n = 0; n < vectors * 64; n += 64) {
        float64 acc = 0.0f;
        for (int k = 0; k < depth; k++) {
            const int5 ak = {k, 0, 0, 0, 0};
            const int5 bk = {n, k, 0, 0, 0};
            acc = v_f32_mac_b(v_f32_ld_tnsr_b(bk, b), s_f32_ld_g(gen_addr(ak, a)), acc);
        }
        const int5 out = {n, 0, 0, 0, 0};
        v_f32_st_tnsr(out, c, acc);
    }
}
"""

# Not legal: the outer iteration col stores row 0 of column col + 64, which iteration col + 64 reads.
CARRY = """void main(tensor x, int vectors, int rows)
{
    int5 c = 0;
    for (int col = 0; col < vectors * 64; col += 64) {
        c[0] = col;
        float64 sum = 0.0f;
        for (int row = 0; row < rows; row++) {
            c[1] = row;
            sum += v_f32_ld_tnsr_b(c, x);
        }
        c[0] = col + 64;
        c[1] = 0;
        v_f32_st_tnsr(c, x, sum);
    }
}
"""

# Not legal either: the inner trip count changes with the outer iteration (odd vectors add one row less).
UNEVEN = """void main(tensor x, tensor out, int vectors, int rows)
{
    int5 c = 0;
    for (int col = 0; col < vectors * 64; col += 64) {
        c[0] = col;
        float64 sum = 0.0f;
        for (int row = 0; row < rows - (col / 64) % 2; row++) {
            c[1] = row;
            sum += v_f32_ld_tnsr_b(c, x);
        }
        c[1] = 0;
        v_f32_st_tnsr(c, out, sum);
    }
}
"""

# An accumulation over the outer loop too, fed by each inner sum: it must add in the source's order.
RUNNING = """void main(tensor x, tensor out, int vectors, int rows)
{
    int5 c = 0;
    float64 all = 0.0f;
    for (int col = 0; col < vectors * 64; col += 64) {
        c[0] = col;
        float64 sum = 0.0f;
        for (int row = 0; row < rows; row++) {
            c[1] = row;
            sum += v_f32_ld_tnsr_b(c, x);
        }
        all = all * 0.5f + sum;
        c[1] = 0;
        v_f32_st_tnsr(c, out, all);
    }
}
"""

MAX_VECTORS = 17
MAX_ROWS = 9


def values(n, salt):
    """Values of very different magnitudes: their f32 sums depend on the order of the additions."""
    out = []
    for i in range(n):
        h = (i * 2654435761 + salt * 40503) % 4294967296
        out.append(f32(((h % 20011) - 10000) / 7.0 * 10.0 ** ((h >> 16) % 7 - 3)))
    return out


def column_reference(x, cols, vectors, rows):
    out = [0.0] * cols
    for j in range(vectors * 64):
        s = 0.0
        for i in range(rows):
            s = f32(s + x[i * cols + j])
        out[j] = s
    return out


def fused(acc, a, b):
    """acc + a*b rounded once to f32 (mac is fused, docs/isa.md)."""
    exact = Fraction(acc) + Fraction(a) * Fraction(b)
    d = float(exact)
    f = f32(d)
    if Fraction(d) != exact and f != d:
        # d may sit halfway between two f32 values while the exact value does not: round toward it.
        bits = struct.unpack("<I", struct.pack("<f", f))[0]
        step = 1 if (abs(d) > abs(f)) else -1
        other = struct.unpack("<f", struct.pack("<I", bits + step))[0]
        if Fraction(d) * 2 == Fraction(f) + Fraction(other):
            f = other if abs(Fraction(other) - exact) < abs(Fraction(f) - exact) else f
    return f


def matmul_reference(a, b, cols, vectors, depth):
    out = [0.0] * cols
    for j in range(vectors * 64):
        acc = 0.0
        for k in range(depth):
            acc = fused(acc, a[k], b[k * cols + j])
        out[j] = acc
    return out


def uneven_reference(x, cols, vectors, rows):
    out = [0.0] * cols
    for j in range(vectors * 64):
        s = 0.0
        for i in range(rows - (j // 64) % 2):
            s = f32(s + x[i * cols + j])
        out[j] = s
    return out


def running_reference(x, cols, vectors, rows):
    sums = column_reference(x, cols, vectors, rows)
    out = [0.0] * cols
    all_ = [0.0] * 64
    for v in range(vectors):
        for l in range(64):
            all_[l] = f32(f32(all_[l] * 0.5) + sums[v * 64 + l])
            out[v * 64 + l] = all_[l]
    return out


def carry_reference(x, cols, vectors, rows):
    x = list(x)
    for v in range(vectors):
        for l in range(64):
            s = 0.0
            for i in range(rows):
                s = f32(s + x[i * cols + v * 64 + l])
            if (v + 1) * 64 + l < cols:
                x[(v + 1) * 64 + l] = s
    return x


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError("%s failed (exit %d):\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))


def main():
    bin_dir = os.path.abspath(sys.argv[1])
    tool = lambda name: os.path.join(bin_dir, name)  # noqa: E731
    cols = (MAX_VECTORS + 1) * 64
    vector_counts = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17]
    failures = checks = 0

    def check(label, got, want):
        nonlocal failures, checks
        checks += 1
        bad = [i for i, (g, w) in enumerate(zip(got, want)) if struct_bits(g) != struct_bits(w)]
        if len(got) != len(want) or bad:
            failures += 1
            where = ("first at %d: got %r, want %r" % (bad[0], got[bad[0]], want[bad[0]])) if bad else "sizes differ"
            print("FAIL %s: %d elements differ, %s" % (label, len(bad), where))

    with tempfile.TemporaryDirectory() as tmp:
        sources = {"columns": COLUMNS, "matmul": MATMUL, "carry": CARRY, "uneven": UNEVEN, "running": RUNNING}
        for name, text in sources.items():
            with open(os.path.join(tmp, name + ".c"), "w") as f:
                f.write(text)
            for opt in (0, 2):
                run([tool("tpc-clang"), "-O%d" % opt, "-c", name + ".c", "-o", "%s%d.o" % (name, opt)], tmp)
            # What the pass did (TPC_DEBUG_UNROLL_AND_JAM): the outer loop jammed by 8, its remainder by 4
            # and 2; the carry nest not at all.
            p = subprocess.run([tool("tpc-clang"), "-O2", "-c", name + ".c", "-o", "debug.o"], cwd=tmp,
                               capture_output=True, text=True, env=dict(os.environ, TPC_DEBUG_UNROLL_AND_JAM="1"))
            jams = re.findall(r"unroll-and-jam: (?:loop at line \d+: (\d+) copies|(a copy) of the nest for one iteration)",
                              p.stderr)
            jams = [copies or once for copies, once in jams]
            want = [] if name in ("carry", "uneven", "running") else ["a copy", "8", "4", "2"]
            checks += 1
            if jams != want:
                failures += 1
                print("FAIL %s: jammed by %s, want %s\n%s" % (name, jams, want, p.stderr))

        x = values(MAX_ROWS * cols, 1)
        write_npy(os.path.join(tmp, "x.npy"), "<f4", [MAX_ROWS, cols], x)
        a = values(MAX_ROWS, 2)
        write_npy(os.path.join(tmp, "a.npy"), "<f4", [1, MAX_ROWS], a)
        references = {}  # the same for both -O levels: (reference, vectors, rows) -> values

        def expected(reference, vectors, rows, *inputs):
            key = (reference.__name__, vectors, rows)
            if key not in references:
                references[key] = reference(*inputs, cols, vectors, rows)
            return references[key]

        for opt in (0, 2):
            for vectors in vector_counts:
                for rows in (0, 1, 5, MAX_ROWS):
                    label = "-O%d %d vectors, %d rows" % (opt, vectors, rows)
                    run([tool("tpc-sim"), "columns%d.o" % opt, "--cores", "1", "-t", "x.npy", "-t",
                         "out.npy=f32[1,%d]" % cols, "-s", str(vectors), "-s", str(rows)], tmp)
                    check("column sum " + label, read_npy(os.path.join(tmp, "out.npy"))[1],
                          expected(column_reference, vectors, rows, x))
                    run([tool("tpc-sim"), "matmul%d.o" % opt, "--cores", "1", "-t", "a.npy", "-t", "x.npy",
                         "-t", "c.npy=f32[1,%d]" % cols, "-s", str(vectors), "-s", str(rows)], tmp)
                    check("matmul " + label, read_npy(os.path.join(tmp, "c.npy"))[1],
                          expected(matmul_reference, vectors, rows, a, x))
                    for name, reference in (("uneven", uneven_reference), ("running", running_reference)):
                        run([tool("tpc-sim"), "%s%d.o" % (name, opt), "--cores", "1", "-t", "x.npy", "-t",
                             "out.npy=f32[1,%d]" % cols, "-s", str(vectors), "-s", str(rows)], tmp)
                        check("%s (not jammed) %s" % (name, label), read_npy(os.path.join(tmp, "out.npy"))[1],
                              expected(reference, vectors, rows, x))
                    write_npy(os.path.join(tmp, "y.npy"), "<f4", [MAX_ROWS, cols], x)
                    run([tool("tpc-sim"), "carry%d.o" % opt, "--cores", "1", "-t", "y.npy", "-s", str(vectors),
                         "-s", str(rows)], tmp)
                    check("carry (not jammed) " + label, read_npy(os.path.join(tmp, "y.npy"))[1],
                          expected(carry_reference, vectors, rows, x))
    print("%d of %d result checks passed" % (checks - failures, checks))

    limits = {"column_sum_f32": 1.10, "row_sum_f32": 1.10, "matmul_f32": 1.10}
    for case in bench_compiler.CASES:
        if case[0] not in limits:
            continue
        cycles, bound, _, _ = bench_compiler.measure(tool, case, compiles=1)
        ok = cycles <= limits[case[0]] * bound + 1e-9
        failures += not ok
        print("%s %s: %.2f cycles per vector, slot bound %.2f (at most %.2f times)" % (
            "ok  " if ok else "FAIL", case[0], cycles, bound, limits[case[0]]))
    # The samples' own sizes (a few vectors per core, the jammed loop does not run): correct results.
    for name, source, make, shape, _, *rest in run_samples.SAMPLES:
        if name in limits:
            with tempfile.TemporaryDirectory() as tmp:
                ok = run_samples.run_one(tool, name, source, make(*shape), tmp, 2, [])[0]
            failures += not ok
            print("%s %s at its own size %s" % ("ok  " if ok else "FAIL", name, shape))
    print("%d failed" % failures)
    return 1 if failures else 0


def struct_bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


if __name__ == "__main__":
    sys.exit(main())
