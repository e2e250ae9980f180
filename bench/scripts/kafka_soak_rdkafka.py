#!/usr/bin/python3
"""The Kafka soak load of bench/scripts/KafkaSoak.java through librdkafka (Debian's python3-confluent-kafka), for
bench/scripts/kafka-soak.sh --client librdkafka. Prints the report of KafkaSoak.java line for line in the same format.

Usage: kafka_soak_rdkafka.py --bootstrap HOST:PORT [--topic T] [--partitions 200] [--producers 2] [--consumers 2]
       [--value-bytes 256] [--seconds 30] [--warmup 5] [--drain-timeout 60] [--outstanding 0] [--label NAME]
       [--broker-pid PID [--pg-port PORT --pg-db DB] --java JAVA --classpath CP]

One process per producer and per consumer (the interpreter runs one thread at a time), forked from this one, which
times the run and counts. Producers: idempotent (enable.idempotence=true, acks=all), linger.ms=5, null keys (the
sticky partitioner), a closed loop bounded by librdkafka's queue (queue.buffering.max.messages, 100,000 records), or
by --outstanding unacknowledged records per producer when > 0. Consumers: one group, enable.auto.commit=false, an
asynchronous commit after every non-empty consume() of up to 500 records, a synchronous one on close. Values:
{"p":producer,"s":seq,"t":CLOCK_MONOTONIC ns,"pad":"xxx..."} padded to --value-bytes, as KafkaSoak.java writes them.

The timeline, figures and verification are KafkaSoak.java's: the load starts once the broker serves every partition
of the new topic, then warm-up, A, steady, B (producers stop sending and flush), the drain to C. CPU: KafkaSoak.java
--cpu-probe (run with JAVA and CP) counts the broker process (and for Queen PostgreSQL's processes of the run's
database, as queen-bench counts them) at A and C. Out-of-order is checked per (partition, producer) within each
consumer. Exit code 0: verification passed and no errors; 1 otherwise; 2 usage.
"""
import argparse
import collections
import multiprocessing as mp
import os
import queue
import subprocess
import sys
import threading
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition, libversion
from confluent_kafka.admin import AdminClient, NewTopic

SECOND = 1_000_000_000
CONSUME_BATCH = 500


def parse_args():
    ap = argparse.ArgumentParser(description="Kafka soak load through librdkafka", add_help=True)
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--topic", default="soak-%d" % int(time.time() * 1000))
    ap.add_argument("--label", default="run")
    for name, default in (("partitions", 200), ("producers", 2), ("consumers", 2), ("value-bytes", 256),
                          ("seconds", 30), ("drain-timeout", 60), ("broker-pid", None), ("pg-port", None)):
        ap.add_argument("--" + name, type=positive, default=default)
    for name in ("warmup", "outstanding"):
        ap.add_argument("--" + name, type=non_negative, default=5 if name == "warmup" else 0)
    ap.add_argument("--pg-db")
    ap.add_argument("--java", default="java")
    ap.add_argument("--classpath", default=os.environ.get("CLASSPATH", ""))
    return ap.parse_args()


def non_negative(v):
    n = int(v)
    if n < 0:
        raise argparse.ArgumentTypeError("must be >= 0, got %s" % v)
    return n


def positive(v):
    n = non_negative(v)
    if n == 0:
        raise argparse.ArgumentTypeError("must be > 0")
    return n


def field(v, key):
    """The number after key (b'"s":') in the value v."""
    i = v.index(key) + len(key)
    return int(v[i:v.index(b",", i)])


# What a consumer was doing, for one that hands over no result in time
CONSUMER_PHASES = ("consuming", "final synchronous commit", "close (leave the group)", "handing over")


