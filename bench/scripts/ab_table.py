#!/usr/bin/env python3
"""Prints the runs of bench/scripts/ab-soak.sh and the ratio of medians between its arms.

Usage: ab_table.py [--jobs] RUNS_FILE, where each line is "<arm> <round> <load average before> <queen-bench JSON
file>". --jobs: the job-queue shape's columns (queen-bench --preset jobs): jobs/s completed (acked), CPU per job, and
pickup latency (push answered -> the job popped) p50/p99/max instead of push and push-to-delivery latency.
Per message = per acked message from the steady start to the drain end (the tool's CPU basis); broker and
PostgreSQL CPU are the tool's per-process figures over that window. "broker ex-JIT" leaves out the share of the
broker's CPU its JIT compiler threads took over the recorded run (from the thread snapshots): a warm-up cost that
fades over minutes (per-request code of pops and acks, called tens of times a second, reaches the optimizing
compiler late), not a per-message one. "floor" columns (runs with --floor): the latency of ab-soak's minimal
durable writes beside the run (<arm>-<round>.floor next to the JSON, milliseconds, one per line).
"""
import json
import os
import re
import statistics
import sys

# broker threads by what they do (names as /proc shows them, at most 15 characters)
THREAD_GROUPS = [
    ("jit", r"C[12] CompilerThre"),
    ("gc", r"^(GC Thread|G1 |VM Thread)"),
    ("carriers", r"^ForkJoinPool"),
    ("event loops", r"^vert\.x-eventloo"),
]

COLUMNS = [
    ("acked/s", "rate", "{:,.0f}"),
    ("broker us", "broker", "{:.2f}"),
    ("broker ex-JIT us", "brokerx", "{:.2f}"),
    ("pg us", "pg", "{:.2f}"),
    ("total us", "total", "{:.2f}"),
    ("broker/pg", "bpg", "{:.2f}"),
    ("ex-JIT/pg", "bxpg", "{:.2f}"),
    ("push p99 ms", "push99", "{:.1f}"),
    ("deliv p50 ms", "d50", "{:.1f}"),
    ("deliv p99 ms", "d99", "{:.1f}"),
    ("rss MB", "rss", "{:,.0f}"),
]
# the job-queue shape: the same CPU columns per completed job, then pickup latency
JOB_COLUMNS = [("jobs/s", "rate", "{:,.0f}")] + COLUMNS[1:7] + [
    ("pickup p50 ms", "k50", "{:.2f}"),
    ("pickup p99 ms", "k99", "{:.2f}"),
    ("pickup max ms", "kmax", "{:.2f}"),
    ("rss MB", "rss", "{:,.0f}"),
]
FLOOR_COLUMNS = [
    ("floor p50 ms", "f50", "{:.1f}"),
    ("floor p99 ms", "f99", "{:.1f}"),
]


def percentile(xs, q):
    """The q-quantile of a sorted list by the nearest-rank method (as queen-bench reports its percentiles)."""
    return xs[min(len(xs) - 1, max(0, int(len(xs) * q + 0.999999) - 1))]


def floor(json_path):
    """(p50, p99) of the run's floor writes in ms, or None when the run had none."""
    try:
        with open(json_path[:-len(".json")] + ".floor") as f:
            xs = sorted(float(x) for x in f if x.strip())
    except OSError:
        return None
    return (percentile(xs, 0.5), percentile(xs, 0.99)) if xs else None


def figures(path):
    with open(path) as f:
        doc = json.load(f)
    run = doc["runs"][-1]
    cpu = run["cpu"]
    n = cpu.get("perMessageCount") or 0
    broker = cpu.get("cycleBrokerSeconds")
    pg = cpu.get("cyclePgSeconds")
    ms = lambda lat, k: None if lat.get(k) is None else lat[k] / 1000.0
    v = run["verification"]
    f = {
        "rate": run.get("popAckRate"),
        "broker": broker * 1e6 / n if broker is not None and n else None,
        "pg": pg * 1e6 / n if pg is not None and n else None,
        "total": cpu.get("microsPerMessage"),
        "push99": ms(run["pushLatencyMicros"], "p99"),
        "d50": ms(run["deliveryLatencyMicros"], "p50"),
        "d99": ms(run["deliveryLatencyMicros"], "p99"),
        "k50": ms(run.get("pickupLatencyMicros") or {}, "p50"),
        "k99": ms(run.get("pickupLatencyMicros") or {}, "p99"),
        "kmax": ms(run.get("pickupLatencyMicros") or {}, "max"),
        "rss": run["brokerRss"]["endKb"] / 1024.0 if run["brokerRss"].get("endKb") else None,
        "check": "ok" if run.get("passed") else
        f"FAIL lost {v['lost']} dup {v['duplicates']} ooo {v['outOfOrder']} err {run['errorsTotal']}",
    }
    f["bpg"] = f["broker"] / f["pg"] if f["broker"] is not None and f["pg"] else None
    return f


