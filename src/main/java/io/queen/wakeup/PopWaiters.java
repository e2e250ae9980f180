package io.queen.wakeup;

import jakarta.inject.Singleton;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where long-polling pops park, by topic: a parked pop holds no database connection and waits on its queue's
 * {@link WakeSignal} (or its tenant's, for namespace/task discovery pops), whose generation moves when work in that
 * queue may have become claimable: a push committed on this broker (told directly) or on any other broker (told
 * by {@link WakeListener}), an ack or release that ended a lease, a cursor moved back. A waiter remembers the
 * generation it saw before its last empty attempt, so a wake-up between the attempt and the wait is never missed.
 * Parked pops do not re-query on a timer; a long safety interval ({@code queen.pop.recheck-interval-ms}) covers a
 * lost announcement. What must reach other brokers as well goes through {@link #publish} / {@link #freed} to the
 * {@link WakePublisher}. Thread-safe.
 */
@Singleton
public class PopWaiters {
    private final ConcurrentHashMap<String, WakeSignal> byQueue = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<UUID, WakeSignal> byTenant = new ConcurrentHashMap<>();
    private final WakePublisher publisher;

    PopWaiters(WakePublisher publisher) {
        this.publisher = publisher;
    }

    public WakeSignal queue(UUID tenant, String queue) {
        return byQueue.computeIfAbsent(tenant + "/" + queue, k -> new WakeSignal());
    }

    /** Moves on a wake-up of any queue of the tenant (namespace/task discovery pops). */
    public WakeSignal tenant(UUID tenant) {
        return byTenant.computeIfAbsent(tenant, k -> new WakeSignal());
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
        WakeSignal s = byQueue.get(tenant + "/" + queue);
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
