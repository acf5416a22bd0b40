#!/usr/bin/env python3
"""Checks what a select costs in a hardware loop body at -O2, from the disassembly, on a loop like the kernel
library's one-loop elementwise kernels (kernel-lib/kernels/common.h, FOR_EACH_POINT_FLAT): each iteration
steps its coordinates along the row, or after the row's last group to the next row's first, chosen by a
counter that counts down and starts again:

- the coordinate step that is a constant is a register made once before the loop, not two index-register
  moves of immediates in every iteration;
- the counter's select is done in the counter's register: no scalar copy in the loop;
- a per-lane select with two immediates (relu's gradient: x > 0 ? dy : 0), whose second immediate must be
  in a scalar register, takes it from a register made before the loop, not from a move in every copy;
- the kernel still computes what it should (tpc-sim against the native reference, tpc-sim --native).

usage: check_loop_selects.py BUILD/bin
"""
import os
import re
import sys
import tempfile

from kernel_checks import KernelChecks

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples"))
from run_samples import write_npy  # noqa: E402  (the samples' .npy helpers)

SOURCE = r"""
void main(tensor x, tensor out, int groups, int rows)
{
    int5 at = 0;
    const int5 along = {128, 0, 0, 0, 0}, down = {(1 - groups) * 128, 1, 0, 0, 0};
    int left = groups;
    for (int n = groups * rows; n > 0; n--) {
        int5 b = at;
        b[0] += 64;
        v_f32_st_tnsr(at, out, v_f32_ld_tnsr_b(at, x) * 2.0f);
        v_f32_st_tnsr(b, out, v_f32_sel_grt_f32_b(v_f32_ld_tnsr_b(b, x), 0.0f, v_f32_ld_tnsr_b(at, x), 0.0f));
        const int5 step = --left == 0 ? down : along;
        left = left == 0 ? groups : left;
        at += step;
    }
}
"""


def loop_body(text):
    """The bundles of the first hardware loop's body (after `loop ... end=ADDR`, up to ADDR)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.search(r"\bloop\.i32 .* end=(0x[0-9a-f]+)", line)
        if m:
            body = []
            for l in lines[i + 1:]:
                body.append(l)
                if l.startswith(m.group(1) + ":"):
                    return body
    return []


def main():
    with tempfile.TemporaryDirectory() as tmp:
        k = KernelChecks(sys.argv[1], tmp)
        obj, text = k.compile(SOURCE)
        body = loop_body(text)
        immediates = [l for l in body if re.search(r"i_mov\.i32 i\d+, -?\d+ dmask", l)]
        scalar_moves = [l for l in body if re.search(r"\bmov\.(f32|i32) s\d+, -?[0-9]", l)]
        copies = [l for l in body if re.search(r"(?<![@\w])mov\.i32 s\d+, s\d+", l) and "@" not in l.split(";")[1]]
        k.check(bool(body), "the loop is a hardware loop")
        k.check(not immediates, "no immediate index-register moves in the loop: %s" % immediates)
        k.check(not copies, "no unpredicated scalar copies in the loop: %s" % copies)
        k.check(not scalar_moves, "no moves of immediates into scalar registers in the loop: %s" % scalar_moves)

        groups, rows = 3, 5
        x = [float((i * 13) % 29) - 7.0 for i in range(128 * groups * rows)]
        write_npy(k.path("x.npy"), "<f4", (rows, 128 * groups), x)
        outs = []
        for native in (False, True):
            out = k.path("out%d.npy" % native)
            k.simulate(obj, ["--cores", "1", "--index-space", "1,1,1,1,1", "-t", k.path("x.npy"),
                             "%s=f32[%d,%d]" % (out, rows, 128 * groups), "-s", str(groups), "-s", str(rows)], native)
            outs.append(open(out, "rb").read())
        k.check(outs[0] == outs[1], "the simulator and the native reference agree")
        return k.finish()


if __name__ == "__main__":
    sys.exit(main())
