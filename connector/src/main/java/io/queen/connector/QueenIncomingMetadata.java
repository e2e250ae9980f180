package io.queen.connector;

import java.util.OptionalLong;

/**
 * Where a received message comes from: attached to every message of an incoming {@code smallrye-queen}
 * channel ({@code message.getMetadata(QueenIncomingMetadata.class)}).
 * <p>
 * Immutable, thread-safe. {@code consumerGroup} is {@code __QUEUE_MODE__} in queue mode; {@code offset} is empty
 * when the broker does not report it; {@code traceId} is null when the producer sent none; {@code traceparent} is
 * the W3C trace context of the producer's span, null when the message has none.
 */
public record QueenIncomingMetadata(String queue, String partition, String partitionId, String transactionId,
        String messageId, OptionalLong offset, String createdAt, String traceId, String consumerGroup,
        String leaseId, String traceparent) {
}
