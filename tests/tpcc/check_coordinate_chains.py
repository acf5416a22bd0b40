#!/usr/bin/env python3
"""Checks that coordinates fixed steps apart from one base share a few int5 constants: LLVM folds
`p += step` written eight times into base + {64 k, 0, 0, 0, 0} for k = 1..7, seven constants of two
scalar-slot instructions each; tpc-clang makes them chains of adds again (coordinate_chains.cpp): two, of
{128, 0, 0, 0, 0} from base and base + 64, since each coordinate serves one store and one chain would
make each store wait for the add before it (2 cycles). The same for a grid, 4 points along each of 3 rows (a band of rows side by side),
base + {64 j, r, 0, 0, 0}: 11 constants, 17 lane writes folded, two steps as chains. Counted in the
disassembly (index-register lane writes of an immediate), and every store lands where the source puts it,
against the offsets computed here, for bases at run time. And a run of 64 stores, each at the next
offset: each chain's add goes where its coordinate was made, so one coordinate is alive at a time (built
all before the first store, the 63 coordinates needed more index registers than the core has, and the
kernel was rejected), and two chains make them in about half the time of one.

usage: check_coordinate_chains.py BUILD/bin
"""
import os
import re
import sys
import tempfile

from kernel_checks import KernelChecks

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples"))
from run_samples import read_npy  # noqa: E402  (the samples' .npy helpers)

COPIES = 8
SOURCE = r"""
void main(tensor out, int base, int row)
{
    const int5 step = {64, 0, 0, 0, 0};
    int5 p = {base, row, 0, 0, 0};
%s
}
""" % "\n".join("    v_i32_st_tnsr(p, out, (int64)%d + read_lane_id_4b_b()); p = p + step;" % (1000 * k)
                for k in range(COPIES))

RUN = 64
RUN_SOURCE = r"""
void main(tensor out, int base, int row)
{
    int5 p = {base, row, 0, 0, 0};
%s
}
""" % "\n".join("    { const int5 o = {%d, 0, 0, 0, 0}; v_i32_st_tnsr(p + o, out, (int64)%d + read_lane_id_4b_b()); }"
                % (64 * j, 1000 * j) for j in range(RUN))

POINTS, ROWS = 4, 3
GRID_SOURCE = r"""
void main(tensor out, int base, int row)
{
    int5 p = {base, row, 0, 0, 0};
%s
}
""" % "\n".join("    { const int5 o = {%d, %d, 0, 0, 0}; v_i32_st_tnsr(p + o, out, (int64)%d + read_lane_id_4b_b()); }"
                % (64 * j, r, 1000 * (r * POINTS + j)) for r in range(ROWS) for j in range(POINTS))


def cycles(report):
    return int(re.search(r"cycles (\d+)", report).group(1))


def wrong_stores(k, obj, stores, rows, width, bases):
    """Runs the kernel for each (base, row) and lists the elements that are not where `stores` (a list of
    (dimension-0 offset, row offset, value) for each store) puts value + lane; and the cycles of the run."""
    wrong = []
    for base, row in bases:
        out = k.path("out.npy")
        report = k.simulate(obj, ["--cores", "1", "--index-space", "1,1,1,1,1", "-t",
                                  "%s=i32[%d,%d]" % (out, rows, width), "-s", str(base), "-s", str(row)])
        got = read_npy(out)[1]
        for x, r, value in stores:
            for lane in range(64):
                at = (row + r) * width + base + x + lane
                if got[at] != value + lane:
                    wrong.append("base %d row %d: element %d is %d, expected %d" % (base, row, at, got[at], value + lane))
    return ("" if not wrong else ": " + "; ".join(wrong[:5])), cycles(report)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        k = KernelChecks(sys.argv[1], tmp)
        obj, text = k.compile(SOURCE)
        constants = re.findall(r"i_mov\.i32 i\d+, (-?\d+) dmask=0b0*1\b", text)
        k.check(sorted(constants) == ["128", "64"], "two lane-0 constants for the %d coordinates, 64 and 128 (two "
                "chains; found %d: %s)" % (COPIES, len(constants), ", ".join(constants)))
        wrong, _ = wrong_stores(k, obj, [(64 * c, 0, 1000 * c) for c in range(COPIES)], 3, 64 * COPIES + 192,
                             ((0, 0), (128, 2), (37, 1)))
        k.check(not wrong, "each store at base + 64 k" + wrong)

        obj, text = k.compile(GRID_SOURCE)
        writes = re.findall(r"i_mov\.i32 i\d+, (-?\d+) dmask=0b0*(?:1|10|100|1000|10000)\b", text)
        k.check(len(writes) <= 2, "two steps for the %d x %d grid: {64, 0, ...} and {0, 1, ...} (found %d lane "
                "writes: %s)" % (ROWS, POINTS, len(writes), ", ".join(writes)))
        wrong, _ = wrong_stores(k, obj, [(64 * j, r, 1000 * (r * POINTS + j)) for r in range(ROWS) for j in range(POINTS)],
                             ROWS + 3, 64 * POINTS + 128, ((0, 0), (128, 2), (37, 1)))
        k.check(not wrong, "each grid store at base + {64 j, r}" + wrong)

        obj, text = k.compile(RUN_SOURCE)
        writes = re.findall(r"i_mov\.i32 i\d+, (-?\d+) dmask=0b0*1\b", text)
        k.check(len(writes) <= 2, "two lane-0 constants for the run of %d stores (found %d)" % (RUN, len(writes)))
        wrong, took = wrong_stores(k, obj, [(64 * j, 0, 1000 * j) for j in range(RUN)], 3, 64 * RUN + 128,
                                   ((0, 0), (64, 2)))
        k.check(not wrong, "each of the run's stores at base + 64 j" + wrong)
        # One chain: each add waits 2 cycles for the one before, a store every other cycle (133 cycles); two
        # chains let the adds overlap (103, the rest being the stored values' set-up).
        k.check(took < 1.75 * RUN, "the run's stores do not wait for one chain of adds: %d cycles for %d stores "
                "(under %d)" % (took, RUN, 1.75 * RUN))
        return k.finish()


if __name__ == "__main__":
    sys.exit(main())
