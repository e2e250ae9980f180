package io.queen.pop;

import io.queen.config.QueenConfig;
import io.queen.shutdown.DrainState;
import io.queen.wakeup.PopWaiters;
import io.queen.wakeup.WakeSignal;
import jakarta.inject.Singleton;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * How a pop waits, holding no database connection: parked on its signal ({@link PopWaiters}) until a wake-up, its
 * due time, the long safety interval ({@code queen.pop.recheck-interval-ms}, for a lost notification) or its
 * deadline; holding an under-full batch for its queue's minPopWaitTime; backing off after a database failure.
 * Every wait is made on the {@link PopClock}. Holds only its settings; thread-safe.
 */
@Singleton
public class LongPoll {
    /** A parked pop looks whether its client is still there this often (no database work). */
    private static final long CLIENT_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** A held pop (minPopWaitTime) measures its queue's fill at most this often, however often it is written. */
    private static final long HOLD_PROBE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** The longest back-off after a database failure. */
    private static final long BACK_OFF_MS = 200;

    /** How a wait ended. */
    enum Waited {
        /** The signal moved: work may have been committed or freed. */
        WOKEN,
        /** Its time came (a due time, the safety interval, a back-off): try again. */
        ELAPSED,
        /** Answer "nothing": the deadline passed without a wake-up, the client left or the broker drains. */
        OVER
    }

    private final PopClock clock;
    private final DrainState drain;
    private final long safetyNanos;

    LongPoll(PopClock clock, DrainState drain, QueenConfig config) {
        this.clock = clock;
        this.drain = drain;
        this.safetyNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(10, config.pop().recheckIntervalMs()));
    }

    /**
     * Waits for a wake-up ({@link Waited#WOKEN}), or until the deadline, the due time ({@link DueTimes#next}) or the
     * safety interval, whichever comes first, looking at the client every {@link #CLIENT_CHECK_NANOS}: a client that
     * left ends the wait without any database work. {@link Waited#OVER} when the client left, the broker drains, or
     * the deadline passed with no commit signalled: the pop answers now instead of one more claim, which under load
     * (pool wait, slow statements) could run the answer well past the timeout.
     */
    Waited park(WakeSignal signal, long seen, long deadline, long dueAt, BooleanSupplier clientGone)
            throws InterruptedException {
        boolean moved = awaitChange(signal, seen, Math.min(deadline, Math.min(dueAt, clock.nanoTime() + safetyNanos)),
                clientGone);
        if (clientGone.getAsBoolean() || drain.draining() || (!moved && clock.nanoTime() - deadline >= 0)) {
            return Waited.OVER;
        }
        return moved ? Waited.WOKEN : Waited.ELAPSED;
    }

    private boolean awaitChange(WakeSignal signal, long seen, long until, BooleanSupplier clientGone)
            throws InterruptedException {
        while (true) {
            long left = until - clock.nanoTime();
            if (left <= 0) {
                return false;
            }
            if (clock.awaitChange(signal, seen, Math.min(left, CLIENT_CHECK_NANOS))) {
                return true;
            }
            if (clientGone.getAsBoolean()) {
                return false;
            }
        }
    }

    /**
     * Waits for a commit to the queue or the hold's end; a busy queue is measured at most every HOLD_PROBE. False
     * at once when the client left: claiming then would lease messages nobody receives.
     */
    boolean awaitFill(WakeSignal signal, long seen, long holdUntil, BooleanSupplier clientGone)
            throws InterruptedException {
        if (clientGone.getAsBoolean()) {
            return false;
        }
        if (clock.awaitChange(signal, seen, holdUntil - clock.nanoTime())) {
            long left = holdUntil - clock.nanoTime();
            if (left > 0) {
                clock.sleep(Math.min(left, HOLD_PROBE_NANOS));
            }
        }
        return true;
    }

    /**
     * After a database failure: waits a little (never much past the deadline) instead of for a wake-up;
     * {@link Waited#OVER} when the deadline has passed meanwhile: a failing database gets no attempt past it.
     */
    Waited backOff(long deadline) throws InterruptedException {
        long remaining = deadline - clock.nanoTime();
        clock.sleep(TimeUnit.MILLISECONDS.toNanos(Math.min(TimeUnit.NANOSECONDS.toMillis(remaining) + 1, BACK_OFF_MS)));
        return clock.nanoTime() - deadline >= 0 ? Waited.OVER : Waited.ELAPSED;
    }
}
