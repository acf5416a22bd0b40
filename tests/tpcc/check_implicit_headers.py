#!/usr/bin/env python3
"""The real pass parses only what a source can reach of the implicit headers: the legacy aliases it names,
the intrinsics it (or they, or the header functions it calls) names, and the bodies of the tpc-special.h
and tpc-defs.h functions it can call. That must never change what a kernel compiles to: each source here
is compiled as usual and with TPC_FULL_IMPLICIT_HEADERS=1 (the headers parsed whole), and the two must
agree on the exit status, the diagnostics and every byte of the LLVM IR that enters the backend (-S
-emit-llvm: the backend is deterministic, and this keeps the test short under the sanitizers).

Sources: the samples, the custom-kernel sample, one variant of every kernel-library source on gaudi2
(from BUILD/kernel-lib/objects.txt), and cases written for the filter: aliases tested by
#ifdef or redefined, chains of aliases, aliases that expand to header functions, special-function names
built by token pasting or named through the source's own macros.

usage: check_implicit_headers.py TPC_CLANG ROOT OBJECTS_TXT
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

CASES = {
    # An alias seen only by the preprocessor's directives must be defined as before (the constants differ
    # if not; an #error would not do: the scan that selects the headers fails on it and takes them whole).
    "alias_ifdef.c": """
#ifdef v_f32_add_v_v
#define SCALE 2.0f
#else
#define SCALE 3.0f
#endif
void main(tensor x, tensor out) {
    int5 c = get_index_space_offset();
    float64 v = v_f32_ld_tnsr_b(c, x) * SCALE;
#if defined(i_i32_set_indx_s)
    v = v + 1.0f;
#endif
    v_f32_st_tnsr(c, out, v);
}
""",
    # Redefining an alias warns as before (system-header macro redefined by the source).
    "alias_redefined.c": """
#define v_f32_abs_v(x) (x)
void main(tensor x, tensor out) {
    int5 c = get_index_space_offset();
    v_f32_st_tnsr(c, out, v_f32_abs_v(v_f32_ld_tnsr_b(c, x)));
}
""",
    # A chain of aliases: i_i32_set_indx_s -> i_i32_set_indx_s_b -> set_indx.
    "alias_chain.c": """
void main(tensor x, tensor out) {
    int5 c = get_index_space_offset();
    int5 d = i_i32_set_indx_s(1, c, 1);
    v_f32_st_tnsr(c, out, v_f32_abs_v(v_f32_ld_tnsr_b(d, x)));
}
""",
    # Special functions named by token pasting and through the source's own macros.
    "special_pasted.c": """
#define F32(name) v_##name##_f32
#define MY_EXP v_exp_fast_f32
void main(tensor x, tensor out) {
    int5 c = get_index_space_offset();
    float64 v = v_f32_ld_tnsr_b(c, x);
    v = F32(tanh)(v) + MY_EXP(v);
    v_f32_st_tnsr(c, out, v);
    bfloat128 b = v_bf16_ld_tnsr_b(c, x);
    v_bf16_st_tnsr(c, out, v_sigmoid_bf16(b));
}
""",
    "special_nested.c": """
void main(tensor x, tensor out) {
    int5 c = get_index_space_offset();
    float64 v = v_f32_ld_tnsr_b(c, x);
    v = v_pow_f32(v, v) + v_f32_reduce_add(v);
    v_f32_st_tnsr(c, out, v);
    bfloat128 b = v_bf16_ld_tnsr_b(c, x);
    v_bf16_st_tnsr(c, out, v_div_bf16(b, b));
}
""",
    "error_intrinsic_arguments.c": """
void main(tensor x, tensor out) {
    int5 c = get_index_space_offset();
    float64 v = v_f32_ld_tnsr_b(c, x);
    bfloat128 b = v_convert_f32_to_bf16_all_b(v);
    v_f32_st_tnsr(c, out, v);
}
""",
    # With -DTPC_SPECIAL_FUNCS_INCLUDED the source defines its own function with a special function's name.
    "own_special.c": """
