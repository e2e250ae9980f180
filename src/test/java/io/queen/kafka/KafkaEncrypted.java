package io.queen.kafka;

/** The Kafka listener on, and a payload encryption key, so {@code encryptionEnabled} queues can be written and read. */
public class KafkaEncrypted extends KafkaEnabled {
    public KafkaEncrypted() {
        super("queen.encryption-key", "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff");
    }
}
