package io.queen.shutdown;

import io.queen.http.PipelineStage;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The route that admits every request ({@link PipelineStage#ADMISSION}, after the stages that answer without doing
 * any work): counts the requests running, and once the broker drains answers new ones {@code 503} with
 * {@code Connection: close} and {@code Retry-After: 1} before anything runs, so a client retries elsewhere knowing
 * nothing was done. Quarkus' own shutdown filter only adds {@code Connection: close} and still runs a late
 * request, which the closing server could then cut off after its commit.
 *
 * <p>Invariant: a request either was counted before the drain began (and {@link #awaitIdle} waits for it) or is
 * refused: the route increments first and reads the phase second, the drain sets the phase first and reads the
 * count second. Thread-safe (atomics; the route runs on event-loop threads).
 */
@ApplicationScoped
public class AdmissionGate {
    private static final String REFUSAL = "{\"error\":\"broker is shutting down; retry on another broker\"}";
    private final DrainState state;
    private final AtomicInteger running = new AtomicInteger();

    AdmissionGate(DrainState state) {
        this.state = state;
    }

    void init(@Observes Router router) {
        PipelineStage.ADMISSION.on(router.route()).handler(rc -> {
            if (!enter()) {
                rc.response().setStatusCode(503).putHeader("Content-Type", "application/json")
                        .putHeader("Retry-After", "1").putHeader("Connection", "close").end(REFUSAL);
                return;
            }
            rc.addEndHandler(done -> exit());
            rc.next();
        });
    }

    /**
     * Admits one request of any listener (HTTP here, the Kafka listener's requests too): false once the broker
     * drains, else the request is counted until {@link #exit}.
     */
    public boolean enter() {
        running.incrementAndGet();
        if (state.draining()) {
            running.decrementAndGet();
            return false;
        }
        return true;
    }

    /** The end of a request {@link #enter} admitted. */
    public void exit() {
        running.decrementAndGet();
    }

    /** Requests admitted and not yet answered (or dropped by their client). */
    public int running() {
        return running.get();
    }

    /** Waits until no admitted request runs, at most {@code timeoutMs}; true when none does. */
    public boolean awaitIdle(long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (running.get() > 0) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            Thread.sleep(5);
        }
        return true;
    }
}
