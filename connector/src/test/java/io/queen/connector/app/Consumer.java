package io.queen.connector.app;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Incoming;

import io.queen.connector.QueenIncomingMetadata;
import io.smallrye.common.annotation.Blocking;
import io.vertx.core.json.JsonObject;

/**
 * Test consumer of channel {@code in}: records every message (payload field {@code id}, partition, lease id, processing
 * interval) after sleeping {@code app.delay.ms} ms, and throws for payloads with {@code "poison": true} so that
 * the channel's failure strategy applies. Blocking and ordered, as a typical slow consumer. Thread-safe.
 */
@ApplicationScoped
public class Consumer {

    @Incoming("in")
    @Blocking
    public void consume(JsonObject payload, QueenIncomingMetadata meta) throws InterruptedException {
        long start = Recorder.pause();
        if (payload.getBoolean("poison", false)) {
            throw new IllegalStateException("poison message " + payload.getValue("id"));
        }
        Recorder.record(new Recorder.Entry(String.valueOf(payload.getValue("id")), meta.partition(), start,
                System.nanoTime(), Recorder.instance(), meta.leaseId()));
    }
}
