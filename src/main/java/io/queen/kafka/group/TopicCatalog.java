package io.queen.kafka.group;

import io.queen.kafka.KafkaStore;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.apache.kafka.common.Uuid;

/**
 * The topics consumer-protocol groups subscribe to, per tenant: names, ids and partition counts, read at most once
 * per {@link #REFRESH_MS} per tenant (every member's heartbeat needs them, to see a topic created, deleted or grown).
 * Thread-safe.
 */
final class TopicCatalog {
    /** How stale the topics a heartbeat sees may be: a new topic matching a regex is assigned within this much. */
    static final long REFRESH_MS = 1000;

    /** A tenant's topics by name, and when they were read. */
    private record Read(long atMs, Map<String, ConsumerGroup.TopicInfo> topics) {
    }

    /** Reads a tenant's topics. */
    interface Source {
        Map<String, ConsumerGroup.TopicInfo> topics(UUID tenant) throws SQLException;
    }

    private final ConcurrentHashMap<UUID, Read> cache = new ConcurrentHashMap<>();
    private final Source source;
    private final LongSupplier clockMs;

    TopicCatalog(Source source, LongSupplier clockMs) {
        this.source = source;
        this.clockMs = clockMs;
    }

    /** A source reading {@link KafkaStore}: a topic's id is its queue's id. */
    static Source of(KafkaStore store) {
        return tenant -> {
            Map<String, ConsumerGroup.TopicInfo> out = new TreeMap<>();
            for (KafkaStore.Topic t : store.topics(tenant, null)) {
                out.put(t.name(), new ConsumerGroup.TopicInfo(
                        new Uuid(t.id().getMostSignificantBits(), t.id().getLeastSignificantBits()), t.name(),
                        t.partitions()));
            }
            return out;
        };
    }

    Map<String, ConsumerGroup.TopicInfo> topics(UUID tenant) throws SQLException {
        return topics(tenant, null);
    }

    /**
     * The tenant's topics; read again when a name of {@code wanted} (a subscription being set) is missing, so a
     * member subscribing to a topic created a moment ago is assigned it at once.
     */
    Map<String, ConsumerGroup.TopicInfo> topics(UUID tenant, java.util.List<String> wanted) throws SQLException {
        long now = clockMs.getAsLong();
        Read r = cache.get(tenant);
        if (r == null || now - r.atMs() >= REFRESH_MS
                || (wanted != null && !r.topics().keySet().containsAll(wanted))) {
            r = new Read(now, source.topics(tenant));
            cache.put(tenant, r);
        }
        return r.topics();
    }

    /** Topic id → name, for answers that name the topics of an assignment. */
    Map<Uuid, String> names(UUID tenant) throws SQLException {
        Map<Uuid, String> out = new java.util.HashMap<>();
        topics(tenant).values().forEach(t -> out.put(t.id(), t.name()));
        return out;
    }
}
