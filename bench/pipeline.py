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
PER_DEVICE = 4096   # communication well below compute (docs/pipeline.md)
EXAMPLE_PER_DEVICE = 512  # the example: communication about equal to compute


def run(cmd):
    start = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(p.pid, 0)
    out, err = p.stdout.read(), p.stderr.read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{out}{err}")
    return out, usage.ru_maxrss / 1024.0 / 1024.0, time.time() - start  # GiB


def allreduce(b, tmp, quick):
    print("## Ring allreduce (f32, add kernel simulated for every chunk; rings: the most the links allow, which a message of 64 KiB x devices x rings or more uses)\n")
    print("| devices | rings | size | time (us) | algbw (GB/s) | busbw (GB/s) | busbw / rings' links | #wrong | host s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for g in (2, 4, 8):
        out = os.path.join(tmp, f"ar{g}.json")
        _, _, took = run([f"{b}/tpc-allreduce-perf", "-b", "1M", "-e", "64M" if quick else "256M", "-f", "4",
                          "-g", str(g), "--json", out])
        j = json.load(open(out))
        for r in j["rows"]:
            print(f"| {g} | {j['rings']} | {r['size'] // (1 << 20)} MiB | {r['time_us']:.1f} | {r['algbw_GBps']:.2f} | "
                  f"{r['busbw_GBps']:.2f} | {r['busbw_GBps'] / j['ring_GBps']:.3f} | {r['wrong']} | {took:.1f} |")
    print()


def train(b, tmp, devices, steps, dtype, bucket, per_device, rings=0):
    out = os.path.join(tmp, f"t{devices}_{dtype}_{bucket}_{per_device}_{rings}.json")
    _, rss, took = run([f"{b}/tpc-pipeline", "train", "--devices", str(devices), "--model", MODEL, "--batch",
                        str(per_device * devices), "--steps", str(steps), "--dtype", dtype, "--bucket-mb", str(bucket),
                        "--rings", str(rings), "--json", out])
    return json.load(open(out)), rss


def scaling(b, tmp, steps, quick):
    print(f"## Training: {MODEL}, SGD, {steps} step(s) on the first rows, 1 on the others\n")
    print("| batch per device | dtype | devices | rings | bucket MiB | step (us) | MME (us) | TPC (us) | comm (us) | "
          "exposed comm (us) | overlap efficiency | samples/s | speed-up | host s / step (wall) | host CPU s / step | "
          "peak host GiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows = [(PER_DEVICE, "bf16", d, 4, 0) for d in ((1, 8) if quick else (1, 2, 4, 8))]
    if not quick:
        rows += [(PER_DEVICE, "bf16", 8, m, 0) for m in (1, 16, 64)]
        rows += [(PER_DEVICE, "f32", 8, 4, 0)]
        rows += [(EXAMPLE_PER_DEVICE, "bf16", d, 4, 0) for d in (1, 8)] + [(EXAMPLE_PER_DEVICE, "bf16", 8, 4, 1)]
    one = {}
    for per_device, dtype, d, m, rings in rows:
        first = (per_device, dtype, m) == (PER_DEVICE, "bf16", 4)
        j, rss = train(b, tmp, d, steps if first else 1, dtype, m, per_device, rings)
        rate = per_device * d / (j["step_time_us"] * 1e-6)
        if d == 1:
            one[(per_device, dtype)] = rate
        speedup = f"{rate / one[(per_device, dtype)]:.2f}" if (per_device, dtype) in one else "-"
        print(f"| {per_device} | {dtype} | {d} | {rings or 'all'} | {m} | {j['step_time_us']:.1f} | {j['mme_us']:.1f} | "
              f"{j['tpc_us']:.1f} | {j['comm_us']:.1f} | {j['exposed_comm_us']:.1f} | {j['overlap_efficiency']:.3f} | "
              f"{rate:.0f} | {speedup} | {j['host_seconds_per_step']:.1f} | {j['host_cpu_seconds_per_step']:.1f} | "
              f"{rss:.1f} |", flush=True)
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