class Shared:
    """Counters the worker processes write (each its own slot) and the coordinator reads."""

    def __init__(self, producers, consumers):
        self.produced = mp.Array("q", producers, lock=False)  # acknowledged records per producer
        self.consumed = mp.Array("q", consumers, lock=False)  # records delivered per consumer
        self.distinct = mp.Array("q", consumers, lock=False)  # records a consumer saw for the first time
        self.assigned = mp.Array("q", consumers, lock=False)  # partitions a consumer owns
        self.last_consume = mp.Array("q", consumers, lock=False)  # CLOCK_MONOTONIC ns of the last delivery
        self.measure_from = mp.Value("q", 1 << 62, lock=False)  # latency counts records sent from A
        self.consuming = mp.Value("b", 1, lock=False)
        self.phase = mp.Array("b", consumers, lock=False)  # where a consumer is at the end: CONSUMER_PHASES
        self.results = mp.Queue()


class Latency:
    """Microsecond counts in buckets of 1/2048 of their power of two (about 3 significant digits, as HdrHistogram(3))."""

    def __init__(self):
        self.counts = collections.Counter()
        self.max = 0

    def record(self, us):
        if us > self.max:
            self.max = us
        shift = us.bit_length() - 11
        self.counts[us if shift <= 0 else (us >> shift) << shift] += 1

    def merge(self, other):
        self.counts.update(other.counts)
        self.max = max(self.max, other.max)

    def total(self):
        return sum(self.counts.values())

    def percentile(self, q):
        n = self.total()
        if n == 0:
            return 0
        rank, seen = max(1, int(n * q / 100 + 0.999999)), 0
        for us in sorted(self.counts):
            seen += self.counts[us]
            if seen >= rank:
                return min(us, self.max)
        return self.max


def grow(flags, index):
    """Makes flags (a bytearray) long enough to hold index."""
    if index >= len(flags):
        flags.extend(bytes(max(index + 1, 2 * len(flags)) - len(flags)))


def count_error(errors, kind, detail=""):
    """Counts an error by kind; the first of each kind goes to stderr with its detail, to tell what caused it."""
    if kind not in errors:
        print("kafka_soak_rdkafka: first %s: %s" % (kind, detail), file=sys.stderr)
    errors[kind] += 1


def produce(args, shared, me, end_nanos):
    acked = bytearray(1 << 16)
    count = 0
    errors = collections.Counter()
    seq_key = b',"s":'

    def delivered(err, msg):
        nonlocal count
        if err is not None:
            count_error(errors, "produce: " + err.name(), err.str())
            return
        s = field(msg.value(), seq_key)
        grow(acked, s)
        acked[s] = 1
        count += 1

    def client_error(err):
        if err.fatal():
            count_error(errors, "producer: " + err.name(), err.str())

    producer = Producer({"bootstrap.servers": args.bootstrap, "enable.idempotence": True, "acks": "all",
                         "linger.ms": 5, "client.id": "soak-producer-%d" % me, "on_delivery": delivered,
                         "error_cb": client_error})
    pad = b"x" * args.value_bytes
    seq = 0
    while time.monotonic_ns() < end_nanos:
        head = b'{"p":%d,"s":%d,"t":%d,"pad":"' % (me, seq, time.monotonic_ns())
        try:
            producer.produce(args.topic, head + pad[:max(0, args.value_bytes - 2 - len(head))] + b'"}')
        except BufferError:  # librdkafka's queue is full: the closed loop waits for acknowledgements
            producer.poll(0.005)
            shared.produced[me] = count
            continue
        seq += 1
        while args.outstanding and len(producer) >= args.outstanding:
            producer.poll(0.001)
        if seq % 64 == 0:
            producer.poll(0)
        shared.produced[me] = count
    while len(producer):  # flush(), counting as it goes
        producer.poll(0.05)
        shared.produced[me] = count
    shared.results.put(("producer", me, bytes(acked[:seq]), errors))


