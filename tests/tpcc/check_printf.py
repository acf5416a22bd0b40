#!/usr/bin/env python3
"""printf end to end: samples/tpc-c/printf_f32.c compiled at -O0 and -O2 and run on three cores prints,
core by core, exactly the lines its source implies for the input; the assembly listing reassembles with
its format table.

usage: check_printf.py BIN_DIR
"""
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "samples"))
import run_samples  # noqa: E402


def main():
    tool = lambda n: os.path.join(os.path.abspath(sys.argv[1]), n)  # noqa: E731
    src = os.path.join(HERE, "..", "..", "samples", "tpc-c", "printf_f32.c")
    x = [run_samples.f32(i * 0.5 - 3.0) for i in range(3 * 64)]
    scale = 1.5
    want = []
    for core in range(3):
        want += ["core %d: kernel 17" % core, "core %d: scale 1.50" % core]
        for lane in range(2):
            want.append("core %d: lane value %g" % (core, run_samples.f32(x[core * 64 + lane] * scale)))
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        run_samples.write_npy(os.path.join(tmp, "x.npy"), "<f4", [3 * 64], x)
        for opt in ("-O0", "-O2"):
            obj = os.path.join(tmp, "k.o")
            subprocess.run([tool("tpc-clang"), opt, "-c", src, "-o", obj], check=True)
            p = subprocess.run([tool("tpc-sim"), obj, "-t", "x.npy", "-s", "17", "-s", str(scale), "--cores", "3",
                                "--index-space", "3", "--strict-hazards"], cwd=tmp, capture_output=True, text=True)
            got = [l for l in p.stdout.splitlines() if l.startswith("core ")]
            if p.returncode != 0 or got != want:
                failures.append("%s: exit %d, printed %r, want %r" % (opt, p.returncode, got, want))
            listing = subprocess.run([tool("tpc-objdump"), "-d", obj], capture_output=True, text=True).stdout
            if '.printf_format "lane value %g\\n"' not in listing:
                failures.append("%s: the listing lacks the format table" % opt)
            s_path, re_obj = os.path.join(tmp, "k.s"), os.path.join(tmp, "re.o")
            open(s_path, "w").write(listing)
            subprocess.run([tool("tpc-as"), s_path, "-o", re_obj], check=True)
            p2 = subprocess.run([tool("tpc-sim"), re_obj, "-t", "x.npy", "-s", "17", "-s", str(scale), "--cores", "3",
                                 "--index-space", "3"], cwd=tmp, capture_output=True, text=True)
            if [l for l in p2.stdout.splitlines() if l.startswith("core ")] != want:
                failures.append("%s: the reassembled listing prints differently" % opt)
    for f in failures:
        print("FAIL " + f)
    print("%d passed, %d failed" % (0 if failures else 1, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
