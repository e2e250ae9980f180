package io.queen.pop;

import io.queen.wakeup.WakeSignal;
import java.time.Instant;

/**
 * The time the pop path reads and the timed waits it makes: a long poll's timeout, a due time, a held batch, a
 * back-off. The broker runs on {@link SystemPopClock}; a test may put a clock of its own in its place (a CDI
 * alternative) and move it ahead, so that it never sleeps through a long poll's timeout.
 */
public interface PopClock {
    /** A reading in nanoseconds, as {@link System#nanoTime()}: only differences between readings mean anything. */
    long nanoTime();

    /** Wall-clock milliseconds since the epoch, as {@link System#currentTimeMillis()}. */
    long millis();

    /** Wall-clock now, as {@link Instant#now()}. */
    Instant instant();

    /**
     * Waits until the signal's generation differs from {@code seen} or {@code nanos} have passed on this clock;
     * true when the generation moved ({@link WakeSignal#awaitChange}).
     */
    boolean awaitChange(WakeSignal signal, long seen, long nanos) throws InterruptedException;

    /** Waits {@code nanos} on this clock. */
    void sleep(long nanos) throws InterruptedException;
}
