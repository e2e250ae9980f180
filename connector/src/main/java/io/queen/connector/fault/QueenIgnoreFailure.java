package io.queen.connector.fault;

import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import io.queen.connector.QueenConnectorIncomingConfiguration;
import io.queen.connector.incoming.QueenMessage;
import io.smallrye.common.annotation.Identifier;

/**
 * {@code failure-strategy=ignore}: Logs the failure and acks the message as completed: processing goes on with the next message and the failed one is not redelivered.
 * <p>
 * Stateless apart from the channel context; thread-safe.
 */
public class QueenIgnoreFailure implements QueenFailureHandler {

    private static final System.Logger LOG = System.getLogger(QueenIgnoreFailure.class.getName());

    private final Context context;

    public QueenIgnoreFailure(Context context) {
        this.context = context;
    }

    @Override
    public CompletionStage<Void> handle(QueenMessage<?> message, Throwable reason) {
        LOG.log(System.Logger.Level.WARNING, "channel {0}: message {1} failed and is ignored: {2}",
                context.channel(), message.metadata().transactionId(), QueenFailureHandler.describe(reason));
        return context.settle(message, "completed", null);
    }

    /** Registers the strategy under its name. */
    @ApplicationScoped
    @Identifier("ignore")
    public static class Factory implements QueenFailureHandler.Factory {
        @Override
        public QueenFailureHandler create(QueenConnectorIncomingConfiguration config, Context context) {
            return new QueenIgnoreFailure(context);
        }
    }
}
