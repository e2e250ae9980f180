package io.queen.pop;

import io.queen.push.PushFusion;
import io.queen.wakeup.PopWaiters;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.UUID;

/**
 * This broker's fused push commits as pops need them: the hot lists learn the partitions first, then the queue's
 * parked pops wake (a pop that wakes to an empty hot list may go back to sleep) and other brokers are told.
 * Stateless, thread-safe.
 */
@Singleton
class FusedCommitListener implements PushFusion.CommitListener {
    private final HotPartitions hot;
    private final PopWaiters waiters;

    FusedCommitListener(HotPartitions hot, PopWaiters waiters) {
        this.hot = hot;
        this.waiters = waiters;
    }

    @Override
    public void committed(List<PushFusion.Committed> segments) {
        for (PushFusion.Committed c : segments) {
            waiters.written(c.tenant(), c.queue(), c.partition());
        }
        hot.committed(segments);
        for (PushFusion.Committed c : segments) {
            waiters.hotListed(c.tenant(), c.queue());
            waiters.publish(c.tenant(), c.queue());
        }
    }

    /** A caller's own transaction wrote to the queue and committed (transaction route, stream cycle, Kafka EndTxn). */
    @Override
    public void written(UUID tenant, String queue) {
        waiters.wake(tenant, queue);
        waiters.publish(tenant, queue);
    }
}
