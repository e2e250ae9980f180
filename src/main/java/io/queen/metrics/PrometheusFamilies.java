package io.queen.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Meter;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import io.queen.config.QueenConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.ToDoubleFunction;

/**
 * The broker-operations families of {@code /metrics/prometheus} (API spec 4.14), next to Micrometer's own: process
 * ({@code queen_uptime_seconds}, {@code queen_cpu_*_microseconds_total}, {@code queen_process_*_memory_bytes}), DB
 * pool ({@code queen_db_pool_size|idle|active}), cluster lifetime totals with {@code scope="cluster"}, per-queue
 * last-minute gauges labelled {@code queue}, and DLQ depth.
 *
 * <p>Cardinality: one series per queue label and family, never per partition or consumer group; the labels are
 * {@link OpsMeter}'s (at most {@code queen.metrics.max-queues} plus {@code _other}), so a scrape stays bounded.
 * The endpoint is public, so only queues of the default tenant are named; other tenants' queues count in
 * {@code _other} (and in the cluster totals). The
 * per-queue and cluster values are what the last flush computed (at most one flush interval old,
 * {@code queen_queue_metrics_age_seconds}); parked consumers are live.
 *
 * <p>Thread-safety: {@link #update} is called by the flusher thread only; scrapes read volatile snapshots.
 */
@Singleton
public class PrometheusFamilies {
    /** Index of each cluster total in {@link #cluster}. */
    public static final int C_PUSH_MESSAGES = 0;
    public static final int C_PUSH_REQUESTS = 1;
    public static final int C_POP_MESSAGES = 2;
    public static final int C_POP_REQUESTS = 3;
    public static final int C_ACK_MESSAGES = 4;
    public static final int C_ACK_REQUESTS = 5;
    public static final int C_ACK = 6;
    public static final int C_TRANSACTIONS = 7;
    public static final int C_DLQ = 8;
    public static final int C_DB_ERRORS = 9;

    private final MeterRegistry registry;
    private final ProcessStats process;
    private final OpsMeter meter;
    private final UUID defaultTenant;
    private final AtomicLongArray cluster = new AtomicLongArray(10);
    private volatile long dlqTotal;
    private volatile long lastUpdateNanos = System.nanoTime();
    /** What this instance registered; removed at shutdown (in tests the registry outlives one application). */
    private final List<Meter> registered = new ArrayList<>();
    private final List<MultiGauge> multis = new ArrayList<>();
    private MultiGauge pushMessages;
    private MultiGauge pushRequests;
    private MultiGauge popMessages;
    private MultiGauge popEmpty;
    private MultiGauge acks;
    private MultiGauge transactions;
    private MultiGauge lag;
    private MultiGauge parked;
    private MultiGauge dlqByQueue;

    PrometheusFamilies(MeterRegistry registry, ProcessStats process, OpsMeter meter, QueenConfig config) {
        this.defaultTenant = UUID.fromString(config.defaultTenant());
        this.registry = registry;
        this.process = process;
        this.meter = meter;
    }

