#!/usr/bin/env python3
"""Prints the runs of bench/scripts/kafka-soak.sh --compare, their medians per broker and the ratios Queen/Kafka.

Usage: kafka_soak_table.py (<queen|kafka> <round> <report.txt>)...
A report is what kafka-soak.sh keeps of one run: its two header lines and the report of KafkaSoak.java or
kafka_soak_rdkafka.py, which print the same lines. CPU per record is the "total" of Queen's line (broker +
PostgreSQL) and the broker's figure of Apache Kafka's, both per record consumed from the steady start to the drain end.
JIT % is the share of the broker's CPU in that window spent by its JIT compiler threads (a broker still compiling
after the warm run spends more CPU per record; included in the broker's figure).
"""
import re
import statistics
import sys

FIGURES = [  # column, key, pattern, format
    ("produced/s", "produced", r"produced/s (\d+)", "{:,.0f}"),
    ("consumed/s", "consumed", r"consumed/s (\d+)", "{:,.0f}"),
    ("broker us/rec", "broker", r"CPU A->C per consumed message: broker [\d.]+ s = ([\d.]+) us/msg", "{:.2f}"),
    ("PostgreSQL us/rec", "pg", r"PostgreSQL [\d.]+ s = ([\d.]+) us/msg", "{:.2f}"),
    ("CPU us/rec", "cpu", None, "{:.2f}"),
    ("JIT %", "jit", r"JIT compiler threads [\d.]+ s \((\d+)%\)", "{:.0f}"),
    ("p50 us", "p50", r"latency us .*: p50 (\d+)", "{:,.0f}"),
    ("p99 us", "p99", r"latency us .*  p99 (\d+)", "{:,.0f}"),
]
RATIOS = [("records/s (consumed)", "consumed"), ("CPU per record", "cpu")]


def figures(path):
    with open(path) as f:
        text = f.read()
    out = {}
    for _, key, pattern, _ in FIGURES:
        m = pattern and re.search(pattern, text)
        if m:
            out[key] = float(m.group(1))
    if "broker" in out:
        out["cpu"] = out["broker"] + out.get("pg", 0)
    m = re.search(r"verify: (\d+) produced .* -> (OK|FAILED)", text)
    out["verify"] = "%s (%s records)" % (m.group(2), m.group(1)) if m else "no verification"
    m = re.search(r"load average before ([\d.]+)", text)
    out["load"] = m.group(1) if m else "-"
    return out


def main(argv):
    if not argv or len(argv) % 3:
        sys.exit(__doc__)
    runs = []
    for i in range(0, len(argv), 3):
        target, rnd, path = argv[i:i + 3]
        try:
            runs.append((target, rnd, figures(path)))
        except OSError as e:
            runs.append((target, rnd, {"verify": "no report (%s)" % e, "load": "-"}))
    cell = lambda fmt, x: "-" if x is None else fmt.format(x)
    head = ["broker", "round", "load"] + [c for c, _, _, _ in FIGURES] + ["verification"]
    rows = [[t, r, f["load"]] + [cell(fmt, f.get(k)) for _, k, _, fmt in FIGURES] + [f["verify"]] for t, r, f in runs]
    medians = {}
    for target in ("queen", "kafka"):
        medians[target] = {}
        for _, key, _, _ in FIGURES:
            xs = [f[key] for t, _, f in runs if t == target and key in f]
            medians[target][key] = statistics.median(xs) if xs else None
        rows.append([target, "median", "-"] + [cell(fmt, medians[target][k]) for _, k, _, fmt in FIGURES] + [""])
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(head)]
    for r in [head] + rows:
        print("  ".join(c.rjust(w) for c, w in zip(r, widths)))
    parts = []
    for label, key in RATIOS:
        q, k = medians["queen"][key], medians["kafka"][key]
        parts.append("%s %s" % (label, "%.2f" % (q / k) if q is not None and k else "-"))
    print("Queen/Kafka, ratio of medians: " + ", ".join(parts)
          + " (CPU: Queen's broker + PostgreSQL against Kafka's broker)")
    ok = all(f["verify"].startswith("OK") for _, _, f in runs)
    print("all runs verified" if ok else "SOME RUNS FAILED (see above)")


if __name__ == "__main__":
    main(sys.argv[1:])
