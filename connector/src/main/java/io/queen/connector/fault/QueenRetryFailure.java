package io.queen.connector.fault;

import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import io.queen.connector.QueenConnectorIncomingConfiguration;
import io.queen.connector.incoming.QueenMessage;
import io.smallrye.common.annotation.Identifier;

/**
 * {@code failure-strategy=retry}: Sends a failed ack (status failed, with the error text): the broker releases the lease and redelivers from the failed message, counting one retry; after the queue's retryLimit it files the message in the dead-letter queue and moves on.
 * <p>
 * Stateless apart from the channel context; thread-safe.
 */
public class QueenRetryFailure implements QueenFailureHandler {

    private static final System.Logger LOG = System.getLogger(QueenRetryFailure.class.getName());

    private final Context context;

    public QueenRetryFailure(Context context) {
        this.context = context;
    }

    @Override
    public CompletionStage<Void> handle(QueenMessage<?> message, Throwable reason) {
        LOG.log(System.Logger.Level.INFO, "channel {0}: message {1} failed, broker will redeliver: {2}",
                context.channel(), message.metadata().transactionId(), QueenFailureHandler.describe(reason));
        return context.settle(message, "failed", QueenFailureHandler.describe(reason));
    }

    /** Registers the strategy under its name. */
    @ApplicationScoped
    @Identifier("retry")
    public static class Factory implements QueenFailureHandler.Factory {
        @Override
        public QueenFailureHandler create(QueenConnectorIncomingConfiguration config, Context context) {
            return new QueenRetryFailure(context);
        }
    }
}