float64 v_exp_f32(float64 x) { return x * 2.0f; }
void main(tensor x, tensor out) {
    int5 c = get_index_space_offset();
    v_f32_st_tnsr(c, out, v_exp_f32(v_f32_ld_tnsr_b(c, x)));
}
""",
    # Errors: an unknown name and a wrong call must read the same.
    "error_unknown.c": """
void main(tensor x, tensor out) {
    int5 c = get_index_space_offset();
    v_f32_st_tnsr(c, out, v_exq_f32(v_f32_ld_tnsr_b(c, x)));
}
""",
    "error_arguments.c": """
void main(tensor x, tensor out) {
    int5 c = get_index_space_offset();
    v_f32_st_tnsr(c, out, v_exp_f32(v_f32_ld_tnsr_b(c, x), 1));
}
""",
}


def normalized(diagnostics):
    # tpc-intrinsics.h is generated with only the intrinsics a source names (as before the bodies were
    # skipped): its line numbers depend on that selection, so they are not compared.
    return re.sub(r"(tpc-intrinsics\.h:)\d+:\d+(:.*\n)\s*\d+ \|", r"\1L:C\2 L |", diagnostics)


def compile_both(clang, args, obj):
    results = []
    for full in ("0", "1"):
        env = dict(os.environ, TPC_FULL_IMPLICIT_HEADERS=full)
        if os.path.exists(obj):
            os.remove(obj)
        ir_args = [a for a in args if a != "-c"] + ["-S", "-emit-llvm"]
        p = subprocess.run([clang] + ir_args + ["-o", obj], capture_output=True, text=True, env=env)
        data = open(obj, "rb").read() if os.path.exists(obj) else None
        results.append((p.returncode, normalized(p.stderr), data))
    return results


def main():
    clang, root, objects_txt = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    compiles = []  # (name, arguments)
    for d in ("samples/tpc-c", "samples/custom-kernel/kernels"):
        for f in sorted(os.listdir(os.path.join(root, d))):
            if f.endswith(".c"):
                compiles.append((f, ["-O2", "-c", os.path.join(root, d, f)]))
    compiles.append(("softmax_f32.c -O0 -g", ["-O0", "-g", "-c", os.path.join(root, "samples/tpc-c/softmax_f32.c")]))
    seen = set()
    for line in open(objects_txt).read().splitlines():
        obj, source, arch, defines = line.split("|", 3)
        if source in seen or arch != "gaudi2":  # the architecture changes only which intrinsics exist
            continue
        seen.add(source)
        compiles.append((obj, ["-Wall", "-Werror", "-O2", "-march=" + arch, "-I", os.path.join(root, "kernel-lib/kernels")]
                         + shlex.split(defines) + ["-c", os.path.join(root, "kernel-lib", source)]))
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in CASES.items():
            path = os.path.join(tmp, name)
            open(path, "w").write(text)
            extra = ["-DTPC_SPECIAL_FUNCS_INCLUDED"] if name == "own_special.c" else []
            compiles.append((name, ["-Wall", "-O2"] + extra + ["-c", path]))
        obj = os.path.join(tmp, "out.ll")
        for name, args in compiles:
            (rc, err, data), (full_rc, full_err, full_data) = compile_both(clang, args, obj)
            if (rc, err, data) != (full_rc, full_err, full_data):
                failures.append("%s: filtered headers give exit %d, %d bytes, %r; whole headers exit %d, %d bytes, %r" % (
                    name, rc, len(data or b""), err[:300], full_rc, len(full_data or b""), full_err[:300]))
            expect_error = name.startswith("error_")
            if (rc != 0) != expect_error:
                failures.append("%s: exit %d (%s): %s" % (name, rc, "expected an error" if expect_error else "expected success", err[:300]))
            if name == "alias_redefined.c" and "redefined" not in err:
                failures.append("alias_redefined.c: no macro-redefined warning: %r" % err[:300])
    for f in failures:
        print("FAIL " + f)
    print("implicit headers: %d sources, %s" % (len(compiles), "FAILED" if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
