#!/usr/bin/env python3
"""Checks modulo variable expansion (tpcc/backend/src/modulo_expansion.cpp): in a modulo-scheduled loop,
values read long after they are computed are carried by copies, so the initiation interval is not held to
the length of the chain between their definition and their last read.

The kernel (its vector loop not unrolled, so that the chains are much longer than the loop body's slot
bound): per vector, x and a value accumulated in place from a second tensor (v_f32_mac_b, whose
destination is its accumulator: a copy and a tied write), a scalar loaded from a third tensor, three
chains of 24 dependent multiply-adds (on x, on the accumulated value and on their product), and a result
that reads x, the scalar and the chains' ends. Three chains, so that the slot bound stays above the
recurrence that the store and the next iterations' scalar load make through memory (they may alias).

- Results bit for bit against a host reference (fused multiply-add rounded once, as the core does), at
  -O0 and -O2 with and without expansion (TPC_MODULO_EXPANSION=0), under --strict-hazards, for row
  lengths around the unroll count and the prologue's stages (1 to 9, 16 and 37 vectors) and on 1 and 3 cores.
- Steady state (cycles per vector over two row lengths, on one core): within 1.15 times the slot bound
  with expansion; more than 1.5 times it without (the chain from x's load to its last read is what the
  interval waits for then).
- TPC_DEBUG_MODSCHED reports the copies.

usage: check_modulo_expansion.py BUILD/bin
"""
import functools
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "samples"))
sys.path.insert(0, HERE)
from check_unroll_and_jam import fused  # noqa: E402
from run_samples import f32, read_npy, write_npy  # noqa: E402

KERNEL = """void main(tensor x, tensor m, tensor s, tensor out)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    int5 c = 0;
    for (int row = start[1]; row < end[1]; row++) {
        c[1] = row;
#pragma unroll 1
        for (int col = start[0] * 64; col < end[0] * 64; col += 64) {
            c[0] = col;
            const float64 xv = v_f32_ld_tnsr_b(c, x);
            const float64 mv = v_f32_mac_b(xv, 0.5f, v_f32_ld_tnsr_b(c, m));
            const float sv = s_f32_ld_g(gen_addr(c, s));
            float64 y = xv, z = mv, w = v_f32_mul_b(xv, mv);
#pragma unroll
            for (int k = 0; k < 24; k++) {
                y = v_f32_mac_b(y, 0.75f, (float64)0.125f);
                z = v_f32_mac_b(z, 0.75f, (float64)0.125f);
                w = v_f32_mac_b(w, 0.75f, (float64)0.125f);
            }
            v_f32_st_tnsr(c, out, v_f32_mac_b(xv, sv, v_f32_mul_b(v_f32_mul_b(y, z), w)));
        }
    }
}
"""

CHAIN = 24


def inputs(rows, cols):
    n = rows * cols
    x = [f32(0.5 + ((i * 13) % 29) / 32.0) for i in range(n)]
    m = [f32(-1.0 + ((i * 7) % 31) / 16.0) for i in range(n)]
    s = [f32(0.25 + ((i * 5) % 17) / 8.0) for i in range(n)]
    return x, m, s


@functools.lru_cache(maxsize=None)
def chain(xv):
    y = xv
    for _ in range(CHAIN):
        y = fused(0.125, y, 0.75)
    return y


