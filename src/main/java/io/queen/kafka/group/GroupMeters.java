package io.queen.kafka.group;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.queen.config.QueenConfig;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;

/**
 * The Kafka groups' Prometheus families, while the Kafka listener is on: rebalances since start
 * ({@code queen_kafka_group_rebalances_total}: a classic group's completed generation, a consumer group's epoch bump)
 * and members right now ({@code queen_kafka_group_members}) of the groups this broker coordinates, labelled
 * {@code protocol="classic"|"consumer"}: two series each, whatever the groups. Read at scrape time; nothing is
 * added to a group operation but a striped increment.
 */
@Singleton
class GroupMeters {
    private final MeterRegistry registry;
    private final GroupCoordinator coordinator;
    private final boolean enabled;
    private final List<Meter> registered = new ArrayList<>();

    GroupMeters(MeterRegistry registry, GroupCoordinator coordinator, QueenConfig config) {
        this.registry = registry;
        this.coordinator = coordinator;
        this.enabled = config.kafka().enabled();
    }

    void register(@Observes StartupEvent event) {
        if (!enabled) {
            return;
        }
        for (boolean classic : new boolean[] {true, false}) {
            String protocol = classic ? "classic" : "consumer";
            registered.add(FunctionCounter.builder("queen.kafka.group.rebalances", coordinator,
                            c -> c.rebalances(classic)).tag("protocol", protocol)
                    .description("rebalances of the Kafka groups this broker coordinates, since start (classic: a"
                            + " generation completed; consumer: a new group epoch)").register(registry));
            registered.add(Gauge.builder("queen.kafka.group.members", coordinator, c -> c.members(classic))
                    .tag("protocol", protocol)
                    .description("members of the Kafka groups this broker coordinates, right now").register(registry));
        }
    }

    void unregister(@Observes ShutdownEvent event) {
        registered.forEach(registry::remove);
    }
}
