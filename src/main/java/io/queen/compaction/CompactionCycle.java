package io.queen.compaction;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.queen.tracing.BrokerTracing;
import io.queen.config.QueenConfig;
import io.queen.crypto.PayloadCipher;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * One compaction cycle: lists the partitions of compacted queues, and compacts the due ones (most dirty first, at
 * most {@code queen.compaction.partitions-per-cycle}), each in one pass.
 *
 * <p>A pass is one PostgreSQL transaction: the partition's advisory lock (one pass per partition across every
 * broker), the read of its segments from log_start to the cleanable end (the head, the partition's last segment,
 * and segments newer than min.compaction.lag.ms are never read), then under the partition row lock the
 * replacements and the new compaction point. A reader's snapshot sees the old segments or the new ones, never a
 * mix; a crash anywhere rolls the pass back whole. At most {@code max-records-per-pass} records after the
 * compaction point are read (whole segments); the rest waits for the next cycle.
 *
 * <p>Thread-safety: {@link #runOnce} may be called from any thread; concurrent calls contend per partition (the
 * loser skips it).
 */
@ApplicationScoped
public class CompactionCycle {
    private static final Logger LOG = Logger.getLogger(CompactionCycle.class);

    /** What one pass did to one partition. */
    public record Compacted(UUID partitionId, String queue, String partition, long cleanedTo, int rewrites,
            long recordsRead, long recordsRemoved, long bytesRemoved, Duration took) {
    }

    /** Outcome of one cycle: the partitions listed, and the passes made. */
    public record Report(int partitionsListed, int due, List<Compacted> passes) {
        public long recordsRemoved() {
            return passes.stream().mapToLong(Compacted::recordsRemoved).sum();
        }
    }

    private final CompactionStore store;
    private final CompactionMeters meters;
    private final PayloadCipher cipher;
    private final QueenConfig.Compaction config;
    private final int zstdLevel;

    private final BrokerTracing tracing;

    CompactionCycle(CompactionStore store, CompactionMeters meters, PayloadCipher cipher, QueenConfig config,
            BrokerTracing tracing) {
        this.tracing = tracing;
        this.store = store;
        this.meters = meters;
        this.cipher = cipher;
        this.config = config.compaction();
        this.zstdLevel = config.zstdLevel();
    }

    /** Runs one cycle as of {@code now} (tests pass a later instant instead of waiting for lags to pass). */
    public Report runOnce(Instant now) throws SQLException {
        Span span = tracing.start("queen compaction", SpanKind.INTERNAL, null);
        return BrokerTracing.within(span, () -> {
            Report r = cycle(now);
            if (span.isRecording()) {
                span.setAttribute("queen.compaction.passes", r.passes().size())
                        .setAttribute("queen.compaction.records_removed", r.recordsRemoved());
            }
            return r;
        });
    }

    private Report cycle(Instant now) throws SQLException {
        List<CompactionStore.Partition> listed = store.partitions(now, CompactionStore.Defaults.of(config));
        meters.listed(listed);
        List<Compacted> passes = new ArrayList<>();
        int due = 0;
        for (CompactionStore.Partition p : listed) {
            if (!p.due()) {
                break;  // due ones come first
            }
            due++;
            if (passes.size() >= Math.max(1, config.partitionsPerCycle())) {
                continue;
            }
            try {
                Compacted c = compact(p, now);
                if (c != null) {
                    passes.add(c);
                }
            } catch (SQLException | RuntimeException e) {
                // a retention step deleted segments meanwhile, or a damaged blob: the next cycle tries again
                LOG.warnf("compaction of %s/%s skipped: %s", p.queue(), p.partition(), e.toString());
            }
        }
        return new Report(listed.size(), due, passes);
    }

    private Compacted compact(CompactionStore.Partition p, Instant now) throws SQLException {
        long started = System.nanoTime();
        try (CompactionStore.Pass pass = store.open(p.partitionId())) {
            if (pass == null) {
                return null;  // another broker is compacting it
            }
            List<CompactionPass.Segment> segments = pass.segments(p.logStart(), p.cleanableEnd(), p.cleanedTo() + 1,
                    config.maxRecordsPerPass());
            if (segments.isEmpty()) {
                return null;
            }
            long cleanedTo = segments.get(segments.size() - 1).endOffset();
            // tombstones go once the horizon a pass set delete.retention.ms ago covers them; a matured (or no)
            // horizon is replaced by this pass's compaction point, stamped now
            boolean matured = p.horizonAt() != null && !p.horizonAt().toInstant()
                    .isAfter(now.minusMillis(Math.min(p.deleteRetentionMs(), now.toEpochMilli())));
            CompactionPass.Result r = new CompactionPass(cipher::plaintext, cipher::key,
                    config.maxSegmentBytes().asLongValue(), zstdLevel)
                    .run(segments, p.txnsStart(), matured ? p.tombstoneHorizon() : -1);
            boolean renew = matured || p.horizonAt() == null;
            pass.write(r.rewrites(), cleanedTo, r.recordsKept(), r.recordsRemoved(), r.bytesRemoved(), now,
                    renew ? cleanedTo : p.tombstoneHorizon(), renew ? now : p.horizonAt().toInstant());
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            meters.removed(r.recordsRemoved(), r.bytesRemoved(), took);
            LOG.debugf("compacted %s/%s to offset %d: %d records read, %d removed, %d bytes freed, %d segments"
                    + " written, %d ms", p.queue(), p.partition(), cleanedTo, r.recordsRead(), r.recordsRemoved(),
                    r.bytesRemoved(), r.rewrites().size(), took.toMillis());
            return new Compacted(p.partitionId(), p.queue(), p.partition(), cleanedTo, r.rewrites().size(),
                    r.recordsRead(), r.recordsRemoved(), r.bytesRemoved(), took);
        }
    }
}
