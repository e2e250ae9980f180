package io.queen.kafka.cluster;

import io.queen.config.QueenConfig;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * With the Kafka listener on, readiness is DOWN until this broker holds its Kafka node id: Metadata would not name
 * it before (the listener opens, and the broker registers, once the database answers). Stateless; thread-safe.
 */
@Readiness
@ApplicationScoped
public class KafkaReadiness implements HealthCheck {
    private final QueenConfig config;
    private final BrokerRegistry registry;

    KafkaReadiness(QueenConfig config, BrokerRegistry registry) {
        this.config = config;
        this.registry = registry;
    }

    @Override
    public HealthCheckResponse call() {
        if (!config.kafka().enabled()) {
            return HealthCheckResponse.up("queen-kafka");
        }
        boolean up = registry.registered();
        return HealthCheckResponse.named("queen-kafka").status(up)
                .withData("node", up ? "registered as " + registry.nodeId() : "waiting for the database").build();
    }
}
