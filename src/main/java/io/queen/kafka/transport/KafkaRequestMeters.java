package io.queen.kafka.transport;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The Kafka listener's Prometheus families: requests and their latency per API ({@code queen_kafka_request_seconds},
 * a histogram labelled {@code api} with the API's name, buckets from {@code metrics.LatencyBuckets}), failed requests
 * per API ({@code queen_kafka_request_errors_total}: answered with the API's error answer because the handler failed
 * or the request was refused) and open connections ({@code queen_kafka_connections}).
 *
 * <p>Cardinality: one label value per API key, so bounded by the protocol's key set; an API's meters are created at
 * its first request and then found by key id in an array (no map lookup, no string built per request).
 * Thread-safe.
 */
final class KafkaRequestMeters {
    private record ApiMeters(Timer latency, Counter errors) {
    }

    private final MeterRegistry registry;
    private final AtomicReferenceArray<ApiMeters> byKey;
    private final AtomicInteger connections = new AtomicInteger();
    private final List<Meter> registered = new CopyOnWriteArrayList<>();

    KafkaRequestMeters(MeterRegistry registry) {
        this.registry = registry;
        int max = 0;
        for (ApiKeys k : ApiKeys.values()) {
            max = Math.max(max, k.id);
        }
        this.byKey = new AtomicReferenceArray<>(max + 1);
        registered.add(Gauge.builder("queen.kafka.connections", connections, AtomicInteger::get)
                .description("open connections of the Kafka listener").register(registry));
    }

    /** A request of {@code key} answered {@code nanos} after it was parsed; {@code failed}: an error answer. */
    void answered(ApiKeys key, long nanos, boolean failed) {
        ApiMeters m = byKey.get(key.id);
        if (m == null) {
            m = create(key);
        }
        m.latency().record(nanos, TimeUnit.NANOSECONDS);
        if (failed) {
            m.errors().increment();
        }
    }

    private synchronized ApiMeters create(ApiKeys key) {
        ApiMeters m = byKey.get(key.id);
        if (m == null) {
            String api = key.name;
            m = new ApiMeters(Timer.builder("queen.kafka.request").tag("api", api)
                    .description("Kafka requests answered by this broker and their latency (parsed to answered),"
                            + " per API").register(registry),
                    Counter.builder("queen.kafka.request.errors").tag("api", api)
                            .description("Kafka requests answered with an error answer (the handler failed or the"
                                    + " request was refused), per API").register(registry));
            registered.add(m.latency());
            registered.add(m.errors());
            byKey.set(key.id, m);
        }
        return m;
    }

    void connectionOpened() {
        connections.incrementAndGet();
    }

    void connectionClosed() {
        connections.decrementAndGet();
    }

    /** Removes what this instance registered (the listener stopped; in tests the registry outlives it). */
    void remove() {
        registered.forEach(registry::remove);
    }
}
