package io.queen.connector.incoming;

/**
 * Internal metadata pointing back at the received {@link QueenMessage}, so that {@code QueenTransactions} finds it
 * even after SmallRye or the application wrapped the message (decorators may rebuild messages with
 * {@code addMetadata}, which keeps the metadata but not the class). Immutable, thread-safe.
 */
public record QueenMessageRef(QueenMessage<?> message) {
}
