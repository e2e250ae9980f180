package io.queen.connector.app;

import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

import io.vertx.core.json.JsonObject;

/**
 * A running count per word with keyed state: every input {@code {"word": w}} on channel {@code in} reads the
 * word's count from its partition's state, writes count + 1, and emits {@code {"word": w, "count": n}} on outgoing
 * channel {@code out}, all in the input's cycle. Sleeps {@code app.delay.ms} per message so a kill lands
 * mid-stream. Thread-safe (stateless).
 */
@ApplicationScoped
public class WordCounter extends TransactionalApp {

    @Incoming("in")
    public CompletionStage<Void> count(Message<JsonObject> in) throws InterruptedException {
        long start = Recorder.pause();
        String word = in.getPayload().getString("word");
        return transactions.readState(in, word)
                .thenCompose(current -> {
                    long n = (current == null ? 0 : current.getLong("count")) + 1;
                    return transactions.begin(in)
                            .state(word, new JsonObject().put("count", n))
                            .toChannel("out", new JsonObject().put("word", word).put("count", n))
                            .commit();
                })
                .thenRun(() -> Recorder.processed(word, in, start))
                // a rolled-back cycle (e.g. the lease expired) wrote nothing: nack so the input is redelivered
                .exceptionallyCompose(in::nack);
    }
}