    void register(@Observes StartupEvent event) {
        keep(Gauge.builder("queen.uptime.seconds", process, ProcessStats::uptimeSeconds)
                .description("seconds since this broker started").register(registry));
        keep(FunctionCounter.builder("queen.cpu.user.microseconds", process, p -> p.cpuMicros()[0])
                .description("CPU time this broker process spent in user mode, microseconds").register(registry));
        keep(FunctionCounter.builder("queen.cpu.system.microseconds", process, p -> p.cpuMicros()[1])
                .description("CPU time this broker process spent in the kernel, microseconds").register(registry));
        keep(Gauge.builder("queen.process.resident.memory.bytes", process, p -> p.memoryBytes()[0])
                .description("resident set size of this broker process (-1 when unknown)").register(registry));
        keep(Gauge.builder("queen.process.virtual.memory.bytes", process, p -> p.memoryBytes()[1])
                .description("virtual memory size of this broker process (-1 when unknown)").register(registry));
        keep(Gauge.builder("queen.db.pool.size", process, ProcessStats::poolMax)
                .description("maximum connections of this broker's database pool").register(registry));
        keep(Gauge.builder("queen.db.pool.active", process, ProcessStats::poolActive)
                .description("database connections in use right now").register(registry));
        keep(Gauge.builder("queen.db.pool.idle", process, ProcessStats::poolIdle)
                .description("open database connections not in use right now").register(registry));
        keep(Gauge.builder("queen.db.pool.waiting", process, ProcessStats::poolWaiting)
                .description("threads waiting for a database connection right now").register(registry));

        total("queen.cluster.push.messages", C_PUSH_MESSAGES, "messages pushed, all brokers, lifetime");
        total("queen.cluster.push.requests", C_PUSH_REQUESTS, "push requests (per queue named), all brokers, lifetime");
        total("queen.cluster.pop.messages", C_POP_MESSAGES, "messages delivered by pops, all brokers, lifetime");
        total("queen.cluster.pop.requests", C_POP_REQUESTS, "pop requests, all brokers, lifetime");
        total("queen.cluster.ack.messages", C_ACK_MESSAGES, "positive acks applied, all brokers, lifetime");
        total("queen.cluster.ack.requests", C_ACK_REQUESTS, "ack requests (per queue named), all brokers, lifetime");
        total("queen.cluster.ack", C_ACK, "acks applied, positive or failed, all brokers, lifetime");
        total("queen.cluster.transactions", C_TRANSACTIONS, "transactions committed (per queue), all brokers, lifetime");
        total("queen.cluster.dlq", C_DLQ, "messages dead-lettered, all brokers, lifetime");
        total("queen.cluster.db.errors", C_DB_ERRORS, "database errors answered to clients, all brokers, lifetime");
        keep(Gauge.builder("queen.dlq.depth", this, f -> f.dlqTotal).tag("scope", "cluster")
                .description("dead letters stored, all queues" + AS_OF_FLUSH).register(registry));
        keep(Gauge.builder("queen.queue.metrics.age.seconds", this, f -> (System.nanoTime() - f.lastUpdateNanos) / 1e9)
                .description("seconds since the per-queue gauges and cluster totals were refreshed").register(registry));

        pushMessages = flushed("queen.queue.push.messages.per.minute", "messages pushed to the queue in the last minute");
        pushRequests = flushed("queen.queue.push.requests.per.minute", "push requests naming the queue in the last minute");
        popMessages = flushed("queen.queue.pop.messages.per.minute", "messages delivered from the queue in the last minute");
        popEmpty = flushed("queen.queue.pop.empty.per.minute", "pops of the queue that found nothing in the last minute");
        acks = flushed("queen.queue.ack.per.minute", "acks (positive or failed) applied on the queue in the last minute");
        transactions = flushed("queen.queue.transactions.per.minute",
                "transactions touching the queue in the last minute");
        lag = flushed("queen.queue.pop.lag.milliseconds",
                "age of messages when delivered in the last minute (stat=avg|max), milliseconds");
        parked = multi("queen.queue.parked.consumers", "pops waiting on the queue right now");
        dlqByQueue = flushed("queen.dlq.depth.by.queue", "dead letters stored for the queue");
        // hook for the maintenance feature: it registers queen_maintenance_mode_enabled itself
    }

    /** Said in the help of every figure the flush computes: it trails by up to one flush interval. */
    static final String AS_OF_FLUSH = " (as of the last flush: trails by up to a minute)";

    private void total(String name, int index, String help) {
        keep(FunctionCounter.builder(name, cluster, a -> a.get(index)).tag("scope", "cluster")
                .description(help + AS_OF_FLUSH).register(registry));
    }

    private MultiGauge flushed(String name, String help) {
        return multi(name, help + AS_OF_FLUSH);
    }

    private MultiGauge multi(String name, String help) {
        MultiGauge g = MultiGauge.builder(name).description(help).register(registry);
        multis.add(g);
        return g;
    }

    private void keep(Meter m) {
        registered.add(m);
    }

    void unregister(@Observes ShutdownEvent event) {
        for (MultiGauge g : multis) {
            g.register(List.of(), true);
        }
        for (Meter m : registered) {
            registry.remove(m);
        }
    }

