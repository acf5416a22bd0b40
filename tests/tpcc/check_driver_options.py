#!/usr/bin/env python3
"""Checks the driver options a C compiler user and the vendor's project builds rely on:
- no -o: `-c FILE.c` writes FILE.o in the current directory (not next to the source);
- `-I DIR FILE.c` and `-D NAME=VAL FILE.c` with a space: one value per option, FILE.c stays the input;
- -Wall shows a warning Clang has in that group and still writes the object; -Wall -Werror makes it an
  error: exit 1, the diagnostic marked [-Werror,...], and no object; -Wno-NAME turns it off again;
- a kernel that repeats the predefined `typedef long int int32_t;` compiles under -Wall -Werror;
- `--batch LIST` (one compile per line, arguments separated by tabs) writes the objects single compiles
  write, byte for byte; a failing line is named (LIST:LINE), the others still compile, the status is 1; an
  unreadable list or --batch with other arguments is an error.

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


def check_batch(clang, tmp, src_dir, work, failures):
    bad = os.path.join(src_dir, "bad.c")
    open(bad, "w").write("void main(tensor x, tensor out) { undeclared_thing(); }\n")
    typedef_src = os.path.join(src_dir, "t.c")
    inc = os.path.join(tmp, "inc")
    good = [["-O2", "-march=gaudi3", "-I", inc, "-D", "SCALE=5.0f", os.path.join(src_dir, "k.c"), "-c", "-o"],
            ["-Wall", "-Werror", "-O0", typedef_src, "-c", "-o"]]
    singles, batched = [], []
    for i, args in enumerate(good):
        single = os.path.join(work, "single%d.o" % i)
        p = run(clang, args + [single], work)
        if p.returncode != 0:
            failures.append("--batch reference compile %d: exit %d, %r" % (i, p.returncode, p.stderr[:300]))
        singles.append(single)
        batched.append(os.path.join(work, "batch%d.o" % i))
    bad_obj = os.path.join(work, "bad.o")
    listing = os.path.join(tmp, "list.txt")
    lines = ["# a comment", "\t".join(good[0] + [batched[0]]), "", "\t".join(["-O2", bad, "-c", "-o", bad_obj]),
             "\t".join(good[1] + [batched[1]])]
    open(listing, "w").write("\n".join(lines) + "\n")
    p = run(clang, ["--batch", listing], work)
    if p.returncode != 1:
        failures.append("--batch with a failing line: exit %d, expected 1" % p.returncode)
    if "%s:4: error: this compile failed" % listing not in p.stderr or "undeclared_thing" not in p.stderr:
        failures.append("--batch: the failing line (4) and its error are not both named: %r" % p.stderr[:500])
    if os.path.exists(bad_obj):
        failures.append("--batch: the failing line left an object")
    for single, batch in zip(singles, batched):
        if not os.path.exists(batch) or open(batch, "rb").read() != open(single, "rb").read():
            failures.append("--batch: %s is missing or differs from the single compile's object" % os.path.basename(batch))
    missing = os.path.join(tmp, "no-such-list.txt")
    p = run(clang, ["--batch", missing], work)
    if p.returncode != 1 or "cannot read '%s'" % missing not in p.stderr:
        failures.append("--batch with a missing list: exit %d, %r" % (p.returncode, p.stderr[:300]))
    for args in (["--batch", listing, "-O0"], ["-O0", "--batch", listing]):
        p = run(clang, args, work)
        if p.returncode != 1 or "--batch FILE must be the only arguments" not in p.stderr:
            failures.append("%s: exit %d, %r" % (" ".join(args), p.returncode, p.stderr[:300]))


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

        check_batch(clang, tmp, src_dir, work, failures)

    for f in failures:
        print("FAIL " + f)
    print("driver options: %s" % ("FAILED" if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
