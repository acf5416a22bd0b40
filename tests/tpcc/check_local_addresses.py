#!/usr/bin/env python3
"""Checks the addresses of local arrays indexed at run time: an element of a vector local array is one
shift and one add away from its index (the add's constant already without the tag that tells vector
local pointers from scalar ones, no `and` to strip it, no add of 0), an element of an array at address 0
its index shifted alone, and the values stored and loaded
through such addresses are right (against the same arithmetic done here, and the native reference
tpc-sim --native, bit for bit).

usage: check_local_addresses.py BUILD/bin
"""
import os
import re
import sys
import tempfile

from kernel_checks import KernelChecks

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples"))
from run_samples import read_npy, write_npy  # noqa: E402  (the samples' .npy helpers)

SOURCE = r"""
__local__ float64 pad_[3], rows_[4];

void main(tensor x, tensor y, int n)
{
    int5 c = 0;
    pad_[0] = 0.0f;
    for (int b = 0; b < n; b++) {      // n = 4, not known here: run-time indices
        c[1] = b;
        rows_[b] = v_f32_ld_tnsr_b(c, x) * 2.0f;
    }
    for (int b = 0; b < n; b++) {
        c[1] = b;
        v_f32_st_tnsr(c, y, rows_[n - 1 - b] + 1.0f);
    }
}
"""


# The same with the array at address 0: the shifted index is the address.
SOURCE_AT_ZERO = SOURCE.replace("__local__ float64 pad_[3], rows_[4];", "__local__ float64 rows_[4], pad_[3];")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        k = KernelChecks(sys.argv[1], tmp)
        obj0, text0 = k.compile(SOURCE_AT_ZERO)
        k.check(not re.findall(r"add\.i32 s\d+, s\d+, 0\n", text0)
                and not re.findall(r"and\.u32 s\d+, s\d+, 2147483647", text0),
                "an array at address 0: no add of 0 and no tag mask")
        obj, text = k.compile(SOURCE)
        # rows_ starts at byte 768 of the vector local memory, after pad_.
        untagged = re.findall(r"add\.i32 s\d+, s\d+, 768\b", text)
        masks = re.findall(r"and\.u32 s\d+, s\d+, 2147483647", text)
        zero_adds = re.findall(r"add\.i32 s\d+, s\d+, 0\n", text)
        k.check(len(untagged) >= 2 and not masks and not zero_adds,
                "element addresses: %d adds of the untagged base, %d tag masks, %d adds of 0"
                % (len(untagged), len(masks), len(zero_adds)))
        x = [float((i * 37) % 101) / 8.0 - 3.0 for i in range(64 * 4)]
        write_npy(k.path("x.npy"), "<f4", (4, 64), x)
        results = {}
        for mode in ("sim", "native"):
            y = k.path("y_%s.npy" % mode)
            k.simulate(obj, ["--cores", "1", "--index-space", "1,1,1,1,1", "-t", k.path("x.npy"), y + "=f32[4,64]",
                             "-s", "4"], native=mode == "native")
            results[mode] = read_npy(y)[1]
        want = [x[(3 - r) * 64 + i] * 2.0 + 1.0 for r in range(4) for i in range(64)]
        k.check(len(results["sim"]) == len(want) and all(abs(a - b) < 1e-6 for a, b in zip(results["sim"], want)),
                "the rows come back reversed, doubled and incremented")
        k.check(results["sim"] == results["native"], "simulator and native reference agree")
        y0 = k.path("y_zero.npy")
        k.simulate(obj0, ["--cores", "1", "--index-space", "1,1,1,1,1", "-t", k.path("x.npy"), y0 + "=f32[4,64]",
                          "-s", "4"])
        k.check(read_npy(y0)[1] == results["sim"], "the array at address 0 holds the same rows")
        return k.finish()


if __name__ == "__main__":
    sys.exit(main())
