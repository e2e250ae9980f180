package io.queen.lease;

import io.queen.config.QueenConfig;
import jakarta.inject.Singleton;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * What this broker delivered under each (lease id, partition): group, last delivered offset, message count and an
 * order-independent digest of the delivered transaction hashes. An ack that names exactly that set, all positive,
 * is a positional commit to the last offset ({@code log_ack_multi_v1}, fused with other acks into one transaction)
 * instead of a sidecar lookup per message. RAM only and an optimisation only: a miss (lease granted by another
 * broker, broker restarted, entry evicted, partial or negative ack) takes the decision procedure
 * ({@code log_ack_by_hash_v1}), which gives the same answer. Bounded LRU ({@code queen.ack.registry-entries}; 0
 * switches it off). Thread-safe (synchronized; one map operation per pop and per ack group).
 */
@Singleton
public class AckRegistry {

    /** One delivered batch of one partition under one lease, in the tenant that popped it. */
    public record Batch(UUID tenant, String group, String queue, String partition, long lastOffset, int count,
            long digestHi,
            long digestLo) {
    }

    private record Key(String leaseId, UUID partitionId) {
    }

    /** Order-independent digest of a set of 16-byte hashes: the two 64-bit halves summed separately, plus count. */
    public static final class Digest {
        private long hi;
        private long lo;
        private int count;

        public void add(byte[] hash16) {
            ByteBuffer b = ByteBuffer.wrap(hash16);
            hi += b.getLong(0);
            lo += b.getLong(8);
            count++;
        }

        public long hi() {
            return hi;
        }

        public long lo() {
            return lo;
        }

        public int count() {
            return count;
        }
    }

    private final int max;
    private final Map<Key, Batch> batches;

    AckRegistry(QueenConfig config) {
        this.max = config.ack().registryEntries();
        this.batches = new LinkedHashMap<>(1024, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, Batch> eldest) {
                return size() > max;
            }
        };
    }

    public boolean enabled() {
        return max > 0;
    }

    public synchronized void delivered(String leaseId, UUID partitionId, Batch batch) {
        if (max > 0) {
            batches.put(new Key(leaseId, partitionId), batch);
        }
    }

    /**
     * The batch delivered under (lease, partition) when the ack names exactly its messages (same group, count and
     * digest) and comes from the tenant that popped it; the entry is consumed either way (a repeated ack takes the
     * decision procedure and answers noop).
     */
    public synchronized Batch take(UUID tenant, String leaseId, UUID partitionId, String group, Digest acked) {
        if (max == 0) {
            return null;
        }
        Batch b = batches.remove(new Key(leaseId, partitionId));
        if (b == null || !b.tenant().equals(tenant) || !b.group().equals(group) || b.count() != acked.count()
                || b.digestHi() != acked.hi()
                || b.digestLo() != acked.lo()) {
            return null;
        }
        return b;
    }

    /** The consumer group of the batch delivered under (lease, partition) to {@code tenant}, or null; not consumed. */
    public synchronized String groupOf(UUID tenant, String leaseId, UUID partitionId) {
        Batch b = max == 0 ? null : batches.get(new Key(leaseId, partitionId));
        return b == null || !b.tenant().equals(tenant) ? null : b.group();
    }

    synchronized int size() {
        return batches.size();
    }
}
