package io.queen.connector.app;

import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Test producer: an emitter on channel {@code out}; {@link #send} returns the message's ack/nack outcome.
 * Thread-safe (the emitter is).
 */
@ApplicationScoped
public class Producer {

    @Inject
    @Channel("out")
    @org.eclipse.microprofile.reactive.messaging.OnOverflow(value = org.eclipse.microprofile.reactive.messaging.OnOverflow.Strategy.BUFFER, bufferSize = 1024)
    Emitter<Object> emitter;

    public CompletionStage<Void> send(Object payload, Object... metadata) {
        java.util.concurrent.CompletableFuture<Void> done = new java.util.concurrent.CompletableFuture<>();
        Message<Object> m = Message.of(payload, () -> {
            done.complete(null);
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }, t -> {
            done.completeExceptionally(t);
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        });
        for (Object meta : metadata) {
            m = m.addMetadata(meta);
        }
        emitter.send(m);
        return done;
    }
}
