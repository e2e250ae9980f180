package io.queen.connector.fault;

import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import io.queen.connector.incoming.QueenMessage;
import io.smallrye.common.annotation.Identifier;

/**
 * {@code failure-strategy=dead-letter-queue}: Files the message in the queue's dead-letter queue at once (ack status dlq, with the error text) and moves past it; the rest of the leased span is redelivered.
 * <p>
 * Stateless apart from the channel context; thread-safe.
 */
public class QueenDeadLetterQueue extends LoggedFailure {

    public QueenDeadLetterQueue(Context context) {
        super(context, System.Logger.Level.WARNING, "failed, filed as dead letter");
    }

    @Override
    protected CompletionStage<Void> settle(QueenMessage<?> message, Throwable reason, String error) {
        return context.settle(message, "dlq", error);
    }

    /** Registers the strategy under its name. */
    @ApplicationScoped
    @Identifier("dead-letter-queue")
    public static class Factory extends LoggedFailure.Factory {
        public Factory() {
            super(QueenDeadLetterQueue::new);
        }
    }
}
