package io.queen.wakeup;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One topic's wake-up counter (a queue, or every queue of a tenant) with a condition to wait on. Beside the
 * generation it marks the wake-ups that were not hot-list wake-ups ({@link #others}): a parked pop that sees only
 * generation moves since its last attempt can ask the pop side's hot list whether any of that work is still
 * unclaimed for its group. Thread-safe.
 */
public final class WakeSignal {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Where {@link #others} values come from, shared by every signal of a {@link PopWaiters}. */
    private final AtomicLong marks;
    /** The queue signal's key in {@link PopWaiters}; null for a tenant's. */
    final PopWaiters.QueueKey key;
    /** Callers waiting on it ({@link PopWaiters#hold}); changed and read only inside the map's compute for the key. */
    int holders;
    private long generation;
    private long others;

    WakeSignal(PopWaiters.QueueKey key, AtomicLong marks) {
        this.key = key;
        this.marks = marks;
        // a value no signal had before: a stamp read from a signal dropped meanwhile never matches this one's
        this.others = marks.incrementAndGet();
    }

    public long generation() {
        lock.lock();
        try {
            return generation;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Moves on every wake-up other than a hot-list one (a lease freed, another broker, ...) to a value no signal of
     * its {@link PopWaiters} had before; only compared for equality.
     */
    public long others() {
        lock.lock();
        try {
            return others;
        } finally {
            lock.unlock();
        }
    }

    void fire() {
        fire(false);
    }

    /** {@code hotListed}: the work is on a pop group's hot list (a fused commit here, a partition handed back). */
    void fire(boolean hotListed) {
        lock.lock();
        try {
            generation++;
            if (!hotListed) {
                others = marks.incrementAndGet();
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until the generation differs from {@code seen} or the time is up; true when it moved. */
    public boolean awaitChange(long seen, long nanos) throws InterruptedException {
        lock.lock();
        try {
            while (generation == seen && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            return generation != seen;
        } finally {
            lock.unlock();
        }
    }
}
