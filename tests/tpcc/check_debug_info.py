#!/usr/bin/env python3
"""Checks tpc-clang -g end to end: the code is the same with and without -g; the object has a line table
that tpc-objdump -d -S shows as source lines, and variable locations for the kernel's variables; the -S
listing reassembles to the same code; a kernel fault names the source line.

Variable locations follow control flow: in a kernel with branches and loops, the bundles where a variable is
said to be in a register are exactly those its value reaches from the bundle that writes it, along jumps,
loop back edges and fall-through, up to a bundle that writes the register again or assigns the variable
anew. The reference below finds those bundles from the listing itself, with the destination operands that
`tpc-objdump --isa-table` documents.

usage: check_debug_info.py BIN_DIR
"""
import os
import re
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

BRANCHY = """void main(tensor x, tensor out, int n)
{
    int5 c = 0;
    float64 v = v_f32_ld_tnsr_b(c, x);
    float scale;
    if (n > 3) {
        scale = 2.0f;
        v = v * scale;
    } else {
        scale = 0.5f;
        v = v + scale;
    }
    for (int i = 0; i < n; i++) {
        c[0] = i * 64;
        float64 w = v_f32_ld_tnsr_b(c, x);
        if (i == 2) w = w * 3.0f;
        v = v + w;
    }
    c[0] = 0;
    v_f32_st_tnsr(c, out, v * scale);
}
"""

SLOTS = ("load", "spu", "vpu", "store")
INLINED_INSTANCES = {"row_sum_f32.c", "softmax_f32.c"}


def destinations(isa_table):
    """(slot, mnemonic) -> whether the instruction writes a destination register."""
    out = {}
    for line in isa_table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 3 and cells[0] in SLOTS:
            out[(cells[0], cells[2].strip("`"))] = bool(cells[3])
    return out


def parse_listing(listing, dsts):
    """Bundles by address as (registers written, successor addresses); and the variable locations."""
    written, succ, loops = {}, {}, []
    for m in re.finditer(r"^0x([0-9a-f]+):\s+(.*)$", listing, re.M):
        addr = int(m.group(1), 16)
        written[addr], succ[addr] = set(), []
        falls = True
        for slot, text in zip(SLOTS, m.group(2).split(" ; ")):
            text = text.strip()
            predicated = text.startswith("@")
            if predicated:
                text = text.split(" ", 1)[1]
            mnemonic, _, rest = text.partition(" ")
            mnemonic = mnemonic.split(".")[0]
            if dsts.get((slot, mnemonic)) and rest:
                written[addr].add(re.split(r"[ ,]", rest)[0])
            if mnemonic == "jmpr":
                succ[addr].append(int(rest.split()[0], 16))
                falls = falls and predicated
            elif mnemonic == "halt":
                falls = falls and predicated
            elif mnemonic == "loop":
                end = int(re.search(r"end=0x([0-9a-f]+)", rest).group(1), 16)
                succ[addr].append(end + 64)  # a loop that does not run
                loops.append((addr, end))
        if falls:
            succ[addr].append(addr + 64)
    for start, end in loops:
        succ[end].append(start + 64)  # the next iteration
    bundles = {a: (written[a], succ[a]) for a in written}
    locations = [(m.group(1), m.group(2), int(m.group(3), 16), int(m.group(4), 16))
                 for m in re.finditer(r"^// variable (\w+) \([^)]*\): (\w+) in \[0x([0-9a-f]+), 0x([0-9a-f]+)\)$",
                                      listing, re.M)]
    return bundles, locations


def location_mismatches(listing, dsts):
    """Variables whose listed locations differ from the bundles their values reach (see the docstring).

    The listing does not say which bundle assigns a variable (an assignment whose copy coalesced away is
    noted on an earlier bundle that does not write the register), so every start of a listed range, and
    every listed bundle that writes the register, is taken as a point where the variable is in that
    register, and the rest must follow from the control flow: from each such point, the successors up to a
    bundle that writes the register or where the variable is said to move to another register, or to
    nowhere (`none`: assigned a value the code does not keep)."""
    bundles, locations = parse_listing(listing, dsts)
    said, starts = {}, {}
    for var, reg, lo, hi in locations:
        said.setdefault((var, reg), set()).update(range(lo, hi, 64))
        starts.setdefault(var, {}).setdefault(reg, set()).add(lo)
    preds = {}
    for k, (_, succ) in bundles.items():
        for j in succ:
            preds.setdefault(j, set()).add(k)
    bad = []
    for (var, reg), listed in sorted(said.items()):
        if reg == "none":
            continue  # a bundle that assigns the variable a value the code does not keep: only ends the others
        # Where the variable moves to another register: a bundle of its ranges there that writes that
        # register, or a start of them that no bundle of them leads to (one that does only continues).
        elsewhere = set()
        for r, js in starts[var].items():
            if r == "none":
                elsewhere |= said[(var, r)]  # each bundle of them on its own
            elif r != reg:
                elsewhere |= {j for j in said[(var, r)] if r in bundles.get(j, (set(),))[0]}
                elsewhere |= {j for j in js if not (preds.get(j, set()) & said[(var, r)])}
        # Where the value is said to start, and bundles said to hold it that write it (assignments).
        seen, work = set(), list(starts[var][reg] | {k for k in listed if reg in bundles.get(k, (set(),))[0]})
        while work:
            k = work.pop()
            if k in seen or k not in bundles:
                continue
            seen.add(k)
            work.extend(j for j in bundles[k][1] if reg not in bundles.get(j, (set(),))[0] and j not in elsewhere)
        if listed != seen:
            bad.append("%s in %s: said but not reached %s; reached but not said %s"
                       % (var, reg, [hex(a) for a in sorted(listed - seen)[:4]], [hex(a) for a in sorted(seen - listed)[:4]]))
    return bad, len(locations)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)


def text_of(obj, tmp):
    out = os.path.join(tmp, "text.bin")
    subprocess.run(["objcopy", "-O", "binary", "--only-section=.text", obj, out], check=True)
    return open(out, "rb").read()


def main():
    tool = lambda n: os.path.join(os.path.abspath(sys.argv[1]), n)  # noqa: E731
    failures = []
    dsts = destinations(run([tool("tpc-objdump"), "--isa-table"]).stdout)
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
            # The listing names variables only: where inlined helpers (the special-function library) run
            # several instances of one variable at once, the reference cannot tell them apart.
            if name not in INLINED_INSTANCES:
                failures += ["%s: %s" % (name, b) for b in location_mismatches(listing, dsts)[0]]
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
        # Locations that follow control flow.
        src = os.path.join(tmp, "branchy.c")
        open(src, "w").write(BRANCHY)
        for opt in ("-O0", "-O2"):
            g = os.path.join(tmp, "branchy.o")
            subprocess.run([tool("tpc-clang"), opt, "-g", "-c", src, "-o", g], check=True)
            bad, defs = location_mismatches(run([tool("tpc-objdump"), "-d", "-S", g]).stdout, dsts)
            if defs < 4:
                failures.append("branchy.c %s: %d variable locations, expected at least 4" % (opt, defs))
            failures += ["branchy.c %s: %s" % (opt, b) for b in bad]
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
