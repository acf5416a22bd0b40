#!/usr/bin/env python3
"""tpc-gdb's two performance figures (docs/debugger.md):
  1. `continue` with breakpoints set that are never hit, against plain tpc-sim on the same launch
     (goal: >= 50% of tpc-sim's speed);
  2. the time `next` takes to answer on a 24-core launch (goal: <= 50 ms).
Both are wall-clock times of whole runs, the best of three; `next` is (time of a session with 41 nexts -
time of the same session with 1) / 40.

usage: bench_debugger.py BIN_DIR
"""
import os
import subprocess
import sys
import tempfile
import time

KERNEL = """void main(tensor x, tensor y, float alpha)
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
            if (alpha > 1e30f) {
                yv = yv * 0.0f;
            }
            v_f32_st_tnsr(c, y, xv * alpha + yv);
        }
    }
}
"""


def best(cmd, cwd, n=3, check=True):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, check=check, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    b = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "k.c")
        open(src, "w").write(KERNEL)
        obj = os.path.join(tmp, "k.o")
        subprocess.run([os.path.join(b, "tpc-clang"), "-g", "-O2", "-c", src, "-o", obj], check=True)
        args = ["-t", "x.npy=f32[8192,1024]", "-t", "y.npy=f32[8192,1024]", "-s", "1.5", "--threads", "1"]
        sim = best([os.path.join(b, "tpc-sim"), obj] + args, tmp)
        gdb = [os.path.join(b, "tpc-gdb"), obj, "-batch", "-ex", "break 13", "-ex", "break 14", "-ex", "run", "--"] + args
        dbg = best(gdb, tmp)
        print(f"continue with never-hit breakpoints: tpc-sim {sim:.3f} s, tpc-gdb {dbg:.3f} s, "
              f"{100 * sim / dbg:.0f}% of tpc-sim's speed (goal >= 50%)", flush=True)
        small = ["-t", "x.npy=f32[48,4096]", "-t", "y.npy=f32[48,4096]", "-s", "1.5"]  # 24 cores (gaudi2), 2 rows each
        base = [os.path.join(b, "tpc-gdb"), obj, "-batch", "-ex", "break 10", "-ex", "run"]
        one = best(base + ["-ex", "next", "--"] + small, tmp, check=False)
        many = best(base + ["-ex", "next"] * 41 + ["--"] + small, tmp, check=False)
        print(f"next on a 24-core launch: {1000 * (many - one) / 40:.2f} ms per next (goal <= 50 ms)")


if __name__ == "__main__":
    main()
