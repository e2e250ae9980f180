package io.queen.connector.tracing;

/**
 * The span request of one Queen message: what the span's messaging attributes say (queue, partition, consumer
 * group, message id) and the carrier of its W3C {@code traceparent}, which the producer span writes (to be pushed
 * with the message) and the consumer span reads (as popped).
 * <p>
 * Not thread-safe: one message's span is made on one thread.
 */
public final class QueenTrace {

    private final String queue;
    private final String partition;
    private final String consumerGroup;
    private final String messageId;
    private String traceparent;

    private QueenTrace(String queue, String partition, String consumerGroup, String messageId, String traceparent) {
        this.queue = queue;
        this.partition = partition;
        this.consumerGroup = consumerGroup;
        this.messageId = messageId;
        this.traceparent = traceparent;
    }

    /** A message about to be pushed to {@code queue} ({@code partition} null = the broker's default). */
    public static QueenTrace outgoing(String queue, String partition) {
        return new QueenTrace(queue, partition, null, null, null);
    }

    /** A popped message and the {@code traceparent} the broker answered with it (null when it has none). */
    public static QueenTrace incoming(String queue, String partition, String consumerGroup, String messageId,
            String traceparent) {
        return new QueenTrace(queue, partition, consumerGroup, messageId, traceparent);
    }

    public String queue() {
        return queue;
    }

    public String partition() {
        return partition;
    }

    /** Null for an outgoing message; {@code __QUEUE_MODE__} in queue mode. */
    public String consumerGroup() {
        return consumerGroup;
    }

    /** The broker's message id; null for an outgoing message (the broker assigns it). */
    public String messageId() {
        return messageId;
    }

    public String traceparent() {
        return traceparent;
    }

    void traceparent(String value) {
        this.traceparent = value;
    }
}
