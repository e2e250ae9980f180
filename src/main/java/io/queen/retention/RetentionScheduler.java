package io.queen.retention;

import io.queen.background.DaemonTimer;
import io.queen.config.QueenConfig;
import io.queen.schema.SchemaApplier;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Runs {@link RetentionCycle} every {@code queen.retention.interval-ms} on one daemon platform thread owned by
 * this bean (fixed delay: a slow cycle never overlaps the next). Every broker schedules cycles; the advisory lock
 * inside the cycle lets exactly one of them work at a time. Thread-safety: start/stop are called once by the
 * container; the cycle thread is the only other thread touching the executor.
 */
@Singleton
public class RetentionScheduler {
    private static final Logger LOG = Logger.getLogger(RetentionScheduler.class);

    private final RetentionCycle cycle;
    private final SchemaApplier schema;
    private final long intervalMs;
    private ScheduledExecutorService timer;

    RetentionScheduler(RetentionCycle cycle, QueenConfig config, SchemaApplier schema) {
        this.cycle = cycle;
        this.schema = schema;
        this.intervalMs = Math.max(50, config.retention().intervalMs());
    }

    synchronized void start(@Observes StartupEvent event) {
        timer = DaemonTimer.every("queen-retention", intervalMs, this::tick);
    }

    void stop(@Observes ShutdownEvent event) {
        stop(0);
    }

    /**
     * No cycle starts after this; a running one gets up to {@code waitMs} to finish (its transaction, and with it
     * the leader's advisory lock, ends either way when its connection goes), then is interrupted. Idempotent.
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
        if (!schema.ready()) {
            return;  // the database was not reachable at boot; the schema applier reports that, once per attempt
        }
        try {
            cycle.runOnce(Instant.now());
        } catch (Throwable t) {
            // never let an exception cancel the schedule: the next cycle retries
            LOG.warnf("retention cycle failed: %s", t.toString());
        }
    }
}
