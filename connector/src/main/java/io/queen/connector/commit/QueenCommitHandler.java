package io.queen.connector.commit;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;

import io.queen.connector.QueenConnectorIncomingConfiguration;
import io.queen.connector.client.Wire.AckItem;
import io.queen.connector.client.Wire.AckResult;

/**
 * A commit strategy: decides <em>when</em> settled messages are sent to the broker. Selected per channel with
 * {@code commit-strategy}; built-ins are {@code batched} ({@link BatchedCommitHandler}) and {@code immediate}
 * ({@link ImmediateCommitHandler}). Applications may add their own as a CDI bean implementing {@link Factory}
 * with {@code @Identifier("<name>")}.
 * <p>
 * Contract: the source hands over acks already in offset order per partition (a later offset is never enqueued
 * before an earlier one of the same partition, since acking offset N completes everything up to N); a handler
 * must send them in the order received and never reorder or drop them. Implementations must be thread-safe:
 * acks arrive from application threads while timers flush.
 */
public interface QueenCommitHandler {

    /**
     * Takes one ack. {@code urgent} is true when it ends a leased span or carries a failure: the broker holds
     * the partition's lease until then, so it should be sent soon. The stage completes when the handler considers
     * the ack done (for {@code batched}: recorded; for {@code immediate}: confirmed by the broker).
     */
    CompletionStage<Void> enqueue(AckItem ack, boolean urgent);

    /** Sends everything enqueued so far; completes when the broker answered (successfully or not). */
    CompletionStage<Void> flush();

    /** Flushes and stops timers. */
    default void close() {
        flush().toCompletableFuture().join();
    }

    /** Sends acks of one consumer group in one request (bound to a channel's client and group). */
    @FunctionalInterface
    interface AckSender {
        CompletionStage<List<AckResult>> send(List<AckItem> acks);
    }

    /** Creates the handler of one channel. */
    interface Factory {
        QueenCommitHandler create(QueenConnectorIncomingConfiguration config, AckSender sender,
                ScheduledExecutorService scheduler);
    }
}
