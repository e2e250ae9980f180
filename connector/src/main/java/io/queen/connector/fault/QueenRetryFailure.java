package io.queen.connector.fault;

import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import io.queen.connector.incoming.QueenMessage;
import io.smallrye.common.annotation.Identifier;

/**
 * {@code failure-strategy=retry}: Sends a failed ack (status failed, with the error text): the broker releases the lease and redelivers from the failed message, counting one retry; after the queue's retryLimit it files the message in the dead-letter queue and moves on.
 * <p>
 * Stateless apart from the channel context; thread-safe.
 */
public class QueenRetryFailure extends LoggedFailure {

    public QueenRetryFailure(Context context) {
        super(context, System.Logger.Level.INFO, "failed, broker will redeliver");
    }

    @Override
    protected CompletionStage<Void> settle(QueenMessage<?> message, Throwable reason, String error) {
        return context.settle(message, "failed", error);
    }

    /** Registers the strategy under its name. */
    @ApplicationScoped
    @Identifier("retry")
    public static class Factory extends LoggedFailure.Factory {
        public Factory() {
            super(QueenRetryFailure::new);
        }
    }
}
