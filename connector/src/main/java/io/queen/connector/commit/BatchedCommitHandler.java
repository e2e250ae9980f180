package io.queen.connector.commit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;

import io.queen.connector.QueenConnectorIncomingConfiguration;
import io.queen.connector.client.Wire.AckItem;
import io.queen.connector.client.Wire.AckResult;
import io.smallrye.common.annotation.Identifier;

/**
 * {@code commit-strategy=batched} (default): acks are collected and sent together in one
 * {@code POST /api/v1/ack/batch}, in the order received, when (a) an urgent ack arrives (end of a leased span,
 * or a failure), (b) {@code commit-interval} ms passed since the first unsent ack, (c) the poll loop is about to
 * pop (so the broker has released our finished leases first), or (d) on shutdown. A message's {@code ack()}
 * completes once recorded; if the process dies before the flush, the broker redelivers (at-least-once).
 * <p>
 * Thread-safe: the pending list and the in-flight chain are guarded by {@code this}; at most one batch request is
 * in flight per channel, so batches cannot overtake each other.
 */
public class BatchedCommitHandler implements QueenCommitHandler {

    private static final System.Logger LOG = System.getLogger(BatchedCommitHandler.class.getName());

    private final AckSender sender;
    private final ScheduledExecutorService scheduler;
    private final long intervalMs;
    private List<AckItem> pending = new ArrayList<>();
    private CompletableFuture<Void> lastSend = CompletableFuture.completedFuture(null);
    private ScheduledFuture<?> timer;

    public BatchedCommitHandler(AckSender sender, ScheduledExecutorService scheduler, long intervalMs) {
        this.sender = sender;
        this.scheduler = scheduler;
        this.intervalMs = intervalMs;
    }

    @Override
    public CompletionStage<Void> enqueue(AckItem ack, boolean urgent) {
        synchronized (this) {
            pending.add(ack);
            if (!urgent && timer == null && intervalMs > 0) {
                timer = scheduler.schedule(this::flush, intervalMs, TimeUnit.MILLISECONDS);
            }
        }
        if (urgent || intervalMs <= 0) {
            flush();
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Void> flush() {
        synchronized (this) {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
            if (pending.isEmpty()) {
                return lastSend;
            }
            List<AckItem> batch = pending;
            pending = new ArrayList<>();
            // Chained after the previous request so that batches reach the broker in order.
            lastSend = lastSend.thenCompose(x -> sender.send(batch).toCompletableFuture()
                    .handle((results, failure) -> {
                        report(batch, results, failure);
                        return (Void) null;
                    }));
            return lastSend;
        }
    }

    static void report(List<AckItem> batch, List<AckResult> results, Throwable failure) {
        if (failure != null) {
            // Not acked means redelivered after the lease expires: nothing is lost, work may repeat.
            LOG.log(System.Logger.Level.WARNING, "ack batch of {0} failed, messages will be redelivered: {1}",
                    batch.size(), failure.toString());
            return;
        }
        for (AckResult r : results) {
            if (!r.success()) {
                AckItem item = r.index() < batch.size() ? batch.get(r.index()) : null;
                LOG.log(System.Logger.Level.WARNING, "ack of {0} ({1}) refused by the broker: {2}",
                        item == null ? "?" : item.transactionId(), item == null ? "?" : item.status(), r.error());
            }
        }
    }

    /** Registers the strategy under its name. */
    @ApplicationScoped
    @Identifier("batched")
    public static class Factory implements QueenCommitHandler.Factory {
        @Override
        public QueenCommitHandler create(QueenConnectorIncomingConfiguration config, AckSender sender,
                ScheduledExecutorService scheduler) {
            return new BatchedCommitHandler(sender, scheduler, config.getCommitInterval());
        }
    }
}
