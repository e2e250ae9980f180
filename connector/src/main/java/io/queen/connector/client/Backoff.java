package io.queen.connector.client;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential back-off with jitter, as Kafka clients reconnect: the nominal pause before attempt {@code n}
 * (0-based) is {@code initial × 2^n}, capped at {@code max}, and the actual pause is drawn uniformly from
 * [80 %, 100 %] of it. Jitter only shortens the pause, so {@code max} stays a hard bound (it is also the longest
 * a channel takes to notice that an unreachable broker is back); drawing it apart keeps many clients that lost
 * the broker at the same moment from reconnecting in lock-step.
 * <p>
 * Immutable and thread-safe.
 */
public record Backoff(long initialMs, long maxMs) {

    /** Share of the nominal pause that jitter may take away. */
    static final double JITTER = 0.2;

    public Backoff {
        initialMs = Math.max(1, initialMs);
        maxMs = Math.max(initialMs, maxMs);
    }

    /** The pause without jitter before attempt {@code attempt} (0-based). */
    public long nominal(int attempt) {
        int shift = Math.min(Math.max(attempt, 0), 30);
        long v = initialMs << shift;
        return v <= 0 || v > maxMs ? maxMs : v;
    }

    /** The pause before attempt {@code attempt}: {@link #nominal} less up to 20 % jitter. */
    public long delay(int attempt) {
        long n = nominal(attempt);
        return n - (long) (n * JITTER * ThreadLocalRandom.current().nextDouble());
    }
}
