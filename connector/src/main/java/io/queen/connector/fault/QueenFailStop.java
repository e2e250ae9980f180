package io.queen.connector.fault;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import io.queen.connector.QueenConnectorIncomingConfiguration;
import io.queen.connector.incoming.QueenMessage;
import io.smallrye.common.annotation.Identifier;

/**
 * {@code failure-strategy=fail}: Stops the channel: the message is not acked (its lease expires and the broker redelivers it after a restart), polling stops, the channel reports unhealthy and the stream fails. The safe choice when a failure means a bug.
 * <p>
 * Stateless apart from the channel context; thread-safe.
 */
public class QueenFailStop implements QueenFailureHandler {

    private static final System.Logger LOG = System.getLogger(QueenFailStop.class.getName());

    private final Context context;

    public QueenFailStop(Context context) {
        this.context = context;
    }

    @Override
    public CompletionStage<Void> handle(QueenMessage<?> message, Throwable reason) {
        LOG.log(System.Logger.Level.ERROR, "channel {0}: message {1} failed, stopping the channel: {2}",
                context.channel(), message.metadata().transactionId(), QueenFailureHandler.describe(reason));
        context.fail(reason);
        return CompletableFuture.completedFuture(null);
    }

    /** Registers the strategy under its name. */
    @ApplicationScoped
    @Identifier("fail")
    public static class Factory implements QueenFailureHandler.Factory {
        @Override
        public QueenFailureHandler create(QueenConnectorIncomingConfiguration config, Context context) {
            return new QueenFailStop(context);
        }
    }
}
