package io.queen.pop;

import io.queen.push.PushFusion;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Partitions this broker committed to since a queue-level pop of a (queue, group) last looked: the reference's
 * hot list. A queue-level pop ({@code partitions=1}) first tries targeted claims on them (a claim by name is a few
 * primary-key probes) before the discovery scan, which ranks every partition of the queue with pending work and
 * costs the database 2x the CPU per message at high rates (bench/README). Every {@link #SCAN_EVERY}-th pop of a
 * (queue, group) scans anyway, so partitions written through other brokers (which this list never sees) are not
 * starved. A group is tracked from its first queue-level pop on this broker; at most {@link #MAX_PER_GROUP}
 * partitions are remembered per group (beyond that, the scan finds them). An optimisation only: a stale entry
 * costs one empty claim. Thread-safe (concurrent collections; one entry is handed to one pop).
 */
@Singleton
public class HotPartitions implements PushFusion.CommitListener {
    static final int SCAN_EVERY = 4;
    static final int MAX_PER_GROUP = 4096;

    private static final class Hot {
        final Set<String> members = ConcurrentHashMap.newKeySet();
        final ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();
        final AtomicLong pops = new AtomicLong();
    }

    private record QueueKey(UUID tenant, String queue) {
    }

    private final ConcurrentHashMap<QueueKey, ConcurrentHashMap<String, Hot>> byQueue = new ConcurrentHashMap<>();

    @Override
    public void committed(List<PushFusion.Committed> segments) {
        for (PushFusion.Committed c : segments) {
            ConcurrentHashMap<String, Hot> groups = byQueue.get(new QueueKey(c.tenant(), c.queue()));
            if (groups == null) {
                continue;
            }
            for (Hot h : groups.values()) {
                if (h.members.size() < MAX_PER_GROUP && h.members.add(c.partition())) {
                    h.order.add(c.partition());
                }
            }
        }
    }

    private Hot hot(UUID tenant, String queue, String group) {
        return byQueue.computeIfAbsent(new QueueKey(tenant, queue), k -> new ConcurrentHashMap<>())
                .computeIfAbsent(group, g -> new Hot());
    }

    /** Whether this pop of (queue, group) should skip the hot list and run the discovery scan. */
    boolean scanTurn(UUID tenant, String queue, String group) {
        return hot(tenant, queue, group).pops.incrementAndGet() % SCAN_EVERY == 0;
    }

    /** The oldest remembered partition of (queue, group), handed to exactly one pop, or null. */
    String take(UUID tenant, String queue, String group) {
        Hot h = hot(tenant, queue, group);
        String p = h.order.poll();
        if (p != null) {
            h.members.remove(p);
        }
        return p;
    }
}
