package io.queen.kafka.transport;

/**
 * A bean that serves some Kafka APIs: the listener calls every provider once at startup to fill its dispatch
 * table. Adding an API is adding a provider (or a line to one); the listener itself does not change.
 */
public interface KafkaApiProvider {
    void register(KafkaApis apis);
}
