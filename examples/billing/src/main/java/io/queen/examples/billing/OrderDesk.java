package io.queen.examples.billing;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.OnOverflow;

import io.queen.connector.QueenOutgoingMetadata;

/**
 * Producer: sends orders to channel {@code new-orders} (queue {@code orders}), one partition per customer so each
 * customer's orders stay in order.
 * <p>
 * Flow control: the sink takes at most {@code push-batch-size × max-inflight-requests} messages (100 by default)
 * before the broker confirms them; the emitter holds up to {@code bufferSize} more, and a send beyond that fails
 * with SRMSG00034 (insufficient downstream requests). {@link #place} therefore keeps at most {@link #WINDOW}
 * orders unconfirmed and blocks its caller beyond that, so the buffer can never overflow.
 * <p>
 * Thread-safe: the emitter and the semaphore are.
 */
@ApplicationScoped
public class OrderDesk {

    /** Unconfirmed orders at most: the emitter's buffer size. */
    static final int WINDOW = 1024;

    @Inject
    @Channel("new-orders")
    @OnOverflow(value = OnOverflow.Strategy.BUFFER, bufferSize = WINDOW)
    Emitter<Order> orders;

    private final Semaphore window = new Semaphore(WINDOW);

    /**
     * Sends one order; the stage completes when the broker stored it, or fails with the broker's reason. Blocks
     * while {@link #WINDOW} orders are unconfirmed (call it from a worker thread, not an event loop).
     */
    public CompletionStage<Void> place(Order order) {
        window.acquireUninterruptibly();
        CompletableFuture<Void> stored = new CompletableFuture<>();
        stored.whenComplete((x, t) -> window.release());
        orders.send(Message.of(order)
                .addMetadata(QueenOutgoingMetadata.builder().partition(order.customerId()).build())
                .withAck(() -> {
                    stored.complete(null);
                    return CompletableFuture.completedFuture(null);
                })
                .withNack(reason -> {
                    stored.completeExceptionally(reason);
                    return CompletableFuture.completedFuture(null);
                }));
        return stored;
    }
}
