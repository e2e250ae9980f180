package io.queen.connector.commit;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;

import jakarta.enterprise.context.ApplicationScoped;

import io.queen.connector.QueenConnectorIncomingConfiguration;
import io.queen.connector.client.Wire.AckItem;
import io.smallrye.common.annotation.Identifier;

/**
 * {@code commit-strategy=immediate}: every ack is sent on its own (through {@code /api/v1/ack/batch}, one item)
 * and the message's {@code ack()} completes only when the broker answered. Slower, but an acked message is known
 * to be committed when the application continues.
 * <p>
 * Thread-safe: requests are chained under {@code this} so they reach the broker in the order received.
 */
public class ImmediateCommitHandler implements QueenCommitHandler {

    private final AckSender sender;
    private CompletableFuture<Void> lastSend = CompletableFuture.completedFuture(null);

    public ImmediateCommitHandler(AckSender sender) {
        this.sender = sender;
    }

    @Override
    public synchronized CompletionStage<Void> enqueue(AckItem ack, boolean urgent) {
        List<AckItem> one = List.of(ack);
        lastSend = lastSend.thenCompose(x -> sender.send(one).toCompletableFuture().handle((results, failure) -> {
            BatchedCommitHandler.report(one, results, failure);
            return (Void) null;
        }));
        return lastSend;
    }

    @Override
    public synchronized CompletionStage<Void> flush() {
        return lastSend;
    }

    /** Registers the strategy under its name. */
    @ApplicationScoped
    @Identifier("immediate")
    public static class Factory implements QueenCommitHandler.Factory {
        @Override
        public QueenCommitHandler create(QueenConnectorIncomingConfiguration config, AckSender sender,
                ScheduledExecutorService scheduler) {
            return new ImmediateCommitHandler(sender);
        }
    }
}
