package io.queen.metrics;

import io.queen.config.QueenConfig;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * This broker's operation counters per queue since the last flush: what push, pop, ack and transactions did, the
 * lag of delivered messages and the pops parked on each queue. {@code analytics.MetricsFlusher} drains them once a
 * minute into the bucket tables.
 *
 * <p>Invariants: one {@link QueueMeter} per (tenant, queue name), at most {@code queen.metrics.max-queues} of them
 * over all tenants (a queue is known by its tenant and name: two tenants' queues of one name never share a meter);
 * activity
 * of further queues lands in the {@link #OTHER} meter, so memory, bucket rows and Prometheus series stay bounded by
 * the setting (a label per queue, never per partition or consumer group). Every increment is counted in exactly one
 * drain: {@link LongAdder#sumThenReset} takes each cell with an atomic get-and-set. Activity with no queue (a
 * namespace pop that found nothing) counts in the broker totals only, under {@link #unattributed()}.
 *
 * <p>Thread-safety: recording is lock-free and allocation-free once a queue's meter exists (a map lookup and
 * striped adds); creating a meter and {@link #drain} may run concurrently with recording.
 */
@Singleton
public class OpsMeter {
    /** Label of the meter that sums the queues beyond the cap. */
    public static final String OTHER = "_other";

    public static final int PUSH_REQUESTS = 0;
    public static final int PUSH_MESSAGES = 1;
    public static final int POP_REQUESTS = 2;
    public static final int POP_MESSAGES = 3;
    public static final int POP_EMPTY = 4;
    public static final int ACK_REQUESTS = 5;
    /** Acks with a positive status that were applied. */
    public static final int ACK_MESSAGES = 6;
    /** Acks reporting a consumer failure ({@code failed}, {@code retry}, {@code dlq}) that were applied. */
    public static final int ACK_FAILED = 7;
    public static final int TRANSACTIONS = 8;
    public static final int DLQ = 9;
    /** Delivered messages whose lag was measured, and the sum of their lags (ms): avg = sum / count. */
    public static final int LAG_COUNT = 10;
    public static final int LAG_SUM_MS = 11;
    /** Database calls that failed with an error the client saw (5xx). Broker-level only. */
    public static final int DB_ERRORS = 12;
    /** Number of additive counters; the drained sample appends lag max and parked. */
    public static final int COUNTERS = 13;
    public static final int LAG_MAX_MS = 13;
    public static final int PARKED = 14;
    public static final int FIELDS = 15;

    /** One queue's counters. Thread-safe. */
    public static final class QueueMeter {
        private final UUID tenant;
        private final String queue;
        private final LongAdder[] counters = new LongAdder[COUNTERS];
        private final LongAccumulator lagMax = new LongAccumulator(Math::max, 0);
        private final AtomicLong parked = new AtomicLong();
        private final LongAccumulator parkedPeak = new LongAccumulator(Math::max, 0);
        /** What earlier drains took, per additive counter; guarded by this meter's monitor (drain and readers). */
        private final long[] drained = new long[COUNTERS];

        QueueMeter(UUID tenant, String queue) {
            this.tenant = tenant;
            this.queue = queue;
            for (int i = 0; i < COUNTERS; i++) {
                counters[i] = new LongAdder();
            }
        }

        /** The queue name, {@link #OTHER}, or null for the unattributed meter. */
        public String queue() {
            return queue;
        }

        /** The queue's tenant; null for {@link #OTHER} and the unattributed meter. */
        public UUID tenant() {
            return tenant;
        }

        public void add(int counter, long n) {
            counters[counter].add(n);
        }

        public void increment(int counter) {
            counters[counter].increment();
        }

        /** {@code n} messages delivered, all created {@code lagMs} ago (one segment shares its createdAt). */
        public void delivered(int n, long lagMs) {
            long lag = Math.max(0, lagMs);
            counters[POP_MESSAGES].add(n);
            counters[LAG_COUNT].add(n);
            counters[LAG_SUM_MS].add(n * lag);
            lagMax.accumulate(lag);
        }

        /** A pop starts waiting on this queue; pair with {@link #unparked}. */
        public void parked() {
            parkedPeak.accumulate(parked.incrementAndGet());
        }

        public void unparked() {
            parked.decrementAndGet();
        }

        /** Pops parked on this queue right now. */
        public long parkedNow() {
            return parked.get();
        }

        /**
         * The counts since this meter was created (earlier drains plus what is pending), without draining: for the
         * live figures. Monotone between calls; recording is not slowed (the adders are read, not locked).
         */
        public synchronized long[] cumulative() {
            long[] out = new long[COUNTERS];
            for (int i = 0; i < COUNTERS; i++) {
                out[i] = drained[i] + counters[i].sum();
            }
            return out;
        }

        /** Takes the counts since the last drain; lag max and parked peak restart from the current state. */
        synchronized long[] drain() {
            long[] out = new long[FIELDS];
            for (int i = 0; i < COUNTERS; i++) {
                out[i] = counters[i].sumThenReset();
                drained[i] += out[i];
            }
            out[LAG_MAX_MS] = lagMax.getThenReset();
            long now = parked.get();
            out[PARKED] = Math.max(parkedPeak.getThenReset(), now);
            parkedPeak.accumulate(now);
            return out;
        }
    }

    /** A drained meter: {@code values} indexed by the constants above; tenant null for OTHER and the totals. */
    public record Sample(UUID tenant, String queue, long[] values) {
    }

    private final int maxQueues;
    /** tenant -> queue name -> meter: two lookups and no key allocation on the recording path. */
    private final ConcurrentHashMap<UUID, ConcurrentHashMap<String, QueueMeter>> tenants = new ConcurrentHashMap<>();
    /** Meters under their own label, over all tenants; guarded by {@code tenants}. */
    private int tracked;
    private final QueueMeter other = new QueueMeter(null, OTHER);
    private final QueueMeter unattributed = new QueueMeter(null, null);
    /** Meters removed from the map (queue deleted); drained once more so that late increments are not lost. */
    private final List<QueueMeter> retired = new ArrayList<>();

    OpsMeter(QueenConfig config) {
        this.maxQueues = Math.max(0, config.metrics().maxQueues());
    }

    /** The meter of {@code queue} in {@code tenant}: its own while under the cap, else {@link #OTHER}; null -> unattributed. */
    public QueueMeter queue(UUID tenant, String queue) {
        if (queue == null) {
            return unattributed;
        }
        ConcurrentHashMap<String, QueueMeter> byName = tenants.get(tenant);
        QueueMeter m = byName == null ? null : byName.get(queue);
        return m != null ? m : create(tenant, queue);
    }

    /** The meter {@code queue} has under its own label already, else null (none is made). */
    public QueueMeter existing(UUID tenant, String queue) {
        ConcurrentHashMap<String, QueueMeter> byName = tenants.get(tenant);
        return byName == null || queue == null ? null : byName.get(queue);
    }

    public QueueMeter unattributed() {
        return unattributed;
    }

    private QueueMeter create(UUID tenant, String queue) {
        synchronized (tenants) {
            ConcurrentHashMap<String, QueueMeter> byName = tenants.computeIfAbsent(tenant, t -> new ConcurrentHashMap<>());
            QueueMeter m = byName.get(queue);
            if (m != null) {
                return m;
            }
            if (tracked >= maxQueues) {
                return other;
            }
            m = new QueueMeter(tenant, queue);
            byName.put(queue, m);
            tracked++;
            return m;
        }
    }

    /** A deleted queue frees its label (its last counts are still drained once). */
    public void forget(UUID tenant, String queue) {
        synchronized (tenants) {
            ConcurrentHashMap<String, QueueMeter> byName = tenants.get(tenant);
            QueueMeter m = byName == null ? null : byName.remove(queue);
            if (m != null) {
                tracked--;
                retired.add(m);
            }
        }
    }

    /** Queues tracked under their own label. */
    public int trackedQueues() {
        synchronized (tenants) {
            return tracked;
        }
    }

    private List<QueueMeter> named() {
        List<QueueMeter> out = new ArrayList<>(tracked + 1);
        for (ConcurrentHashMap<String, QueueMeter> byName : tenants.values()) {
            out.addAll(byName.values());
        }
        return out;
    }

    /**
     * Drains every meter: the per-queue samples (named queues, then {@link #OTHER} when it saw activity) and, last,
     * the broker totals (queue null) summing all of them plus the unattributed activity. Called by one thread at
     * a time (the flusher).
     */
    public List<Sample> drain() {
        List<QueueMeter> meters;
        List<QueueMeter> gone;
        synchronized (tenants) {
            meters = named();
            gone = new ArrayList<>(retired);
            retired.clear();
        }
        List<Sample> out = new ArrayList<>(meters.size() + 2);
        long[] broker = new long[FIELDS];
        for (QueueMeter m : meters) {
            long[] v = m.drain();
            out.add(new Sample(m.tenant, m.queue, v));
            fold(broker, v);
        }
        for (QueueMeter m : gone) {
            fold(broker, m.drain());  // a deleted queue's last counts: broker totals only
        }
        long[] o = other.drain();
        if (active(o)) {
            out.add(new Sample(null, OTHER, o));
        }
        fold(broker, o);
        fold(broker, unattributed.drain());
        out.add(new Sample(null, null, broker));
        return out;
    }

    private static void fold(long[] into, long[] v) {
        for (int i = 0; i < COUNTERS; i++) {
            into[i] += v[i];
        }
        into[LAG_MAX_MS] = Math.max(into[LAG_MAX_MS], v[LAG_MAX_MS]);
        into[PARKED] += v[PARKED];
    }

    private static boolean active(long[] v) {
        for (long x : v) {
            if (x != 0) {
                return true;
            }
        }
        return false;
    }

    /** Live parked pops per tracked queue (for the Prometheus gauge). */
    public List<QueueMeter> meters() {
        synchronized (tenants) {
            List<QueueMeter> out = named();
            out.add(other);
            return out;
        }
    }
}
