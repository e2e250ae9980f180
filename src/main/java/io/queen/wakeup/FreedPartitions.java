package io.queen.wakeup;

import java.util.Collection;
import java.util.UUID;

/**
 * The pop side's record of partitions where one consumer group has claimable work again because an ack ended its
 * lease there (the rest of the partition, or a failed batch to deliver again). Told by
 * {@link PopWaiters#freed(UUID, String, String, Collection)} before the queue's parked pops wake, so a woken
 * queue-level pop of that group claims those partitions by name instead of ranking the queue.
 */
public interface FreedPartitions {
    /**
     * {@code partitions} of {@code queue} hold work {@code group} may claim now. False when the pop side keeps no
     * list for the group (no queue-level pop of it was seen here): then every parked pop must look, as for work
     * freed anywhere in the queue.
     */
    boolean freed(UUID tenant, String queue, String group, Collection<String> partitions);
}
