package io.queen.analytics;

import io.queen.background.DaemonTimer;
import io.queen.config.QueenConfig;
import io.queen.metrics.BacklogFamilies;
import io.queen.metrics.OpsMeter;
import io.queen.metrics.ProcessStats;
import io.queen.metrics.PrometheusFamilies;
import io.queen.workers.WorkerRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Once a minute (aligned to wall-clock minutes at the default {@code queen.metrics.flush-ms}), drains
 * {@link OpsMeter}, samples the process and writes both in one statement ({@code queen.metrics_flush_v1}) into the
 * bucket of the minute the interval began; records every queue's depth for the current minute unless another broker
 * did ({@code queen.metrics_depth_sample_v1}) and the backlog and lag figures unless a broker did within half an
 * interval ({@code queen.metrics_backlog_sample_v1}); then refreshes the Prometheus families (the backlog gauges
 * from the stored figures) and the lifetime totals behind {@code GET /metrics}.
 *
 * <p>Invariants: every drained count is written exactly once or, while the database refuses, kept (up to
 * {@link #MAX_PENDING} intervals, oldest dropped with a warning) and retried with the next flush into its own
 * bucket; idle queues write no row. Thread-safety: {@link #flushNow} is synchronized (the timer thread, shutdown
 * and tests may call it); the published readings are immutable snapshots behind volatile fields.
 */
@Singleton
public class MetricsFlusher {
    private static final Logger LOG = Logger.getLogger(MetricsFlusher.class);
    static final int MAX_PENDING = 60;

    /** What {@code GET /metrics} reads: this broker's lifetime counts and the last interval's rates. */
    public record Lifetime(long requests, long messages, double requestRate, double messageRate, Instant at) {
    }

    private record Pending(OffsetDateTime bucket, List<OpsMeter.Sample> queues, long[] broker, double[] system) {
    }

    private final OpsMeter meter;
    private final ProcessStats process;
    private final MetricsStore store;
    private final PrometheusFamilies families;
    private final BacklogFamilies backlog;
    private final int maxGroups;
    private final WorkerRegistry worker;
    private final long flushMs;
    private final int maxQueues;
    private final java.util.UUID defaultTenant;
    private final Deque<Pending> pending = new ArrayDeque<>();
    private ScheduledExecutorService timer;
    private long intervalStartMs = System.currentTimeMillis();
    private long[] lastCpu;
    private long lastCpuAtNanos;
    private long requests;
    private long messages;
    private volatile Lifetime lifetime = new Lifetime(0, 0, 0, 0, Instant.now());

    MetricsFlusher(OpsMeter meter, ProcessStats process, WorkerRegistry worker, MetricsStore store,
            PrometheusFamilies families, BacklogFamilies backlog, QueenConfig config) {
        this.maxGroups = BacklogFamilies.maxGroups(config);
        this.backlog = backlog;
        this.worker = worker;
        this.meter = meter;
        this.process = process;
        this.store = store;
        this.families = families;
        this.flushMs = Math.max(100, config.metrics().flushMs());
        this.maxQueues = Math.max(1, config.metrics().maxQueues());
        this.defaultTenant = java.util.UUID.fromString(config.defaultTenant());
        this.lastCpu = process.cpuMicros();
        this.lastCpuAtNanos = System.nanoTime();
    }

    void start(@Observes @Priority(20) StartupEvent event) {
        timer = DaemonTimer.create("queen-metrics-flush");
        // first run on the next multiple of the interval, so that 60 s flushes land just after each minute starts
        long now = System.currentTimeMillis();
        long first = flushMs - now % flushMs + 200;
        timer.scheduleAtFixedRate(this::tick, first, flushMs, TimeUnit.MILLISECONDS);
    }

    void stop(@Observes ShutdownEvent event) {
        if (timer != null) {
            timer.shutdownNow();
        }
        tick(false);  // the last partial minute; the Prometheus families are being unregistered
    }

    private void tick() {
        tick(true);
    }

    private void tick(boolean publish) {
        try {
            flush(publish);
        } catch (Throwable t) {
            // never cancel the schedule: the counts stay pending and the next flush retries
            LOG.warnf("metrics flush failed: %s", t.toString());
        }
    }

    /** This broker's identity in metric rows; null until its worker id is registered (the database answered). */
    public MetricsStore.Broker broker() {
        java.util.OptionalInt id = worker.workerId();
        return id.isEmpty() ? null : new MetricsStore.Broker(process.hostname(), id.getAsInt(), process.port());
    }

    public Lifetime lifetime() {
        return lifetime;
    }

    /**
     * Drains the counters and writes them now (the timer's job; also called at shutdown and by tests). Returns the
     * number of queue rows written, or -1 when the database refused (the counts stay pending).
     */
    public int flushNow() {
        return flush(true);
    }

    private synchronized int flush(boolean publish) {
        long nowMs = System.currentTimeMillis();
        OffsetDateTime bucket = OffsetDateTime.ofInstant(Instant.ofEpochMilli(intervalStartMs), ZoneOffset.UTC)
                .truncatedTo(ChronoUnit.MINUTES);
        double seconds = Math.max(0.001, (nowMs - intervalStartMs) / 1000.0);
        intervalStartMs = nowMs;
        List<OpsMeter.Sample> samples = meter.drain();
        long[] totals = samples.get(samples.size() - 1).values();
        List<OpsMeter.Sample> active = new ArrayList<>(samples.size());
        for (OpsMeter.Sample s : samples) {
            if (s.queue() != null && nonZero(s.values())) {
                active.add(s);
            }
        }
        long req = totals[OpsMeter.PUSH_REQUESTS] + totals[OpsMeter.POP_REQUESTS] + totals[OpsMeter.ACK_REQUESTS]
                + totals[OpsMeter.TRANSACTIONS];
        requests += req;
        messages += totals[OpsMeter.PUSH_MESSAGES];
        lifetime = new Lifetime(requests, messages, req / seconds, totals[OpsMeter.PUSH_MESSAGES] / seconds,
                Instant.ofEpochMilli(nowMs));
        pending.addLast(new Pending(bucket, active, totals, systemSample()));
        while (pending.size() > MAX_PENDING) {
            Pending lost = pending.removeFirst();
            LOG.warnf("metrics: dropped the unwritten bucket %s (database unavailable for %d flushes)", lost.bucket(),
                    MAX_PENDING);
        }
        MetricsStore.ClusterTotals cluster = null;
        int written = 0;
        MetricsStore.Broker broker = broker();
        try {
            if (broker == null) {
                throw new SQLException("this broker's worker id is not registered yet");
            }
            while (!pending.isEmpty()) {
                Pending p = pending.peekFirst();
                cluster = store.flush(p.bucket(), broker, p.queues(), p.broker(), p.system());
                written += p.queues().size();
                pending.removeFirst();
            }
        } catch (SQLException e) {
            LOG.warnf("metrics flush failed (%d interval(s) kept for the next flush): %s", pending.size(),
                    e.getMessage());
            written = -1;
        }
        if (written >= 0) {
            try {
                store.sampleDepth();
            } catch (SQLException e) {
                LOG.debugf("queue depth not sampled: %s", e.getMessage());
            }
            sampleBacklog(flushMs / 2);
        }
        if (publish) {
            Map<String, Long> dlq = null;
            try {
                dlq = store.dlqDepth(defaultTenant, maxQueues);
            } catch (SQLException e) {
                LOG.debugf("dlq depth not refreshed: %s", e.getMessage());
            }
            families.update(samples, cluster == null ? null : clusterArray(cluster), dlq);
            publishBacklog();
        }
        return written;
    }

    /**
     * Recomputes the backlog and lag figures unless a broker did within {@code minIntervalMs} (one owner per
     * interval for the cluster; 0 = now, for tests).
     */
    private void sampleBacklog(long minIntervalMs) {
        try {
            store.sampleBacklog(minIntervalMs);
        } catch (SQLException e) {
            LOG.debugf("backlog not sampled: %s", e.getMessage());
        }
    }

    private void publishBacklog() {
        try {
            MetricsStore.Backlog b = store.backlog(defaultTenant, maxQueues, maxGroups);
            backlog.update(b.rows(), b.sampledAgeSeconds());
        } catch (SQLException e) {
            LOG.debugf("backlog gauges not refreshed: %s", e.getMessage());
        }
    }

    /** Recomputes the backlog and lag figures now, whoever computed them last, and publishes them (tests). */
    public synchronized void sampleBacklogNow() {
        sampleBacklog(0);
        publishBacklog();
    }

    private static long[] clusterArray(MetricsStore.ClusterTotals c) {
        long[] a = new long[10];
        a[PrometheusFamilies.C_PUSH_MESSAGES] = c.pushMessages();
        a[PrometheusFamilies.C_PUSH_REQUESTS] = c.pushRequests();
        a[PrometheusFamilies.C_POP_MESSAGES] = c.popMessages();
        a[PrometheusFamilies.C_POP_REQUESTS] = c.popRequests();
        a[PrometheusFamilies.C_ACK_MESSAGES] = c.ackMessages();
        a[PrometheusFamilies.C_ACK_REQUESTS] = c.ackRequests();
        a[PrometheusFamilies.C_ACK] = c.ackMessages() + c.ackFailed();
        a[PrometheusFamilies.C_TRANSACTIONS] = c.transactions();
        a[PrometheusFamilies.C_DLQ] = c.dlq();
        a[PrometheusFamilies.C_DB_ERRORS] = c.dbErrors();
        return a;
    }

    private static boolean nonZero(long[] v) {
        for (long x : v) {
            if (x != 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * cpu user %, cpu system % (of one core, over the interval), rss, heap used/committed/max, non-heap used, pool
     * max/active/idle/waiting, threads, daemon threads; NaN = unknown.
     */
    private double[] systemSample() {
        long[] cpu = process.cpuMicros();
        long nowNanos = System.nanoTime();
        double wallMicros = Math.max(1, (nowNanos - lastCpuAtNanos) / 1000.0);
        double user = 100.0 * (cpu[0] - lastCpu[0]) / wallMicros;
        double sys = 100.0 * (cpu[1] - lastCpu[1]) / wallMicros;
        lastCpu = cpu;
        lastCpuAtNanos = nowNanos;
        long rss = process.memoryBytes()[0];
        MemoryUsage heap = process.heap();
        return new double[] {user, sys, rss < 0 ? Double.NaN : rss, heap.getUsed(), heap.getCommitted(),
                heap.getMax() < 0 ? Double.NaN : heap.getMax(), process.nonHeap().getUsed(), process.poolMax(),
                process.poolActive(), process.poolIdle(), process.poolWaiting(), process.threads().getThreadCount(),
                process.threads().getDaemonThreadCount()};
    }

    /** Direct (off-heap) buffer memory in use, bytes. */
    static long directBytes() {
        for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (b.getName().equals("direct")) {
                return b.getMemoryUsed();
            }
        }
        return 0;
    }
}