def thread_shares(json_path):
    """Shares of the broker's thread CPU over the recorded run by thread group, or None without snapshots."""
    base = json_path[:-len(".json")]
    try:
        def read(path):
            out = {}
            with open(path) as f:
                for line in f:
                    tid, ticks, name = (line.rstrip("\n").split("\t") + [""])[:3]
                    out[tid] = (int(ticks), name)
            return out
        before, after = read(base + ".threads-before"), read(base + ".threads-after")
    except (OSError, ValueError):
        return None
    groups = {}
    for tid, (ticks, name) in after.items():
        d = ticks - before.get(tid, (0, name))[0]
        g = next((label for label, rx in THREAD_GROUPS if re.search(rx, name)), "other")
        groups[g] = groups.get(g, 0) + d
    total = sum(groups.values())
    return {g: x / total for g, x in groups.items()} if total > 0 else None


def cell(fmt, x):
    return "-" if x is None else fmt.format(x)


def main():
    args = sys.argv[1:]
    jobs = args[:1] == ["--jobs"]
    runs = []
    runs_paths = []
    with open(args[-1]) as f:
        for line in f:
            arm, rnd, load, path = line.split()
            runs_paths.append((arm, int(rnd), path))
            try:
                f = figures(path)
                sh = thread_shares(path)
                if sh is not None and f.get("broker") is not None:
                    f["brokerx"] = f["broker"] * (1 - sh.get("jit", 0))
                    f["bxpg"] = f["brokerx"] / f["pg"] if f.get("pg") else None
                fl = floor(path)
                if fl is not None:
                    f["f50"], f["f99"] = fl
                runs.append((arm, int(rnd), float(load), f))
            except (OSError, ValueError, KeyError) as e:
                runs.append((arm, int(rnd), float(load), {"check": f"no report ({e})"}))
    columns = (JOB_COLUMNS if jobs else COLUMNS) + (FLOOR_COLUMNS if any("f50" in f for _, _, _, f in runs) else [])
    head = ["arm", "round", "load"] + [c[0] for c in columns] + ["verification"]
    rows = [[arm, str(rnd), f"{load:.1f}"] + [cell(fmt, f.get(k)) for _, k, fmt in columns] + [f["check"]]
            for arm, rnd, load, f in runs]
    arms = list(dict.fromkeys(r[0] for r in runs))
    med = {}
    for a in arms:
        med[a] = {}
        for _, k, _ in columns:
            xs = [f[k] for arm, _, _, f in runs if arm == a and f.get(k) is not None]
            med[a][k] = statistics.median(xs) if xs else None
        rows.append([a, "median", "-"] + [cell(fmt, med[a][k]) for _, k, fmt in columns] + [""])
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(head)]
    print("  ".join(h.rjust(w) for h, w in zip(head, widths)))
    for r in rows:
        print("  ".join(c.rjust(w) for c, w in zip(r, widths)))
    for num, den in [(n, d) for n, d in [("B", "A"), ("A", "pgmq"), ("B", "pgmq")] if n in med and d in med]:
        parts = []
        for label, k, _ in columns:
            x, y = med[num][k], med[den][k]
            if x is not None and y:
                parts.append(f"{label} {x / y:.3f}")
        print(f"ratio of medians {num}/{den}: " + ", ".join(parts))
    labels = [label for label, _ in THREAD_GROUPS] + ["other"]
    shares = [(arm, rnd, thread_shares(path)) for arm, rnd, path in runs_paths]
    shares = [x for x in shares if x[2]]
    if shares:
        print("broker thread CPU over the recorded run, by thread group (share of the broker's CPU):")
        print("  ".join(["arm".rjust(4), "round".rjust(5)] + [l.rjust(11) for l in labels]))
        for arm, rnd, sh in shares:
            print("  ".join([arm.rjust(4), str(rnd).rjust(5)] + [f"{100 * sh.get(l, 0):10.1f}%" for l in labels]))
    print("all runs verified" if all(f["check"] == "ok" for _, _, _, f in runs) else "SOME RUNS FAILED (see above)")


if __name__ == "__main__":
    main()
