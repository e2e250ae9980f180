package io.queen.pop;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Which partitions a lease id (granted by THIS broker) covers, so a renewal can address the cursor rows by
 * primary key instead of scanning for the worker id. Bounded (LRU, 100k leases); a miss (lease granted by
 * another broker, or evicted) falls back to the scan. An optimisation only. Thread-safe (synchronized).
 */
@ApplicationScoped
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
}
