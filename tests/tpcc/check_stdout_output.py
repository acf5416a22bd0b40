#!/usr/bin/env python3
"""Checks `-o -`: assembly (-S) and IR (-S -emit-llvm) go to standard output, identical to what a file
receives; an object (-c) is refused with an error, exit status 1 and no file named '-'.

usage: check_stdout_output.py TPC_CLANG
"""
import os
import subprocess
import sys
import tempfile

KERNEL = """void main(tensor x, tensor out)
{
    int5 c = get_index_space_offset();
    v_f32_st_tnsr(c, out, v_f32_ld_tnsr_b(c, x) * 2.0f);
}
"""


def main():
    clang = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "k.c")
        open(src, "w").write(KERNEL)
        for flags in (["-S"], ["-S", "-emit-llvm"]):
            out = os.path.join(tmp, "k.out")
            to_file = subprocess.run([clang] + flags + [src, "-o", out], capture_output=True, text=True, cwd=tmp)
            to_stdout = subprocess.run([clang] + flags + [src, "-o", "-"], capture_output=True, text=True, cwd=tmp)
            if to_file.returncode or to_stdout.returncode:
                failures.append("%s: exit %d / %d" % (" ".join(flags), to_file.returncode, to_stdout.returncode))
            elif to_stdout.stdout != open(out).read() or not to_stdout.stdout:
                failures.append("%s -o -: standard output differs from the file" % " ".join(flags))
        p = subprocess.run([clang, "-c", src, "-o", "-"], capture_output=True, text=True, cwd=tmp)
        if p.returncode != 1 or "error:" not in p.stderr or p.stdout:
            failures.append("-c -o -: expected an error and exit 1, got exit %d, %r" % (p.returncode, p.stderr[:200]))
        if os.path.exists(os.path.join(tmp, "-")):
            failures.append("a file named '-' was written")
    for f in failures:
        print("FAIL " + f)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
