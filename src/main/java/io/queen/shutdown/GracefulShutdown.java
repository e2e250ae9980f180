package io.queen.shutdown;

import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.runtime.ShutdownEvent;
import io.queen.config.QueenConfig;
import io.queen.lease.LeaseRelease;
import io.queen.retention.RetentionScheduler;
import io.queen.wakeup.PopWaiters;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jboss.logging.Logger;

/**
 * The broker's stop sequence on SIGTERM, in order:
 * <ol>
 * <li>readiness answers 503 ({@link StoppingReadiness}); for {@code QUEEN_SHUTDOWN_DELAY_MS} the broker still serves
 * normally, so a load balancer stops routing to it before anything is refused;</li>
 * <li>drain: a new request is answered 503 with {@code Connection: close} before anything runs
 * ({@link AdmissionGate}); pops lease nothing more and parked long polls answer 204 at once; the requests already
 * admitted finish: every push accepted commits and gets its answer;</li>
 * <li>the retention leader finishes its cycle and stops; the leases this broker granted are released, so other
 * brokers' consumers get those batches at once instead of after lease expiry;</li>
 * <li>the process exits. A watchdog halts it {@code QUEEN_SHUTDOWN_TIMEOUT_MS} after SIGTERM whatever is still
 * running (what was not released then expires on its own: nothing is lost either way).</li>
 * </ol>
 * Invariant: after the drain starts this broker grants no lease, so the release at the end covers every lease it
 * can still be asked about. Thread-safety: the two observers run once each on Quarkus' shutdown thread; the start
 * time is a volatile field read by the later one.
 */
@Singleton
public class GracefulShutdown {
    private static final Logger LOG = Logger.getLogger(GracefulShutdown.class);

    private final DrainState state;
    private final AdmissionGate gate;
    private final PopWaiters waiters;
    private final LeaseRelease leases;
    private final RetentionScheduler retention;
    private final long timeoutMs;
    private final long delayMs;
    private volatile long stopRequestedAt;
    private volatile long requestsDoneMs = -1;

    GracefulShutdown(DrainState state, AdmissionGate gate, PopWaiters waiters, LeaseRelease leases,
            RetentionScheduler retention, QueenConfig config) {
        this.state = state;
        this.gate = gate;
        this.waiters = waiters;
        this.leases = leases;
        this.retention = retention;
        this.timeoutMs = Math.max(1000, config.shutdown().timeoutMs());
        this.delayMs = Math.max(0, Math.min(config.shutdown().delayMs(), timeoutMs / 2));
    }

    /** Fired by Quarkus first thing on SIGTERM, before it stops taking requests. */
    void stopRequested(@Observes ShutdownDelayInitiatedEvent event) {
        stopRequestedAt = System.nanoTime();
        state.advance(DrainState.Phase.LEAVING);
        if (LaunchMode.current() == LaunchMode.NORMAL) {
            armWatchdog();
        }
        LOG.infof("stop requested: readiness down, serving %d ms more, then draining (exit within %d ms)", delayMs,
                timeoutMs);
        if (delayMs > 0) {
            try {
                Thread.sleep(delayMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        state.advance(DrainState.Phase.DRAINING);
        waiters.wakeAll();  // parked pops see the drain and answer 204
        try {
            if (!gate.awaitIdle(Math.max(0, remainingMs(stopRequestedAt) - 1000))) {
                LOG.warnf("%d request(s) still running at the shutdown timeout", gate.running());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        requestsDoneMs = elapsedMs(stopRequestedAt);
    }

    /** Fired after the drain (and Quarkus' own wait for requests); the datasource is still open. */
    void stopping(@Observes @Priority(1) ShutdownEvent event) {
        long started = stopRequestedAt == 0 ? System.nanoTime() : stopRequestedAt;
        state.advance(DrainState.Phase.DRAINING);
        retention.stop(Math.max(0, remainingMs(started) / 2));
        int released = -1;
        CompletableFuture<Integer> release = CompletableFuture.supplyAsync(() -> {
            try {
                return leases.releaseAll();
            } catch (Exception e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }, r -> Thread.ofPlatform().daemon().name("queen-lease-release").start(r));
        try {
            released = release.get(Math.max(1, remainingMs(started) - 500), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warn("lease release did not finish in time; this broker's leases expire on their own");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warnf("lease release failed (%s); this broker's leases expire on their own",
                    e.getCause() == null ? e.getMessage() : e.getCause().getMessage());
        }
        LOG.infof("drained: requests in flight done after %d ms, %s lease(s) released, stopped %d ms after the"
                + " stop request", requestsDoneMs, released < 0 ? "no" : String.valueOf(released),
                elapsedMs(started));
    }

    private long remainingMs(long started) {
        return timeoutMs - elapsedMs(started);
    }

    private static long elapsedMs(long started) {
        return (System.nanoTime() - started) / 1_000_000;
    }

    /** The bounded exit: a stop that hangs (a database gone mid-release, a stuck request) ends at the timeout. */
    private void armWatchdog() {
        long deadline = stopRequestedAt + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        Thread.ofPlatform().daemon().name("queen-shutdown-watchdog").start(() -> {
            try {
                long left;
                while ((left = deadline - System.nanoTime()) > 0) {
                    TimeUnit.NANOSECONDS.sleep(left);
                }
            } catch (InterruptedException e) {
                return;
            }
            System.err.println("queen: shutdown still running " + timeoutMs + " ms after the stop request; halting");
            Runtime.getRuntime().halt(1);
        });
    }
}
