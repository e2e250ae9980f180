package io.queen.connector;

/**
 * Per-message overrides for an outgoing {@code smallrye-queen} channel: add it with
 * {@code Message.of(payload).addMetadata(QueenOutgoingMetadata.builder().partition("p1").build())}.
 * <p>
 * Every field is optional: {@code queue} and {@code partition} default to the channel's {@code queue} and
 * {@code partition} attributes; {@code transactionId} (the broker's dedup key within a partition) defaults to a
 * random UUID minted before the first send, so that retries dedup; {@code traceId} (a UUID) defaults to the
 * trace id of the message's producer span (see the README's Tracing), or without tracing to the current
 * OpenTelemetry trace id when OpenTelemetry is present.
 * <p>
 * Immutable, thread-safe.
 */
public record QueenOutgoingMetadata(String queue, String partition, String transactionId, String traceId) {

    public static Builder builder() {
        return new Builder();
    }

    /** Not thread-safe; build on one thread. */
    public static final class Builder {
        private String queue;
        private String partition;
        private String transactionId;
        private String traceId;

        public Builder queue(String queue) {
            this.queue = queue;
            return this;
        }

        public Builder partition(String partition) {
            this.partition = partition;
            return this;
        }

        public Builder transactionId(String transactionId) {
            this.transactionId = transactionId;
            return this;
        }

        public Builder traceId(String traceId) {
            this.traceId = traceId;
            return this;
        }

        public QueenOutgoingMetadata build() {
            return new QueenOutgoingMetadata(queue, partition, transactionId, traceId);
        }
    }
}
