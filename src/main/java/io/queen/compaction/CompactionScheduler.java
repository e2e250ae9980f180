package io.queen.compaction;

import io.queen.background.PeriodicDuty;
import io.queen.config.QueenConfig;
import io.queen.schema.SchemaApplier;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

/**
 * Runs {@link CompactionCycle} every {@code queen.compaction.interval-ms} ({@link PeriodicDuty}). Every broker
 * schedules cycles; the per-partition advisory lock inside a pass keeps two brokers off one partition. At shutdown a
 * running pass is interrupted: its transaction rolls back whole, which is all a crash could do to it either.
 */
@Singleton
public class CompactionScheduler {
    private final PeriodicDuty duty;

    CompactionScheduler(CompactionCycle cycle, QueenConfig config, SchemaApplier schema) {
        this.duty = new PeriodicDuty("compaction", config.compaction().intervalMs(), schema::ready, cycle::runOnce);
    }

    void start(@Observes StartupEvent event) {
        duty.start();
    }

    void stop(@Observes ShutdownEvent event) {
        duty.stop(0);
    }
}
