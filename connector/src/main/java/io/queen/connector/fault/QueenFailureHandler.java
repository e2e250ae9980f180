package io.queen.connector.fault;

import java.util.concurrent.CompletionStage;

import io.queen.connector.QueenConnectorIncomingConfiguration;
import io.queen.connector.incoming.QueenMessage;

/**
 * A failure strategy: what a nack of an incoming message means for the broker. Selected per channel with
 * {@code failure-strategy}; built-ins: {@code fail}, {@code ignore}, {@code retry} and
 * {@code dead-letter-queue}. Applications may add their own as a CDI bean implementing {@link Factory} with
 * {@code @Identifier("<name>")}.
 * <p>
 * Implementations must be thread-safe: nacks arrive from application threads.
 */
public interface QueenFailureHandler {

    /** Handles one nacked message; the returned stage completes when the nack is settled. */
    CompletionStage<Void> handle(QueenMessage<?> message, Throwable reason);

    /** What a handler may do with a failed message; implemented by the channel's source. */
    interface Context {
        /** The channel name (for logs). */
        String channel();

        /**
         * Settles the message with a broker ack status ({@code completed}, {@code failed}, {@code dlq},
         * {@code retry}), keeping offset order. A non-completed status releases the partition's lease on the
         * broker, so the rest of that leased span is not delivered any more (the broker redelivers it).
         */
        CompletionStage<Void> settle(QueenMessage<?> message, String status, String error);

        /** Marks the channel failed: polling stops, health goes down, the stream ends with this failure. */
        void fail(Throwable reason);
    }

    /** Creates the handler of one channel. */
    interface Factory {
        QueenFailureHandler create(QueenConnectorIncomingConfiguration config, Context context);
    }

    /**
     * The text sent as the ack's {@code error} (stored on the dead letter): the root cause's message, since
     * SmallRye wraps the application's exception in its own ("Exception thrown when calling the method ...").
     */
    static String describe(Throwable reason) {
        if (reason == null) {
            return "nacked";
        }
        while (reason.getCause() != null && reason.getCause() != reason) {
            reason = reason.getCause();
        }
        String m = reason.getMessage();
        return m == null || m.isBlank() ? reason.getClass().getName() : m;
    }
}
