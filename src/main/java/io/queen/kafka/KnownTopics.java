package io.queen.kafka;

import io.queen.cache.CappedMap;
import io.queen.queue.QueueDeletion;
import jakarta.inject.Singleton;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The topics Produce and Fetch found, kept for {@link #VALID_NANOS}. Every Produce and Fetch names its topics, and a
 * Java producer's Produce carries a batch or two: reading the topics from the database was one SQL call per request,
 * as many as the writes and reads themselves. Only found topics are kept, so a topic created anywhere is seen at once,
 * and the caller reads a kept topic again when a request names a partition at or past its count, so a topic grown by
 * CreatePartitions anywhere is seen at once too. The age bound covers a topic deleted on another broker (seen within
 * {@link #VALID_NANOS}, as a Kafka broker sees a deletion once its metadata catches up); one deleted on this broker
 * is forgotten at once. Bounded ({@link #MAX_ENTRIES}, emptied when full). Thread-safe.
 */
@Singleton
class KnownTopics implements QueueDeletion.Listener {
    /** How long a found topic stands for the topic. */
    static final long VALID_NANOS = 1_000_000_000L;
    static final int MAX_ENTRIES = 100_000;

    private record Key(UUID tenant, String name) {
    }

    private record Known(KafkaStore.Topic topic, long foundNanos) {
    }

    private final CappedMap<Key, Known> known = new CappedMap<>(MAX_ENTRIES);

    /** The topic as found less than {@link #VALID_NANOS} before {@code nowNanos}; else null (read it). */
    KafkaStore.Topic get(UUID tenant, String name, long nowNanos) {
        Known k = known.get(new Key(tenant, name));
        return k == null || nowNanos - k.foundNanos() > VALID_NANOS ? null : k.topic();
    }

    /** A read that started at {@code nowNanos} found these topics of the tenant. */
    void found(UUID tenant, Collection<KafkaStore.Topic> topics, long nowNanos) {
        Map<Key, Known> read = new HashMap<>();
        for (KafkaStore.Topic t : topics) {
            read.put(new Key(tenant, t.name()), new Known(t, nowNanos));
        }
        known.putAll(read);  // a forgotten topic costs one read from the database
    }

    /** The queue's rows are gone: the next request naming it reads it again, as it would without this. */
    @Override
    public void deleted(UUID tenant, String queue) {
        known.remove(new Key(tenant, queue));
    }
}
