package io.queen.connector.incoming;

import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Function;

import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.Metadata;

import io.queen.connector.QueenIncomingMetadata;
import io.smallrye.reactive.messaging.providers.MetadataInjectableMessage;

/**
 * A message received from a Queen queue. {@code ack()} records a {@code completed} ack (sent by the channel's
 * commit strategy, in offset order); {@code nack(reason)} applies the channel's failure strategy.
 * <p>
 * Immutable apart from the settlement state kept in its {@link PartitionSpan}; ack and nack are thread-safe and
 * idempotent (only the first settlement of a message counts).
 */
public final class QueenMessage<T> implements MetadataInjectableMessage<T> {

    private final T payload;
    private final QueenIncomingMetadata queenMetadata;
    /** Grows only by {@link #injectMetadata} (the consumer span's TracingMetadata, before delivery). */
    private volatile Metadata metadata;
    final PartitionSpan span;
    final int index;
    final Throwable conversionFailure;
    private final QueenSource source;

    QueenMessage(T payload, QueenIncomingMetadata queenMetadata, PartitionSpan span, int index,
            Throwable conversionFailure, QueenSource source) {
        this.payload = payload;
        this.queenMetadata = queenMetadata;
        this.metadata = Metadata.of(queenMetadata, new QueenMessageRef(this));
        this.span = span;
        this.index = index;
        this.conversionFailure = conversionFailure;
        this.source = source;
    }

    @Override
    public T getPayload() {
        return payload;
    }

    @Override
    public Metadata getMetadata() {
        return metadata;
    }

    /** Adds metadata in place, so the message stays this QueenMessage (acks and transactions depend on it). */
    @Override
    public void injectMetadata(Object extra) {
        metadata = metadata.with(extra);
    }

    /** The Queen coordinates of this message. */
    public QueenIncomingMetadata metadata() {
        return queenMetadata;
    }

    /** The channel this message was received on (used by {@code QueenTransactions}). */
    public QueenSource source() {
        return source;
    }

    @Override
    public Function<Metadata, CompletionStage<Void>> getAckWithMetadata() {
        return m -> source.ack(this);
    }

    @Override
    public BiFunction<Throwable, Metadata, CompletionStage<Void>> getNackWithMetadata() {
        return (reason, m) -> source.nack(this, reason);
    }

    @Override
    public CompletionStage<Void> ack(Metadata m) {
        return source.ack(this);
    }

    @Override
    public CompletionStage<Void> nack(Throwable reason, Metadata m) {
        return source.nack(this, reason);
    }

    @Override
    public String toString() {
        return "QueenMessage[" + queenMetadata.queue() + "/" + queenMetadata.partition() + " "
                + queenMetadata.transactionId() + "]";
    }
}
