package io.queen.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.queen.config.QueenConfig;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;

/**
 * The backlog and lag gauges of {@code /metrics/prometheus}: pending messages and the age of the oldest pending
 * message per queue, and each consumer group's lag per queue in messages and seconds. The figures are computed by
 * one broker per flush interval for the cluster ({@code queen.metrics_backlog_sample_v1}) and read by every broker,
 * so they keep coming (and a stopped group's lag keeps growing) whether or not anything pops.
 *
 * <p>Cardinality: labels as {@code queen.metrics_backlog_read_v1} gives them, at most
 * {@code queen.metrics.max-queues} queue labels and {@code queen.metrics.max-groups} group labels plus
 * {@code _other}; never a label per partition. Ages grow between two readings (age at the reading plus the time
 * since), so an alert on them needs no fresh sample to fire.
 *
 * <p>Thread-safety: {@link #update} is called by the flusher thread only; scrapes read immutable rows.
 */
@Singleton
public class BacklogFamilies {
    /** One labelled figure: {@code group} empty for the queue's own row; {@code ageSeconds} NaN = nothing pending. */
    public record Row(String queue, String group, long messages, double ageSeconds) {
    }

    /** A reading's rows with the time they were read (for the growing ages). */
    private record Reading(Row row, long readNanos) {
        double age() {
            return Double.isNaN(row.ageSeconds()) ? 0 : row.ageSeconds() + (System.nanoTime() - readNanos) / 1e9;
        }
    }

    private final MeterRegistry registry;
    private final List<MultiGauge> multis = new ArrayList<>();
    private MultiGauge pending;
    private MultiGauge oldest;
    private MultiGauge lagMessages;
    private MultiGauge lagSeconds;
    private Gauge sampledAge;
    /** Seconds since the figures were computed at the last reading (NaN = never), and when that was read. */
    private volatile double sampledAgeSeconds = Double.NaN;
    private volatile long sampledReadNanos = System.nanoTime();
    /** The published readings, held here: a gauge keeps only a weak reference to the object it reads. */
    private volatile List<Reading> current = List.of();

    /** {@code queen.metrics.max-groups}, refused (the broker does not start) when negative. */
    public static int maxGroups(QueenConfig config) {
        int n = config.metrics().maxGroups();
        if (n < 0) {
            throw new IllegalArgumentException("queen.metrics.max-groups (QUEEN_METRICS_MAX_GROUPS) must be 0 or more,"
                    + " got " + n);
        }
        return n;
    }

    BacklogFamilies(MeterRegistry registry) {
        this.registry = registry;
    }

    void register(@Observes StartupEvent event) {
        pending = multi("queen.queue.pending.messages",
                "messages of the queue no consumer has consumed yet (as of the last backlog sample)");
        oldest = multi("queen.queue.oldest.pending.age.seconds",
                "age of the oldest pending message of the queue, seconds (0 = nothing pending); grows between samples");
        lagMessages = multi("queen.group.lag.messages",
                "messages of the queue the consumer group has not consumed (as of the last backlog sample)");
        lagSeconds = multi("queen.group.lag.seconds",
                "age of the oldest message of the queue the consumer group has not consumed, seconds (0 = caught"
                        + " up); grows between samples, also when the group stopped popping");
        sampledAge = Gauge.builder("queen.backlog.sample.age.seconds", this,
                        f -> f.sampledAgeSeconds + (System.nanoTime() - f.sampledReadNanos) / 1e9)
                .description("seconds since the backlog and lag gauges were computed (NaN = not yet)")
                .register(registry);
    }

    private MultiGauge multi(String name, String help) {
        MultiGauge g = MultiGauge.builder(name).description(help).register(registry);
        multis.add(g);
        return g;
    }

    void unregister(@Observes ShutdownEvent event) {
        for (MultiGauge g : multis) {
            g.register(List.of(), true);
        }
        if (sampledAge != null) {
            registry.remove(sampledAge);
        }
    }

    /** Publishes a reading of the stored figures, computed {@code sampledAgeSeconds} ago (NaN = never). */
    public void update(List<Row> rows, double sampledAgeSeconds) {
        long now = System.nanoTime();
        List<MultiGauge.Row<?>> pm = new ArrayList<>();
        List<MultiGauge.Row<?>> oa = new ArrayList<>();
        List<MultiGauge.Row<?>> lm = new ArrayList<>();
        List<MultiGauge.Row<?>> ls = new ArrayList<>();
        List<Reading> readings = new ArrayList<>(rows.size());
        for (Row r : rows) {
            Reading reading = new Reading(r, now);
            readings.add(reading);
            boolean queueRow = r.group().isEmpty();
            Tags tags = queueRow ? Tags.of("queue", r.queue()) : Tags.of("queue", r.queue(), "group", r.group());
            (queueRow ? pm : lm).add(MultiGauge.Row.of(tags, r.messages()));
            (queueRow ? oa : ls).add(MultiGauge.Row.of(tags, reading, Reading::age));
        }
        current = readings;
        pending.register(pm, true);
        oldest.register(oa, true);
        lagMessages.register(lm, true);
        lagSeconds.register(ls, true);
        this.sampledAgeSeconds = sampledAgeSeconds;
        this.sampledReadNanos = now;
    }
}
