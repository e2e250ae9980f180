#!/usr/bin/env python3
"""Prints the runs of bench/scripts/ab-soak.sh and the ratio of medians between its arms.

Usage: ab_table.py RUNS_FILE, where each line is "<arm> <round> <load average before> <queen-bench JSON file>".
Per message = per acked message from the steady start to the drain end (the tool's CPU basis); broker and
PostgreSQL CPU are the tool's per-process figures over that window.
"""
import json
import statistics
import sys

COLUMNS = [
    ("acked/s", "rate", "{:,.0f}"),
    ("broker us", "broker", "{:.2f}"),
    ("pg us", "pg", "{:.2f}"),
    ("total us", "total", "{:.2f}"),
    ("broker/pg", "bpg", "{:.2f}"),
    ("push p99 ms", "push99", "{:.1f}"),
    ("deliv p50 ms", "d50", "{:.1f}"),
    ("deliv p99 ms", "d99", "{:.1f}"),
    ("rss MB", "rss", "{:,.0f}"),
]


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
        "rss": run["brokerRss"]["endKb"] / 1024.0 if run["brokerRss"].get("endKb") else None,
        "check": "ok" if run.get("passed") else
        f"FAIL lost {v['lost']} dup {v['duplicates']} ooo {v['outOfOrder']} err {run['errorsTotal']}",
    }
    f["bpg"] = f["broker"] / f["pg"] if f["broker"] is not None and f["pg"] else None
    return f


def cell(fmt, x):
    return "-" if x is None else fmt.format(x)


def main():
    runs = []
    with open(sys.argv[1]) as f:
        for line in f:
            arm, rnd, load, path = line.split()
            try:
                runs.append((arm, int(rnd), float(load), figures(path)))
            except (OSError, ValueError, KeyError) as e:
                runs.append((arm, int(rnd), float(load), {"check": f"no report ({e})"}))
    head = ["arm", "round", "load"] + [c[0] for c in COLUMNS] + ["verification"]
    rows = [[arm, str(rnd), f"{load:.1f}"] + [cell(fmt, f.get(k)) for _, k, fmt in COLUMNS] + [f["check"]]
            for arm, rnd, load, f in runs]
    arms = list(dict.fromkeys(r[0] for r in runs))
    med = {}
    for a in arms:
        med[a] = {}
        for _, k, _ in COLUMNS:
            xs = [f[k] for arm, _, _, f in runs if arm == a and f.get(k) is not None]
            med[a][k] = statistics.median(xs) if xs else None
        rows.append([a, "median", "-"] + [cell(fmt, med[a][k]) for _, k, fmt in COLUMNS] + [""])
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    print("  ".join(h.rjust(w) for h, w in zip(head, widths)))
    for r in rows:
        print("  ".join(c.rjust(w) for c, w in zip(r, widths)))
    for num, den in [(n, d) for n, d in [("B", "A"), ("A", "pgmq"), ("B", "pgmq")] if n in med and d in med]:
        parts = []
        for label, k, _ in COLUMNS:
            x, y = med[num][k], med[den][k]
            if x is not None and y:
                parts.append(f"{label} {x / y:.3f}")
        print(f"ratio of medians {num}/{den}: " + ", ".join(parts))
    print("all runs verified" if all(f["check"] == "ok" for _, _, _, f in runs) else "SOME RUNS FAILED (see above)")


if __name__ == "__main__":
    main()
