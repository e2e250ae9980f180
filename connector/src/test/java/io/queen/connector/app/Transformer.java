package io.queen.connector.app;

import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

import io.queen.connector.QueenTransactions;
import io.vertx.core.json.JsonObject;

/**
 * Consume-transform-produce under {@link QueenTransactions}: every input {@code {"id": n}} on channel {@code in}
 * yields two outputs {@code {"id": n, "part": 0|1}} on the queue of outgoing channel {@code out}, committed
 * together with the input's ack. Sleeps {@code app.delay.ms} per message so a kill lands mid-stream.
 * Thread-safe (stateless).
 */
@ApplicationScoped
public class Transformer extends TransactionalApp {

    @Incoming("in")
    public CompletionStage<Void> process(Message<JsonObject> in) throws InterruptedException {
        long start = Recorder.pause();
        Object id = in.getPayload().getValue("id");
        return transactions.begin(in)
                .toChannel("out", new JsonObject().put("id", id).put("part", 0))
                .toChannel("out", new JsonObject().put("id", id).put("part", 1))
                .commit()
                .thenRun(() -> Recorder.processed(String.valueOf(id), in, start))
                // a rolled-back transaction (e.g. the lease expired on a slow machine) wrote nothing: nack the
                // input so it is redelivered, instead of failing the stream
                .exceptionallyCompose(in::nack);
    }
}
