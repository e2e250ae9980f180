package io.queen.connector.fault;

import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import io.queen.connector.incoming.QueenMessage;
import io.smallrye.common.annotation.Identifier;

/**
 * {@code failure-strategy=ignore}: Logs the failure and acks the message as completed: processing goes on with the next message and the failed one is not redelivered.
 * <p>
 * Stateless apart from the channel context; thread-safe.
 */
public class QueenIgnoreFailure extends LoggedFailure {

    public QueenIgnoreFailure(Context context) {
        super(context, System.Logger.Level.WARNING, "failed and is ignored");
    }

    @Override
    protected CompletionStage<Void> settle(QueenMessage<?> message, Throwable reason, String error) {
        return context.settle(message, "completed", null);
    }

    /** Registers the strategy under its name. */
    @ApplicationScoped
    @Identifier("ignore")
    public static class Factory extends LoggedFailure.Factory {
        public Factory() {
            super(QueenIgnoreFailure::new);
        }
    }
}
