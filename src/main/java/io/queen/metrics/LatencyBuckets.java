package io.queen.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Set;

/**
 * The histogram buckets of the broker's latency timers: one small fixed set (12 bounds, 1 ms to 30 s: a long-poll
 * pop waits up to its timeout) for the HTTP server requests ({@code http_server_requests_seconds}, per route
 * template) and the Kafka listener's requests ({@code queen_kafka_request_seconds}, per API), so p99 can be read
 * from {@code histogram_quantile} while the series stay bounded by routes (or APIs) x buckets. Micrometer's
 * percentile histogram (about 70 buckets per series) is not used: a fixed set costs less per scrape and per
 * record. Quarkus applies every {@link MeterFilter} bean to the registry.
 */
@Singleton
public class LatencyBuckets {
    /** Timers that get the buckets. */
    static final Set<String> TIMERS = Set.of("http.server.requests", "queen.kafka.request");
    static final double[] BOUNDS_NANOS = nanos(1, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 10_000, 30_000);

    private static double[] nanos(long... millis) {
        double[] out = new double[millis.length];
        for (int i = 0; i < millis.length; i++) {
            out[i] = Duration.ofMillis(millis[i]).toNanos();
        }
        return out;
    }

    @Produces
    @Singleton
    MeterFilter latencyBuckets() {
        return new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (!TIMERS.contains(id.getName())) {
                    return config;
                }
                return DistributionStatisticConfig.builder().percentilesHistogram(false)
                        .serviceLevelObjectives(BOUNDS_NANOS).build().merge(config);
            }
        };
    }
}
