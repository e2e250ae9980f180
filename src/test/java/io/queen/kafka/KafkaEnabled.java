package io.queen.kafka;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/** The Kafka listener on, on a free port, announcing 127.0.0.1. */
public class KafkaEnabled implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("queen.kafka.enabled", "true", "queen.kafka.port", "0",
                "queen.kafka.advertised-host", "127.0.0.1", "queen.kafka.max-frame-bytes", "1M",
                "queen.kafka.default-partitions", "3", "quarkus.log.category.\"org.apache.kafka\".level", "WARN");
    }
}
