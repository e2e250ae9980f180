package io.queen.lease;

import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Which partitions a lease id (granted by THIS broker) covers, so a renewal can address the cursor rows by
 * primary key instead of scanning for the worker id, and which leases a stopping broker gives back
 * ({@link LeaseRelease}). An ack that ends the lease on a partition forgets that partition ({@link #ended}), so
 * under a steady consume loop the directory holds the leases in flight, not the last 100k granted. Bounded (LRU,
 * 100k leases: leases that expire instead of being acked stay until evicted); a miss (lease granted by another
 * broker, or evicted) falls back to the scan, and an evicted lease still live at shutdown simply expires. Every user
 * checks the lease against the cursor row, so a stale entry costs work, never a wrong answer. Thread-safe
 * (synchronized).
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

    /** The lease ended on {@code partitionId} (an ack released it): forgets that partition, and the lease with its last. */
    public synchronized void ended(String leaseId, UUID partitionId) {
        List<UUID> ps = leases.get(leaseId);
        if (ps == null || !ps.contains(partitionId)) {
            return;
        }
        if (ps.size() == 1) {
            leases.remove(leaseId);
        } else {
            List<UUID> rest = new ArrayList<>(ps);
            rest.remove(partitionId);
            leases.put(leaseId, List.copyOf(rest));
        }
    }

    synchronized int size() {
        return leases.size();
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
