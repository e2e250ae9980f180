package io.queen.connector.fault;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import io.queen.connector.incoming.QueenMessage;
import io.smallrye.common.annotation.Identifier;

/**
 * {@code failure-strategy=fail}: Stops the channel: the message is not acked (its lease expires and the broker redelivers it after a restart), polling stops, the channel reports unhealthy and the stream fails. The safe choice when a failure means a bug.
 * <p>
 * Stateless apart from the channel context; thread-safe.
 */
public class QueenFailStop extends LoggedFailure {

    public QueenFailStop(Context context) {
        super(context, System.Logger.Level.ERROR, "failed, stopping the channel");
    }

    @Override
    protected CompletionStage<Void> settle(QueenMessage<?> message, Throwable reason, String error) {
        context.fail(reason);
        return CompletableFuture.completedFuture(null);
    }

    /** Registers the strategy under its name. */
    @ApplicationScoped
    @Identifier("fail")
    public static class Factory extends LoggedFailure.Factory {
        public Factory() {
            super(QueenFailStop::new);
        }
    }
}
