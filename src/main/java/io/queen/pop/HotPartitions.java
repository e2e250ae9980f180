package io.queen.pop;

import io.queen.config.QueenConfig;
import io.queen.push.PushFusion;
import io.queen.wakeup.FreedPartitions;
import jakarta.inject.Singleton;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Partitions this broker committed to since a queue-level pop of a (queue, group) last looked: the reference's
 * hot list. A queue-level pop ({@code partitions=1}) first tries targeted claims on them (a claim by name is a few
 * primary-key probes) before the discovery scan, which ranks every partition of the queue with pending work and
 * costs the database 2x the CPU per message at high rates (bench/README). Every {@link #SCAN_EVERY}-th pop of a
 * (queue, group) scans anyway, so partitions written through other brokers (which this list never sees) are not
 * starved. A group is tracked from its first queue-level pop on this broker; at most {@link #MAX_PER_GROUP}
 * partitions are remembered per group (beyond that, the scan finds them). A stale entry costs one empty claim.
 *
 * <p>It also lets a parked queue-level pop that a fused commit of this broker woke go back to sleep without any
 * SQL ({@link #handedOut}): when the group's last scan found nothing claimable and every partition committed since
 * was handed to a pop, the commit's work is already someone's (a pop that may leave work in a partition hands it
 * back, {@link #reoffer}). Wake-ups of any other kind (another broker's
 * commit, a transaction, a lease ended, a cursor moved) always lead to a claim. At a steady 5,000 msg/s with eight
 * consumers, each commit otherwise woke eight pops for one partition's work, and seven of them scanned the queue.
 *
 * <p>Bounded, since pops may name queues and groups that exist nowhere: at most {@link #MAX_GROUPS_PER_QUEUE}
 * groups of a queue are tracked (every commit visits them; the pops of the others rank the queue, as before there
 * were lists), and past {@code queen.pop.max-tracked-queues} lists in all, every list is dropped. A pop settles only
 * the list it took before its scan ({@link Hot#settled}), so a list dropped and started again meanwhile never
 * claims a scan that could not see what was committed before it started. Thread-safe (concurrent collections; one
 * entry is handed to one pop).
 */
@Singleton
public class HotPartitions implements FreedPartitions {
    static final int SCAN_EVERY = 4;
    static final int MAX_PER_GROUP = 4096;
    static final int MAX_GROUPS_PER_QUEUE = 256;

    /** One (queue, group)'s list. */
    static final class Hot {
        final Set<String> members = ConcurrentHashMap.newKeySet();
        final ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();
        final AtomicLong pops = new AtomicLong();
        /** A committed partition was not remembered (the list was full): an empty list proves nothing. */
        volatile boolean dropped;
        /** A discovery scan of this group found nothing claimable (what it could not know was in no list). */
        volatile boolean settled;

        /** Whether this pop of (queue, group) should skip the hot list and run the discovery scan. */
        boolean scanTurn() {
            return pops.incrementAndGet() % SCAN_EVERY == 0;
        }

        /** A discovery scan that started after this list was taken found nothing claimable. */
        void settled() {
            settled = true;
        }

        /** The oldest remembered partition, handed to exactly one pop, or null. */
        String take() {
            String p = order.poll();
            if (p != null) {
                members.remove(p);
            }
            return p;
        }
    }

    private record QueueKey(UUID tenant, String queue) {
    }

    private final ConcurrentHashMap<QueueKey, ConcurrentHashMap<String, Hot>> byQueue = new ConcurrentHashMap<>();
    /** Lists in {@link #byQueue}, all queues together (approximate under races; it only triggers the drop). */
    private final AtomicInteger lists = new AtomicInteger();
    private final int maxLists;

    HotPartitions(QueenConfig config) {
        this.maxLists = Math.max(1, config.pop().maxTrackedQueues());
    }

    /** Called by {@link FusedCommitListener} for this broker's fused commits, before it wakes the parked pops. */
    void committed(List<PushFusion.Committed> segments) {
        for (PushFusion.Committed c : segments) {
            ConcurrentHashMap<String, Hot> groups = byQueue.get(new QueueKey(c.tenant(), c.queue()));
            if (groups == null) {
                continue;
            }
            for (Hot h : groups.values()) {
                remember(h, c.partition());
            }
        }
    }

    /**
     * An ack of {@code group} ended leases in {@code partitions} and may have left work there: remembered when the
     * group is tracked here (a full list marks itself dropped, and the group's pops rank the queue again). False
     * for a group not tracked: no list is started for it, since pops that pin a partition or take several would
     * never empty it.
     */
    @Override
    public boolean freed(UUID tenant, String queue, String group, Collection<String> partitions) {
        Hot h = tracked(tenant, queue, group);
        if (h == null) {
            return false;
        }
        for (String p : partitions) {
            remember(h, p);
        }
        return true;
    }

    /** Puts the partition on the group's list once, or marks the list dropped when it is full. */
    private static void remember(Hot h, String partition) {
        if (h.members.size() >= MAX_PER_GROUP) {
            h.dropped = true;
        } else if (h.members.add(partition)) {
            h.order.add(partition);
        }
    }

    /** The group's list when a queue-level pop of it was seen here, else null (none is started). */
    private Hot tracked(UUID tenant, String queue, String group) {
        ConcurrentHashMap<String, Hot> groups = byQueue.get(new QueueKey(tenant, queue));
        return groups == null ? null : groups.get(group);
    }

    /**
     * The group's list, started when it is not tracked yet; past {@link #MAX_GROUPS_PER_QUEUE} groups of the queue
     * a list of its own that nothing else sees (no commit reaches it, so {@link #handedOut} never holds).
     */
    Hot list(UUID tenant, String queue, String group) {
        QueueKey key = new QueueKey(tenant, queue);
        ConcurrentHashMap<String, Hot> groups = byQueue.get(key);
        Hot h = groups == null ? null : groups.get(group);
        if (h != null) {
            return h;
        }
        if (lists.get() >= maxLists) {
            byQueue.clear();  // bounded: a dropped list costs its group's pops a ranking of the queue
            lists.set(0);
        }
        groups = byQueue.computeIfAbsent(key, k -> new ConcurrentHashMap<>());
        if (groups.size() >= MAX_GROUPS_PER_QUEUE) {
            h = groups.get(group);
            return h != null ? h : new Hot();
        }
        return groups.computeIfAbsent(group, g -> {
            lists.incrementAndGet();
            return new Hot();
        });
    }

    /**
     * Whether every partition this broker's fused commits wrote since the group was tracked here has been handed
     * to a pop: true only for a tracked group whose list never overflowed and is empty now.
     */
    boolean handedOut(UUID tenant, String queue, String group) {
        Hot h = tracked(tenant, queue, group);
        return h != null && h.settled && !h.dropped && h.order.isEmpty();
    }

    /** A pop of (queue, group) may have left claimable work in {@code partition}: remembered again. */
    void reoffer(UUID tenant, String queue, String group, String partition) {
        remember(list(tenant, queue, group), partition);
    }
}
