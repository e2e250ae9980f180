package io.queen.bench;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Pickup latency: from the moment a push was answered to the first pop that delivered the message. The two ends
 * happen on different threads in either order (a worker can pop a message before its producer has read the push's
 * answer), so each message has one cell that the first end fills with its time and the second end turns into a
 * latency. A message popped before its push was answered counts as 0 µs and in {@link #poppedFirst()}.
 *
 * <p>Cells are indexed by (producer, sequence number), which the producers hand out densely from 0, in chunks of
 * {@value #CHUNK} (8 bytes per pushed message). A cell holds 0 (nothing yet), {@code +t} (answered at t), {@code -t}
 * (popped at t), or {@link #DONE}; t counts nanoseconds from this object's creation plus one, so it is never 0.
 */
final class Pickup {

    static final int CHUNK = 1 << 16;
    private static final long DONE = Long.MIN_VALUE;

    private final long origin = System.nanoTime();
    private final ConcurrentHashMap<Long, AtomicLongArray> chunks = new ConcurrentHashMap<>();
    private final LongAdder poppedFirst = new LongAdder();
    /** Pickup latency in µs. */
    final Histogram latency = new ConcurrentHistogram(3);

    private AtomicLongArray chunk(int producer, long seq) {
        return chunks.computeIfAbsent(((long) producer << 40) | (seq / CHUNK), k -> new AtomicLongArray(CHUNK));
    }

    private long t(long nanos) {
        return Math.max(1, nanos - origin + 1);
    }

    /** The push that carried {@code (producer, seq)} was answered at {@code nanos}; {@code record}: count it. */
    void answered(int producer, long seq, long nanos, boolean record) {
        meet(producer, seq, t(nanos), record);
    }

    /** {@code (producer, seq)} was delivered for the first time by a pop answered at {@code nanos}. */
    void popped(int producer, long seq, long nanos, boolean record) {
        meet(producer, seq, -t(nanos), record);
    }

    /** The end with signed time {@code mine} arrives: fill the cell, or meet the other end in it. */
    private void meet(int producer, long seq, long mine, boolean record) {
        AtomicLongArray c = chunk(producer, seq);
        int i = (int) (seq % CHUNK);
        while (true) {
            long other = c.get(i);
            if (other == DONE || (other != 0 && Long.signum(other) == Long.signum(mine))) {
                return; // already met, or this end again (a redelivery): counted once
            }
            if (other == 0) {
                if (c.compareAndSet(i, 0, mine)) {
                    return;
                }
                continue;
            }
            if (!c.compareAndSet(i, other, DONE)) {
                continue;
            }
            long answered = Math.max(mine, other);
            long popped = -Math.min(mine, other);
            if (record) {
                if (popped < answered) {
                    poppedFirst.increment();
                }
                Stats.recordMicros(latency, popped - answered);
            }
            return;
        }
    }

    /** Messages counted whose first pop came before their push's answer (recorded as 0 µs). */
    long poppedFirst() {
        return poppedFirst.sum();
    }
}
