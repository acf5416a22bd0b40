#!/usr/bin/env python3
"""tpc-gdb in -batch mode, end to end: kernels compiled at -O0 and -O2 with -g, each session checked
against values computed here from the kernel's inputs (never from the debugger or the simulator).

Each check names the feature it covers: breakpoints by line / address / condition over $core, temporary
breakpoints, print of scalars, vector lanes and slices, /x, registers, tensor elements and 2-D slices,
info locals/args/cores/line/breakpoints, next/step/stepi/until/finish, watch (old and new value),
set var on a lane (the written output file shows it), faults at their source line, kernel printf,
reverse-stepi/reverse-next/reverse-continue, list and disassemble, and bad input.

usage: check_cli_sessions.py BIN_DIR
"""
import os
import re
import struct
import subprocess
import sys
import tempfile

BIN = sys.argv[1]
GDB = os.path.join(BIN, "tpc-gdb")
CLANG = os.path.join(BIN, "tpc-clang")

# in[i] = i * 0.5; n = 7. At line 8: k = 3n = 21, w[i] = 2 * in[i] + k = i + 21.
AXPB = """void main(tensor in, tensor out, int n)
{
    int5 c = 0;
    int k = n * 3;
    float64 v = v_f32_ld_tnsr_b(c, in);
    float64 w = v * 2.0f;
    w = w + (float)k;
    v_f32_st_tnsr(c, out, w);
}
"""

# Four cores, one vector each; each core stores its own index-space offset + 1 everywhere in its row.
PER_CORE = """void main(tensor out)
{
    const int5 start = get_index_space_offset();
    int5 c = 0;
    c[1] = start[1];
    int row = start[1];
    float64 v = (float)(row + 1);
    v_f32_st_tnsr(c, out, v);
}
"""

# Sum of 0..n-1 in a loop; the loop variable and the running sum have known values at each iteration.
LOOP = """void main(tensor out, int n)
{
    int5 c = 0;
    int sum = 0;
    for (int i = 0; i < n; i++) {
        sum = sum + i;
    }
    float64 v = (float)sum;
    v_f32_st_tnsr(c, out, v);
}
"""

FAULT = """__local__ float64 buf[4];
void main(tensor x, int n)
{
    int5 c = 0;
    float64 v = v_f32_ld_tnsr_b(c, x);
    buf[n] = v;
    v_f32_st_tnsr(c, x, buf[0] * 2.0f);
}
"""

# An inlined helper: at line 4, frame #0 is scale() with y = x * f, frame #1 main() at the call (line 11).
INLINE = """static inline float64 scale(float64 x, float f)
{
    float64 y = x * f;
    return y + 1.0f;
}

void main(tensor in, tensor out, int n)
{
    int5 c = 0;
    float64 v = v_f32_ld_tnsr_b(c, in);
    float64 w = scale(v, 3.0f);
    w = w - 1.0f;
    v_f32_st_tnsr(c, out, w);
}
"""


def spill_kernel(n=45):
    """45 vectors a_k = x * (k + 1) live at once: more than the 40 vector registers, so some are spilled."""
    lines = ["void main(tensor x, tensor out)", "{", "    int5 c = 0;", "    float64 v = v_f32_ld_tnsr_b(c, x);"]
    lines += [f"    float64 a{k} = v * {k + 1}.0f;" for k in range(n)]
    lines.append("    float64 sum = 0.0f;")
    first = len(lines) + 1
    lines += [f"    sum = sum + a{k} * a{n - 1 - k};" for k in range(n)]
    lines += ["    v_f32_st_tnsr(c, out, sum);", "}"]
    return "\n".join(lines) + "\n", first


PRINTF = """#pragma tpc_printf (enable)
void main(tensor x, int tag)
{
    printf("tag %d\\n", tag);
}
"""

failures = []


