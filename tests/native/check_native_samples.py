#!/usr/bin/env python3
"""tpc-sim --native against the simulator: every TPC-C sample of samples/run_samples.py (and the printf
sample) compiled at -O0 and -O2, run on the simulator with --strict-hazards and natively with the same
arguments; the output files must be equal bit for bit (a NaN equals any NaN) and printf must print the
same lines. Then the bad inputs of --native: a file that is not an object, an object without bitcode (an
assembled sample), a wrong tensor count, --json: exit 1, a message naming what is wrong, no output file;
and a kernel fault: exit 2 and no output file.

usage: check_native_samples.py BIN_DIR
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES_DIR = os.path.join(HERE, "..", "..", "samples")
sys.path.insert(0, SAMPLES_DIR)
import run_samples  # noqa: E402

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)


def is_nan(bits, dtype):
    if dtype == "f32":
        return (bits & 0x7F800000) == 0x7F800000 and (bits & 0x007FFFFF) != 0
    if dtype in ("bf16",):
        return (bits & 0x7F80) == 0x7F80 and (bits & 0x007F) != 0
    return False


def same_tensor(a_path, b_path, dtype):
    a, b = open(a_path, "rb").read(), open(b_path, "rb").read()
    if a == b:
        return True, ""
    if len(a) != len(b):
        return False, "sizes differ (%d, %d bytes)" % (len(a), len(b))
    size = {"f32": 4, "i32": 4, "bf16": 2}[dtype]
    if a[:10] != b[:10] or a[6] != 1:
        return False, "the .npy headers differ"
    body = 10 + struct.unpack("<H", a[8:10])[0]
    bad = []
    for i in range(body, len(a), size):
        x = int.from_bytes(a[i:i + size], "little")
        y = int.from_bytes(b[i:i + size], "little")
        if x != y and not (is_nan(x, dtype) and is_nan(y, dtype)):
            bad.append((i, x, y))
    if not bad:
        return True, ""
    i, x, y = bad[0]
    return False, "%d elements differ; first at byte %d: simulator 0x%x, native 0x%x" % (len(bad), i, x, y)


# Known native-path bugs, each reported as "xfail" while it fails and as a failure once it passes (so the
# entry must then be removed). None at present (the samples that call get_dim_size run natively since the
# native reference lowers it).
KNOWN_FAILURES = set()


def check_samples(tool, tmp):
    checked = 0
    for name, source, make, shape, what, *rest in run_samples.SAMPLES:
        if source.endswith(".s"):
            continue
        flags = rest[0] if rest else []
        for opt in ("-O0", "-O2"):
            label = "%s %s" % (name, opt)
            spec = make(*shape)
            obj = os.path.join(tmp, "k.o")
            p = run([tool("tpc-clang"), opt] + flags + ["-c", os.path.join(SAMPLES_DIR, source), "-o", obj], tmp)
            if p.returncode != 0:
                fail("%s: tpc-clang failed: %s" % (label, p.stderr.strip()))
                continue
            args = run_samples.sim_arguments(spec, obj)
            out_name, out_type, _ = spec["output"]
            outs = {}
            for mode, extra in (("sim", ["--strict-hazards"]), ("native", ["--native"])):
                d = os.path.join(tmp, mode)
                shutil.rmtree(d, ignore_errors=True)
                os.makedirs(d)
                run_samples.write_inputs(spec, d)
                p = run([tool("tpc-sim")] + args + extra, d)
                if p.returncode != 0:
                    if name in KNOWN_FAILURES and mode == "native":
                        print("xfail %s: %s" % (label, p.stderr.strip()[:160]))
                    else:
                        fail("%s: tpc-sim %s exit %d: %s" % (label, " ".join(extra), p.returncode, p.stderr.strip()))
                    break
                outs[mode] = os.path.join(d, out_name)
            if len(outs) != 2:
                continue
            ok, why = same_tensor(outs["sim"], outs["native"], out_type)
            if name in KNOWN_FAILURES:
                fail("%s: listed in KNOWN_FAILURES but runs natively now; remove it from the list" % label)
            elif not ok:
                fail("%s: outputs differ: %s" % (label, why))
            else:
                print("ok   %s" % label)
            checked += 1
    return checked


def check_printf(tool, tmp):
    src = os.path.join(SAMPLES_DIR, "tpc-c", "printf_f32.c")
    x = [run_samples.f32(i * 0.5 - 3.0) for i in range(3 * 64)]
    run_samples.write_npy(os.path.join(tmp, "x.npy"), "<f4", [3 * 64], x)
    for opt in ("-O0", "-O2"):
        obj = os.path.join(tmp, "p.o")
        subprocess.run([tool("tpc-clang"), opt, "-c", src, "-o", obj], check=True)
        base = [tool("tpc-sim"), obj, "-t", "x.npy", "-s", "17", "-s", "1.5", "--cores", "3", "--index-space", "3"]
        lines = {}
        for mode in ("sim", "native"):
            p = run(base + (["--native"] if mode == "native" else []), tmp)
            lines[mode] = [l for l in p.stdout.splitlines() if l.startswith("core ")]
            if p.returncode != 0:
                fail("printf %s %s: exit %d: %s" % (opt, mode, p.returncode, p.stderr.strip()))
        if lines["sim"] != lines["native"] or len(lines["sim"]) != 12:
            fail("printf %s: simulator printed %r, native %r" % (opt, lines["sim"], lines["native"]))
        else:
            print("ok   printf %s" % opt)


def expect_error(tool, tmp, label, args, status, needles, output):
    if os.path.exists(os.path.join(tmp, output)):
        os.remove(os.path.join(tmp, output))
    p = run([tool("tpc-sim")] + args, tmp)
    problems = []
    if p.returncode != status:
        problems.append("exit %d, want %d" % (p.returncode, status))
    for n in needles:
        if n not in p.stderr:
            problems.append("message %r lacks %r" % (p.stderr.strip(), n))
    if os.path.exists(os.path.join(tmp, output)):
        problems.append("%s was written" % output)
    if problems:
        fail("%s: %s" % (label, "; ".join(problems)))
    else:
        print("ok   %s" % label)


FAULT_KERNEL = """
void main(tensor x, tensor out, int where)
{
    int5 c = get_index_space_offset();
    c[0] *= 64;
    float64 v = v_f32_ld_tnsr_b(c, x);
    s_i32_st_l(where, 1);
    v_f32_st_tnsr(c, out, v);
}
"""


def check_bad_inputs(tool, tmp):
    run_samples.write_npy(os.path.join(tmp, "a.npy"), "<f4", [2, 64], [1.0] * 128)
    open(os.path.join(tmp, "junk.o"), "wb").write(b"not an object at all")
    expect_error(tool, tmp, "not an object", ["junk.o", "--native", "-t", "a.npy", "-t", "o.npy=f32[2,64]"], 1,
                 ["junk.o", "not an ELF file"], "o.npy")
    asm = os.path.join(tmp, "asm.o")
    subprocess.run([tool("tpc-as"), os.path.join(SAMPLES_DIR, "asm", "add_f32.s"), "-o", asm], check=True)
    expect_error(tool, tmp, "no bitcode", ["asm.o", "--native", "-t", "a.npy", "-t", "a.npy", "-t", "o.npy=f32[2,64]"],
                 1, ["asm.o", "no LLVM bitcode"], "o.npy")
    add = os.path.join(tmp, "add.o")
    subprocess.run([tool("tpc-clang"), "-c", os.path.join(SAMPLES_DIR, "tpc-c", "add_f32.c"), "-o", add], check=True)
    expect_error(tool, tmp, "wrong tensor count", ["add.o", "--native", "-t", "a.npy", "-t", "o.npy=f32[2,64]"], 1,
                 ["takes 3 tensor(s)", "2 -t argument(s)"], "o.npy")
    expect_error(tool, tmp, "--json", ["add.o", "--native", "-t", "a.npy", "-t", "a.npy", "-t", "o.npy=f32[2,64]",
                                      "--json", "s.json"], 1, ["--json", "--native"], "s.json")
    src = os.path.join(tmp, "fault.c")
    open(src, "w").write(FAULT_KERNEL)
    for opt in ("-O0", "-O2"):
        obj = os.path.join(tmp, "fault.o")
        subprocess.run([tool("tpc-clang"), opt, "-c", src, "-o", obj], check=True)
        args = ["fault.o", "-t", "a.npy", "-t", "o.npy=f32[2,64]", "-s", "1048576"]
        expect_error(tool, tmp, "fault %s (simulator)" % opt, args, 2, ["scalar local memory"], "o.npy")
        expect_error(tool, tmp, "fault %s (native)" % opt, args + ["--native"], 2,
                     ["s_i32_st_l", "scalar local memory", "out of range"], "o.npy")
        ok = run([tool("tpc-sim")] + args[:-1] + ["16", "--native"], tmp)
        if ok.returncode != 0 or not os.path.exists(os.path.join(tmp, "o.npy")):
            fail("fault kernel %s without a fault: exit %d %s" % (opt, ok.returncode, ok.stderr.strip()))


def main():
    tool = lambda n: os.path.join(os.path.abspath(sys.argv[1]), n)  # noqa: E731
    with tempfile.TemporaryDirectory() as tmp:
        checked = check_samples(tool, tmp)
        check_printf(tool, tmp)
        check_bad_inputs(tool, tmp)
    print("%d sample builds compared, %d failures" % (checked, len(failures)))
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
