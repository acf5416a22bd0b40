#!/usr/bin/env python3
"""Checks the register allocator on kernels built to stress it, at -O0 and -O2, from the assembly text
(`.vector_local` is the vector local memory the kernel uses: its own arrays plus spill slots) and by
running each kernel on tpc-sim against a reference computed here:

- partial writes into fresh registers (a widening convert writes its destination lane by lane and so
  reads it in the hardware's eyes) do not keep the destination alive around an enclosing loop: 48 such
  converts in a loop body fit in the registers, with no spill at all;
- spilled values that are never live together share a local-memory slot: two phases that each hold 48
  vectors at once need the slots of one phase, not of both;
- a spilled value whose definition reads nothing (the lane ids) is computed again where it is used
  instead of being stored and loaded;
- a spilled value written by an instruction that also reads it (a mac's accumulator) is stored after
  each write: 48 accumulators carried around a loop come out right;
- predicates, which have no local-memory form, spill into scalar registers (0 or 1, read back with
  `mov_sp`): 20 conditions computed before any is used, more than the 15 predicate registers, compile
  and select the right sum for operands on both sides of every threshold;
- the index space's offset and size (i0, i1) are used where they are, not copied, unless the kernel
  writes a copy in place while the original is still to be read: a kernel that walks the rows with an
  in-place copy of the offset and stores at the offset itself afterwards writes every row right on 4
  cores, and at -O2 it copies i0 (for those writes) and never i1;
- an int5 built lane by lane from scalars is built in one index register: no whole-register copies
  between the steps, and the store lands at the coordinates given.

usage: check_register_allocation.py BUILD/bin
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples"))
from run_samples import read_npy, write_npy  # noqa: E402  (the samples' .npy helpers, written from the spec)

N = 48  # vectors live at once: more than the 40 vector registers


def partial_writes_source():
    body = "\n".join(
        "        c[0] = %d; { float64_pair_t p = v_convert_bf16_to_f32_all_b(v_bf16_ld_tnsr_b(c, x)); "
        "acc += p.v1; acc += p.v2; }" % (128 * k) for k in range(N))
    return """void main(tensor x, tensor out)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    int5 c = 0;
    for (int h = s[1]; h < e[1]; h++) {
        c[1] = h;
        float64 acc = 0.0f;
%s
        c[0] = 0;
        v_f32_st_tnsr(c, out, acc);
    }
}
""" % body


def phases_source():
    def phase(row):
        loads = "\n".join("    c[0] = %d; int64 a%d_%d = v_i32_ld_tnsr_b(c, x);" % (64 * k, row, k) for k in range(N))
        # Summed from the last one loaded: all of them are live together.
        adds = "\n".join("    s%d = s%d + a%d_%d;" % (row, row, row, k) for k in reversed(range(N)))
        return """    c[1] = %d;
%s
    int64 s%d = 0;
%s
    c[0] = 0;
    v_i32_st_tnsr(c, out, s%d + lanes);
