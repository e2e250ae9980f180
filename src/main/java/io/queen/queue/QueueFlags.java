package io.queen.queue;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A small cache of per-queue flags the push path needs before it writes (today: encryption). Entries live
 * {@value #TTL_SECONDS} s, so a configure on another broker is seen within that time; a configure on this
 * broker invalidates at once. An unknown queue (about to be provisioned by its first push) is not encrypted.
 * Thread-safe.
 */
@ApplicationScoped
public class QueueFlags {
    static final long TTL_SECONDS = 5;

    private record Entry(boolean encrypted, long loadedAt) {
    }

    private final AgroalDataSource ds;
    private final ConcurrentHashMap<String, Entry> cache = new ConcurrentHashMap<>();

    QueueFlags(AgroalDataSource ds) {
        this.ds = ds;
    }

    /** The queues among {@code queues} whose payloads must be encrypted. */
    public Set<String> encrypted(UUID tenant, Collection<String> queues) throws SQLException {
        long now = System.nanoTime();
        Set<String> out = new HashSet<>();
        List<String> load = new ArrayList<>();
        for (String q : queues) {
            Entry e = cache.get(tenant + "/" + q);
            if (e == null || now - e.loadedAt() > TimeUnit.SECONDS.toNanos(TTL_SECONDS)) {
                load.add(q);
            } else if (e.encrypted()) {
                out.add(q);
            }
        }
        if (!load.isEmpty()) {
            Set<String> loaded = new HashSet<>();
            try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                    "SELECT name, encryption_enabled FROM queen.queue_encryption_v1(?, ?)")) {
                ps.setObject(1, tenant);
                ps.setArray(2, c.createArrayOf("text", load.toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        loaded.add(rs.getString(1));
                        cache.put(tenant + "/" + rs.getString(1), new Entry(rs.getBoolean(2), now));
                        if (rs.getBoolean(2)) {
                            out.add(rs.getString(1));
                        }
                    }
                }
            }
            for (String q : load) {
                if (!loaded.contains(q)) {
                    cache.put(tenant + "/" + q, new Entry(false, now));
                }
            }
        }
        return out;
    }

    public void invalidate(UUID tenant, String queue) {
        cache.remove(tenant + "/" + queue);
    }
}
