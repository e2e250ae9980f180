package io.queen.pop;

import io.queen.testing.Settings;
import io.queen.wakeup.WakeSignal;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A pop clock a test moves ahead: it runs with the system clock plus the time {@link #advance}d, so a long poll's
 * timeout, a due time or a back-off ends when the test says, without sleeping through it, while waits the test does
 * not drive (a lease expiring in PostgreSQL, a short consumer poll) still end in real time. An advance wakes at once
 * every pop whose wait it ended. {@link #awaitParked} is the signal a test waits on instead of sleeping: pops
 * waiting on a queue's signal, each having seen the latest wake-up. Enabled by {@link Profile}. Thread-safe.
 *
 * <p>A pop waits on its {@link WakeSignal}, which only a wake-up moves; an advance that ends such a wait
 * interrupts the waiting thread, and the wait absorbs that interrupt (and only that one) before it returns.
 */
@Alternative
@Singleton
public class DrivenClock implements PopClock {
    /** A test profile on this clock, with optional settings as (name, value) pairs. */
    public static class Profile extends Settings {
        public Profile() {
        }

        protected Profile(String... nameThenValue) {
            super(nameThenValue);
        }

        @Override
        public Set<Class<?>> getEnabledAlternatives() {
            return Set.of(DrivenClock.class);
        }
    }

    /** A thread waiting on a signal: until when, and whether an advance has interrupted it to end the wait. */
    private static final class Wait {
        final Thread thread = Thread.currentThread();
        final WakeSignal signal;
        final long seen;
        final long until;
        boolean ended;

        Wait(WakeSignal signal, long seen, long until) {
            this.signal = signal;
            this.seen = seen;
            this.until = until;
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    /** Time moved, or a wait began or ended. */
    private final Condition changed = lock.newCondition();
    private final Map<Thread, Wait> waits = new HashMap<>();
    private volatile long aheadNanos;

    @Override
    public long nanoTime() {
        return System.nanoTime() + aheadNanos;
    }

    @Override
    public long millis() {
        return System.currentTimeMillis() + TimeUnit.NANOSECONDS.toMillis(aheadNanos);
    }

    @Override
    public Instant instant() {
        return Instant.now().plusNanos(aheadNanos);
    }

    /** Moves the clock ahead by {@code d} and ends at once every wait that this makes run out. */
    public void advance(Duration d) {
        lock.lock();
        try {
            aheadNanos += d.toNanos();
            long now = nanoTime();
            for (Wait w : waits.values()) {
                if (!w.ended && now - w.until >= 0) {
                    w.ended = true;
                    w.thread.interrupt();
                }
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean awaitChange(WakeSignal signal, long seen, long nanos) throws InterruptedException {
        Wait w = begin(signal, seen, nanoTime() + nanos);
        try {
            while (true) {
                long left = w.until - nanoTime();
                if (left <= 0) {
                    return signal.generation() != seen;
                }
                try {
                    return signal.awaitChange(seen, left);
                } catch (InterruptedException e) {
                    if (!endedByAdvance(w)) {
                        throw e;
                    }
                }
            }
        } finally {
            end(w);
        }
    }

    @Override
    public void sleep(long nanos) throws InterruptedException {
        long until = nanoTime() + nanos;
        lock.lock();
        try {
            for (long left = nanos; left > 0; left = until - nanoTime()) {
                changed.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until at least {@code n} pops wait on their signals, each having seen its signal's latest wake-up (a
     * pop a wake-up reached has made its attempt and waits again); fails after 60 s.
     */
    public void awaitParked(int n) throws InterruptedException {
        long limit = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        lock.lock();
        try {
            while (parked() < n) {
                long left = limit - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError(parked() + " pops parked, expected " + n);
                }
                changed.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Pops waiting on their signals right now, each having seen its signal's latest wake-up, in a wait whose time
     * has not run out (one an advance ended counts again once its pop waits anew).
     */
    public int parked() {
        lock.lock();
        try {
            long now = nanoTime();
            int n = 0;
            for (Wait w : waits.values()) {
                if (w.signal.generation() == w.seen && w.until - now > 0) {
                    n++;
                }
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    private Wait begin(WakeSignal signal, long seen, long until) {
        Wait w = new Wait(signal, seen, until);
        lock.lock();
        try {
            waits.put(w.thread, w);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        return w;
    }

    /** True when an advance interrupted this wait (the interrupt is then consumed). */
    private boolean endedByAdvance(Wait w) {
        lock.lock();
        try {
            boolean ended = w.ended;
            w.ended = false;
            return ended;
        } finally {
            lock.unlock();
        }
    }

    private void end(Wait w) {
        lock.lock();
        try {
            waits.remove(w.thread);
            if (w.ended) {
                Thread.interrupted();  // an advance's interrupt that came after the wait ended: not for the caller
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
