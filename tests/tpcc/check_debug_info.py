#!/usr/bin/env python3
"""Checks tpc-clang -g end to end: the code is the same with and without -g; the object has a line table
that tpc-objdump -d -S shows as source lines, and variable locations for the kernel's variables; the -S
listing reassembles to the same code; a kernel fault names the source line.

usage: check_debug_info.py BIN_DIR
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, "..", "..", "samples", "tpc-c")

FAULTING = """__local__ float64 buf[4];
void main(tensor x, int n)
{
    int5 c = 0;
    buf[n] = v_f32_ld_tnsr_b(c, x);
    v_f32_st_tnsr(c, x, buf[0] * 2.0f);
}
"""


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)


def text_of(obj, tmp):
    out = os.path.join(tmp, "text.bin")
    subprocess.run(["objcopy", "-O", "binary", "--only-section=.text", obj, out], check=True)
    return open(out, "rb").read()


def main():
    tool = lambda n: os.path.join(os.path.abspath(sys.argv[1]), n)  # noqa: E731
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(os.listdir(SAMPLES)):
            src = os.path.join(SAMPLES, name)
            g, plain = os.path.join(tmp, "g.o"), os.path.join(tmp, "p.o")
            subprocess.run([tool("tpc-clang"), "-g", "-c", src, "-o", g], check=True)
            subprocess.run([tool("tpc-clang"), "-c", src, "-o", plain], check=True)
            if text_of(g, tmp) != text_of(plain, tmp):
                failures.append("%s: -g changes the code" % name)
            listing = run([tool("tpc-objdump"), "-d", "-S", g]).stdout
            if "// %s:" % src not in listing:
                failures.append("%s: tpc-objdump -S shows no source lines" % name)
            s_file, re_obj = os.path.join(tmp, "k.s"), os.path.join(tmp, "re.o")
            open(s_file, "w").write(listing)
            r = run([tool("tpc-as"), s_file, "-o", re_obj])
            if r.returncode != 0 or text_of(re_obj, tmp) != text_of(g, tmp):
                failures.append("%s: the -S listing does not reassemble to the same code: %s" % (name, r.stderr))
        # Variable locations of a kernel whose variables we know.
        g = os.path.join(tmp, "axpy.o")
        subprocess.run([tool("tpc-clang"), "-g", "-c", os.path.join(SAMPLES, "axpy_f32.c"), "-o", g], check=True)
        listing = run([tool("tpc-objdump"), "-d", "-S", g]).stdout
        for var, typ in (("xv", "float64"), ("yv", "float64"), ("row", "int"), ("c", "int5")):
            if "// variable %s (%s): " % (var, typ) not in listing:
                failures.append("axpy_f32.c: no location for variable %s (%s)" % (var, typ))
        # A fault names the source line.
        src = os.path.join(tmp, "fault.c")
        open(src, "w").write(FAULTING)
        obj = os.path.join(tmp, "fault.o")
        subprocess.run([tool("tpc-clang"), "-g", "-c", src, "-o", obj], check=True)
        r = run([tool("tpc-sim"), obj, "-t", "out.npy=f32[64]", "-s", "100000"], cwd=tmp)
        if r.returncode != 2 or "fault.c:5:" not in r.stderr:
            failures.append("a local-memory fault does not name fault.c:5 (exit %d): %s" % (r.returncode, r.stderr))
    for f in failures:
        print("FAIL " + f)
    print("%d passed, %d failed" % (0 if failures else 1, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
