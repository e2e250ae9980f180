package io.queen.connector.fault;

import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import io.queen.connector.QueenConnectorIncomingConfiguration;
import io.queen.connector.incoming.QueenMessage;
import io.smallrye.common.annotation.Identifier;

/**
 * {@code failure-strategy=dead-letter-queue}: Files the message in the queue's dead-letter queue at once (ack status dlq, with the error text) and moves past it; the rest of the leased span is redelivered.
 * <p>
 * Stateless apart from the channel context; thread-safe.
 */
public class QueenDeadLetterQueue implements QueenFailureHandler {

    private static final System.Logger LOG = System.getLogger(QueenDeadLetterQueue.class.getName());

    private final Context context;

    public QueenDeadLetterQueue(Context context) {
        this.context = context;
    }

    @Override
    public CompletionStage<Void> handle(QueenMessage<?> message, Throwable reason) {
        LOG.log(System.Logger.Level.WARNING, "channel {0}: message {1} failed, filed as dead letter: {2}",
                context.channel(), message.metadata().transactionId(), QueenFailureHandler.describe(reason));
        return context.settle(message, "dlq", QueenFailureHandler.describe(reason));
    }

    /** Registers the strategy under its name. */
    @ApplicationScoped
    @Identifier("dead-letter-queue")
    public static class Factory implements QueenFailureHandler.Factory {
        @Override
        public QueenFailureHandler create(QueenConnectorIncomingConfiguration config, Context context) {
            return new QueenDeadLetterQueue(context);
        }
    }
}
