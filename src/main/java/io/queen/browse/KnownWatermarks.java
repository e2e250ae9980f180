package io.queen.browse;

import io.queen.cache.CappedMap;
import io.queen.queue.QueueDeletion;
import jakarta.inject.Singleton;
import java.util.UUID;

/**
 * The watermarks a read by offset last found in each partition, kept with the partition's write stamp as it stood
 * before that read ({@link io.queen.wakeup.PopWaiters#writeStampIfTracked}). A reader that has caught up fetches at
 * the high watermark, usually in every partition it is assigned, and most of them received nothing since its last
 * read: while the stamp has not moved (no push committed here to the partition, no other write to its queue told
 * to this broker) and the entry is younger than {@link #VALID_NANOS}, a read at that high watermark is answered
 * "nothing new" with these watermarks and leaves the database alone. The age bound covers what no wake-up tells:
 * another broker's commit whose announcement is late or lost, a queue deleted on another broker, a log start moved
 * by retention or DeleteRecords. A queue deleted on this broker is forgotten at once. Bounded
 * ({@link #MAX_ENTRIES}, emptied when full). Thread-safe.
 */
@Singleton
class KnownWatermarks implements QueueDeletion.Listener {
    /** How long a found high watermark stands for the partition while its stamp holds. */
    static final long VALID_NANOS = 1_000_000_000L;
    static final int MAX_ENTRIES = 100_000;

    private record Key(UUID tenant, String queue, String partition) {
    }

    record Known(long high, long logStart, long stamp, long foundNanos) {
    }

    /** Emptied when full: a forgotten partition costs one read from the database. */
    private final CappedMap<Key, Known> known = new CappedMap<>(MAX_ENTRIES);

    /** The partition's watermarks when a read at {@code offset} would find nothing new; else null (read it). */
    Known caughtUp(UUID tenant, String queue, String partition, long offset, long stamp, long nowNanos) {
        if (stamp < 0) {
            return null;
        }
        Known k = known.get(new Key(tenant, queue, partition));
        if (k == null || k.stamp() != stamp || k.high() != offset || nowNanos - k.foundNanos() > VALID_NANOS) {
            return null;
        }
        return k;
    }

    /** A read found these watermarks; {@code stamp} is the partition's write stamp read before that read. */
    void found(UUID tenant, String queue, String partition, long high, long logStart, long stamp, long nowNanos) {
        known.put(new Key(tenant, queue, partition), new Known(high, logStart, stamp, nowNanos));
    }

    /** The queue's rows are gone: a queue of that name created again starts from nothing. */
    @Override
    public void deleted(UUID tenant, String queue) {
        known.removeKeysIf(k -> k.tenant().equals(tenant) && k.queue().equals(queue));
    }
}
