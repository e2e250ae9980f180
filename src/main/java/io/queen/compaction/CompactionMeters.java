package io.queen.compaction;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.queen.config.QueenConfig;
import io.queen.metrics.OpsMeter;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The compaction duty's meters: records and bytes removed (counters), pass time, and per compacted queue (not per
 * partition: a queue may have thousands) the largest dirty ratio and compaction lag among its partitions, as this
 * broker last listed them. The labels follow the metrics' cardinality rule (docs/operating.md): only the default
 * tenant's queues are named, at most {@code queen.metrics.max-queues} of them, the rest summed up under
 * {@code queue="_other"} (its largest values). Thread-safe.
 */
@ApplicationScoped
public class CompactionMeters {
    private final MeterRegistry registry;
    private final Counter records;
    private final Counter bytes;
    private final Timer passes;
    /** Queue name -> {dirty ratio as raw double bits, lag ms}; a queue no longer listed reads 0. */
    private final Map<String, AtomicLong[]> queues = new ConcurrentHashMap<>();

    private final UUID defaultTenant;
    private final int maxQueues;

    CompactionMeters(MeterRegistry registry, QueenConfig config) {
        this.registry = registry;
        this.defaultTenant = UUID.fromString(config.defaultTenant());
        this.maxQueues = config.metrics().maxQueues();
        this.records = Counter.builder("queen_compaction_records_removed_total")
                .description("Records compaction replaced by holes (a later record has their key, or an expired tombstone)")
                .register(registry);
        this.bytes = Counter.builder("queen_compaction_bytes_removed_total")
                .description("Segment blob bytes compaction freed").register(registry);
        this.passes = Timer.builder("queen_compaction_pass_seconds")
                .description("One compaction pass over one partition, read to commit").register(registry);
    }

    void removed(long recordCount, long byteCount, Duration took) {
        records.increment(recordCount);
        bytes.increment(Math.max(0, byteCount));
        passes.record(took);
    }

    /** The listing of every compacted partition: each queue's largest dirty ratio and lag. */
    void listed(List<CompactionStore.Partition> partitions) {
        Map<String, double[]> max = new HashMap<>();
        for (CompactionStore.Partition p : partitions) {
            boolean named = defaultTenant.equals(p.tenant())
                    && (queues.containsKey(p.queue()) || queues.size() + max.size() < maxQueues);
            double[] m = max.computeIfAbsent(named ? p.queue() : OpsMeter.OTHER, q -> new double[2]);
            m[0] = Math.max(m[0], p.dirtyRatio());
            m[1] = Math.max(m[1], p.lagMs());
        }
        for (Map.Entry<String, AtomicLong[]> e : queues.entrySet()) {
            if (!max.containsKey(e.getKey())) {
                e.getValue()[0].set(Double.doubleToRawLongBits(0));
                e.getValue()[1].set(0);
            }
        }
        max.forEach((queue, m) -> {
            AtomicLong[] g = queues.computeIfAbsent(queue, this::register);
            g[0].set(Double.doubleToRawLongBits(m[0]));
            g[1].set((long) m[1]);
        });
    }

    private AtomicLong[] register(String queue) {
        AtomicLong[] g = {new AtomicLong(Double.doubleToRawLongBits(0)), new AtomicLong()};
        Gauge.builder("queen_compaction_dirty_ratio", g[0], v -> Double.longBitsToDouble(v.get()))
                .description("Largest dirty ratio among the queue's partitions (bytes after the compaction point / all)")
                .tag("queue", queue).register(registry);
        Gauge.builder("queen_compaction_lag_seconds", g[1], v -> v.get() / 1000.0)
                .description("Age of the oldest uncompacted segment among the queue's partitions")
                .tag("queue", queue).register(registry);
        return g;
    }
}
