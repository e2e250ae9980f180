package io.queen.pop;

import jakarta.inject.Singleton;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Which partitions a lease id (granted by THIS broker) covers, so a renewal can address the cursor rows by
 * primary key instead of scanning for the worker id, and which leases a stopping broker gives back
 * ({@link LeaseRelease}). Bounded (LRU, 100k leases); a miss (lease granted by another broker, or evicted) falls
 * back to the scan, and an evicted lease still live at shutdown simply expires. Entries are not removed on ack:
 * every user checks the lease against the cursor row. Thread-safe (synchronized).
 */
@Singleton
public class LeaseDirectory {
    private static final int MAX = 100_000;
    private final Map<String, List<UUID>> leases = new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, List<UUID>> eldest) {
            return size() > MAX;
        }
    };

    public synchronized void granted(String leaseId, List<UUID> partitionIds) {
        leases.put(leaseId, List.copyOf(partitionIds));
    }

    public synchronized List<UUID> partitionsOf(String leaseId) {
        return leases.get(leaseId);
    }

    /** Every (partition, lease id) pair remembered, as two parallel arrays (index i is one pair). */
    public synchronized Pairs pairs() {
        int n = 0;
        for (List<UUID> ps : leases.values()) {
            n += ps.size();
        }
        UUID[] partitions = new UUID[n];
        String[] ids = new String[n];
        int i = 0;
        for (Map.Entry<String, List<UUID>> e : leases.entrySet()) {
            for (UUID p : e.getValue()) {
                partitions[i] = p;
                ids[i++] = e.getKey();
            }
        }
        return new Pairs(partitions, ids);
    }

    /** Parallel arrays: lease {@code leaseIds[i]} was granted on partition {@code partitionIds[i]}. */
    public record Pairs(UUID[] partitionIds, String[] leaseIds) {
    }
}
