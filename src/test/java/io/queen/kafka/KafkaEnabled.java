package io.queen.kafka;

import io.queen.testing.Settings;

/** The Kafka listener on, on a free port, announcing 127.0.0.1. */
public class KafkaEnabled extends Settings {
    public KafkaEnabled() {
        super("queen.kafka.enabled", "true", "queen.kafka.port", "0", "queen.kafka.advertised-host", "127.0.0.1",
                "queen.kafka.max-frame-bytes", "1M", "queen.kafka.max-batch-bytes", "256K",
                "queen.kafka.default-partitions", "3",
                "quarkus.log.category.\"org.apache.kafka\".level", "WARN");
    }
}
