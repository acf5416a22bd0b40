#!/usr/bin/env python3
"""tpc-pipeline and tpc-allreduce-perf from the command line, one case per ctest entry:
check_pipeline.py BIN_DIR CASE [--mpirun PATH]."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

MODEL = "mlp:32,48,10"


def run(cmd, timeout=150, env=None):
    e = dict(os.environ)
    e.update(env or {})
    start = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=e)
    return p.returncode, p.stdout, p.stderr, time.time() - start


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def expect(cond, msg):
    if not cond:
        fail(msg)


def train_cmd(b, *extra, devices=2, batch=64, steps=6):
    return [f"{b}/tpc-pipeline", "train", "--devices", str(devices), "--model", MODEL, "--batch", str(batch),
            "--steps", str(steps), *extra]


def mpirun(args, n):
    return [args.mpirun, "--oversubscribe", "-np", str(n)]


KEYS = ["losses", "step_time_us", "mme_us", "tpc_us", "comm_us", "exposed_comm_us", "overlap_efficiency"]


def case_train_inproc(b, args, tmp):
    for dtype, opt in (("f32", "sgd"), ("bf16", "adamw")):
        out = os.path.join(tmp, f"{dtype}.json")
        lr = "0.2" if opt == "sgd" else "0.01"
        rc, so, se, _ = run(train_cmd(b, "--check", "--json", out, "--dtype", dtype, "--optimizer", opt, "--lr", lr,
                                      devices=4, batch=128, steps=12))
        expect(rc == 0, f"{dtype} --check exited {rc}: {so}{se}")
        j = json.load(open(out))
        for k in KEYS + ["max_rel_diff"]:
            expect(k in j, f"--json lacks {k}")
        expect(len(j["losses"]) == 12, "one loss per step")
        expect(sum(j["losses"][-3:]) < sum(j["losses"][:3]) * 0.9, f"{dtype}: the loss does not fall: {j['losses']}")
        expect(j["max_rel_diff"] <= (1e-4 if dtype == "f32" else 5e-2), f"max_rel_diff {j['max_rel_diff']}")
        expect("max_rel_diff" in so and "step 12 loss" in so, "the summary")


def case_train_mpi(b, args, tmp):
    a, m = os.path.join(tmp, "inproc.json"), os.path.join(tmp, "mpi.json")
    rc, so, se, _ = run(train_cmd(b, "--json", a, devices=3, batch=48))
    expect(rc == 0, f"inproc: {se}")
    tr = os.path.join(tmp, "mpi-trace.json")
    rc, so, se, _ = run(mpirun(args, 3) + train_cmd(b, "--transport", "mpi", "--check", "--json", m, "--trace", tr,
                                                    devices=3, batch=48))
    expect(rc == 0, f"mpi --check exited {rc}: {so}{se}")
    lanes = {(e["pid"], e["tid"]) for e in json.load(open(tr))["traceEvents"] if e.get("ph") == "X"}
    # MME and TPC (threads 0, 1) and a link to a peer (thread 2 + peer) on every rank.
    expect(all({(d, 0), (d, 1)} <= lanes and any((d, 2 + p) in lanes for p in range(3) if p != d) for d in range(3))
           and all(t < 2 or (t - 2 != d and t - 2 < 3) for d, t in lanes), f"every rank's lanes in the trace: {lanes}")
    ji, jm = json.load(open(a)), json.load(open(m))
    expect(ji["losses"] == jm["losses"], f"losses differ: {ji['losses']} {jm['losses']}")
    expect(abs(ji["step_time_us"] - jm["step_time_us"]) < 1e-9, "modelled times differ between transports")
    expect(jm["max_rel_diff"] <= 1e-4, "max_rel_diff")
    expect(so.count("step 1 loss") == 1, "only rank 0 prints")


def case_overlap(b, args, tmp):
    # Buckets that start while backward goes on hide part of the communication; one bucket for everything
    # starts only after the last gradient. One ring for both, so that only the bucketing differs; a batch large
    # enough that the backward pass has communication to hide.
    res = {}
    for mb in ("0.05", "1000"):
        out = os.path.join(tmp, f"o{mb}.json")
        rc, so, se, _ = run([f"{b}/tpc-pipeline", "train", "--devices", "4", "--model", "mlp:64,512,512,512,10",
                             "--batch", "8192", "--steps", "1", "--bucket-mb", mb, "--rings", "1", "--json", out])
        expect(rc == 0, se)
        res[mb] = json.load(open(out))
    small, big = res["0.05"], res["1000"]
    expect(small["exposed_comm_us"] < small["comm_us"] - 1e-6, f"no overlap with small buckets: {small}")
    expect(big["exposed_comm_us"] > small["exposed_comm_us"], f"one bucket should expose more: {big} {small}")
    expect(small["step_time_us"] < big["step_time_us"], "small buckets should shorten the step")
    for j in (small, big):
        eff = max(j["compute_us"], j["comm_us"]) / j["step_time_us"]
        expect(abs(eff - j["overlap_efficiency"]) < 1e-9, "overlap_efficiency = max(compute, comm) / step time")


def case_check_mismatch(b, args, tmp):
    out = os.path.join(tmp, "c.json")
    rc, so, se, _ = run(train_cmd(b, "--check", "--check-tolerance", "0", "--json", out))
    expect(rc == 4, f"--check beyond the tolerance must exit 4, got {rc}: {so}{se}")
    expect("max_rel_diff" in so and "MISMATCH" in so, so)
    expect(json.load(open(out))["max_rel_diff"] > 0, "max_rel_diff in the JSON")


def case_trace(b, args, tmp):
    out = os.path.join(tmp, "t.json")
    rc, so, se, _ = run(train_cmd(b, "--trace", out, devices=3, batch=48, steps=2))
    expect(rc == 0, se)
    t = json.load(open(out))
    ev = t["traceEvents"]
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
    for d in range(3):
        # MME and TPC, then a link lane to each peer; small buckets use one ring, so one link carries them.
        lanes = {0: "MME", 1: "TPC", **{2 + p: f"link to device {p}" for p in range(3) if p != d}}
        busy = set()
        for tid, lane in lanes.items():
            expect(names.get((d, tid)) == lane, f"device {d} lacks the {lane} lane")
            xs = [e for e in ev if e.get("ph") == "X" and e["pid"] == d and e["tid"] == tid]
            expect(all(e["dur"] >= 0 and e["ts"] >= 0 for e in xs), "negative times")
            if xs:
                busy.add(lane.split()[0])
        expect(busy == {"MME", "TPC", "link"}, f"device {d}: events only on {busy}")
        expect(all(e["tid"] in lanes for e in ev if e.get("ph") == "X" and e["pid"] == d), "an event on an unnamed lane")
    steps = {e["args"]["step"] for e in ev if e.get("ph") == "X"}
    expect(steps == {"1", "2"}, f"steps {steps}")


def case_json_and_table(b, args, tmp):
    out = os.path.join(tmp, "p.json")
    rc, so, se, _ = run([f"{b}/tpc-allreduce-perf", "-b", "4", "-e", "1M", "-f", "16", "-g", "4", "--json", out])
    expect(rc == 0, se)
    j = json.load(open(out))
    expect(len(j["rows"]) == 5, f"rows {j['rows']}")
    for r in j["rows"]:
        expect(r["wrong"] == 0, "#wrong")
        if r["time_us"] > 0:
            expect(abs(r["busbw_GBps"] - r["algbw_GBps"] * 2 * 3 / 4) < 1e-9, "busbw = algbw * 2(n-1)/n")


def perf_table(so, n):
    rows = [l.split() for l in so.splitlines() if l and not l.startswith("#")]
    expect(rows, "no rows: " + so)
    header = [l for l in so.splitlines() if l.startswith("#") and "redop" in l]
    expect(header and all(c in header[0] for c in ["size", "count", "type", "redop", "time", "algbw", "busbw", "#wrong"]),
           "the nccl-tests header")
    for r in rows:
        expect(len(r) == 8 and r[3] == "sum" and r[7] == "0", f"row {r}")
        algbw, busbw = float(r[5]), float(r[6])
        expect(abs(busbw - algbw * 2 * (n - 1) / n) < 0.02, f"busbw {r}")
    return rows


def case_allreduce_perf(b, args, tmp):
    for d in ("f32", "bf16"):
        rc, so, se, _ = run([f"{b}/tpc-allreduce-perf", "-b", "1", "-e", "2M", "-f", "8", "-g", "3", "-d", d])
        expect(rc == 0, se)
        perf_table(so, 3)
    # Large messages: 90% of the modelled bandwidth of the rings' links (host sums; the kernel's cycles per
    # chunk shape): 37.5 GB/s per link, 1 ring at 2 devices, 2 at 4, 6 at 8; and one ring when asked.
    for g, rings in ((2, 1), (4, 2), (8, 6)):
        for option in ([], ["--rings", "1"]):
            rc, so, se, _ = run([f"{b}/tpc-allreduce-perf", "-b", "64M", "-e", "64M", "-g", str(g), "--host-reduce"]
                                + option)
            expect(rc == 0, se)
            row = perf_table(so, g)[-1]
            bound = 37.5 * (1 if option else rings)
            expect(0.9 * bound <= float(row[6]) <= bound, f"{g} devices {option}: busbw {row[6]} not in 90-100% of {bound} GB/s")


def case_allreduce_perf_mpi(b, args, tmp):
    rc, so, se, _ = run(mpirun(args, 3) + [f"{b}/tpc-allreduce-perf", "-b", "8", "-e", "1M", "-f", "32", "-g", "3",
                                            "--transport", "mpi"])
    expect(rc == 0, so + se)
    rows = perf_table(so, 3)
    rc, so2, se, _ = run([f"{b}/tpc-allreduce-perf", "-b", "8", "-e", "1M", "-f", "32", "-g", "3"])
    expect([r[:7] for r in rows] == [r[:7] for r in perf_table(so2, 3)], "the same table in-process")


def no_outputs(tmp):
    left = [f for f in os.listdir(tmp)]
    expect(not left, f"files left behind: {left}")


def case_bad_inputs(b, args, tmp):
    out = os.path.join(tmp, "out")
    os.mkdir(out)
    files = ["--trace", os.path.join(out, "t.json"), "--json", os.path.join(out, "j.json")]
    cases = [
        (["--model", "mlp:32,,10"], "--model"),
        (["--model", "cnn:3,4"], "--model"),
        (["--model", "mlp:32"], "--model"),
        (["--batch", "10"], "--batch"),         # not a multiple of 4 devices
        (["--bucket-mb", "0"], "--bucket-mb"),
        (["--rings", "-2"], "--rings"),
        (["--dtype", "f64"], "--dtype"),
        (["--transport", "tcp"], "--transport"),
        (["--lr", "1e30"], "loss"),             # the loss becomes NaN
    ]
    for extra, word in cases:
        cmd = [f"{b}/tpc-pipeline", "train", "--devices", "4", "--model", MODEL, "--batch", "64", "--steps", "4"]
        # Later options override the earlier ones (CLI11 keeps the last).
        rc, so, se, _ = run(cmd + extra + files)
        expect(rc != 0 and rc != 4, f"{extra}: exit {rc}")
        expect(word in se, f"{extra}: the message does not name {word}: {se!r}")
        no_outputs(out)
    rc, so, se, _ = run([f"{b}/tpc-allreduce-perf", "-b", "1K", "-e", "1K", "-g", "2", "-d", "f64"])
    expect(rc == 1 and "-d" in se, se)
    rc, so, se, _ = run([f"{b}/tpc-allreduce-perf", "-b", "1K", "-e", "1K", "-g", "2", "--rings", "-1"])
    expect(rc == 1 and "--rings" in se, se)


def case_bad_inputs_mpi(b, args, tmp):
    out = os.path.join(tmp, "out")
    os.mkdir(out)
    rc, so, se, _ = run(mpirun(args, 2) + train_cmd(b, "--transport", "mpi", "--trace", os.path.join(out, "t.json"),
                                                    devices=3, batch=48))
    expect(rc != 0, "--devices 3 under mpirun -np 2 must fail")
    expect("--devices 3" in se and "2 rank" in se, se)
    expect(se.count("--devices 3:") == 1, "the message once, from rank 0: " + se)
    no_outputs(out)


def case_stalled_rank_mpi(b, args, tmp):
    rc, so, se, took = run(mpirun(args, 3) + [f"{b}/tpc-allreduce-perf", "-b", "1K", "-e", "1K", "-g", "3",
                                               "--transport", "mpi"],
                           env={"TPC_FAULT_STALL_RANK": "1", "TPC_COMM_TIMEOUT": "2"}, timeout=90)
    expect(rc != 0, "a stalled rank must fail the run")
    expect("no message from rank 1" in se, se)
    expect(took < 60, f"took {took:.0f} s")


def case_dead_rank_mpi(b, args, tmp):
    rc, so, se, took = run(mpirun(args, 3) + [f"{b}/tpc-allreduce-perf", "-b", "1K", "-e", "1K", "-g", "3",
                                               "--transport", "mpi"],
                           env={"TPC_FAULT_EXIT_RANK": "2", "TPC_COMM_TIMEOUT": "5"}, timeout=90)
    expect(rc != 0, "a dead rank must fail the run")
    expect(took < 60, f"took {took:.0f} s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("case")
    ap.add_argument("--mpirun", default="mpirun")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        globals()["case_" + args.case](args.bin, args, tmp)
    print("ok:", args.case)


if __name__ == "__main__":
    main()
