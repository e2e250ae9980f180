package io.queen.pop;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.queen.cache.CappedMap;
import jakarta.inject.Singleton;
import java.sql.SQLException;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * When a pop that found nothing should try again without a wake-up: a lease it could take over expiring or a delay
 * maturing. Parked pops of one key (tenant, queue, partition, namespace, task, group) share one answer per signal
 * generation: a write, an ack ending a lease or a seek moves the generation, and nothing else makes work claimable
 * sooner than the answer says, so a push waking many parked pops costs one such query, not one each. The same
 * answer tells a pop arriving meanwhile that a claim would find nothing ({@link #knownEmpty}).
 *
 * <p>An answer other than never also serves the generations that follow it for up to {@link #REUSE_NANOS} after it
 * was asked, capped at that point: a busy queue moves its generation with every push and ack (hundreds a second under
 * a job queue's load), and asking anew each time was a query per push. (Never is asked anew: capped, it would have
 * every parked pop of a quiet queue claim again a second after each write.) The capped answer stays a lower bound of
 * what a query would answer now, which is all a parked pop's timer and {@link #knownEmpty} need. A query answers the
 * earliest, over the pending partitions, of a live lease's expiry and one second from then for work not leased. Since
 * the answer was asked, a lease that existed then can only have been extended or ended (ending one wakes the pops
 * directly); a lease taken since expires at least a lease time (one second or more) after it was taken; work not
 * leased now counts from now; and a lease expired since was in the answer, which has then passed and is asked anew.
 * Thread-safe.
 */
@Singleton
public class DueTimes {
    /** A due time already past is retried no sooner than this (the claim that just missed it may be racing). */
    private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** How long after it was asked an answer also serves later generations, and the latest it then answers. */
    static final long REUSE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Remembered due times; the map is emptied when an answer finds it this full (a forgotten one costs one query). */
    private static final int MAX_DUES = 4096;

    /** What a parked pop waits on besides wake-ups: the pops of one key share it. */
    private record DueKey(UUID tenant, String queue, String partition, String namespace, String task, String group) {
    }

    /**
     * When to re-try without a wake-up (a {@link PopClock#nanoTime}, {@link Long#MAX_VALUE} = never), valid while the
     * signal's generation is still {@code generation}; {@code at} completes when the one query asking it has answered,
     * which was asked at {@code askedAt}.
     */
    private record Due(long generation, long askedAt, CompletableFuture<Long> at) {
        /** This answer for a later generation: capped, or null when it no longer serves one. */
        Long forLater(long now) {
            if (!at.isDone() || at.isCompletedExceptionally() || now - askedAt >= REUSE_NANOS
                    || at.join() == Long.MAX_VALUE) {
                return null;
            }
            long capped = Math.min(at.join(), askedAt + REUSE_NANOS);
            return capped - now > 0 ? capped : null;
        }
    }

    private final CappedMap<DueKey, Due> dues = new CappedMap<>(MAX_DUES);
    private final PopStore store;
    private final PopClock clock;
    private final Counter knownEmptyPops;

    DueTimes(PopStore store, PopClock clock, MeterRegistry registry) {
        this.store = store;
        this.clock = clock;
        this.knownEmptyPops = Counter.builder("queen.pop.known.empty")
                .description("pop attempts not made: a pop of the same key found nothing since the last wake-up")
                .register(registry);
    }

    /**
     * The clock reading at which a pop that found nothing in signal generation {@code seen} should try again on its
     * own ({@link Long#MAX_VALUE}: only a wake-up can help it, or the pop's {@code deadline} has passed and it asks
     * nothing). Asked also by a pop that slept on: the pop that took the commit's work may lease it and never ack.
     */
    long next(UUID tenant, PopRequest r, long seen, long deadline) throws SQLException, InterruptedException {
        if (deadline - clock.nanoTime() <= 0) {
            return Long.MAX_VALUE;
        }
        DueKey key = dueKey(tenant, r);
        for (int look = 0; ; look++) {
            Due d = dues.get(key);
            if (d != null && d.generation() == seen) {
                // the pops a write woke all ask at once: one asks, the others wait for its answer
                Long at = answer(d);
                if (at != null && at - clock.nanoTime() > 0) {
                    return at;
                }
            }
            Long earlier = d == null || d.generation() == seen ? null : d.forLater(clock.nanoTime());
            if (earlier != null) {
                // an answer of an earlier generation still serves: kept for this one too (knownEmpty), unless
                // another pop has replaced it meanwhile
                if (seen - d.generation() > 0) {
                    dues.replace(key, d, new Due(seen, d.askedAt(), CompletableFuture.completedFuture(earlier)));
                }
                return earlier;
            }
            Due mine = new Due(seen, clock.nanoTime(), new CompletableFuture<>());
            boolean published = d == null ? dues.putIfAbsent(key, mine) == null : dues.replace(key, d, mine);
            if (!published && look < 2) {
                continue;  // another pop started asking meanwhile: wait for its answer instead
            }
            try {
                double ms = store.nextDueMs(tenant, r.queue(), r.partition(), r.namespace(), r.task(), r.group());
                long at = ms < 0 ? Long.MAX_VALUE
                        : clock.nanoTime() + Math.max(MIN_RETRY_NANOS, (long) (ms * 1_000_000d));
                mine.at().complete(at);
                return at;
            } catch (SQLException | RuntimeException e) {
                mine.at().completeExceptionally(e);
                dues.remove(key, mine);
                throw e;
            }
        }
    }

    /**
     * True when a claim is known to find nothing: a pop of the same key found nothing in this very signal
     * generation and its due time is still ahead. Nothing makes work claimable without moving the generation
     * before that time, so a pop arriving then (a consumer back from acking what it got) parks without a query.
     * Not for a pop that may create its group's cursors at a position of its own.
     */
    boolean knownEmpty(UUID tenant, PopRequest r, long seen) {
        if (r.subscriptionFrom() != null || !"all".equals(r.subscriptionMode())) {
            return false;
        }
        Due d = dues.get(dueKey(tenant, r));
        if (d == null || d.generation() != seen || !d.at().isDone() || d.at().isCompletedExceptionally()) {
            return false;
        }
        if (d.at().join() - clock.nanoTime() > 0) {
            knownEmptyPops.increment();
            return true;
        }
        return false;
    }

    private static DueKey dueKey(UUID tenant, PopRequest r) {
        return new DueKey(tenant, r.queue(), r.partition(), r.namespace(), r.task(), r.group());
    }

    /** The answer of a due query, waiting for it if it is still running; null when it failed. */
    private static Long answer(Due d) throws InterruptedException {
        try {
            return d.at().get();
        } catch (ExecutionException e) {
            return null;
        }
    }
}