def check(cond, what, output=""):
    if cond:
        print(f"ok   {what}")
    else:
        failures.append(what)
        print(f"FAIL {what}\n---- output ----\n{output}\n----------------")


def save_npy(path, values, shape):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else ""))
    header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(values), *values))


def load_npy(path):
    data = open(path, "rb").read()
    hlen = struct.unpack("<H", data[8:10])[0]
    body = data[10 + hlen:]
    return list(struct.unpack("<%df" % (len(body) // 4), body))


def compile_kernel(tmp, name, src, opt):
    c = os.path.join(tmp, name + ".c")
    with open(c, "w") as f:
        f.write(src)
    o = os.path.join(tmp, f"{name}{opt}.o")
    subprocess.run([CLANG, "-g", opt, "-c", c, "-o", o], check=True)
    return o


def gdb(obj, cmds, sim_args, cwd, expect_rc=0):
    argv = [GDB, obj, "-batch"]
    for c in cmds:
        argv += ["-ex", c]
    argv += ["--"] + sim_args
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=120)
    out = p.stdout + p.stderr
    if expect_rc is not None and p.returncode != expect_rc:
        failures.append(f"exit status {p.returncode} (expected {expect_rc}) for {cmds}")
        print(out)
    return out


def value(out, n):
    m = re.search(r"^\$%d = (.*)$" % n, out, re.M)
    return m.group(1) if m else None


def floats(text):
    return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text or "")]


# Row by row, column by column: at -O2 the unrolled, pipelined loop keeps no copy of c after `c[0] = col`
# (LLVM marks it undef). Core 2 of a (4, 256) launch has columns 128..191.
AXPY = """void main(tensor x, tensor y, float alpha)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    int5 c = 0;
    for (int row = start[1]; row < end[1]; row++) {
        c[1] = row;
        for (int col = start[0] * 64; col < end[0] * 64; col += 64) {
            c[0] = col;
            float64 xv = v_f32_ld_tnsr_b(c, x);
            float64 yv = v_f32_ld_tnsr_b(c, y);
            v_f32_st_tnsr(c, y, v_f32_mac_b(xv, alpha, yv));
        }
    }
}
"""


