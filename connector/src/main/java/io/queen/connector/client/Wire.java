package io.queen.connector.client;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The request and response shapes of the broker's HTTP API (spec: http-api.md §3.3–3.9), as plain records.
 * <p>
 * All records are immutable; {@link JsonNode} payloads are never mutated after parsing, so instances are safe
 * to share between threads.
 */
public final class Wire {

    /** The consumer group name the broker uses for queue mode (no group). */
    public static final String QUEUE_MODE = "__QUEUE_MODE__";

    private Wire() {
    }

    /**
     * One pop call. {@code partition} null = wildcard pop over every partition of the queue;
     * {@code consumerGroup} null = queue mode.
     */
    public record PopRequest(String queue, String partition, String consumerGroup, int batch, boolean longPoll,
            long timeoutMs, int partitions, String subscriptionMode, String subscriptionFrom) {
    }

    /** One message of a pop answer; {@code offset} is -1 when the broker does not send it. */
    public record PoppedMessage(String id, String transactionId, String partitionId, String leaseId,
            JsonNode data, String createdAt, String traceId, String traceparent, String queue, String partition,
            String consumerGroup, long offset) {
    }

    /** A non-empty pop answer. */
    public record PopResponse(String queue, String leaseId, String consumerGroup, List<PoppedMessage> messages) {
    }

    /**
     * One message to push; {@code payload} is already JSON. {@code traceparent} is the W3C trace context of the
     * producer span (null without tracing).
     */
    public record PushItem(String queue, String partition, JsonNode payload, String transactionId,
            String traceId, String traceparent) {
    }

    /** The broker's verdict on one pushed item. */
    public record PushResult(int index, String status, String messageId, String error) {
        /** {@code queued}, {@code duplicate} and {@code buffered} (maintenance spool) are all durable. */
        public boolean accepted() {
            return "queued".equals(status) || "duplicate".equals(status) || "buffered".equals(status);
        }
    }

    /** One acknowledgement; {@code status} is completed, failed, dlq or retry. */
    public record AckItem(String transactionId, String partitionId, String status, String leaseId,
            String error) {
    }

    /** The broker's verdict on one acknowledgement. */
    public record AckResult(int index, boolean success, String error, boolean dlq) {
    }

    /** The answer to {@code POST /api/v1/transaction}. */
    public record TransactionResult(boolean success, String error) {
    }
}
