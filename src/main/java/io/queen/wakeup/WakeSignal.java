package io.queen.wakeup;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One topic's wake-up counter (a queue, or every queue of a tenant) with a condition to wait on. Beside the
 * generation it counts the wake-ups that were not hot-list wake-ups ({@link #others}): a parked pop that sees only
 * those since its last attempt can ask the pop side's hot list whether any of that work is still unclaimed for its
 * group. Thread-safe.
 */
public final class WakeSignal {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private long generation;
    private long others;

    public long generation() {
        lock.lock();
        try {
            return generation;
        } finally {
            lock.unlock();
        }
    }

    /** Wake-ups other than hot-list ones so far (a lease freed, another broker, ...). */
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
                others++;
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