    /**
     * Publishes a flush: this broker's per-queue counts of the flush interval (one minute unless
     * {@code queen.metrics.flush-ms} says otherwise; not rescaled, so they are exact counts), the cluster totals
     * (indexed by the {@code C_*} constants, null = unchanged) and DLQ depth by queue (null = unchanged).
     */
    public void update(List<OpsMeter.Sample> samples, long[] clusterTotals, Map<String, Long> dlqDepth) {
        // one row per label: a queue of another tenant is summed into _other (the endpoint is public)
        Map<String, long[]> byLabel = new LinkedHashMap<>();
        for (OpsMeter.Sample s : samples) {
            if (s.queue() == null) {
                continue;  // broker totals
            }
            long[] v = s.values();
            long[] into = byLabel.computeIfAbsent(label(s.tenant(), s.queue()), k -> new long[OpsMeter.FIELDS]);
            for (int i = 0; i < OpsMeter.COUNTERS; i++) {
                into[i] += v[i];
            }
            into[OpsMeter.LAG_MAX_MS] = Math.max(into[OpsMeter.LAG_MAX_MS], v[OpsMeter.LAG_MAX_MS]);
        }
        List<MultiGauge.Row<?>> pm = new ArrayList<>();
        List<MultiGauge.Row<?>> pr = new ArrayList<>();
        List<MultiGauge.Row<?>> po = new ArrayList<>();
        List<MultiGauge.Row<?>> pe = new ArrayList<>();
        List<MultiGauge.Row<?>> ak = new ArrayList<>();
        List<MultiGauge.Row<?>> tx = new ArrayList<>();
        List<MultiGauge.Row<?>> lg = new ArrayList<>();
        for (Map.Entry<String, long[]> e : byLabel.entrySet()) {
            long[] v = e.getValue();
            Tags q = Tags.of("queue", e.getKey());
            pm.add(MultiGauge.Row.of(q, v[OpsMeter.PUSH_MESSAGES]));
            pr.add(MultiGauge.Row.of(q, v[OpsMeter.PUSH_REQUESTS]));
            po.add(MultiGauge.Row.of(q, v[OpsMeter.POP_MESSAGES]));
            pe.add(MultiGauge.Row.of(q, v[OpsMeter.POP_EMPTY]));
            ak.add(MultiGauge.Row.of(q, (v[OpsMeter.ACK_MESSAGES] + v[OpsMeter.ACK_FAILED])));
            tx.add(MultiGauge.Row.of(q, v[OpsMeter.TRANSACTIONS]));
            long n = v[OpsMeter.LAG_COUNT];
            lg.add(MultiGauge.Row.of(q.and("stat", "avg"), n == 0 ? 0 : (double) v[OpsMeter.LAG_SUM_MS] / n));
            lg.add(MultiGauge.Row.of(q.and("stat", "max"), v[OpsMeter.LAG_MAX_MS]));
        }
        pushMessages.register(pm, true);
        pushRequests.register(pr, true);
        popMessages.register(po, true);
        popEmpty.register(pe, true);
        acks.register(ak, true);
        transactions.register(tx, true);
        lag.register(lg, true);
        Map<String, List<OpsMeter.QueueMeter>> parkedBy = new LinkedHashMap<>();
        for (OpsMeter.QueueMeter m : meter.meters()) {
            parkedBy.computeIfAbsent(label(m.tenant(), m.queue()), k -> new ArrayList<>()).add(m);
        }
        List<MultiGauge.Row<?>> pk = new ArrayList<>();
        for (Map.Entry<String, List<OpsMeter.QueueMeter>> e : parkedBy.entrySet()) {
            pk.add(MultiGauge.Row.of(Tags.of("queue", e.getKey()), e.getValue(),
                    (ToDoubleFunction<List<OpsMeter.QueueMeter>>) ms -> {
                        long n = 0;
                        for (OpsMeter.QueueMeter m : ms) {
                            n += m.parkedNow();
                        }
                        return n;
                    }));
        }
        parked.register(pk, true);
        if (clusterTotals != null) {
            for (int i = 0; i < clusterTotals.length; i++) {
                cluster.set(i, clusterTotals[i]);
            }
        }
        if (dlqDepth != null) {
            List<MultiGauge.Row<?>> dq = new ArrayList<>();
            long sum = 0;
            for (Map.Entry<String, Long> e : dlqDepth.entrySet()) {
                dq.add(MultiGauge.Row.of(Tags.of("queue", e.getKey()), e.getValue()));
                sum += e.getValue();
            }
            dlqByQueue.register(dq, true);
            dlqTotal = sum;
        }
        lastUpdateNanos = System.nanoTime();
    }

    /**
     * The {@code queue} label of a meter: its name for a queue of the default tenant; {@link OpsMeter#OTHER} for
     * the meters beyond the cap and for every other tenant's queue, whose names the public endpoint never shows.
     */
    private String label(UUID tenant, String queue) {
        return tenant != null && tenant.equals(defaultTenant) ? queue : OpsMeter.OTHER;
    }
}
