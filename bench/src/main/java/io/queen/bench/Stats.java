package io.queen.bench;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** Live counters, error tallies and latency histograms shared by all workers of one run. */
public final class Stats {

    /** A consistent-enough copy of the counters at one instant. */
    public record Counts(long nanos, long pushed, long delivered, long acked, long errors) {}

    final LongAdder pushed = new LongAdder();
    final LongAdder buffered = new LongAdder();
    final LongAdder delivered = new LongAdder();
    final LongAdder acked = new LongAdder();
    final LongAdder foreign = new LongAdder();
    final LongAdder[] groupDelivered;
    final LongAdder[] groupAcked;
    private final ConcurrentHashMap<String, LongAdder> errors = new ConcurrentHashMap<>();

    /** Push request latency (µs), from request start (or the scheduled start in open loop) to response. */
    final Histogram pushLatency = new ConcurrentHistogram(3);
    /** Push-to-delivery latency (µs): receive time minus the payload's {@code t}. */
    final Histogram deliveryLatency = new ConcurrentHistogram(3);

    /** Latencies are recorded only while this is set (after warm-up). */
    volatile boolean measuring;
    final AtomicLong lastDeliveryNanos = new AtomicLong(System.nanoTime());
    final AtomicLong lastAckNanos = new AtomicLong(0);

    public Stats(int groups) {
        groupDelivered = new LongAdder[groups];
        groupAcked = new LongAdder[groups];
        for (int i = 0; i < groups; i++) {
            groupDelivered[i] = new LongAdder();
            groupAcked[i] = new LongAdder();
        }
    }

    public void error(String kind) {
        errors.computeIfAbsent(kind, k -> new LongAdder()).increment();
    }

    public void error(String kind, long n) {
        errors.computeIfAbsent(kind, k -> new LongAdder()).add(n);
    }

    public long errorTotal() {
        return errors.values().stream().mapToLong(LongAdder::sum).sum();
    }

    public Map<String, Long> errorsByKind() {
        var m = new TreeMap<String, Long>();
        errors.forEach((k, v) -> m.put(k, v.sum()));
        return m;
    }

    static void recordMicros(Histogram h, long nanos) {
        long us = Math.max(0, nanos / 1_000);
        h.recordValue(us);
    }

    public Counts counts() {
        return new Counts(System.nanoTime(), pushed.sum(), delivered.sum(), acked.sum(), errorTotal());
    }
}
