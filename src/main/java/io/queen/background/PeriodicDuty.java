package io.queen.background;

import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;

/**
 * A maintenance duty's schedule (retention, compaction): one cycle every {@code intervalMs} after the previous one
 * ended, on the duty's own daemon thread, so cycles of one duty never overlap on a broker. A cycle runs only once
 * {@code ready} holds (the schema is applied); one that throws is logged and the next retries, because an exception
 * must never cancel the schedule. Thread-safe: start and stop are synchronized; only the duty's thread runs cycles.
 */
public final class PeriodicDuty {
    private static final Logger LOG = Logger.getLogger(PeriodicDuty.class);

    private final String name;
    private final long intervalMs;
    private final BooleanSupplier ready;
    private final Cycle cycle;

    /** One cycle of the duty at {@code now}. */
    @FunctionalInterface
    public interface Cycle {
        void run(Instant now) throws Exception;
    }
    private ScheduledExecutorService timer;

    /**
     * @param name       the duty's name: its thread is {@code queen-<name>}, its failures are logged under it
     * @param intervalMs delay between the end of a cycle and the start of the next (at least 50 ms)
     */
    public PeriodicDuty(String name, long intervalMs, BooleanSupplier ready, Cycle cycle) {
        this.name = name;
        this.intervalMs = Math.max(50, intervalMs);
        this.ready = ready;
        this.cycle = cycle;
    }

    public synchronized void start() {
        if (timer == null) {
            timer = DaemonTimer.every("queen-" + name, intervalMs, this::tick);
        }
    }

    /**
     * No cycle starts after this; a running one gets up to {@code waitMs} to finish, then is interrupted (a cycle's
     * transaction rolls back whole when its connection goes, as after a crash). Idempotent.
     */
    public synchronized void stop(long waitMs) {
        if (timer == null || timer.isShutdown()) {
            return;
        }
        timer.shutdown();
        try {
            if (waitMs > 0 && timer.awaitTermination(waitMs, TimeUnit.MILLISECONDS)) {
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        timer.shutdownNow();
    }

    private void tick() {
        if (!ready.getAsBoolean()) {
            return;  // the database was not reachable at boot; the schema applier reports that, once per attempt
        }
        try {
            cycle.run(Instant.now());
        } catch (Throwable t) {
            LOG.warnf("%s cycle failed: %s", name, t.toString());
        }
    }
}