def consume(args, shared, me):
    seen = [bytearray(1 << 16) for _ in range(args.producers)]  # times each (producer, seq) was delivered, up to 255
    last_seq = {}
    out_of_order = 0
    latency = Latency()
    errors = collections.Counter()
    keys = (b'"p":', b',"s":', b',"t":')

    def committed(err, partitions):
        if err is not None and err.code() != err._NO_OFFSET:  # _NO_OFFSET: nothing new to commit
            count_error(errors, "commit: " + err.name(), err.str())

    def commit(asynchronous):
        try:
            consumer.commit(asynchronous=asynchronous)
        except KafkaException as e:
            committed(e.args[0], None)

    def on_assign(consumer, partitions):
        shared.assigned[me] += len(partitions)

    def on_revoke(consumer, partitions):
        shared.assigned[me] -= len(partitions)

    consumer = Consumer({"bootstrap.servers": args.bootstrap, "group.id": args.topic + "-group",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False,
                         "client.id": "soak-consumer-%d" % me, "on_commit": committed})
    consumer.subscribe([args.topic], on_assign=on_assign, on_revoke=on_revoke)
    distinct = 0
    try:
        while shared.consuming.value:
            msgs = consumer.consume(CONSUME_BATCH, 0.5)
            if not msgs:
                continue
            now = time.monotonic_ns()
            measure_from = shared.measure_from.value
            for m in msgs:
                if m.error() is not None:
                    count_error(errors, "consume: " + m.error().name(), m.error().str())
                    continue
                v = m.value()
                p, s, t = field(v, keys[0]), field(v, keys[1]), field(v, keys[2])
                flags = seen[p]
                grow(flags, s)
                if flags[s] == 0:
                    distinct += 1
                if flags[s] < 255:
                    flags[s] += 1
                k = (m.partition(), p)
                if s < last_seq.get(k, -1):
                    out_of_order += 1
                last_seq[k] = s
                if t >= measure_from:
                    latency.record(max(0, (now - t) // 1000))
            shared.consumed[me] += len(msgs)
            shared.distinct[me] = distinct
            shared.last_consume[me] = now
            commit(True)
        shared.phase[me] = 1
        commit(False)
    except (KafkaException, ValueError) as e:
        count_error(errors, "consumer: %s" % e)
    shared.phase[me] = 2
    consumer.close()
    shared.phase[me] = 3
    shared.results.put(("consumer", me, seen, out_of_order, latency, errors))


class CpuProbe:
    """KafkaSoak.java --cpu-probe: the broker's (and PostgreSQL's) CPU seconds since the first snapshot."""

    def __init__(self, args):
        cmd = [args.java, "-cp", args.classpath, "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
               os.path.join(os.path.dirname(os.path.abspath(__file__)), "KafkaSoak.java"),
               "--cpu-probe", "--broker-pid", str(args.broker_pid)]
        if args.pg_port:
            cmd += ["--pg-port", str(args.pg_port)] + (["--pg-db", args.pg_db] if args.pg_db else [])
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if self.proc.stdout.readline().strip() != "ready":
            sys.exit("kafka_soak_rdkafka: the CPU probe did not start (%s)" % " ".join(cmd))

    def snap(self):
        self.proc.stdin.write("snap\n")
        self.proc.stdin.flush()
        _, broker, pg, jit = self.proc.stdout.readline().split()
        return float(broker), float(pg), float(jit)

    def close(self):
        self.proc.stdin.close()  # the worker processes inherited this pipe too: the probe may not see its end
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


Snap = collections.namedtuple("Snap", "nanos produced consumed broker pg jit")


def snap(shared, probe):
    broker, pg, jit = probe.snap() if probe else (0.0, 0.0, 0.0)
    return Snap(time.monotonic_ns(), sum(shared.produced), sum(shared.consumed), broker, pg, jit)


def sleep_until(nanos):
    while (d := nanos - time.monotonic_ns()) > 0:
        time.sleep(min(d / SECOND, 1))


def progress(shared, t0, done):
    last_p = last_c = 0
    while not done.wait(5):
        p, c = sum(shared.produced), sum(shared.consumed)
        print("kafka-soak: %3.0f s produced %d (%d/s) consumed %d (%d/s)"
              % ((time.monotonic_ns() - t0) / SECOND, p, (p - last_p) // 5, c, (c - last_c) // 5), file=sys.stderr)
        last_p, last_c = p, c


def main():
    args = parse_args()
    probe = CpuProbe(args) if args.broker_pid else None
    admin = AdminClient({"bootstrap.servers": args.bootstrap})
    admin.create_topics([NewTopic(args.topic, args.partitions, 1)])[args.topic].result()
    del admin  # gone before the fork: a librdkafka client does not survive one
    wait_served(args)

    ctx = mp.get_context("fork")
    shared = Shared(args.producers, args.consumers)
    # consumers first, so the group owns every partition before the first record is sent
    consumers = [ctx.Process(target=consume, args=(args, shared, c), name="consumer-%d" % c)
                 for c in range(args.consumers)]
    for proc in consumers:
        proc.start()
    wait_until = time.monotonic_ns() + 120 * SECOND
    while sum(shared.assigned) < args.partitions:
        if time.monotonic_ns() > wait_until:
            for proc in consumers:
                proc.kill()
            sys.exit("kafka_soak_rdkafka: the group was not assigned all %d partitions in 120 s (%d)"
                     % (args.partitions, sum(shared.assigned)))
        time.sleep(0.05)
    print("kafka-soak: group owns %d partitions; producing" % sum(shared.assigned), file=sys.stderr)

    t0 = time.monotonic_ns()
    end_nanos = t0 + (args.warmup + args.seconds) * SECOND
    producers = [ctx.Process(target=produce, args=(args, shared, p, end_nanos), name="producer-%d" % p)
                 for p in range(args.producers)]
    for proc in producers:
        proc.start()
    done = threading.Event()
    threading.Thread(target=progress, args=(shared, t0, done), daemon=True).start()

    sleep_until(t0 + args.warmup * SECOND)
    a = snap(shared, probe)
    shared.measure_from.value = a.nanos
    sleep_until(end_nanos)
    b = snap(shared, probe)
    results = {}
    collect(shared, results, "producer", producers, args.drain_timeout)  # acknowledgements, handed over after the flush

    total = sum(shared.produced)
    drain_end = time.monotonic_ns() + args.drain_timeout * SECOND  # from the producers' flush
    while True:
        now = time.monotonic_ns()
        if (sum(shared.distinct) >= total or now > drain_end
                or now - max(max(shared.last_consume), b.nanos) > 10 * SECOND):
            break
        time.sleep(0.02)
    c = snap(shared, probe)
    shared.consuming.value = 0
    collect(shared, results, "consumer", consumers, 30)
    done.set()
    if probe:
        probe.close()
    sys.exit(report(args, a, b, c, results))


def wait_served(args):
    """Returns once the broker serves every partition of the new topic (answers ListOffsets), as KafkaSoak.java waits
    for it, and for the same reason: a produce before that is answered NOT_LEADER_OR_FOLLOWER."""
    probe = Consumer({"bootstrap.servers": args.bootstrap, "group.id": args.topic + "-ready"})
    deadline = time.monotonic() + 120
    for p in range(args.partitions):
        while True:
            try:
                probe.get_watermark_offsets(TopicPartition(args.topic, p), timeout=10)
                break
            except KafkaException:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
    probe.close()


def collect(shared, results, kind, procs, timeout):
    """Puts the results the processes of one kind hand over into results; one that hands over nothing within timeout
    seconds of the last one counts as an error and is ended."""
    missing = set(range(len(procs)))
    while missing:
        try:
            r = shared.results.get(timeout=timeout)
        except queue.Empty:
            break
        results[r[:2]] = r
        missing.discard(r[1])
    for i in missing:
        procs[i].kill()
        where = " (stopped in: %s)" % CONSUMER_PHASES[shared.phase[i]] if kind == "consumer" else ""
        errors = collections.Counter({"%s-%d: no results%s" % (kind, i, where): 1})
        results[(kind, i)] = (kind, i, b"", errors) if kind == "producer" else (kind, i, [], 0, Latency(), errors)
    for proc in procs:
        proc.join()


def verify(args, results):
    """(acknowledged, lost, duplicated, out-of-order, unconfirmed, latency, errors) over all workers."""
    errors = collections.Counter()
    latency = Latency()
    out_of_order = 0
    for key, r in results.items():
        errors.update(r[-1])
        if key[0] == "consumer":
            out_of_order += r[3]
            latency.merge(r[4])
    acknowledged = lost = duplicated = unconfirmed = 0
    for p in range(args.producers):
        acked = results[("producer", p)][2]
        seen = [r[2][p] for k, r in results.items() if k[0] == "consumer" and r[2]]
        delivered = bytearray(max([len(acked)] + [len(x) for x in seen]))
        for flags in seen:
            for s, n in enumerate(flags):
                if n:
                    delivered[s] = min(255, delivered[s] + n)
        acknowledged += acked.count(1)
        for s, n in enumerate(delivered):
            a = s < len(acked) and acked[s]
            if n == 0:
                lost += a
            else:
                duplicated += n - 1
                unconfirmed += not a
    return acknowledged, lost, duplicated, out_of_order, unconfirmed, latency, errors


def report(args, a, b, c, results):
    """KafkaSoak.java's report, line for line."""
    label = args.label
    steady, whole = (b.nanos - a.nanos) / SECOND, (c.nanos - a.nanos) / SECOND
    prod_ab, cons_ab, cons_ac = b.produced - a.produced, b.consumed - a.consumed, c.consumed - a.consumed
    total, lost, dup, ooo, unconfirmed, latency, errors = verify(args, results)
    errs = sum(errors.values())
    print("%s: topic %s, %d partitions, %d producers (librdkafka %s, idempotent, acks=all, linger.ms=5), %d consumers "
          "in one group, %d B values" % (label, args.topic, args.partitions, args.producers, libversion()[0],
                                         args.consumers, args.value_bytes))
    print("%s: steady %.1f s (after %d s warm-up), drain %.1f s" % (label, steady, args.warmup, whole - steady))
    print("%s: produced/s %.0f  consumed/s %.0f  (steady); consumed A->C %d"
          % (label, prod_ab / steady, cons_ab / steady, cons_ac))
    if args.broker_pid:
        per = max(1, cons_ac)
        broker, pg = c.broker - a.broker, c.pg - a.pg
        cpu = "broker %.2f s = %.2f us/msg" % (broker, broker * 1e6 / per)
        if args.pg_port:
            cpu += ", PostgreSQL %.2f s = %.2f us/msg, total %.2f us/msg" % (pg, pg * 1e6 / per, (broker + pg) * 1e6 / per)
        print("%s: CPU A->C per consumed message: %s" % (label, cpu))
        jit = c.jit - a.jit
        print("%s: of the broker's CPU A->C, JIT compiler threads %.2f s (%.0f%%)"
              % (label, jit, 100 * jit / max(1e-9, broker)))
    print("%s: produce-to-consume latency us (records sent after A, %d): p50 %d  p99 %d  p99.9 %d  max %d"
          % (label, latency.total(), latency.percentile(50), latency.percentile(99), latency.percentile(99.9),
             latency.max))
    if errors:
        print("%s: errors {%s}" % (label, ", ".join("%s=%d" % kv for kv in sorted(errors.items()))))
    ok = lost == 0 and dup == 0 and ooo == 0 and errs == 0
    print("%s: verify: %d produced (acknowledged), %d consumed exactly once, %d lost, %d duplicated, "
          "%d out-of-order, %d unconfirmed, %d errors -> %s"
          % (label, total, total - lost, lost, dup, ooo, unconfirmed, errs, "OK" if ok else "FAILED"), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    main()
