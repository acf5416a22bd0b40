#!/usr/bin/env python3
"""Checks that every intrinsic a source reaches is declared, although the compiler declares only the intrinsics
the source names (after macro expansion): names built by token pasting, names from a -D macro, names in a
header found through -I, names reached only through tpc-special.h, and the same in C++. A preprocessing error
is reported once, as the source's own error.

usage: check_intrinsic_declarations.py TPC_CLANG
"""
import os
import subprocess
import sys
import tempfile

BODY = """%s
void main(tensor x, tensor out)
{
    int5 c = 0;
    float64 v = v_f32_ld_tnsr_b(c, x);
    %s
    v_f32_st_tnsr(c, out, v);
}
"""

# (name, statement, extra arguments, builtin that must be called in the IR)
CASES = [
    ("token pasting", "#define OP(t, op) v_##t##_##op##_b\n    v = OP(f32, max)(v, v);", [], "__tpc_v_f32_max_b"),
    ("-D macro", "v = BINARY(v, v);", ["-DBINARY=v_f32_min_b"], "__tpc_v_f32_min_b"),
    ("header through -I", "v = helper(v);", ["-I", "{tmp}/inc"], "__tpc_v_f32_abs_b"),
    ("only through tpc-special.h", "v = v_exp_f32(v);", [], "__tpc_v_f32_"),
    ("C++", "#define OP(t, op) v_##t##_##op##_b\n    v = OP(f32, sub)(v, v);", ["-x", "c++"], "__tpc_v_f32_sub_b"),
]


def main():
    tool = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "inc"))
        open(os.path.join(tmp, "inc", "helper.h"), "w").write(
            "static inline float64 helper(float64 a) { return v_f32_abs_b(a); }\n")
        src, ll = os.path.join(tmp, "k.c"), os.path.join(tmp, "k.ll")
        for name, statement, extra, builtin in CASES:
            include = '#include "helper.h"' if "{tmp}/inc" in extra else ""
            open(src, "w").write(BODY % (include, statement))
            args = [a.replace("{tmp}", tmp) for a in extra]
            p = subprocess.run([tool, "-O0", "-S", "-emit-llvm", src, "-o", ll] + args, capture_output=True, text=True)
            if p.returncode != 0 or p.stderr:
                failures.append("%s: exit %d, diagnostics %r" % (name, p.returncode, p.stderr[:400]))
            elif ("call " not in open(ll).read()) or builtin not in open(ll).read():
                failures.append("%s: no call to %s in the IR" % (name, builtin))
        # A preprocessing error: one diagnostic, the source's own, and no output.
        open(src, "w").write(BODY % ("", "#error stop here"))
        obj = os.path.join(tmp, "k.o")
        p = subprocess.run([tool, "-c", src, "-o", obj], capture_output=True, text=True)
        if p.returncode != 1 or p.stderr.count("error:") != 1 or "k.c:6:6: error: stop here" not in p.stderr \
                or os.path.exists(obj):
            failures.append("#error: exit %d, diagnostics %r" % (p.returncode, p.stderr[:400]))
    for f in failures:
        print("FAIL " + f)
    print("%d passed, %d failed" % (len(CASES) + 1 - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
