package io.queen.segment;

import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Idle objects of one kind kept for reuse (zstd contexts, raw segment buffers), at most {@code capacity} of them;
 * the most recently given back is taken first. Thread-safe.
 */
final class IdlePool<T> {
    private final ConcurrentLinkedDeque<T> idle = new ConcurrentLinkedDeque<>();
    private final AtomicInteger size = new AtomicInteger();
    private final int capacity;

    IdlePool(int capacity) {
        this.capacity = capacity;
    }

    /** An idle object, or null when there is none. */
    T take() {
        T t = idle.pollFirst();
        if (t != null) {
            size.decrementAndGet();
        }
        return t;
    }

    /** Keeps {@code t} for reuse; false when the pool is full (the caller drops or closes it). */
    boolean give(T t) {
        if (size.incrementAndGet() <= capacity) {
            idle.offerFirst(t);
            return true;
        }
        size.decrementAndGet();
        return false;
    }
}
