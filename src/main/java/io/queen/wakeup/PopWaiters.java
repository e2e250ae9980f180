package io.queen.wakeup;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.queen.config.QueenConfig;
import jakarta.enterprise.inject.Instance;
import io.quarkus.runtime.Startup;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.Collection;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Where long-polling pops park, by topic: a parked pop holds no database connection and waits on its queue's
 * {@link WakeSignal} (or its tenant's, for namespace/task discovery pops), whose generation moves when work in that
 * queue may have become claimable: a push committed on this broker (told directly) or on any other broker (told
 * by {@link WakeListener}), an ack or release that ended a lease, a cursor moved back. A waiter remembers the
 * generation it saw before its last empty attempt, so a wake-up between the attempt and the wait is never missed.
 * Parked pops do not re-query on a timer; a long safety interval ({@code queen.pop.recheck-interval-ms}) covers a
 * lost announcement. What must reach other brokers as well goes through {@link #publish} / {@link #freed} to the
 * {@link WakePublisher}.
 *
 * <p>A queue's signal is kept while anyone waits on it ({@link #hold}) and, with nobody waiting, until more than
 * {@code queen.pop.max-tracked-queues} queues have one: then every signal nobody holds is dropped, so names that
 * exist nowhere cannot grow this map without bound. Dropping loses nothing: a signal is only dropped while nobody
 * waits on it, and a new one starts from a mark no signal had before ({@link WakeSignal#others}), so a
 * {@link #writeStamp} read before never matches one read after. Thread-safe.
 */
@Startup  // its gauge is exported from the start
@Singleton
public class PopWaiters {
    private final ConcurrentHashMap<QueueKey, WakeSignal> byQueue = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<UUID, WakeSignal> byTenant = new ConcurrentHashMap<>();
    private final AtomicLong marks = new AtomicLong();
    private final int maxTracked;
    /** Size above which unheld signals are dropped: at least maxTracked, twice what the last sweep kept. */
    private volatile int sweepAbove;
    /** Slots of {@link #writeStamp}s, a power of two: partitions sharing a slot only cost a claim that finds nothing. */
    private static final int STAMP_SLOTS = 4096;
    /** Pushes this broker committed, counted by the slot of their partition. */
    private final AtomicLongArray writes = new AtomicLongArray(STAMP_SLOTS);
    private final WakePublisher publisher;
    private final Instance<FreedPartitions> freedPartitions;

    @Inject
    PopWaiters(WakePublisher publisher, Instance<FreedPartitions> freedPartitions, QueenConfig config,
            MeterRegistry registry) {
        this(publisher, freedPartitions, config.pop().maxTrackedQueues());
        Gauge.builder("queen.wake.signals", byQueue, ConcurrentHashMap::size).strongReference(true)
                .description("Queues this broker keeps a wake-up signal for (held by a waiting read or not)")
                .register(registry);
    }

    PopWaiters(WakePublisher publisher, Instance<FreedPartitions> freedPartitions, int maxTracked) {
        this.publisher = publisher;
        this.freedPartitions = freedPartitions;
        this.maxTracked = Math.max(1, maxTracked);
        this.sweepAbove = this.maxTracked;
    }

    /**
     * The queue's signal, not held: for a queue known to exist (a lease of it acked, a read that found it). A
     * caller that waits on the signal {@link #hold}s it instead.
     */
    public WakeSignal queue(UUID tenant, String queue) {
        QueueKey key = new QueueKey(tenant, queue);
        WakeSignal s = byQueue.get(key);
        if (s == null) {
            s = byQueue.computeIfAbsent(key, k -> new WakeSignal(k, marks));
            bound();
        }
        return s;
    }

    /**
     * The queue's signal, kept until {@link #release}d: for a pop or read that may wait on it, whether or not the
     * queue exists (a push may create it meanwhile).
     */
    public WakeSignal hold(UUID tenant, String queue) {
        WakeSignal s = byQueue.compute(new QueueKey(tenant, queue), (k, v) -> {
            WakeSignal w = v != null ? v : new WakeSignal(k, marks);
            w.holders++;
            return w;
        });
        bound();
        return s;
    }

    /** Ends a {@link #hold}; a tenant's signal is never dropped and needs none. */
    public void release(WakeSignal s) {
        if (s.key != null) {
            byQueue.computeIfPresent(s.key, (k, v) -> {
                if (v == s) {
                    v.holders--;
                }
                return v;
            });
        }
    }

    /** Queues with a signal here, held or not (gauge {@code queen.wake.signals}). */
    int trackedQueues() {
        return byQueue.size();
    }

    /** A queue signal's key: built on every read of a partition, so no string is made for it. */
    record QueueKey(UUID tenant, String queue) {
    }

    private void bound() {
        if (byQueue.size() > sweepAbove) {
            sweep();
        }
    }

    private synchronized void sweep() {
        if (byQueue.size() <= sweepAbove) {
            return;
        }
        for (QueueKey k : byQueue.keySet()) {
            byQueue.computeIfPresent(k, (x, v) -> v.holders == 0 ? null : v);
        }
        // held signals stay: with many waiting, the next sweep comes only after as many new names again
        sweepAbove = Math.max(maxTracked, 2 * byQueue.size());
    }

    /**
     * This broker committed a push to the partition. Called before the pop side learns of it and before the
     * queue's pops wake, so an ack that finds the partition idle can tell a push it could not see
     * ({@link #writeStamp}).
     */
    public void written(UUID tenant, String queue, String partition) {
        writes.incrementAndGet(slot(tenant, queue, partition));
    }

    /**
     * A value that moves whenever work may have reached the partition without a transaction seeing it yet: a push
     * this broker committed to it (or to a partition sharing its slot), or any wake-up of the queue other than a
     * hot-list one (a transaction, a stream cycle, another broker's commit, a lease freed). An ack that ended a
     * lease on a partition it found idle reads it before and after: unchanged, no push it could not see is
     * waiting for that lease.
     */
    public long writeStamp(UUID tenant, String queue, String partition) {
        return stamp(queue(tenant, queue), tenant, queue, partition);
    }

    /**
     * {@link #writeStamp}, or -1 while the queue has no wake-up signal here yet: until then a wake-up of the queue
     * (another broker's commit, a transaction) moves no counter, so no value would tell it. {@link #queue} creates
     * the signal; a caller that only reads an existing queue's stamp creates it once it knows the queue exists, so
     * names that exist nowhere leave nothing behind.
     */
    public long writeStampIfTracked(UUID tenant, String queue, String partition) {
        WakeSignal s = byQueue.get(new QueueKey(tenant, queue));
        return s == null ? -1 : stamp(s, tenant, queue, partition);
    }

    private long stamp(WakeSignal queueSignal, UUID tenant, String queue, String partition) {
        return queueSignal.others() + writes.get(slot(tenant, queue, partition));
    }

    private static int slot(UUID tenant, String queue, String partition) {
        int h = (tenant.hashCode() * 31 + queue.hashCode()) * 31 + partition.hashCode();
        return (h ^ (h >>> 16)) & (STAMP_SLOTS - 1);
    }

    /** Moves on a wake-up of any queue of the tenant (namespace/task discovery pops). */
    public WakeSignal tenant(UUID tenant) {
        return byTenant.computeIfAbsent(tenant, k -> new WakeSignal(null, marks));
    }

    /**
     * The work is on a pop group's hot list (this broker's fused push commit, a partition a pop handed back): the
     * queue's parked pops wake without moving {@link WakeSignal#others}, so a pop may go back to sleep when the
     * hot list is empty. Local only.
     */
    public void hotListed(UUID tenant, String queue) {
        wake(tenant, queue, true);
    }

    /** Work in the queue may be claimable (a transaction or stream cycle committed to it, ...): local only. */
    public void wake(UUID tenant, String queue) {
        wake(tenant, queue, false);
    }

    private void wake(UUID tenant, String queue, boolean hotListed) {
        WakeSignal s = byQueue.get(new QueueKey(tenant, queue));
        if (s != null) {
            s.fire(hotListed);
        }
        WakeSignal t = byTenant.get(tenant);
        if (t != null) {
            t.fire();
        }
    }

    /** Announces work in the queue to other brokers (coalesced, after the commit that made it). */
    public void publish(UUID tenant, String queue) {
        publisher.publish(tenant, queue);
    }

    /**
     * Work in the queue became claimable without a write (a lease ended, a cursor moved back): parked pops here
     * and, through NOTIFY, on other brokers try again.
     */
    public void freed(UUID tenant, String queue) {
        wake(tenant, queue);
        publish(tenant, queue);
    }

    /**
     * As {@link #freed(UUID, String)} for acks of one consumer group that ended leases in {@code partitions} and may
     * have left work there. Only that group can claim it, and only in those partitions: they go on the group's hot
     * list and the parked pops wake as for a push committed here, so one queue-level pop of the group claims each
     * partition by name while the others (and every other group's) go back to sleep without ranking the queue.
     * Pinned pops and pops that rank the queue claim on any wake-up. A group no list is kept for wakes every parked
     * pop to a full claim, as before there were lists.
     */
    public void freed(UUID tenant, String queue, String group, Collection<String> partitions) {
        boolean listed = !freedPartitions.isUnsatisfied();
        for (FreedPartitions l : freedPartitions) {
            listed &= l.freed(tenant, queue, group, partitions);
        }
        wake(tenant, queue, listed);
        publish(tenant, queue);
    }

    /** As {@link #freed} for every queue of every tenant (a stopping broker gave back its leases). */
    public void freedEverywhere() {
        wakeAll();
        publisher.publishEverything();
    }

    /** Wakes every parked pop (a drain makes them answer 204; a reconnected listener makes them re-check). */
    public void wakeAll() {
        byQueue.values().forEach(WakeSignal::fire);
        byTenant.values().forEach(WakeSignal::fire);
    }
}
