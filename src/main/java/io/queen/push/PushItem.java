package io.queen.push;

import java.util.UUID;

/**
 * One validated item of a push request. {@code payload} holds the JSON value's bytes exactly as the client
 * sent them, or with {@code kafkaRecord} a Kafka record's binary form (frame flag 8); {@code transactionId} is never
 * null (minted from the message id when the client sent none). {@code producerSubUtf8} is the authenticated
 * producer's subject (frame flag 2), never taken from the body; null without authentication. {@code spanId} and
 * {@code traceFlags} are the producer's span from a W3C {@code traceparent} (frame flag 16; 0 without one, and
 * never without a {@code traceId}). {@code key} is the message's key for log compaction (frame flag 32): the UTF-8
 * of the item's {@code key} field, or with {@code encrypted} its encryption envelope; null without one, and never
 * with {@code kafkaRecord}.
 */
public record PushItem(int index, String queue, String partition, String transactionId, byte[] transactionIdUtf8,
        UUID traceId, UUID messageId, byte[] payload, boolean encrypted, byte[] producerSubUtf8,
        boolean kafkaRecord, long spanId, byte traceFlags, byte[] key) {

    /** An item without a key. */
    public PushItem(int index, String queue, String partition, String transactionId, byte[] transactionIdUtf8,
            UUID traceId, UUID messageId, byte[] payload, boolean encrypted, byte[] producerSubUtf8,
            boolean kafkaRecord, long spanId, byte traceFlags) {
        this(index, queue, partition, transactionId, transactionIdUtf8, traceId, messageId, payload, encrypted,
                producerSubUtf8, kafkaRecord, spanId, traceFlags, null);
    }

    /** An item without a span context. */
    public PushItem(int index, String queue, String partition, String transactionId, byte[] transactionIdUtf8,
            UUID traceId, UUID messageId, byte[] payload, boolean encrypted, byte[] producerSubUtf8,
            boolean kafkaRecord) {
        this(index, queue, partition, transactionId, transactionIdUtf8, traceId, messageId, payload, encrypted,
                producerSubUtf8, kafkaRecord, 0, (byte) 0);
    }

    /** An item without a producer subject (what the parsers build; {@link #withProducerSub} stamps one). */
    public PushItem(int index, String queue, String partition, String transactionId, byte[] transactionIdUtf8,
            UUID traceId, UUID messageId, byte[] payload, boolean encrypted) {
        this(index, queue, partition, transactionId, transactionIdUtf8, traceId, messageId, payload, encrypted, null,
                false);
    }

    /**
     * The same item carrying encryption envelopes instead of its plaintext payload and key (frame flag 4);
     * {@code keyEnvelope} is null when the item has no key.
     */
    public PushItem withEncrypted(byte[] envelope, byte[] keyEnvelope) {
        return new PushItem(index, queue, partition, transactionId, transactionIdUtf8, traceId, messageId, envelope,
                true, producerSubUtf8, kafkaRecord, spanId, traceFlags, keyEnvelope);
    }

    /** The same item stamped with the authenticated producer's subject (UTF-8, at most 65,535 bytes). */
    public PushItem withProducerSub(byte[] subUtf8) {
        return new PushItem(index, queue, partition, transactionId, transactionIdUtf8, traceId, messageId, payload,
                encrypted, subUtf8, kafkaRecord, spanId, traceFlags, key);
    }

    /** The same item carrying a producer's trace context (an item that has its own keeps it). */
    public PushItem withTraceParent(UUID trace, long span, byte flags) {
        if (traceId != null) {
            return this;
        }
        return new PushItem(index, queue, partition, transactionId, transactionIdUtf8, trace, messageId, payload,
                encrypted, producerSubUtf8, kafkaRecord, span, flags, key);
    }
}