@functools.lru_cache(maxsize=None)
def reference_of_shape(rows, cols):
    x, m, s = inputs(rows, cols)
    out = []
    for i, (xv, mv0) in enumerate(zip(x, m)):
        sv = s[i - i % cols + (i % cols) // 64 * 64]  # the scalar at the vector's first element
        mv = fused(mv0, xv, 0.5)
        out.append(fused(f32(f32(chain(xv) * chain(mv)) * chain(f32(xv * mv))), xv, sv))
    return out


def compile_kernel(tool, tmp, opt, expansion, debug=False):
    src = os.path.join(tmp, "late.c")
    with open(src, "w") as f:
        f.write(KERNEL)
    obj = os.path.join(tmp, "late-O%d-%d.o" % (opt, expansion))
    env = dict(os.environ, TPC_MODULO_EXPANSION=str(expansion))
    if debug:
        env["TPC_DEBUG_MODSCHED"] = "1"
    p = subprocess.run([tool("tpc-clang"), "-O%d" % opt, "-c", src, "-o", obj], env=env, capture_output=True,
                       text=True)
    if p.returncode:
        raise RuntimeError("tpc-clang -O%d: %s" % (opt, p.stderr))
    return obj, p.stderr


def simulate(tool, obj, tmp, rows, cols, cores):
    x, m, s = inputs(rows, cols)
    for name, values in (("x", x), ("m", m), ("s", s)):
        write_npy(os.path.join(tmp, name + ".npy"), "<f4", [rows, cols], values)
    cmd = [tool("tpc-sim"), obj, "-t", "x.npy", "-t", "m.npy", "-t", "s.npy", "-t",
           "out.npy=f32[%d,%d]" % (rows, cols), "--cores", str(cores), "--strict-hazards", "--json", "stats.json"]
    p = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError("%s: %s" % (" ".join(cmd), p.stdout + p.stderr))
    _, got = read_npy(os.path.join(tmp, "out.npy"))
    stats = json.load(open(os.path.join(tmp, "stats.json")))
    return got, reference_of_shape(rows, cols), stats


def steady_state(tool, obj, tmp):
    """(cycles per vector, slot bound per vector) on one core between rows of 64 and 128 vectors."""
    _, _, small = simulate(tool, obj, tmp, 1, 64 * 64, 1)
    _, _, large = simulate(tool, obj, tmp, 1, 64 * 128, 1)
    a, b = small["cores"][0], large["cores"][0]
    busy = lambda c, slot: c["slot_utilization"][slot] * c["bundles"]  # noqa: E731
    bound = max(busy(b, slot) - busy(a, slot) for slot in ("load", "vpu", "store")) / 64
    return (b["cycles"] - a["cycles"]) / 64, bound


def struct_bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def main():
    bin_dir = os.path.abspath(sys.argv[1])
    tool = lambda name: os.path.join(bin_dir, name)  # noqa: E731
    failures = 0

    def check(ok, what):
        nonlocal failures
        failures += not ok
        print("%s %s" % ("ok  " if ok else "FAIL", what))

    with tempfile.TemporaryDirectory() as tmp:
        objects = {}
        for opt, expansion in ((0, 1), (2, 0), (2, 1)):
            objects[(opt, expansion)], log = compile_kernel(tool, tmp, opt, expansion, debug=(opt, expansion) == (2, 1))
            if (opt, expansion) == (2, 1):
                check("copies carry values beyond II" in log, "TPC_DEBUG_MODSCHED reports copies at -O2")
        for (opt, expansion), obj in sorted(objects.items()):
            for vectors in (1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 37):
                for cores in (1, 3):
                    got, want, _ = simulate(tool, obj, tmp, 3, vectors * 64 - 5, cores)
                    wrong = sum(1 for g, w in zip(got, want) if struct_bits(g) != struct_bits(w))
                    check(wrong == 0, "-O%d expansion=%d, rows of %d vectors, %d cores: %d of %d elements wrong" % (
                        opt, expansion, vectors, cores, wrong, len(want)))
        with_copies = steady_state(tool, objects[(2, 1)], tmp)
        without = steady_state(tool, objects[(2, 0)], tmp)
        check(with_copies[0] <= 1.15 * with_copies[1],
              "with expansion: %.2f cycles per vector, slot bound %.2f" % with_copies)
        check(without[0] > 1.5 * without[1], "without expansion: %.2f cycles per vector, slot bound %.2f" % without)
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
