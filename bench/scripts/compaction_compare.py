#!/usr/bin/python3
"""What a fresh consumer reads from a compacted topic, through librdkafka (Debian's python3-confluent-kafka), for
bench/scripts/compaction-compare.sh.

Usage: compaction_compare.py run --bootstrap HOST:PORT --broker NAME --out FILE [--keys 1000] [--updates 100]
                                 [--tombstones 100] [--head 3] [--segment-ms 200] [--timeout 300] [--settle 15]
                                 [--head-again]
       compaction_compare.py compare FILE FILE

run: creates a topic of 3 partitions with cleanup.policy=compact, min.cleanable.dirty.ratio=0.001,
delete.retention.ms=0, min.compaction.lag.ms=0 and segment.ms (the one config that matters to Apache Kafka, whose
cleaner only cleans closed segments; Queen seals a segment per write). One idempotent producer (acks=all, linger.ms=5)
writes --updates rounds of every key k<i> (value k<i>-u<round>), flushing after each round, then a tombstone (null
value) for each of the last --tombstones keys, then --head more updates of live keys per partition (value
k<i>-u<updates>), each step a flush and 2 x segment.ms after the one before, so that the tombstones are in a closed
segment on Apache Kafka too. Then it reads the topic with a fresh consumer every 2 s until the records read are at
most keys + head and their count has not changed for --settle seconds (or --timeout passed: it says so), and writes
to FILE what the last fresh consumer (a new group, auto.offset.reset=earliest, every partition read to its end) read,
with the log start and end offsets and what the producer was acknowledged. --head-again: once that has settled, the
head updates are written once more (value k<i>-u<updates + 1>), 2 x segment.ms later, and it waits again; what the
first wait read is kept as well.

compare: prints a table of the two runs and every key whose latest value or offset differs; exit code 1 if any
does (a tombstone read on one broker and gone on the other is the same removed key, told but no difference), a
tombstoned key shows a value on one broker and not the other, the log end offsets differ, offsets do not increase
within a partition, or a producer had errors.
"""
import argparse
import json
import sys
import time
import uuid

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

PARTITIONS = 3
POLL_SECONDS = 2


def parse_args():
    ap = argparse.ArgumentParser(description="compacted-topic reads through librdkafka")
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("--bootstrap", required=True)
    run.add_argument("--broker", required=True, help="the broker's name in the table")
    run.add_argument("--out", required=True)
    for name, default in (("keys", 1000), ("updates", 100), ("tombstones", 100), ("head", 3), ("segment-ms", 200),
                          ("timeout", 300), ("settle", 15)):
        run.add_argument("--" + name, type=int, default=default)
    run.add_argument("--head-again", action="store_true")
    cmp = sub.add_parser("compare")
    cmp.add_argument("files", nargs=2)
    a = ap.parse_args()
    if a.command == "run" and not (a.keys > 0 and a.updates > 0 and 0 <= a.tombstones and a.head >= 0
                                   and a.tombstones + PARTITIONS * a.head <= a.keys):
        ap.error("needs keys > 0, updates > 0 and tombstones + 3 x head <= keys")
    return a


def create_topic(bootstrap, topic, segment_ms):
    configs = {"cleanup.policy": "compact", "min.cleanable.dirty.ratio": "0.001", "delete.retention.ms": "0",
               "min.compaction.lag.ms": "0", "segment.ms": str(segment_ms)}
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, PARTITIONS, 1, config=configs)])[topic].result(30)
    # a broker serves a new partition once it has applied its creation
    probe = Consumer({"bootstrap.servers": bootstrap, "group.id": "probe"})
    deadline = time.monotonic() + 60
    for p in range(PARTITIONS):
        while True:
            try:
                probe.get_watermark_offsets(TopicPartition(topic, p), timeout=5)
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
    probe.close()
    return configs


class Writer:
    """One idempotent producer; keeps the partition and offset the broker acknowledged for every record."""

    def __init__(self, bootstrap, topic):
        self.topic = topic
        self.producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all",
                                  "linger.ms": 5})
        self.acked = []  # [key, partition, offset, value or None] in the order of acknowledgement
        self.errors = []

    def _delivered(self, err, msg):
        if err is not None:
            self.errors.append(str(err))
        else:
            v = msg.value()
            self.acked.append([msg.key().decode(), msg.partition(), msg.offset(), None if v is None else v.decode()])

    def write(self, records):
        for key, value in records:
            while True:
                try:
                    self.producer.produce(self.topic, key=key, value=value, on_delivery=self._delivered)
                    break
                except BufferError:
                    self.producer.poll(0.05)
            self.producer.poll(0)
        if self.producer.flush(60) != 0:
            self.errors.append("records unacknowledged after 60 s")


