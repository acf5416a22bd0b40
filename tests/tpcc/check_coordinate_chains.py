#!/usr/bin/env python3
"""Checks that coordinates a fixed step apart from one base share one int5 constant: LLVM folds
`p += step` written eight times into base + {64 k, 0, 0, 0, 0} for k = 1..7, seven constants of two
scalar-slot instructions each; tpc-clang makes them a chain of adds of {64, 0, 0, 0, 0} again
(coordinate_chains.cpp). Counted in the disassembly (index-register lane writes of an immediate), and the
eight stores land where the source puts them, against the offsets computed here, for bases at run time.

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


def main():
    with tempfile.TemporaryDirectory() as tmp:
        k = KernelChecks(sys.argv[1], tmp)
        obj, text = k.compile(SOURCE)
        constants = re.findall(r"i_mov\.i32 i\d+, (-?\d+) dmask=0b0*1\b", text)
        k.check(len(constants) <= 1, "one lane-0 constant for the %d coordinates (found %d: %s)"
                % (COPIES, len(constants), ", ".join(constants)))

        width, rows = 64 * COPIES + 192, 3
        wrong = []
        for base, row in ((0, 0), (128, 2), (37, 1)):
            out = k.path("out.npy")
            k.simulate(obj, ["--cores", "1", "--index-space", "1,1,1,1,1", "-t", "%s=i32[%d,%d]" % (out, rows, width),
                             "-s", str(base), "-s", str(row)])
            got = read_npy(out)[1]
            for c in range(COPIES):
                for lane in range(64):
                    at = row * width + base + 64 * c + lane
                    if got[at] != 1000 * c + lane:
                        wrong.append("base %d row %d: element %d is %d, expected %d" % (base, row, at, got[at],
                                                                                        1000 * c + lane))
        k.check(not wrong, "each store at base + 64 k%s" % ("" if not wrong else ": " + "; ".join(wrong[:5])))
        return k.finish()


if __name__ == "__main__":
    sys.exit(main())
