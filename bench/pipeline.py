#!/usr/bin/env python3
"""The pipeline's performance figures (docs/pipeline.md): the ring allreduce's bus bandwidth at 2, 4 and 8
devices, the training step's scaling over 1, 2, 4 and 8 devices with its overlap efficiency, the bucket
size sweep, host time per simulated step and the peak host memory.

    python3 bench/pipeline.py [--bin build/bin] [--steps 2] [--quick]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

MODEL = "mlp:1024,4096,4096,1024"
PER_DEVICE = 512


def run(cmd):
    start = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(p.pid, 0)
    out, err = p.stdout.read(), p.stderr.read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{out}{err}")
    return out, usage.ru_maxrss / 1024.0 / 1024.0, time.time() - start  # GiB


def allreduce(b, tmp, quick):
    print("## Ring allreduce (f32, add kernel simulated for every chunk)\n")
    print("| devices | size | time (us) | algbw (GB/s) | busbw (GB/s) | busbw / link | #wrong | host s |")
    print("|---|---|---|---|---|---|---|---|")
    for g in (2, 4, 8):
        out = os.path.join(tmp, f"ar{g}.json")
        _, _, took = run([f"{b}/tpc-allreduce-perf", "-b", "1M", "-e", "64M" if quick else "256M", "-f", "4",
                          "-g", str(g), "--json", out])
        j = json.load(open(out))
        for r in j["rows"]:
            print(f"| {g} | {r['size'] // (1 << 20)} MiB | {r['time_us']:.1f} | {r['algbw_GBps']:.2f} | "
                  f"{r['busbw_GBps']:.2f} | {r['busbw_GBps'] / j['link_GBps']:.3f} | {r['wrong']} | {took:.1f} |")
    print()


def train(b, tmp, devices, steps, dtype, bucket):
    out = os.path.join(tmp, f"t{devices}_{dtype}_{bucket}.json")
    _, rss, took = run([f"{b}/tpc-pipeline", "train", "--devices", str(devices), "--model", MODEL, "--batch",
                        str(PER_DEVICE * devices), "--steps", str(steps), "--dtype", dtype, "--bucket-mb", str(bucket),
                        "--json", out])
    return json.load(open(out)), rss


def scaling(b, tmp, steps, quick):
    print(f"## Training: {MODEL}, batch {PER_DEVICE} per device, SGD, {steps} step(s)\n")
    print("| dtype | devices | bucket MiB | step (us) | MME (us) | TPC (us) | comm (us) | exposed comm (us) | "
          "overlap efficiency | host s / step (wall) | host CPU s / step | peak host GiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows = [("bf16", d, 4) for d in ((1, 8) if quick else (1, 2, 4, 8))]
    rows += [("bf16", 8, m) for m in ((25,) if quick else (1, 16, 25, 64))]
    if not quick:
        rows += [("f32", 8, 4)]
    for dtype, d, m in rows:
        j, rss = train(b, tmp, d, steps if (dtype, m) == ("bf16", 4) else 1, dtype, m)
        print(f"| {dtype} | {d} | {m} | {j['step_time_us']:.1f} | {j['mme_us']:.1f} | {j['tpc_us']:.1f} | "
              f"{j['comm_us']:.1f} | {j['exposed_comm_us']:.1f} | {j['overlap_efficiency']:.3f} | "
              f"{j['host_seconds_per_step']:.1f} | {j['host_cpu_seconds_per_step']:.1f} | {rss:.1f} |", flush=True)
    print()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", "build", "bin"))
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="fewer rows")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        allreduce(a.bin, tmp, a.quick)
        scaling(a.bin, tmp, a.steps, a.quick)


if __name__ == "__main__":
    main()