def main():
    with tempfile.TemporaryDirectory() as tmp:
        n = 7
        inp = [i * 0.5 for i in range(64)]
        save_npy(os.path.join(tmp, "in.npy"), inp, (1, 64))
        w_ref = [2 * x + 3 * n for x in inp]
        args = ["-t", "in.npy", "-t", "out.npy=f32[1,64]", "-s", str(n), "--cores", "4"]
        for opt in ("-O0", "-O2"):
            o = compile_kernel(tmp, "axpb", AXPB, opt)
            out = gdb(o, ["break 8", "run", "print k", "print w[5]", "print w[0:4]", "print/x k", "print in[6,0]",
                          "print $core", "info args", "print (int)w[3] + 1", "print -summary w", "info locals"], args, tmp)
            # The store may be attributed to the closing brace: the breakpoint moves to the next line with code.
            m = re.search(r"Breakpoint 1 at 0x[0-9a-f]+: file (.*axpb.c), line (\d+)\.", out)
            line = int(m.group(2)) if m else -1
            check(m is not None and line in (8, 9) and f"Breakpoint 1, core 0, {m.group(1)}:{line}\n{line}\t" in out,
                  f"{opt}: a line breakpoint stops with gdb's 'Breakpoint N, core C, FILE:LINE' and the source line", out)
            check(value(out, 1) == str(3 * n), f"{opt}: print of a scalar variable", out)
            check(floats(value(out, 2)) == [w_ref[5]], f"{opt}: print of one lane of a vector variable", out)
            check(floats(value(out, 3)) == w_ref[0:4], f"{opt}: a lane slice w[0:4]", out)
            check(value(out, 4) == hex(3 * n), f"{opt}: print/x", out)
            check(floats(value(out, 5)) == [inp[6]], f"{opt}: a tensor element by parameter name in[6,0]", out)
            check(value(out, 6) == "0", f"{opt}: $core", out)
            check(re.search(r"^n = 7$", out, re.M) is not None, f"{opt}: info args shows the scalar parameter", out)
            check(value(out, 7) == str(int(w_ref[3]) + 1), f"{opt}: casts and C operators", out)
            check((value(out, 8) or "").startswith("64 lanes"), f"{opt}: the one-row vector summary", out)

            # set var on a lane changes what the kernel stores: the output file (written by the run) shows it.
            out = gdb(o, ["break 8", "run", "set var w[2] = 100", "print w[2]", "continue"], args, tmp)
            got = load_npy(os.path.join(tmp, "out.npy"))
            check(value(out, 1) == "100" and got[2] == 100.0 and got[3] == w_ref[3],
                  f"{opt}: set var on a vector lane reaches the kernel's output", out)

            # A watchpoint on a tensor element stops after the bundle that writes it, with old and new value.
            out = gdb(o, ["break 5", "run", "watch out[3,0]", "continue"], args, tmp)
            check(re.search(r"Hardware watchpoint 2: out\[3,0\]\s+Old value = 0\s+New value = %g" % w_ref[3], out) is not None,
                  f"{opt}: watch on a tensor element reports old and new value", out)

            # Conditional breakpoint over $core on a four-core launch.
            o2 = compile_kernel(tmp, "percore", PER_CORE, opt)
            pargs = ["-t", "out.npy=f32[4,64]", "--cores", "4"]
            out = gdb(o2, ["break 8 if $core == 2", "run", "print row", "print out[0,1]", "info cores", "core 1", "print $core"], pargs, tmp)
            check(re.search(r"Breakpoint 1, core 2, .*percore.c:\d+", out) is not None and "core 0, " not in out.split("Breakpoint 1, core 2")[0],
                  f"{opt}: a condition over $core stops on that core only", out)
            check(value(out, 1) in ("2", "<optimized out>") and floats(value(out, 2)) == [2.0],
                  f"{opt}: values on the focused core and the tensor the earlier cores wrote", out)
            rows = re.findall(r"^[* ] (\d)\s+\[0:1, (\d):(\d)", out, re.M)
            check(rows == [("0", "0", "1"), ("1", "1", "2"), ("2", "2", "3"), ("3", "3", "4")],
                  f"{opt}: info cores lists each core's index-space slice", out)
            check("[Switching to core 1" in out and value(out, 3) == "1", f"{opt}: core N switches the focus", out)

            # Tensor 2-D slice as a table.
            out = gdb(o2, ["run", "print out[0:3, :]"], pargs + [], tmp)
            table = out[out.find("$1 = "):]
            rows = [[float(x) for x in l.split()[1:]] for l in table.splitlines()[2:6]]
            check(rows == [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [3.0, 3.0, 3.0], [4.0, 4.0, 4.0]],
                  f"{opt}: a tensor's 2-D slice prints as a table", out)

        # Stepping at -O0: next goes line by line; step, stepi, until and the loop.
        o = compile_kernel(tmp, "loop", LOOP, "-O0")
        largs = ["-t", "out.npy=f32[1,64]", "-s", "5", "--cores", "1"]
        out = gdb(o, ["break 6", "run", "print i", "print sum", "continue", "continue", "print i", "print sum",
                      "disable 1", "tbreak 8", "continue", "print sum", "info breakpoints"], largs, tmp)
        check(value(out, 1) == "0" and value(out, 2) == "0" and value(out, 3) == "2" and value(out, 4) == "1",
              "-O0: a breakpoint in a loop stops at each iteration with the loop's values", out)
        check(re.search(r"Temporary breakpoint 2, core 0, .*loop.c:8", out) is not None and value(out, 5) == str(sum(range(5))),
              "-O0: tbreak stops once at its line", out)
        check(re.search(r"^1\s+breakpoint\s+keep n\s+0x[0-9a-f]+ in main at .*loop.c:6\n\tbreakpoint already hit 3 times", out, re.M) is not None
              and not re.search(r"^2\s+breakpoint", out, re.M),
              "-O0: info breakpoints counts hits and a temporary breakpoint is gone after its stop", out)
        out = gdb(o, ["break 5", "run", "delete", "next", "next", "stepi", "info line 6", "until 8", "print sum"], largs, tmp)
        lines = re.findall(r"^(\d+)\t", out, re.M)
        check(lines[:3] == ["5", "6", "5"], "-O0: next steps line by line (into the loop body and back to its test)", out)
        check(value(out, 1) == str(sum(range(5))), "-O0: until LINE runs to that line", out)
        check(re.search(r'Line 6 of ".*loop.c" starts at address 0x[0-9a-f]+ <main\+\d+> and ends at', out) is not None,
              "info line names the line's address range", out)

        # Reverse execution: back by one bundle, back over a line, back to the previous breakpoint hit.
        out = gdb(o, ["break 6", "run", "continue", "continue", "print i", "reverse-continue", "print i",
                      "reverse-continue", "print i", "continue", "print i", "reverse-stepi", "next", "print i"], largs, tmp)
        check(value(out, 1) == "2" and value(out, 2) == "1" and value(out, 3) == "0" and value(out, 4) == "1",
              "reverse-continue goes back to the previous breakpoint hit (and continue forward again)", out)
        # From line 8 after the loop (sum = 10), back to the loop's last test (line 5, i before its last
        # increment: 4), then back into the body's last run (line 6: i = 4, sum = 0+1+2+3 = 6).
        out = gdb(o, ["break 8", "run", "print sum", "reverse-next", "print i", "reverse-next", "print i", "print sum"], largs, tmp)
        lines = re.findall(r"^(\d+)\t", out, re.M)
        check(value(out, 1) == "10" and lines[1:3] == ["5", "6"] and value(out, 2) == "4" and value(out, 3) == "4"
              and value(out, 4) == "6", "reverse-next steps back line by line with the values of that moment", out)

        # list and disassemble with source.
        out = gdb(o, ["list 6", "break 6", "run", "disassemble"], largs, tmp)
        check("6\t        sum = sum + i;" in out and re.search(r"^=> 0x[0-9a-f]+ <\+\d+>:\t", out, re.M) is not None
              and "Dump of assembler code for function main:" in out, "list and disassemble with source and the pc marked", out)

        # A fault stops at its source line.
        save_npy(os.path.join(tmp, "x.npy"), [1.0] * 64, (1, 64))
        o = compile_kernel(tmp, "fault", FAULT, "-O0")
        out = gdb(o, ["run", "bt", "info cores"], ["-t", "x.npy", "-s", "1000", "--cores", "1"], tmp)
        check(re.search(r"Core 0 received a fault at 0x[0-9a-f]+, .*fault.c:6: .*out of range", out) is not None and
              "6\t    buf[n] = v;" in out and re.search(r"^\* 0 .* faulted", out, re.M) is not None,
              "a local memory fault stops at its source line", out)

        # A watchpoint on local memory: buf[2] lane 3 is element 2 * 64 + 3 of vector local memory as f32.
        LOCAL = FAULT.replace("v_f32_st_tnsr(c, x, buf[0] * 2.0f);", "v_f32_st_tnsr(c, x, buf[n] + 1.0f);").replace(
            "buf[n] = v;", "buf[n] = v * 3.0f;")
        o = compile_kernel(tmp, "local", LOCAL, "-O0")
        out = gdb(o, ["break *0", "run", "watch $vlm_f32[131]", "continue", "print $vlm_f32[131]", "print buf[2][3]",
                      "whatis buf", "set var buf[2][3] = 5", "continue"], ["-t", "x.npy", "-s", "2", "--cores", "1"], tmp)
        got = load_npy(os.path.join(tmp, "x.npy"))
        check(re.search(r"Hardware watchpoint 2: \$vlm_f32\[131\]\s+Old value = 0\s+New value = 3\n", out) is not None
              and value(out, 1) == "3" and got[3] == 6.0 and got[4] == 4.0,
              "watch on vector local memory ($vlm_f32[k]) and set var there reach the kernel's output", out)
        check(value(out, 2) == "3" and "type = float64[4]" in out,
              "a __local__ array of vectors is a variable in local memory (buf[2][3], whatis)", out)
        save_npy(os.path.join(tmp, "x.npy"), [1.0] * 64, (1, 64))

        # A value is shown until the bundle that overwrites its register has run: at the sample axpy's store line
        # (whose first bundle, the mac, overwrites yv's register) xv and yv are still the loaded vectors.
        save_npy(os.path.join(tmp, "ax.npy"), [i * 0.5 for i in range(64)], (1, 64))
        save_npy(os.path.join(tmp, "ay.npy"), [float(i) for i in range(64)], (1, 64))
        axpy = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "tpc-c", "axpy_f32.c")
        o = os.path.join(tmp, "axpy.o")
        subprocess.run([CLANG, "-g", "-O0", "-c", axpy, "-o", o], check=True)
        out = gdb(o, ["break 13", "run", "print xv[1]", "print yv[1]"], ["-t", "ax.npy", "-t", "ay.npy", "-s", "2"], tmp)
        check(value(out, 1) == "0.5" and value(out, 2) == "1",
              "variables read the state before the bundle at the pc (yv at the bundle that overwrites it)", out)

        # Kernel printf passes through.
        o = compile_kernel(tmp, "pf", PRINTF, "-O2")
        out = gdb(o, ["run"], ["-t", "x.npy", "-s", "42", "--cores", "2", "--index-space", "2"], tmp)
        check(out.count("tag 42") == 2 and "exited normally" in out, "kernel printf output is passed through", out)

        # Inline frames at -O2: bt, the helper's locals, up to the caller, finish back into it.
        o = compile_kernel(tmp, "inl", INLINE, "-O2")
        out = gdb(o, ["break 4", "run", "bt", "print y[1]", "print x[2]", "up", "print v[1]", "info frame", "down", "finish"], args[:6] + ["--cores", "1"], tmp)
        check(re.search(r"^#0  scale \(\) at .*inl.c:4\n#1  main \(\) at .*inl.c:11", out, re.M) is not None,
              "-O2: an inlined helper is a frame of its own in bt, with its call site", out)
        check(floats(value(out, 1)) == [inp[1] * 3] and value(out, 3) is not None and floats(value(out, 3)) == [inp[1]],
              "-O2: the helper's local variable, and the caller's after `up`", out)
        check("Run till exit from #0  scale ()" in out and re.search(r"^1[12]\t", out, re.M) is not None,
              "-O2: finish leaves the inlined helper for its caller", out)

        # Spilled variables at -O2 are read from their local-memory slots; every value shown is right.
        src, first = spill_kernel()
        o = compile_kernel(tmp, "spill", src, "-O2")
        save_npy(os.path.join(tmp, "q.npy"), [i * 0.25 for i in range(64)], (1, 64))
        out = gdb(o, ["tbreak %d" % (first + 8), "run", "info locals"] + [f"info address a{k}" for k in range(45)],
                  ["-t", "q.npy", "-t", "out.npy=f32[1,64]", "--cores", "1"], tmp)
        wrong, shown = [], 0
        for m in re.finditer(r"^a(\d+) = \{([^}]*)\}", out, re.M):
            k = int(m.group(1))
            lanes = [float(x) for x in re.findall(r"-?[\d.]+(?:e[-+]?\d+)?", m.group(2).replace("<repeats", " "))]
            shown += 1
            if lanes[:4] != [0.25 * i * (k + 1) for i in range(4)]:
                wrong.append(k)
        in_memory = len(re.findall(r"is a variable at vector local memory", out))
        check(shown >= 20 and not wrong and in_memory >= 1,
              f"-O2: {shown} of 45 live vectors shown with the right values, {in_memory} of them from spill slots in local memory", out)

        # A variable assigned a value the code does not keep is <optimized out> from there on, never the value
        # it had before (at -O2 c was shown as {0, 0, 0, 0, 0}, its value before c[0] = col).
        save_npy(os.path.join(tmp, "x.npy"), [i / 8 for i in range(1024)], (4, 256))
        save_npy(os.path.join(tmp, "y.npy"), [1.0] * 1024, (4, 256))
        for opt in ("-O0", "-O2"):
            o = compile_kernel(tmp, "axpy", AXPY, opt)
            out = gdb(o, ["break 12 if $core == 2", "run", "print c", "print xv[0]"],
                      ["-t", "x.npy", "-t", "y.npy", "-s", "1.5"], tmp)
            c, xv = value(out, 1), value(out, 2)
            lanes = [int(v) for v in re.findall(r"-?\d+", c or "")]
            right = len(lanes) == 5 and 128 <= lanes[0] < 192 and lanes[0] % 64 == 0 and lanes[1:] == [0, 0, 0, 0]
            check(right or (opt == "-O2" and c == "<optimized out>"),
                  f"{opt}: a variable whose value the code does not keep is <optimized out>, never its old value", out)
            check(xv is not None and floats(xv)[0] == 128 / 8, f"{opt}: the loaded vector at core 2's column", out)

        # A line has one breakpoint location per straight-line region it appears in: at -O2 the loop body is
        # unrolled, and with two columns per core only the remainder loop runs; the breakpoint must stop there.
        for opt in ("-O0", "-O2"):
            o = compile_kernel(tmp, "axpy", AXPY, opt)
            out = gdb(o, ["break 12", "info breakpoints", "run", "print xv[1]", "continue", "print xv[1]"],
                      ["-t", "x.npy", "-t", "y.npy", "-s", "1.5", "--index-space", "8,4,1,1,1", "--cores", "16"], tmp)
            m = re.search(r"Breakpoint 1 at 0x[0-9a-f]+: .*?(?:\((\d+) locations\))?\n", out)
            listed = len(re.findall(r"^1\.\d+ ", out, re.M))
            check(m is not None and listed == int(m.group(1) or 0) and (opt == "-O0" or listed >= 2),
                  f"{opt}: a line in several regions of the code is a breakpoint with several locations, listed as 1.1, 1.2, ...", out)
            # Core 0 has columns 0..127 of row 0: x[0, 0:64] then x[0, 64:128]; xv[1] is x[1] = 1/8, then x[65].
            check(out.count("Breakpoint 1, core 0,") == 2 and floats(value(out, 1)) == [1 / 8] and floats(value(out, 2)) == [65 / 8],
                  f"{opt}: the breakpoint stops at both iterations of core 0, wherever the code for them is", out)

        # $idx: the index-space point of the iteration, from the kernel's loop variables over the index space
        # (col / 64, row); a condition on it stops at that point only. At -O2 the unrolled loop keeps no copy of
        # col: the condition then cannot be evaluated, and gdb's rule is to stop and say why.
        for opt in ("-O0", "-O2"):
            o = compile_kernel(tmp, "axpy", AXPY, opt)
            dump = subprocess.run([os.path.join(BIN, "tpc-objdump"), "-S", o], capture_output=True, text=True).stdout
            check("// index-space dimension 0: col / 64" in dump and "// index-space dimension 1: row / 1" in dump,
                  f"{opt}: the object names the loop variables over index-space dimensions 0 and 1 (tpc-objdump -S)", dump)
            out = gdb(o, ["break 12 if $idx[0] == 2 && $idx[1] == 1", "run", "print $idx", "print col", "print row",
                          "print xv[0]", "continue"], ["-t", "x.npy", "-t", "y.npy", "-s", "1.5", "--cores", "5"], tmp)
            if opt == "-O0" or "Error in testing condition" not in out:
                check(value(out, 1) == "{2, 1, 0, 0, 0}" and value(out, 2) == "128" and value(out, 3) == "1" and
                      floats(value(out, 4)) == [(256 + 128) / 8] and out.count("Breakpoint 1, core") == 1,
                      f"{opt}: break if $idx[0] == 2 && $idx[1] == 1 stops once, at column 128 of row 1", out)
            else:
                check("optimized out" in out and "'col'" in out,
                      f"{opt}: a condition on $idx whose loop variable is optimized out stops and says so", out)

        # Registers and info registers groups.
        o = compile_kernel(tmp, "axpb", AXPB, "-O0")
        out = gdb(o, ["break *0", "run", "print $s0", "print $i1", "info registers sp", "print $vp0[0:4]"], args, tmp)
        check(value(out, 1) == str(n) and floats(value(out, 2)) == [1, 1, 1, 1, 1] and re.search(r"^sp0\s+0x1\s+true$", out, re.M) is not None,
              "registers (break *ADDR at the entry): $s0 holds the first scalar parameter, $i1 the index-space size, SP0 reads true", out)

        # Bad input: a clear message naming the file, exit status 1, no crash.
        bad = os.path.join(tmp, "bad.o")
        open(bad, "wb").write(b"\x7fELFjunk")
        p = subprocess.run([GDB, bad, "-batch", "-ex", "run", "--", "-t", "x.npy"], capture_output=True, text=True, timeout=60)
        check(p.returncode == 1 and "bad.o" in p.stderr, "a damaged object gives a message naming it and exit 1", p.stderr)
        p = subprocess.run([GDB, o, "-batch", "-ex", "print nosuch"] + ["--"] + args, cwd=tmp, capture_output=True, text=True, timeout=60)
        check(p.returncode == 1 and "No frame selected" in p.stderr, "-batch exits 1 when the last command failed", p.stderr)
        p = subprocess.run([GDB, o, "-batch", "-ex", "break 8", "-ex", "run", "-ex", "print nosuch\x01"] + ["--"] + args,
                           cwd=tmp, capture_output=True, text=True, timeout=60)
        check("\\x01" in p.stderr and "\x01" not in p.stderr, "messages escape the bytes they echo", p.stderr)

        # Bad commands: each one an error message, the session goes on, nothing crashes.
        deep = os.path.join(tmp, "deep.gdb")
        open(deep, "w").write("print " + "(" * 100000 + "1" + ")" * 100000 + "\n")
        bad_cmds = ["x/99999x 0", "print in[999]", "break *-1", "frame 99", "info registers v99", "list 99999",
                    "print $v99", "set var $sp0 = 0", "print 1/0", "print (float)", "print $v0[1:0]",
                    "print in[0:9999999, 0]", "print in[:, :, :]", "core 77", "x/4x slm:99999999", "print $1000",
                    "until 99999", "tbreak nosuchfunc", "condition 99 x", "frobnicate", "break 9 if ((("]
        argv = [GDB, o, "-batch", "-ex", "break *0", "-ex", "run", "-x", deep]
        for c in bad_cmds:
            argv += ["-ex", c]
        p = subprocess.run(argv + ["--"] + args, cwd=tmp, capture_output=True, text=True, timeout=120)
        errors = [l for l in p.stderr.splitlines() if l.strip()]
        check(p.returncode == 1 and len(errors) >= len(bad_cmds) + 1 and "nested deeper" in p.stderr and
              "Sanitizer" not in p.stderr and "runtime error" not in p.stderr,
              "every bad command is an error message; a 100,000-deep expression is refused, not a stack overflow",
              p.stderr)

    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