""" % (row, loads, row, adds, row)
    return """void main(tensor x, tensor out)
{
    int5 c = 0;
    int64 lanes = (int64)read_lane_id_4b_b();
%s%s}
""" % (phase(0), phase(1))


def accumulators_source():
    decls = "\n".join("    float64 acc%d = 0.0f;" % k for k in range(N))
    macs = "\n".join("        c[0] = %d; acc%d = v_f32_mac_b(v_f32_ld_tnsr_b(c, x), 2.0f, acc%d);" % (64 * k, k, k)
                      for k in range(N))
    stores = "\n".join("    c[1] = %d; v_f32_st_tnsr(c, out, acc%d);" % (k, k) for k in range(N))
    return """void main(tensor x, tensor out)
{
    int5 c = 0;
%s
    for (int r = 0; r < get_dim_size(x, 1); r++) {
        c[1] = r;
%s
    }
    c[0] = 0;
%s
}
""" % (decls, macs, stores)


PREDICATES = 20  # conditions live at once: more than the 15 predicate registers


def predicates_source():
    conds = ["p%d = x > b + %d" % (k, k) for k in range(PREDICATES // 2)]
    conds += ["q%d = x < b - %d" % (k, k) for k in range(PREDICATES // 2)]
    names = ["p%d" % k for k in range(PREDICATES // 2)] + ["q%d" % k for k in range(PREDICATES // 2)]
    uses = "\n".join("    r = %s ? r + %d : r;" % (n, 1 << k) for k, n in enumerate(names))
    return """void main(tensor out, int a, int b)
{
    int5 c = 0;
    int x = a;
    bool %s;
    int r = 0;
%s
    int64 v = r;
    v_i32_st_tnsr(c, out, v);
}
""" % (", ".join(conds), uses)


def predicates_want(a, b):
    r = sum(1 << k for k in range(PREDICATES // 2) if a > b + k)
    return r + sum(1 << (PREDICATES // 2 + k) for k in range(PREDICATES // 2) if a < b - k)


INDEX_SPACE_SOURCE = """void main(tensor out, tensor first)
{
    const int5 start = get_index_space_offset();
    const int5 size = get_index_space_size();
    int5 c = start;
    for (int k = 0; k < size[1]; k++) {
        v_i32_st_tnsr(c, out, (int64)(c[1] * 10 + 7));
        c[1] += 1;  // c walks the rows: written in place while start is still to be read
    }
    v_i32_st_tnsr(start, first, (int64)(start[1] + 1));
}
"""


INT5_SOURCE = """void main(tensor out, int b, int c, int d)
{
    const int5 at = {0, b, c, d, 0};
    v_i32_st_tnsr(at, out, (int64)(100 * b + 10 * c + d + 1));
}
"""


def compile_kernel(tool, source, opt, tmp, name):
    src = os.path.join(tmp, name + ".c")
    open(src, "w").write(source)
    obj, asm = os.path.join(tmp, name + ".o"), os.path.join(tmp, name + ".s")
    for out, extra in ((obj, []), (asm, ["-S"])):
        p = subprocess.run([tool, opt, *extra, src, "-o", out], capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError("%s %s: tpc-clang failed:\n%s" % (name, opt, p.stderr))
    text = open(asm).read()
    local = int(re.search(r"^\.vector_local (\d+)", text, re.M).group(1))
    return obj, text, local


def run(sim, obj, tmp, inputs, output, extra=()):
    args = [sim, obj, "--strict-hazards", *extra]
    for k, (descr, shape, values) in enumerate(inputs):
        path = os.path.join(tmp, "in%d.npy" % k)
        write_npy(path, descr, shape, values)
        args += ["-t", path + (":bf16" if descr == "<u2" else "")]
    # output: one tensor's type and shape, or a tuple of them (out.npy, out1.npy, ...); the first's values.
    outputs = [output] if isinstance(output, str) else list(output)
    paths = [os.path.join(tmp, "out%s.npy" % (k or "")) for k in range(len(outputs))]
    args += ["-t"] + [path + "=" + o for path, o in zip(paths, outputs)]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("tpc-sim failed:\n" + p.stderr)
    return read_npy(paths[0])[1]


def bf16(x):
    import struct
    return struct.unpack("<I", struct.pack("<f", x))[0] >> 16  # inputs are exact in bf16


def f32(x):
    import struct
    return struct.unpack("<f", struct.pack("<f", x))[0]


def main():
    bindir = sys.argv[1]
    tool, sim = os.path.join(bindir, "tpc-clang"), os.path.join(bindir, "tpc-sim")
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for opt in ("-O0", "-O2"):
            # Partial writes: no spill, and the sums are right (small integers: exact in any order).
            obj, _, local = compile_kernel(tool, partial_writes_source(), opt, tmp, "partial")
            if local != 0:
                failures.append("partial writes %s: %d bytes of spill slots, want none" % (opt, local))
            rows, width = 3, 128 * N
            xs = [float((i * 7 + i // width) % 17 - 8) for i in range(rows * width)]
            got = run(sim, obj, tmp, [("<u2", [rows, width], [bf16(v) for v in xs])], "f32[%d,64]" % rows)
            for r in range(rows):
                for lane in range(64):
                    want = 0.0
                    for k in range(N):
                        base = r * width + 128 * k
                        want += xs[base + 2 * lane] + xs[base + 2 * lane + 1]
                    if got[r * 64 + lane] != f32(want):
                        failures.append("partial writes %s: row %d lane %d is %r, want %r" % (opt, r, lane, got[r * 64 + lane], want))
                        break

            # Two phases: shared slots, the lane ids recomputed.
            obj, text, local = compile_kernel(tool, phases_source(), opt, tmp, "phases")
            stores = len(re.findall(r"st_l_v\.i32 \d+,", text))
            slots = local // 256
            if stores == 0:
                failures.append("phases %s: nothing was spilled; the kernel no longer tests spilling" % opt)
            # Each phase spills about the same values: shared slots hold one phase's, not both.
            if slots > stores // 2 + 1:
                failures.append("phases %s: %d spill slots for %d spill stores; phases do not share them" % (opt, slots, stores))
            if len(re.findall(r"lane_id", text)) < 2:
                failures.append("phases %s: the lane ids were not computed again after the spill" % opt)
            xs = [(i * 13) % 1001 - 500 for i in range(2 * 64 * N)]
            got = run(sim, obj, tmp, [("<i4", [2, 64 * N], xs)], "i32[2,64]")
            for row in range(2):
                for lane in range(64):
                    want = sum(xs[row * 64 * N + 64 * k + lane] for k in range(N)) + lane
                    if got[row * 64 + lane] != want:
                        failures.append("phases %s: row %d lane %d is %d, want %d" % (opt, row, lane, got[row * 64 + lane], want))
                        break
            # Accumulators (small integers: exact) carried around a loop through spill slots.
            obj, text, local = compile_kernel(tool, accumulators_source(), opt, tmp, "accumulators")
            if local == 0:
                failures.append("accumulators %s: nothing was spilled; the kernel no longer tests spilling" % opt)
            rows = 3
            xs = [float((i * 5) % 23 - 11) for i in range(rows * 64 * N)]
            got = run(sim, obj, tmp, [("<f4", [rows, 64 * N], xs)], "f32[%d,64]" % N)
            for k in range(N):
                want = [sum(2 * xs[r * 64 * N + 64 * k + lane] for r in range(rows)) for lane in range(64)]
                if got[k * 64:(k + 1) * 64] != want:
                    failures.append("accumulators %s: accumulator %d is %r..., want %r..." % (opt, k, got[k * 64:k * 64 + 3], want[:3]))
                    break
            # Predicates spilled into scalar registers.
            obj, text, _ = compile_kernel(tool, predicates_source(), opt, tmp, "predicates")
            readbacks = len(re.findall(r"mov_sp sp\d+, s\d+", text))
            if opt == "-O2" and readbacks == 0:
                failures.append("predicates %s: no predicate was spilled; the kernel no longer tests it" % opt)
            for a, b in ((0, 0), (5, 0), (-7, 0), (3, -4), (100, 95), (-100, -95), (2, 7), (9, 0), (-10, 0)):
                got = run(sim, obj, tmp, [], "i32[64]", ["-s", str(a), str(b), "--index-space", "1"])
                if got[0] != predicates_want(a, b):
                    failures.append("predicates %s: a=%d b=%d gives %d, want %d" % (opt, a, b, got[0], predicates_want(a, b)))
            # The index-space registers: in place unless a copy is written while they are still read.
            obj, text, _ = compile_kernel(tool, INDEX_SPACE_SOURCE, opt, tmp, "index_space")
            copies = {r: len(re.findall(r"i_mov\.i32 i\d+, %s dmask=0b11111" % r, text)) for r in ("i0", "i1")}
            # The offset must be copied (each unrolled copy of c is written in place); the size never is.
            if opt == "-O2" and (copies["i0"] == 0 or copies["i1"] != 0):
                failures.append("index space %s: whole copies of i0 and i1 %r, want some and none" % (opt, copies))
            rows = 11
            got = run(sim, obj, tmp, [], ("i32[%d,64]" % rows,) * 2, ["--cores", "4", "--index-space", "1,%d" % rows])
            first = read_npy(os.path.join(tmp, "out1.npy"))[1]
            for r in range(rows):
                if got[r * 64] != 10 * r + 7:
                    failures.append("index space %s: row %d is %d, want %d" % (opt, r, got[r * 64], 10 * r + 7))
                    break
            starts = [r for r in range(rows) if first[r * 64] != 0]
            if first[0] != 1 or any(first[r * 64] != r + 1 for r in starts) or len(starts) < 2:
                failures.append("index space %s: the cores' first rows got %r" % (opt, [first[r * 64] for r in range(rows)]))
            # An int5 from scalars, lane by lane, in place.
            obj, text, _ = compile_kernel(tool, INT5_SOURCE, opt, tmp, "int5")
            copies = len(re.findall(r"i_mov\.i32 i\d+, i\d+ dmask=0b11111", text))
            if opt == "-O2" and copies != 0:
                failures.append("int5 built by lanes %s: %d whole index-register copies, want none" % (opt, copies))
            for b, c, d in ((0, 0, 0), (2, 1, 1), (1, 2, 0)):
                got = run(sim, obj, tmp, [], "i32[2,3,3,64]", ["-s", str(b), str(c), str(d), "--index-space", "1"])
                want = [0] * (2 * 3 * 3 * 64)
                base = ((d * 3 + c) * 3 + b) * 64
                want[base:base + 64] = [100 * b + 10 * c + d + 1] * 64
                if got != want:
                    failures.append("int5 built by lanes %s: the store at (0, %d, %d, %d) went elsewhere" % (opt, b, c, d))
            print("%s: partial writes ok; phases: %d spill stores, %d slots; accumulators: %d slots; "
                  "predicates: %d read back" % (opt, stores, slots, local // 256, readbacks))
    for f in failures:
        print("FAILED: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
