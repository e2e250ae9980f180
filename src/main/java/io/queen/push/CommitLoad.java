package io.queen.push;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * How many push commits the fusion shards together have in flight, and whether that makes the broker busy
 * ({@code queen.push.busy-commits}).
 *
 * <p>Why: a shard that already has a commit in flight can either start another for the partitions that became
 * ready meanwhile, or let them wait for the commit in flight and share the next one. At low load starting at once
 * is right (no push waits for another's commit). Under load it is not: beyond a few concurrent commits PostgreSQL
 * gets no faster, so more concurrency only splits the writes into more, smaller transactions, each with its fixed
 * cost (a round trip, executor set-up, a commit record), contending for pool connections. So a shard overlaps
 * commits only while fewer than the busy threshold are in flight broker-wide; a shard with none in flight always
 * starts one (a request that spans every shard is never serialized), and so does a full bundle (waiting would not
 * make it larger).
 *
 * <p>Only Kafka writes wait: a Kafka producer keeps several requests in flight, so one that waits costs it no rate,
 * while an HTTP pusher sends nothing more until answered and lost a third to a half of its rate when its pushes
 * waited too. A shard with an HTTP push ready starts a commit at once, taking the waiting Kafka writes along
 * (docs/benchmarks.md, "Push commits while the broker is busy").
 *
 * <p>A commit in flight longer than the hold limit stops counting ({@link Commit#overdue}): a commit stalled on a
 * lock (a queue being deleted, a partition row another transaction holds) must not keep its shard's other
 * partitions waiting for longer than that.
 *
 * <p>Thread-safety: the count is atomic; a {@link Commit} is touched only by its shard's loop.
 */
final class CommitLoad {
    private final AtomicInteger counted = new AtomicInteger();
    private final int busyAt;
    private final long holdNanos;
    private final LongSupplier nanoClock;

    /** Busy from {@code busyAt} commits in flight (0 or less: never); a commit counts for {@code holdNanos}. */
    CommitLoad(int busyAt, long holdNanos, LongSupplier nanoClock) {
        this.busyAt = busyAt;
        this.holdNanos = holdNanos;
        this.nanoClock = nanoClock;
    }

    /** Whether the broker can be busy at all (a threshold is set); without one, no commit is ever held back. */
    boolean enabled() {
        return busyAt > 0;
    }

    /** Whether a shard with a commit in flight should let new work wait for it. */
    boolean busy() {
        return enabled() && counted.get() >= busyAt;
    }

    /** Commits in flight that count. */
    int inflight() {
        return counted.get();
    }

    /** A commit starts and counts. */
    Commit start() {
        counted.incrementAndGet();
        return new Commit(nanoClock.getAsLong());
    }

    /** One bundle's commit in flight. */
    final class Commit {
        private final long since;
        private boolean counts = true;

        private Commit(long since) {
            this.since = since;
        }

        /** Whether it still counts, for its shard's own count. */
        boolean counts() {
            return counts;
        }

        /** Ended: stops counting (once). */
        void end() {
            if (counts) {
                counts = false;
                counted.decrementAndGet();
            }
        }

        /** Past the hold limit and still counting: stops counting and answers true (once). */
        boolean overdue() {
            if (counts && nanoClock.getAsLong() - since > holdNanos) {
                end();
                return true;
            }
            return false;
        }
    }
}
