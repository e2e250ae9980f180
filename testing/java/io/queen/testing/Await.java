package io.queen.testing;

import java.time.Duration;

/**
 * Waiting on a signal a test can observe (a metric, a row, an answer) instead of sleeping a fixed time: the one place
 * tests poll a condition, with a deadline after which the test fails naming what it waited for. Stateless.
 */
public final class Await {
    /** How often a condition is asked again: short against test durations, long against the work of asking. */
    private static final long POLL_MILLIS = 20;

    private Await() {
    }

    /** Something a test can ask about; it may throw (a failed request fails the wait). */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws Exception;
    }

    /** Returns once {@code condition} holds; fails with {@code description} if it does not within {@code timeout}. */
    public static void until(String description, Condition condition, Duration timeout) throws Exception {
        if (!within(condition, timeout)) {
            throw new AssertionError("not within " + timeout + ": " + description);
        }
    }

    /** Something a test can read; null while it is not there yet. */
    @FunctionalInterface
    public interface Reading<T> {
        T read() throws Exception;
    }

    /** The first non-null {@code reading}; fails with {@code description} if there is none within {@code timeout}. */
    public static <T> T value(String description, Reading<T> reading, Duration timeout) throws Exception {
        Object[] got = new Object[1];
        until(description, () -> (got[0] = reading.read()) != null, timeout);
        @SuppressWarnings("unchecked")
        T t = (T) got[0];
        return t;
    }

    /**
     * Like {@link #until}, but returns whether the condition came to hold instead of failing (for a caller that
     * reports the timeout its own way). What the condition throws, an assertion included, is thrown.
     */
    public static boolean within(Condition condition, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(POLL_MILLIS);
        }
        return true;
    }
}
