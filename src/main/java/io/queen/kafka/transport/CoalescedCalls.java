package io.queen.kafka.transport;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * One connection's requests of a coalesced key ({@link KafkaApis#serveCoalesced}): served in request order, one
 * batch at a time, a batch holding every request that arrived while the one before it ran. A client that pipelines
 * such requests (librdkafka commits offsets after every consume without waiting for the answer) gets its backlog
 * served by one handler call instead of one call per request waiting behind the others. Thread-safe: the event loop
 * submits, a worker drains.
 */
final class CoalescedCalls {
    private record Waiting(KafkaCall<ApiMessage> call, CompletableFuture<ApiMessage> answer) {
    }

    private final KafkaBatchHandler<ApiMessage> handler;
    private final Executor workers;
    private List<Waiting> waiting = new ArrayList<>();
    /** Whether a worker is draining (guarded by this). */
    private boolean draining;

    CoalescedCalls(KafkaBatchHandler<ApiMessage> handler, Executor workers) {
        this.handler = handler;
        this.workers = workers;
    }

    /** The answer to {@code call}, served after every call submitted before it. */
    CompletableFuture<ApiMessage> submit(KafkaCall<ApiMessage> call) {
        CompletableFuture<ApiMessage> answer = new CompletableFuture<>();
        boolean start;
        synchronized (this) {
            waiting.add(new Waiting(call, answer));
            start = !draining;
            draining = true;
        }
        if (start) {
            workers.execute(this::drain);
        }
        return answer;
    }

    /** Serves batches until none is waiting; a batch starts once the handler returned the one before it. */
    private void drain() {
        for (List<Waiting> batch = take(); !batch.isEmpty(); batch = take()) {
            List<KafkaCall<ApiMessage>> calls = new ArrayList<>(batch.size());
            for (Waiting w : batch) {
                calls.add(w.call());
            }
            List<? extends CompletionStage<? extends ApiMessage>> answers;
            try {
                answers = handler.handle(calls);
                if (answers.size() != batch.size()) {
                    throw new IllegalStateException(answers.size() + " answers to " + batch.size() + " calls");
                }
            } catch (Exception | Error e) {
                batch.forEach(w -> w.answer().completeExceptionally(e));
                continue;
            }
            for (int i = 0; i < batch.size(); i++) {
                CompletableFuture<ApiMessage> answer = batch.get(i).answer();
                answers.get(i).whenComplete((m, e) -> {
                    if (e != null) {
                        answer.completeExceptionally(e);
                    } else {
                        answer.complete(m);
                    }
                });
            }
        }
    }

    /** The calls waiting, or none (and the drain over) when no call is. */
    private synchronized List<Waiting> take() {
        if (waiting.isEmpty()) {
            draining = false;
            return List.of();
        }
        List<Waiting> out = waiting;
        waiting = new ArrayList<>();
        return out;
    }
}
