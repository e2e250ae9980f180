package io.queen.connector.health;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Per-channel counters of the connector, published to Micrometer (global registry) when Micrometer is on the
 * class path, with the tag {@code channel} as the Quarkus messaging metrics do. {@link #DESCRIPTIONS} lists every
 * meter with its help text (Prometheus {@code # HELP}); the README's metrics table is generated from it.
 * Transactional acks count as acks of their input channel and {@code toChannel} outputs as pushes of their
 * output channel, so the counters say what reached the broker whichever way it was sent.
 * <p>
 * The counters are always kept locally too (tests and health read them). Thread-safe: atomics only.
 */
public final class ChannelMetrics {

    private static final boolean MICROMETER = TraceIds.present("io.micrometer.core.instrument.Metrics");

    public final AtomicLong pops = new AtomicLong();
    public final AtomicLong emptyPops = new AtomicLong();
    public final AtomicLong received = new AtomicLong();
    public final AtomicLong acks = new AtomicLong();
    public final AtomicLong nacks = new AtomicLong();
    public final AtomicLong leaseExtensions = new AtomicLong();
    public final AtomicLong pushes = new AtomicLong();
    public final AtomicLong pushed = new AtomicLong();
    public final AtomicLong pushFailures = new AtomicLong();
    public final AtomicLong buffered = new AtomicLong();
    public final AtomicLong bufferedMax = new AtomicLong();
    public final AtomicLong lag = new AtomicLong();
    public final AtomicLong transactionPushed = new AtomicLong();

    private final String channel;
    /** Micrometer meters registered for this channel (typed Object so that Micrometer stays optional). */
    private final java.util.List<Object> meters = new java.util.concurrent.CopyOnWriteArrayList<>();

    private final boolean incoming;

    /** @param incoming true for an incoming channel (pop/ack meters), false for an outgoing one (push meters) */
    public ChannelMetrics(String channel, boolean incoming) {
        this.channel = channel;
        this.incoming = incoming;
        if (MICROMETER) {
            try {
                Micrometer.register(this);
            } catch (LinkageError e) {
                // Micrometer classes present but unusable: metrics stay local.
            }
        }
    }

    /** Unregisters the channel's meters (the channel is gone; a new one with the same name registers anew). */
    public void close() {
        if (MICROMETER && !meters.isEmpty()) {
            try {
                Micrometer.remove(this);
            } catch (LinkageError e) {
                // nothing registered
            }
        }
    }

    public String channel() {
        return channel;
    }

    /** Adds {@code delta} to the buffered count and keeps the high-water mark. */
    public void buffered(long delta) {
        long now = buffered.addAndGet(delta);
        bufferedMax.accumulateAndGet(now, Math::max);
    }

    /**
     * One published meter: Micrometer name (Prometheus: dots become underscores, counters get {@code _total}),
     * direction, kind and the help text shown as {@code # HELP}.
     */
    public record Meter(String name, boolean incoming, boolean gauge, String help,
            java.util.function.Function<ChannelMetrics, AtomicLong> value) {
    }

    /** Every meter the connector registers, in the order of the README's metrics table. */
    public static final java.util.List<Meter> DESCRIPTIONS = java.util.List.of(
            new Meter("queen.messaging.pops", true, false,
                    "Pop requests sent by the incoming channel (long polls included)", m -> m.pops),
            new Meter("queen.messaging.pops.empty", true, false,
                    "Pops that returned no message (long-poll timeout or empty queue)", m -> m.emptyPops),
            new Meter("queen.messaging.received", true, false,
                    "Messages received from the broker by the incoming channel", m -> m.received),
            new Meter("queen.messaging.acks", true, false,
                    "Messages acknowledged as completed on the broker (ack batches and transactions)", m -> m.acks),
            new Meter("queen.messaging.nacks", true, false,
                    "Messages nacked by the application (the failure strategy applied)", m -> m.nacks),
            new Meter("queen.messaging.lease.extensions", true, false,
                    "Lease extensions granted by the broker while a batch was being processed", m -> m.leaseExtensions),
            new Meter("queen.messaging.buffered", true, true,
                    "Messages received and not yet settled (fetched ahead of processing or in processing)",
                    m -> m.buffered),
            new Meter("queen.messaging.buffered.max", true, true,
                    "High-water mark of queen.messaging.buffered since the channel started", m -> m.bufferedMax),
            new Meter("queen.messaging.consumer.lag", true, true,
                    "Messages of the channel's queue (its partition, when it pops one) not yet consumed by its consumer group, as the broker last reported it (polled every lag-interval ms)",
                    m -> m.lag),
            new Meter("queen.messaging.pushes", false, false,
                    "Push requests sent for the outgoing channel (including transactions writing to it)", m -> m.pushes),
            new Meter("queen.messaging.pushed", false, false,
                    "Messages the broker confirmed for the outgoing channel (queued or duplicate; through the channel or QueenTransactions.toChannel)",
                    m -> m.pushed),
            new Meter("queen.messaging.pushed.transactional", false, false,
                    "Messages QueenTransactions.toChannel wrote to the outgoing channel's queue, committed (part of queen.messaging.pushed; SmallRye's message counter does not see them)",
                    m -> m.transactionPushed),
            new Meter("queen.messaging.push.failures", false, false,
                    "Messages of the outgoing channel that the broker refused or that could not be sent (nacked)",
                    m -> m.pushFailures));

    private static final class Micrometer {
        static void register(ChannelMetrics m) {
            io.micrometer.core.instrument.MeterRegistry r = io.micrometer.core.instrument.Metrics.globalRegistry;
            for (Meter d : DESCRIPTIONS) {
                if (d.incoming() != m.incoming) {
                    continue;
                }
                AtomicLong value = d.value().apply(m);
                if (d.gauge()) {
                    m.meters.add(io.micrometer.core.instrument.Gauge.builder(d.name(), value, AtomicLong::doubleValue)
                            .description(d.help()).tag("channel", m.channel).strongReference(true).register(r));
                } else {
                    m.meters.add(io.micrometer.core.instrument.FunctionCounter
                            .builder(d.name(), value, AtomicLong::doubleValue)
                            .description(d.help()).tag("channel", m.channel).register(r));
                }
            }
        }

        static void remove(ChannelMetrics m) {
            for (Object meter : m.meters) {
                io.micrometer.core.instrument.Metrics.globalRegistry.remove((io.micrometer.core.instrument.Meter) meter);
            }
            m.meters.clear();
        }
    }
}
