package io.queen.retention;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.queen.analytics.MetricsStore;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.queen.config.QueenConfig;
import io.queen.tracing.BrokerTracing;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * One retention cycle: time and completed retention, hash-sidecar purge, max-wait eviction, and (on its own
 * slower cadence) partition cleanup.
 *
 * <p>Invariants: a cycle runs only while this broker holds the cluster-wide transaction advisory lock 737001 on
 * a dedicated connection, so exactly one broker of a cluster works at a time; the work list comes from the
 * partial watermark indexes, so an idle partition costs nothing; every step is its own short transaction holding
 * exactly one partition row lock; only whole segments of a contiguous prefix are deleted and log_start never
 * moves backwards (enforced in SQL). Every deletion is counted (Micrometer) and audited (retention_history).
 *
 * <p>Thread-safety: {@link #runOnce} may be called from any thread; concurrent calls are serialized by the
 * advisory lock (the loser returns a skipped report). Steps of one cycle run on up to {@code parallelism} virtual
 * threads, each partition handled by one of them.
 */
@ApplicationScoped
public class RetentionCycle {
    private static final Logger LOG = Logger.getLogger(RetentionCycle.class);

    /** What one cycle did to one partition. {@code rows}: segments, sidecar rows or (cleanup) partitions. */
    public record Touched(String kind, UUID partitionId, int rows, long messages) {
    }

    /** Outcome of one cycle; {@code ran == false} when another cycle held the lock. */
    public record Report(boolean ran, int workItems, List<Touched> touched, long segmentsDeleted,
            long messagesDeleted, long txnRowsPurged, long messagesEvicted, int partitionsDeleted, Duration took,
            long metricRowsPurged) {
        static Report skipped() {
            return new Report(false, 0, List.of(), 0, 0, 0, 0, 0, Duration.ZERO, 0);
        }

        public boolean deletedSomething() {
            return segmentsDeleted + txnRowsPurged + partitionsDeleted > 0;
        }
    }

    private final RetentionStore store;
    private final int batch;
    private final int parallelism;
    private final int dueCap;
    private final boolean cleanupEnabled;
    private final Duration cleanupAge;
    private final Duration cleanupEvery;
    private final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
    private final Map<String, Counter> segmentCounters = new ConcurrentHashMap<>();
    private final Map<String, Counter> messageCounters = new ConcurrentHashMap<>();
    private final MeterRegistry registry;
    private final Counter txnRows;
    private final Counter partitions;
    private final Counter cycles;
    private final Timer cycleTime;
    private final Counter orphans;
    private final Counter traces;
    private volatile Instant lastCleanup;
    private volatile Instant lastOrphanSweep;
    private final MetricsStore metrics;
    private final Duration metricsAge;
    private final Counter metricRows;

    private final BrokerTracing tracing;

    RetentionCycle(RetentionStore store, QueenConfig config, MeterRegistry registry, MetricsStore metrics,
            BrokerTracing tracing) {
        this.tracing = tracing;
        QueenConfig.Retention r = config.retention();
        this.store = store;
        this.metrics = metrics;
        this.metricsAge = Duration.ofDays(Math.max(1, config.metrics().retentionDays()));
        this.metricRows = Counter.builder("queen.retention.metrics.purged")
                .description("per-minute metric rows older than queen.metrics.retention-days deleted").register(registry);
        this.batch = Math.max(1, r.batchSize());
        this.parallelism = Math.min(16, Math.max(1, r.parallelism()));
        this.dueCap = r.dueCap() > 0 ? r.dueCap() : (int) Math.min(1_000_000L, (long) batch * parallelism * 5);
        this.cleanupEnabled = r.partitionCleanupEnabled();
        this.cleanupAge = Duration.ofDays(Math.max(0, r.partitionCleanupDays()));
        this.cleanupEvery = Duration.ofMillis(Math.max(0, r.partitionCleanupIntervalMs()));
        this.registry = registry;
        this.txnRows = Counter.builder("queen.retention.txns.purged").description("hash-sidecar rows purged")
                .register(registry);
        this.partitions = Counter.builder("queen.retention.partitions.deleted")
                .description("empty, long-inactive partitions deleted").register(registry);
        this.orphans = Counter.builder("queen.retention.orphans.deleted")
                .description("sidecar, dead-letter and trace rows of partitions that no longer exist, deleted").register(registry);
        this.traces = Counter.builder("queen.retention.traces.deleted")
                .description("message traces deleted because they outlived their queue's retention").register(registry);
        this.cycles = Counter.builder("queen.retention.cycles").description("retention cycles run by this broker")
                .register(registry);
        this.cycleTime = Timer.builder("queen.retention.cycle.duration")
                .description("wall time of one retention cycle of this broker").register(registry);
    }

    /** The per-queue, per-rule cap on partitions taken into one cycle's work list. */
    public int dueCap() {
        return dueCap;
    }

    /**
     * Runs one cycle as of {@code now} (cutoffs are computed from it; tests pass a future instant instead of
     * sleeping). Partition cleanup runs too when its sub-cadence has elapsed since the last cleanup.
     */
    public Report runOnce(Instant now) throws SQLException {
        boolean cleanup = cleanupEnabled && (lastCleanup == null || !now.isBefore(lastCleanup.plus(cleanupEvery)));
        return run(now, cleanup);
    }

    /** Runs one cycle including partition cleanup regardless of its sub-cadence (if cleanup is enabled). */
    public Report runWithCleanup(Instant now) throws SQLException {
        return run(now, cleanupEnabled);
    }

    private Report run(Instant now, boolean cleanup) throws SQLException {
        Span span = tracing.start("queen retention", SpanKind.INTERNAL, null);
        return BrokerTracing.within(span, () -> {
            Report r = run(now, cleanup, System.nanoTime());
            if (span.isRecording()) {
                span.setAttribute("queen.retention.ran", r.ran())
                        .setAttribute("queen.retention.segments_deleted", r.segmentsDeleted());
            }
            return r;
        });
    }

    private Report run(Instant now, boolean cleanup, long t0) throws SQLException {
        try (RetentionStore.Leadership lead = store.tryLead()) {
            if (lead == null) {
                return Report.skipped();
            }
            List<RetentionStore.Work> work = store.workList(now, dueCap);
            List<Touched> touched = Collections.synchronizedList(new ArrayList<>());
            runSteps(work, touched);
            // the orphan sweep runs on the cleanup cadence whether or not partition cleanup is enabled
            if (lastOrphanSweep == null || !now.isBefore(lastOrphanSweep.plus(cleanupEvery))) {
                lastOrphanSweep = now;
                sweepOrphans();
                purgeTraces(now);
            }
            int deletedPartitions = 0;
            if (cleanup) {
                lastCleanup = now;
                deletedPartitions = cleanup(now.minus(cleanupAge), touched);
            }
            long metricRowsPurged = purgeMetrics(now.minus(metricsAge));
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            Report report = summarize(work.size(), touched, deletedPartitions, took, metricRowsPurged);
            cycles.increment();
            cycleTime.record(took);
            if (report.deletedSomething()) {
                LOG.infof("retention: %d segments (%d messages) deleted, %d evicted, %d sidecar rows purged,"
                        + " %d partitions removed in %d ms (%d work items)", report.segmentsDeleted(),
                        report.messagesDeleted(), report.messagesEvicted(), report.txnRowsPurged(),
                        report.partitionsDeleted(), took.toMillis(), work.size());
            }
            return report;
        }
    }

    private void runSteps(List<RetentionStore.Work> work, List<Touched> touched) {
        if (work.isEmpty()) {
            return;
        }
        ConcurrentLinkedQueue<RetentionStore.Work> queue = new ConcurrentLinkedQueue<>(work);
        int n = Math.min(parallelism, work.size());
        if (n == 1) {
            drain(queue, touched);
            return;
        }
        List<Future<?>> fs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            fs.add(workers.submit(() -> drain(queue, touched)));
        }
        for (Future<?> f : fs) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (java.util.concurrent.ExecutionException e) {
                LOG.warn("retention worker failed", e.getCause());
            }
        }
    }

    private void drain(ConcurrentLinkedQueue<RetentionStore.Work> queue, List<Touched> touched) {
        RetentionStore.Work w;
        while ((w = queue.poll()) != null) {
            try {
                Touched t = runPartition(w);
                if (t.rows() > 0) {
                    touched.add(t);
                }
            } catch (SQLException e) {
                // one partition's trouble (lock/statement timeout) must not stop the cycle; it is retried next cycle
                LOG.warnf("retention %s step on partition %s failed: %s", w.kind(), w.partitionId(), e.getMessage());
            }
        }
    }

    /** Steps one partition until its step reports done, each step a separate transaction. */
    private Touched runPartition(RetentionStore.Work w) throws SQLException {
        int rows = 0;
        long messages = 0;
        RetentionStore.StepResult r;
        do {
            r = switch (w.kind()) {
                case "retention" -> store.retentionStep(w.partitionId(), w.cutoffA(), w.cutoffB(), batch);
                case "max_wait" -> store.evictStep(w.partitionId(), w.cutoffA(), batch);
                case "txns" -> store.txnsPurgeStep(w.partitionId(), w.cutoffA(), batch);
                default -> throw new IllegalStateException("unknown retention work kind " + w.kind());
            };
            rows += r.deleted();
            messages += r.messages();
        } while (!r.done() && r.deleted() > 0);
        if (rows > 0) {
            if (w.kind().equals("txns")) {
                txnRows.increment(rows);
            } else {
                String type = w.kind().equals("max_wait") ? "max_wait_time_eviction" : "retention";
                counter(segmentCounters, "queen.retention.segments.deleted", type).increment(rows);
                counter(messageCounters, "queen.retention.messages.deleted", type).increment(messages);
            }
        }
        return new Touched(w.kind(), w.partitionId(), rows, messages);
    }

    /** Traces older than their queue's retention, in batches; on the cleanup cadence (a probe per partition). */
    private void purgeTraces(Instant now) {
        OffsetDateTime at = OffsetDateTime.ofInstant(now, ZoneOffset.UTC);
        try {
            int n;
            long total = 0;
            do {
                n = store.tracePurge(at, batch);
                total += n;
            } while (n >= batch);
            if (total > 0) {
                traces.increment(total);
                LOG.infof("retention: deleted %d traces older than their queue's retention", total);
            }
        } catch (SQLException e) {
            LOG.warnf("trace purge failed: %s", e.getMessage());
        }
    }

    private void sweepOrphans() {
        try {
            RetentionStore.OrphanSweep r;
            do {
                r = store.orphanSweep(batch);
                int rows = r.txnRows() + r.dlqRows() + r.traceRows();
                if (rows > 0) {
                    orphans.increment(rows);
                    LOG.infof("retention: deleted %d sidecar, %d dead-letter and %d trace rows of %d partitions that"
                            + " no longer exist", r.txnRows(), r.dlqRows(), r.traceRows(), r.partitions());
                }
            } while (r.partitions() >= batch);
        } catch (SQLException e) {
            LOG.warnf("orphan sweep failed: %s", e.getMessage());
        }
    }

    private int cleanup(Instant cutoff, List<Touched> touched) {
        OffsetDateTime c = OffsetDateTime.ofInstant(cutoff, ZoneOffset.UTC);
        int total = 0;
        UUID after = null;
        try {
            RetentionStore.CleanupResult r;
            do {
                r = store.cleanupStep(c, batch, after);
                total += r.deleted();
                after = r.lastId();
            } while (!r.done() && after != null);
        } catch (SQLException e) {
            LOG.warnf("partition cleanup failed: %s", e.getMessage());
        }
        if (total > 0) {
            partitions.increment(total);
            touched.add(new Touched("cleanup", null, total, 0));
        }
        return total;
    }

    /**
     * Per-minute metric rows older than the cutoff: a few bounded steps per cycle (index range scans on the
     * bucket-leading keys, nothing to do costs one probe per table); a backlog is finished by later cycles.
     */
    private long purgeMetrics(Instant cutoff) {
        long total = 0;
        try {
            for (int i = 0; i < 10; i++) {
                long[] r = metrics.purgeStep(cutoff, batch);
                total += r[0];
                if (r[1] == 1) {
                    break;
                }
            }
        } catch (SQLException e) {
            LOG.warnf("metrics purge failed: %s", e.getMessage());
        }
        if (total > 0) {
            metricRows.increment(total);
        }
        return total;
    }

    private Counter counter(Map<String, Counter> cache, String name, String type) {
        String help = name.endsWith("segments.deleted") ? "segments deleted by retention (type = rule)"
                : "messages deleted by retention (type = rule)";
        return cache.computeIfAbsent(type, t -> Counter.builder(name).tag("type", t).description(help)
                .register(registry));
    }

    private static Report summarize(int workItems, List<Touched> touched, int partitionsDeleted, Duration took,
            long metricRowsPurged) {
        AtomicLong segs = new AtomicLong();
        AtomicLong msgs = new AtomicLong();
        AtomicLong txns = new AtomicLong();
        AtomicLong evicted = new AtomicLong();
        List<Touched> copy;
        synchronized (touched) {
            copy = List.copyOf(touched);
        }
        for (Touched t : copy) {
            switch (t.kind()) {
                case "retention" -> {
                    segs.addAndGet(t.rows());
                    msgs.addAndGet(t.messages());
                }
                case "max_wait" -> {
                    segs.addAndGet(t.rows());
                    msgs.addAndGet(t.messages());
                    evicted.addAndGet(t.messages());
                }
                case "txns" -> txns.addAndGet(t.rows());
                default -> {
                }
            }
        }
        return new Report(true, workItems, copy, segs.get(), msgs.get(), txns.get(), evicted.get(), partitionsDeleted,
                took, metricRowsPurged);
    }
}
