package io.queen.connector.health;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Per-channel counters of the connector, published to Micrometer (global registry) when Micrometer is on the
 * class path, with the tag {@code channel} as the Quarkus messaging metrics do. Names:
 * {@code queen.messaging.pops}, {@code queen.messaging.pops.empty}, {@code queen.messaging.received},
 * {@code queen.messaging.acks}, {@code queen.messaging.nacks}, {@code queen.messaging.lease.extensions},
 * {@code queen.messaging.pushes}, {@code queen.messaging.pushed}, {@code queen.messaging.push.failures}, and the
 * gauges {@code queen.messaging.buffered} (received, not yet settled) and {@code queen.messaging.buffered.max}.
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

    private static final class Micrometer {
        static void register(ChannelMetrics m) {
            io.micrometer.core.instrument.MeterRegistry r = io.micrometer.core.instrument.Metrics.globalRegistry;
            if (!m.incoming) {
                counter(r, "queen.messaging.pushes", m, m.pushes);
                counter(r, "queen.messaging.pushed", m, m.pushed);
                counter(r, "queen.messaging.push.failures", m, m.pushFailures);
                return;
            }
            counter(r, "queen.messaging.pops", m, m.pops);
            counter(r, "queen.messaging.pops.empty", m, m.emptyPops);
            counter(r, "queen.messaging.received", m, m.received);
            counter(r, "queen.messaging.acks", m, m.acks);
            counter(r, "queen.messaging.nacks", m, m.nacks);
            counter(r, "queen.messaging.lease.extensions", m, m.leaseExtensions);
            gauge(r, "queen.messaging.buffered", m, m.buffered::get);
            gauge(r, "queen.messaging.buffered.max", m, m.bufferedMax::get);
        }

        static void remove(ChannelMetrics m) {
            for (Object meter : m.meters) {
                io.micrometer.core.instrument.Metrics.globalRegistry.remove((io.micrometer.core.instrument.Meter) meter);
            }
            m.meters.clear();
        }

        private static void counter(io.micrometer.core.instrument.MeterRegistry r, String name, ChannelMetrics m,
                AtomicLong value) {
            m.meters.add(io.micrometer.core.instrument.FunctionCounter.builder(name, value, AtomicLong::doubleValue)
                    .tag("channel", m.channel).register(r));
        }

        private static void gauge(io.micrometer.core.instrument.MeterRegistry r, String name, ChannelMetrics m,
                Supplier<Number> value) {
            m.meters.add(io.micrometer.core.instrument.Gauge.builder(name, value).tag("channel", m.channel).register(r));
        }
    }
}
