package io.queen.compaction;

import io.queen.background.DaemonTimer;
import io.queen.config.QueenConfig;
import io.queen.schema.SchemaApplier;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;
import org.jboss.logging.Logger;

/**
 * Runs {@link CompactionCycle} every {@code queen.compaction.interval-ms} on one daemon thread owned by this bean
 * (fixed delay: cycles never overlap on one broker). Every broker schedules cycles; the per-partition advisory lock
 * inside a pass keeps two brokers off one partition. At shutdown a running pass is interrupted: its transaction rolls
 * back whole, which is all a crash could do to it either.
 */
@Singleton
public class CompactionScheduler {
    private static final Logger LOG = Logger.getLogger(CompactionScheduler.class);

    private final CompactionCycle cycle;
    private final SchemaApplier schema;
    private final long intervalMs;
    private ScheduledExecutorService timer;

    CompactionScheduler(CompactionCycle cycle, QueenConfig config, SchemaApplier schema) {
        this.cycle = cycle;
        this.schema = schema;
        this.intervalMs = Math.max(50, config.compaction().intervalMs());
    }

    synchronized void start(@Observes StartupEvent event) {
        timer = DaemonTimer.every("queen-compaction", intervalMs, this::tick);
    }

    synchronized void stop(@Observes ShutdownEvent event) {
        if (timer != null) {
            timer.shutdownNow();
        }
    }

    private void tick() {
        if (!schema.ready()) {
            return;
        }
        try {
            cycle.runOnce(Instant.now());
        } catch (Throwable t) {
            LOG.warnf("compaction cycle failed: %s", t.toString());  // the next cycle retries
        }
    }
}
