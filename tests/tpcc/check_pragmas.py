#!/usr/bin/env python3
"""Checks the vendor's loop pragmas: #pragma loop_unroll(N) unrolls like #pragma unroll(N) (seen in the
IR that enters the backend: N copies of the loop body, or the unroll count where the loop is unrolled later), #pragma loop_taken and #pragma tpc_printf are accepted without a diagnostic,
and #pragma unroll(N) itself still works.

usage: check_pragmas.py TPC_CLANG
"""
import re
import subprocess
import sys
import tempfile
import os

KERNEL = """void main(tensor x, tensor out)
{
    int5 c = 0;
    float64 acc = 0.0f;
#pragma tpc_printf (enable)
#pragma loop_taken
#pragma %s
    for (int k = 0; k < get_index_space_size()[0]; k++) {
        c[0] = k * 64;
        acc += v_f32_ld_tnsr_b(c, x);
    }
    c[0] = 0;
    v_f32_st_tnsr(c, out, acc);
}
"""


def unrolled_copies(ir):
    """Copies of the loop's tensor load that LLVM's unroller made: it names them NAME.1, NAME.2, ..."""
    suffixes = [int(m) for m in re.findall(r"%[\w.]*?\.(\d+) = tail call <64 x float> @__tpc_v_f32_ld_tnsr_b", ir)]
    return max(suffixes) + 1 if suffixes else 1


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for pragma, count in (("loop_unroll(3)", 3), ("unroll(5)", 5), ("loop_unroll (2)", 2)):
            src, ll = os.path.join(tmp, "k.c"), os.path.join(tmp, "k.ll")
            open(src, "w").write(KERNEL % pragma)
            p = subprocess.run([sys.argv[1], "-S", "-emit-llvm", src, "-o", ll], capture_output=True, text=True)
            ir = open(ll).read() if p.returncode == 0 else ""
            if p.returncode != 0 or p.stderr:
                failures.append("#pragma %s: exit %d, diagnostics %r" % (pragma, p.returncode, p.stderr[:300]))
            elif '!"llvm.loop.unroll.count", i32 %d}' % count not in ir and unrolled_copies(ir) != count:
                failures.append("#pragma %s: neither unrolled %d times nor an unroll count %d in the IR (%d copies)"
                                % (pragma, count, count, unrolled_copies(ir)))
    for f in failures:
        print("FAIL " + f)
    print("%d passed, %d failed" % (3 - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