def write_workload(a, writer):
    keys = ["k%d" % i for i in range(a.keys)]
    pause = 2 * a.segment_ms / 1000
    for u in range(a.updates):
        writer.write((k, "%s-u%d" % (k, u)) for k in keys)
    time.sleep(pause)
    tombstoned = keys[a.keys - a.tombstones:]
    writer.write((k, None) for k in tombstoned)
    time.sleep(pause)
    partition_of = {key: p for key, p, _, _ in writer.acked}
    head = []
    for p in range(PARTITIONS):
        head += [k for k in keys[:a.keys - a.tombstones] if partition_of[k] == p][:a.head]
    writer.write((k, "%s-u%d" % (k, a.updates)) for k in head)
    return tombstoned, head


def read_all(bootstrap, topic):
    """What a fresh consumer of a new group reads from the start of every partition to its end."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "compaction-compare-%s" % uuid.uuid4(),
                  "auto.offset.reset": "earliest", "enable.auto.commit": False, "enable.partition.eof": True})
    c.subscribe([topic])
    records, at_end = [], set()
    deadline = time.monotonic() + 120
    while len(at_end) < PARTITIONS:
        if time.monotonic() > deadline:
            c.close()
            raise RuntimeError("not every partition read to its end after 120 s: %s" % sorted(at_end))
        for m in c.consume(1000, 1.0):
            if m.error() is None:
                v = m.value()
                records.append([m.partition(), m.offset(), m.key().decode(), None if v is None else v.decode()])
            elif m.error().code() == KafkaError._PARTITION_EOF:
                at_end.add(m.partition())
            else:
                raise RuntimeError(str(m.error()))
    offsets = {p: c.get_watermark_offsets(TopicPartition(topic, p), timeout=10) for p in range(PARTITIONS)}
    c.close()
    return records, offsets


def wait_compacted(a, topic, bound, written):
    """Fresh consumers' reads until their count is at most bound and has not changed for --settle seconds."""
    counts, stable_since, settled = [], None, False
    while True:
        records, offsets = read_all(a.bootstrap, topic)
        now = time.monotonic()
        if counts and counts[-1][1] == len(records):
            settled = len(records) <= bound and now - stable_since >= a.settle
        else:
            stable_since = now
        counts.append([round(now - written, 1), len(records)])
        print("%s: %.0f s after the last write a fresh consumer read %d records" % (a.broker, now - written,
                                                                                   len(records)), file=sys.stderr)
        if settled or now - written > a.timeout:
            return {"settled": settled, "settled_after": round(stable_since - written, 1), "counts": counts,
                    "records": records, "offsets": {str(p): list(o) for p, o in offsets.items()}}
        time.sleep(POLL_SECONDS)


def run(a):
    topic = "compacted-%d" % int(time.time() * 1000)
    configs = create_topic(a.bootstrap, topic, a.segment_ms)
    writer = Writer(a.bootstrap, topic)
    t0 = time.monotonic()
    tombstoned, head = write_workload(a, writer)
    written = time.monotonic()
    print("%s: %d records acknowledged in %.1f s (%d errors); waiting for compaction" % (
        a.broker, len(writer.acked), written - t0, len(writer.errors)), file=sys.stderr)
    read = wait_compacted(a, topic, a.keys + len(head), written)
    first = None
    if a.head_again:
        # Apache Kafka removes a tombstone only at a cleaning after the one that stamped its delete horizon; the
        # head written again closes the segment of the first head, which starts one
        first = {k: read[k] for k in ("settled", "settled_after", "counts", "records")}
        time.sleep(2 * a.segment_ms / 1000)
        writer.write((k, "%s-u%d" % (k, a.updates + 1)) for k in head)
        written = time.monotonic()
        print("%s: the head written again; waiting for compaction" % a.broker, file=sys.stderr)
        read = wait_compacted(a, topic, a.keys + len(head), written)
    with open(a.out, "w") as f:
        json.dump(dict(read, broker=a.broker, topic=topic, configs=configs, keys=a.keys, updates=a.updates,
                       tombstoned=tombstoned, head=head, acked=writer.acked, errors=writer.errors, first=first), f)


def summary(run):
    """The figures of one run: latest record per key as read, and what the producer was acknowledged."""
    latest, increasing, last_offset = {}, True, {}
    for p, off, key, value in run["records"]:
        if off <= last_offset.get(p, -1):
            increasing = False
        last_offset[p] = off
        latest[key] = (p, off, value)  # the consumer reads each partition in order; a key has one partition
    produced = {}
    for key, p, off, value in run["acked"]:
        if key not in produced or off > produced[key][1]:
            produced[key] = (p, off, value)
    live = {k for k, (_, _, v) in latest.items() if v is not None}
    tombstones_read = sum(1 for r in run["records"] if r[3] is None)
    return {"latest": latest, "produced": produced, "live": live, "tombstones_read": tombstones_read,
            "increasing": increasing, "as_produced": sum(1 for k in live if produced.get(k) == latest[k]),
            "stale": sorted(k for k, r in produced.items() if r[2] is not None and latest.get(k) != r)}


