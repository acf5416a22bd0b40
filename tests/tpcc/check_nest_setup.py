#!/usr/bin/env python3
"""Checks what tpc-clang does to make the set-up of a loop nest's inner loop cheaper:

- Coordinates built lane by lane from the same scalars plus constants ({base + 64 j, row, 0, 0, 0}) become
  one vector built once plus constant offsets (lane_offsets.cpp), which coordinate chains then link: the
  scalars are written into lanes twice (base, row) instead of once per coordinate (seven times for six).
- The constant steps of an inner loop's coordinate IVs ({0, 1, 0, 0, 0}) are built before the outermost
  loop around it (constant_coordinates.cpp) instead of once per outer iteration: for 64 rows, whose loop
  unroll-and-jam runs 8 times, the step's lane write executes twice (two copies of the nest) instead of 8.
- An induction variable's increment goes after its last read in the loop's header (iv_increments.cpp), so
  that the variable and its next value share a register and the back edge needs no copy: the matmul
  sample's loop over groups of 8 output vectors ends in one conditional branch back, where the copy made
  it a branch out, the copy and a jump back (11 jumps for 3 rows of 4 groups without the change, 2 with it).

Every output is checked against values computed here.

usage: check_nest_setup.py BUILD/bin
"""
import os
import random
import re
import struct
import sys
import tempfile

from kernel_checks import KernelChecks

SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples")
sys.path.insert(0, SAMPLES)
from run_samples import read_npy, spec_matmul_f32, write_npy  # noqa: E402  (the samples' .npy helpers and specs)

COPIES = 6
STRAIGHT_SOURCE = r"""
void main(tensor out, int base, int row)
{
%s
}
""" % "\n".join("    { const int5 c = {base + %d, row, 0, 0, 0}; v_i32_st_tnsr(c, out, (int64)%d + read_lane_id_4b_b()); }"
                % (64 * j, 1000 * j) for j in range(COPIES))

# Row sums over dimension 1 for each index of dimension 2: the loop over k has a coordinate IV whose step
# is {0, 1, 0, 0, 0}; the loop over m around it is unrolled and jammed.
NEST_SOURCE = r"""
void main(tensor a, tensor out)
{
    const int rows = get_dim_size(a, 2);
    const int depth = get_dim_size(a, 1);
    for (int m = 0; m < rows; m++) {
        float64 acc = 0.0f;
        for (int k = 0; k < depth; k++) {
            const int5 c = {0, k, m, 0, 0};
            acc += v_f32_ld_tnsr_b(c, a);
        }
        const int5 o = {0, m, 0, 0, 0};
        v_f32_st_tnsr(o, out, acc);
    }
}
"""
ROWS, DEPTH = 64, 12


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        k = KernelChecks(sys.argv[1], tmp)

        obj, text = k.compile(STRAIGHT_SOURCE)
        writes = re.findall(r"i_mov\.i32 i\d+, s\d+ dmask", text)
        k.check(len(writes) <= 2, "the scalars written into lanes once each for %d coordinates (found %d writes)"
                % (COPIES, len(writes)))
        width = 64 * COPIES + 128
        wrong = []
        for base, row in ((0, 0), (128, 2), (37, 1)):
            out = k.path("out.npy")
            k.simulate(obj, ["--cores", "1", "--index-space", "1,1,1,1,1", "-t", "%s=i32[3,%d]" % (out, width),
                             "-s", str(base), "-s", str(row)])
            got = read_npy(out)[1]
            for j in range(COPIES):
                for lane in range(64):
                    at = row * width + base + 64 * j + lane
                    if got[at] != 1000 * j + lane:
                        wrong.append("base %d row %d: element %d is %d" % (base, row, at, got[at]))
        k.check(not wrong, "each store at {base + 64 j, row}" + ("" if not wrong else ": " + "; ".join(wrong[:5])))

        obj, _ = k.compile(NEST_SOURCE)
        rng = random.Random(7)
        values = [f32(rng.uniform(-1, 1)) for _ in range(ROWS * DEPTH * 64)]
        a, out, trace = k.path("a.npy"), k.path("sums.npy"), k.path("trace.txt")
        write_npy(a, "<f4", [ROWS, DEPTH, 64], values)
        k.simulate(obj, ["--cores", "1", "--index-space", "1,1,1,1,1", "-t", a, "-t", "%s=f32[%d,64]" % (out, ROWS),
                         "--trace", trace])
        with open(trace) as f:
            steps = sum(1 for line in f if re.search(r"i_mov\.i32 i\d+, 1 dmask=0b00010 ", line))
        k.check(steps <= 2, "the step {0, 1, 0, 0, 0} made before the nest, not per row (%d times for %d rows)"
                % (steps, ROWS))
        got = read_npy(out)[1]
        wrong = []
        for m in range(ROWS):
            for lane in range(64):
                acc = 0.0
                for kk in range(DEPTH):
                    acc = f32(acc + values[(m * DEPTH + kk) * 64 + lane])
                if got[m * 64 + lane] != acc:
                    wrong.append("row %d lane %d: %r, expected %r" % (m, lane, got[m * 64 + lane], acc))
        k.check(not wrong, "each row's sum" + ("" if not wrong else ": " + "; ".join(wrong[:5])))

        with open(os.path.join(SAMPLES, "tpc-c", "matmul_f32.c")) as f:
            obj, _ = k.compile(f.read())
        m, depth, n = 3, 16, 64 * 32
        spec = spec_matmul_f32(m, depth, n)
        args = ["--cores", "1", "--trace", trace]
        for name, descr, values, _ in spec["inputs"]:
            write_npy(k.path(name), descr, spec["shapes"][name], values)
            args += ["-t", k.path(name)]
        args += ["-t", "%s=f32[%d,%d]" % (k.path("c.npy"), m, n)]
        k.simulate(obj, args)
        with open(trace) as f:
            jumps = sum(1 for line in f if "; jmpr " in line)
        k.check(jumps <= m, "matmul: at most one unconditional jump a row, none a group of columns (%d for %d rows "
                "of %d groups)" % (jumps, m, n // 64 // 8))
        got = read_npy(k.path("c.npy"))[1]
        k.check(got == spec["output"][2], "matmul's product, bit for bit")
        return k.finish()


if __name__ == "__main__":
    sys.exit(main())
