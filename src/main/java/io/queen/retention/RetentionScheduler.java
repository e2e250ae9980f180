package io.queen.retention;

import io.queen.background.PeriodicDuty;
import io.queen.config.QueenConfig;
import io.queen.schema.SchemaApplier;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

/**
 * Runs {@link RetentionCycle} every {@code queen.retention.interval-ms} ({@link PeriodicDuty}). Every broker
 * schedules cycles; the advisory lock inside the cycle lets exactly one of them work at a time.
 */
@Singleton
public class RetentionScheduler {
    private final PeriodicDuty duty;

    RetentionScheduler(RetentionCycle cycle, QueenConfig config, SchemaApplier schema) {
        this.duty = new PeriodicDuty("retention", config.retention().intervalMs(), schema::ready, cycle::runOnce);
    }

    void start(@Observes StartupEvent event) {
        duty.start();
    }

    void stop(@Observes ShutdownEvent event) {
        stop(0);
    }

    /**
     * No cycle starts after this; a running one gets up to {@code waitMs} to finish (its transaction, and with it
     * the leader's advisory lock, ends either way when its connection goes), then is interrupted. Idempotent.
     */
    public void stop(long waitMs) {
        duty.stop(waitMs);
    }
}
