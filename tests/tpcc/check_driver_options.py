#!/usr/bin/env python3
"""Checks the driver options a C compiler user and the vendor's project builds rely on:
- no -o: `-c FILE.c` writes FILE.o in the current directory (not next to the source);
- `-I DIR FILE.c` and `-D NAME=VAL FILE.c` with a space: one value per option, FILE.c stays the input;
- -Wall shows a warning Clang has in that group and still writes the object; -Wall -Werror makes it an
  error: exit 1, the diagnostic marked [-Werror,...], and no object; -Wno-NAME turns it off again;
- a kernel that repeats the predefined `typedef long int int32_t;` compiles under -Wall -Werror.

usage: check_driver_options.py TPC_CLANG
"""
import os
import subprocess
import sys
import tempfile

UNUSED = """void main(tensor x, tensor out)
{
    int unused;
    int5 c = get_index_space_offset();
    v_f32_st_tnsr(c, out, v_f32_ld_tnsr_b(c, x) * SCALE);
}
"""
TYPEDEF = """typedef long int int32_t;
void main(tensor x, tensor out)
{
    int32_t k = 2;
    int5 c = get_index_space_offset();
    v_f32_st_tnsr(c, out, v_f32_ld_tnsr_b(c, x) * (float)k);
}
"""


def run(clang, args, cwd):
    return subprocess.run([clang] + args, capture_output=True, text=True, cwd=cwd)


def main():
    clang = os.path.abspath(sys.argv[1])
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        src_dir = os.path.join(tmp, "src")
        work = os.path.join(tmp, "work")
        os.makedirs(src_dir)
        os.makedirs(work)
        os.makedirs(os.path.join(tmp, "inc"))
        open(os.path.join(tmp, "inc", "scale.h"), "w").write("#ifndef SCALE\n#define SCALE 2.0f\n#endif\n")
        src = os.path.join(src_dir, "k.c")
        open(src, "w").write('#include "scale.h"\n' + UNUSED)
        obj = os.path.join(work, "k.o")

        p = run(clang, ["-Wall", "-march=gaudi2", "-O2", "-I", os.path.join(tmp, "inc"), src, "-c"], work)
        if p.returncode != 0 or not os.path.exists(obj):
            failures.append("-Wall -I DIR FILE.c -c: exit %d, k.o written: %s; %s" % (
                p.returncode, os.path.exists(obj), p.stderr[:300]))
        if "warning: unused variable 'unused'" not in p.stderr:
            failures.append("-Wall: no unused-variable warning in %r" % p.stderr[:300])
        if os.path.exists(os.path.join(src_dir, "k.o")):
            failures.append("without -o the object went next to the source, not into the current directory")
        if os.path.exists(obj):
            os.remove(obj)

        p = run(clang, ["-Wall", "-Werror", "-I" + os.path.join(tmp, "inc"), src, "-c"], work)
        if p.returncode != 1 or "error: unused variable 'unused' [-Werror,-Wunused-variable]" not in p.stderr:
            failures.append("-Wall -Werror: expected the warning as an error and exit 1, got exit %d, %r" % (
                p.returncode, p.stderr[:300]))
        if os.path.exists(obj):
            failures.append("-Wall -Werror: an object was left behind after the error")

        p = run(clang, ["-Wall", "-Werror", "-Wno-unused-variable", "-D", "SCALE=3.0f", "-I",
                        os.path.join(tmp, "inc"), src, "-c"], work)
        if p.returncode != 0 or not os.path.exists(obj):
            failures.append("-Wno-unused-variable -D NAME=VAL: exit %d, %r" % (p.returncode, p.stderr[:300]))

        typedef_src = os.path.join(src_dir, "t.c")
        open(typedef_src, "w").write(TYPEDEF)
        p = run(clang, ["-Wall", "-Werror", typedef_src, "-c"], work)
        if p.returncode != 0 or not os.path.exists(os.path.join(work, "t.o")):
            failures.append("typedef long int int32_t under -Wall -Werror: exit %d, %r" % (p.returncode, p.stderr[:300]))

    for f in failures:
        print("FAIL " + f)
    print("driver options: %s" % ("FAILED" if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
