package io.queen.tracing;

import io.queen.kafka.KafkaEnabled;

/** The Kafka listener on and broker spans on, exported to {@link SpanCapture}. */
public class TracingEnabled extends KafkaEnabled {
    public TracingEnabled() {
        super("queen.tracing.enabled", "true", "queen.tracing.max-links", "4");
    }
}
