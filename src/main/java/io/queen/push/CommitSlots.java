package io.queen.push;

import java.util.ArrayDeque;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The push transactions every fusion shard together may have in flight ({@code queen.push.max-inflight-commits}).
 *
 * <p>Why a limit across shards: beyond a few concurrent commits PostgreSQL gets no faster, so further concurrency
 * only splits the writes into more, smaller transactions (each with its fixed cost: a round trip, executor set-up,
 * a commit record) that contend for pool connections. Partitions that become ready while every slot is taken keep
 * accumulating, and the shard that next gets a slot commits all of its ready partitions in one bundle: group
 * commit that grows with load, with no timer, and no wait at all while a slot is free. A limit per shard alone
 * ({@code queen.push.max-inflight-bundles}) cannot do this without making one shard's partitions wait for the
 * slowest commit among them while other shards stand idle.
 *
 * <p>A commit that runs longer than the hold limit gives its slot back early and goes on outside the count: a
 * commit stalled on a lock (a queue being deleted, a partition row another transaction holds) must not hold back
 * the pushes of every other queue for longer than that.
 *
 * <p>Fairness: a finishing bundle hands its slot to the first shard in line, never back to the pool while one
 * waits, so a busy shard cannot take every freed slot. Thread-safety: all methods may be called from any thread;
 * a grant callback runs on the releasing thread after the lock is released and must only enqueue work (a shard
 * loop task).
 */
final class CommitSlots {
    private final ArrayDeque<Runnable> line = new ArrayDeque<>();
    private final boolean unlimited;
    private final long holdMillis;
    private final ScheduledExecutorService timer;
    private final Runnable onOverdue;
    private int free;

    /**
     * {@code capacity} slots (0 or less: no limit, every shard is bound only by its own bundles in flight); a slot
     * in use longer than {@code holdMillis} is given back by {@code timer}, which then also runs {@code onOverdue}.
     */
    CommitSlots(int capacity, long holdMillis, ScheduledExecutorService timer, Runnable onOverdue) {
        this.unlimited = capacity <= 0;
        this.free = Math.max(0, capacity);
        this.holdMillis = holdMillis;
        this.timer = timer;
        this.onOverdue = onOverdue;
    }

    /** A slot in use by one bundle: given back once, when the bundle ends or when the hold limit passes. */
    final class Held {
        private final AtomicBoolean out = new AtomicBoolean(true);
        private final ScheduledFuture<?> expiry;

        private Held() {
            this.expiry = unlimited ? null : timer.schedule(() -> {
                if (out.compareAndSet(true, false)) {
                    onOverdue.run();
                    release();
                }
            }, holdMillis, TimeUnit.MILLISECONDS);
        }

        /** The bundle ended; the slot goes back unless the hold limit already gave it back. */
        void end() {
            if (out.compareAndSet(true, false) && !unlimited) {
                expiry.cancel(false);
                release();
            }
        }
    }

    /**
     * Takes a slot, or puts {@code onGrant} in line (once, however often it asks) and answers false; it is then run
     * when a slot is handed to it, and the slot is its caller's from then on ({@link #use} or {@link #giveBack}).
     */
    synchronized boolean take(Runnable onGrant) {
        if (unlimited) {
            return true;
        }
        if (free > 0) {
            free--;
            return true;
        }
        if (!line.contains(onGrant)) {  // the line holds at most one entry per shard
            line.add(onGrant);
        }
        return false;
    }

    /** A slot its caller owns (taken, or handed to it in line) is in use by one bundle from now on. */
    Held use() {
        return new Held();
    }

    /** A slot its caller owns goes back unused. */
    void giveBack() {
        if (!unlimited) {
            release();
        }
    }

    /** To the first in line (whose callback runs here, outside the lock), else to the pool. */
    private void release() {
        Runnable next;
        synchronized (this) {
            next = line.poll();
            if (next == null) {
                free++;
                return;
            }
        }
        next.run();
    }

    /** Slots neither in use nor handed to anyone; for tests. */
    synchronized int free() {
        return free;
    }
}