def settled(read):
    if read["settled"]:
        return "%.0f s after the last write" % read["settled_after"]
    return "NO: gave up after %.0f s" % read["counts"][-1][0]


def compare(files):
    runs = []
    for name in files:
        with open(name) as f:
            runs.append(json.load(f))
    sums = [summary(r) for r in runs]
    rows = [
        ("topic", [r["topic"] for r in runs]),
        ("records acknowledged", [len(r["acked"]) for r in runs]),
        ("producer errors", [len(r["errors"]) for r in runs]),
        ("final count first read", [settled(r) for r in runs]),
        ("records read", [len(r["records"]) for r in runs]),
        ("keys read with a value", [len(s["live"]) for s in sums]),
        ("tombstones read", [s["tombstones_read"] for s in sums]),
        ("head: records read beyond one per live key",
         [len(r["records"]) - len(s["live"]) - s["tombstones_read"] for r, s in zip(runs, sums)]),
        ("keys with a value read as last acknowledged", [s["as_produced"] for s in sums]),
        ("offsets increasing per partition", ["yes" if s["increasing"] else "NO" for s in sums]),
        ("log start offsets", [" ".join(str(r["offsets"][str(p)][0]) for p in range(PARTITIONS)) for r in runs]),
        ("log end offsets", [" ".join(str(r["offsets"][str(p)][1]) for p in range(PARTITIONS)) for r in runs]),
    ]
    if all(r.get("first") for r in runs):
        rows[3:3] = [
            ("before the head was written again:", ["" for _ in runs]),
            ("  final count first read", [settled(r["first"]) for r in runs]),
            ("  records read", [len(r["first"]["records"]) for r in runs]),
            ("  tombstones read", [sum(1 for x in r["first"]["records"] if x[3] is None) for r in runs]),
            ("after it:", ["" for _ in runs])]
    width = max(len(label) for label, _ in rows)
    col = max(24, max(len(str(v)) for _, vs in rows for v in vs) + 2)
    print("%-*s%s" % (width, "", "".join("%*s" % (col, r["broker"]) for r in runs)))
    for label, values in rows:
        print("%-*s%s" % (width, label, "".join("%*s" % (col, v) for v in values)))

    failures = []
    a, b = sums
    na, nb = runs[0]["broker"], runs[1]["broker"]
    tombstoned = runs[0]["tombstoned"]
    for k in sorted(set(a["latest"]) | set(b["latest"]), key=lambda k: int(k[1:])):
        ra, rb = a["latest"].get(k), b["latest"].get(k)
        # a tombstone read on one broker and gone on the other is the same key removed, at another time
        removed = k in tombstoned and (ra is None or ra[2] is None) and (rb is None or rb[2] is None)
        if ra != rb and not removed:
            failures.append("key %s: %s read %s, %s read %s (partition, offset, value)" % (k, na, ra, nb, rb))
    for s, name in ((a, na), (b, nb)):
        gone = sum(1 for k in tombstoned if k not in s["latest"])
        kept = sum(1 for k in tombstoned if k in s["latest"] and s["latest"][k][2] is None)
        print("%s: of %d tombstoned keys %d absent, %d still a tombstone, %d with a value" % (name, len(tombstoned), gone, kept, len(tombstoned) - gone - kept))
        if s["stale"]:
            print("%s: %d keys not read as last acknowledged, e.g. %s" % (name, len(s["stale"]), s["stale"][:5]))
    for r in runs:
        if r["errors"]:
            failures.append("%s: producer errors %s" % (r["broker"], r["errors"][:3]))
    for label in ("log end offsets", "offsets increasing per partition"):
        values = dict(rows)[label]
        if values[0] != values[1] or values[0] == "NO":
            failures.append("%s: %s / %s" % (label, values[0], values[1]))
    if runs[0]["head"] != runs[1]["head"]:
        failures.append("the head records went to other keys: %s / %s" % (runs[0]["head"], runs[1]["head"]))
    for f in failures[:50]:
        print("DIFFERENT: " + f)
    if len(failures) > 50:
        print("DIFFERENT: ... %d more" % (len(failures) - 50))
    print("%d keys differ in latest value or offset" % sum(1 for f in failures if f.startswith("key ")))
    return 1 if failures else 0


def main():
    a = parse_args()
    if a.command == "run":
        run(a)
        return 0
    return compare(a.files)


if __name__ == "__main__":
    sys.exit(main())
