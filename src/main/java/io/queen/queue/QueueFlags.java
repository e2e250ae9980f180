package io.queen.queue;

import io.queen.cache.CappedMap;
import io.queen.config.QueenConfig;
import io.queen.sql.SqlCalls;
import jakarta.inject.Singleton;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A small cache of per-queue options the broker acts on before it touches the log: encryption (push) and
 * minPopWaitTime (pop). Entries live {@value #TTL_SECONDS} s, so a configure on another broker is seen within
 * that time; a configure on this broker invalidates at once. An unknown queue (about to be provisioned by its
 * first push) is not encrypted and has no pop hold. At most {@code queen.pop.max-tracked-queues} entries: past it the
 * cache starts empty (pops and pushes may name queues that exist nowhere). Thread-safe.
 */
@Singleton
public class QueueFlags {
    static final long TTL_SECONDS = 5;

    private record Entry(boolean exists, boolean encrypted, int minPopWaitMs, long loadedAt) {
    }

    private final SqlCalls sql;
    private final CappedMap<String, Entry> cache;

    QueueFlags(SqlCalls sql, QueenConfig config) {
        this.sql = sql;
        this.cache = new CappedMap<>(config.pop().maxTrackedQueues());
    }

    /** The queues among {@code queues} whose payloads must be encrypted. */
    public Set<String> encrypted(UUID tenant, Collection<String> queues) throws SQLException {
        Set<String> out = new HashSet<>();
        for (Map.Entry<String, Entry> e : entries(tenant, queues).entrySet()) {
            if (e.getValue().encrypted()) {
                out.add(e.getKey());
            }
        }
        return out;
    }

    /** The queue's minPopWaitTime in ms (0 = pops never hold). */
    public int minPopWaitMs(UUID tenant, String queue) throws SQLException {
        return entries(tenant, List.of(queue)).get(queue).minPopWaitMs();
    }

    /**
     * Whether the queue exists: one that did within the last {@value #TTL_SECONDS} s, or does now (an absence is
     * read again: a push may have just created the queue, after its encryption check cached it as absent).
     */
    public boolean exists(UUID tenant, String queue) throws SQLException {
        if (entries(tenant, List.of(queue)).get(queue).exists()) {
            return true;
        }
        cache.remove(tenant + "/" + queue);
        return entries(tenant, List.of(queue)).get(queue).exists();
    }

    private Map<String, Entry> entries(UUID tenant, Collection<String> queues) throws SQLException {
        long now = System.nanoTime();
        Map<String, Entry> out = new HashMap<>();
        List<String> load = new ArrayList<>();
        for (String q : queues) {
            Entry e = cache.get(tenant + "/" + q);
            if (e == null || now - e.loadedAt() > TimeUnit.SECONDS.toNanos(TTL_SECONDS)) {
                load.add(q);
            } else {
                out.put(q, e);
            }
        }
        if (!load.isEmpty()) {
            record Flags(String queue, Entry entry) {
            }
            Map<String, Entry> loaded = new HashMap<>();
            for (Flags f : sql.list("SELECT name, encryption_enabled, min_pop_wait_time FROM queen.queue_flags_v1(?, ?)",
                    rs -> new Flags(rs.getString(1), new Entry(true, rs.getBoolean(2), rs.getInt(3), now)), tenant,
                    load.toArray(String[]::new))) {
                loaded.put(tenant + "/" + f.queue(), f.entry());
                out.put(f.queue(), f.entry());
            }
            for (String q : load) {
                if (!out.containsKey(q)) {
                    Entry e = new Entry(false, false, 0, now);
                    loaded.put(tenant + "/" + q, e);
                    out.put(q, e);
                }
            }
            cache.putAll(loaded);  // together: emptying a full cache keeps what this call just read
        }
        return out;
    }

    public void invalidate(UUID tenant, String queue) {
        cache.remove(tenant + "/" + queue);
    }
}
