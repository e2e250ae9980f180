package io.queen.kafka;

import io.queen.api.Input;
import io.queen.compaction.CompactionSettings;
import io.queen.config.QueenConfig;
import io.queen.queue.Names;
import io.queen.queue.QueueDeletion;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.jboss.logging.Logger;

/**
 * Topics as Queen sees them: a topic is a queue of the caller's tenant, Kafka partition n its partition named
 * {@code n}. Looks topics up, creates them (explicitly, or on first mention when auto-creation is on) and deletes
 * them. Thread-safe (stateless).
 */
@ApplicationScoped
public class Topics {
    /**
     * The most partitions a topic has (CreateTopics, CreatePartitions): the largest count Queen reads back, Kafka
     * partitions being the queue partitions named by 1 to 6 digits.
     */
    static final int MAX_PARTITIONS = 1_000_000;
    private static final Logger LOG = Logger.getLogger(Topics.class);

    private final KafkaStore store;
    private final QueueDeletion deletion;
    private final boolean autoCreate;
    private final int defaultPartitions;
    private final int dedupWindowSeconds;

    private final CompactionSettings compaction;
    private final KnownTopics known;

    Topics(KafkaStore store, QueueDeletion deletion, QueenConfig config, CompactionSettings compaction,
            KnownTopics known) {
        this.compaction = compaction;
        this.known = known;
        this.store = store;
        this.deletion = deletion;
        this.autoCreate = config.kafka().autoCreateTopics();
        this.defaultPartitions = Math.max(1, config.kafka().defaultPartitions());
        this.dedupWindowSeconds = Math.max(0, config.kafka().dedupWindowSeconds());
    }

    int defaultPartitions() {
        return defaultPartitions;
    }

    /** Throws {@link InvalidTopicException} unless {@code name} is both a legal Kafka topic and queue name. */
    static void validate(String name) {
        if (name == null) {
            throw new InvalidTopicException("a topic name is required");
        }
        Topic.validate(name);
        if (!Names.isValidName(name)) {
            throw new InvalidTopicException("topic name " + name + " is not a valid queue name");
        }
    }

    /** Every topic of the tenant, by name. */
    Map<String, KafkaStore.Topic> all(UUID tenant) throws SQLException {
        return byName(store.topics(tenant, null));
    }

    /** {@link #lookup} of the topics of a request, {@code name} reading each one's name. */
    <T> Map<String, KafkaStore.Topic> lookup(UUID tenant, Collection<T> requested, Function<T, String> name,
            boolean create) throws SQLException {
        List<String> names = new ArrayList<>(requested.size());
        for (T t : requested) {
            names.add(name.apply(t));
        }
        return lookup(tenant, names, create);
    }

    /**
     * {@link #lookup} for Produce and Fetch: a topic found less than a second ago ({@link KnownTopics}) whose partition
     * count covers the highest partition the request names for it ({@code highest}) is taken as found; the others
     * are read.
     */
    <T> Map<String, KafkaStore.Topic> lookupRecent(UUID tenant, Collection<T> requested, Function<T, String> name,
            ToIntFunction<T> highest, boolean create) throws SQLException {
        long now = System.nanoTime();
        Map<String, KafkaStore.Topic> found = new LinkedHashMap<>();
        List<String> asked = new ArrayList<>();
        for (T t : requested) {
            String n = name.apply(t);
            KafkaStore.Topic k = known.get(tenant, n, now);  // only names read back from the database are kept
            if (k != null && highest.applyAsInt(t) < k.partitions()) {
                found.put(n, k);
            } else {
                asked.add(n);
            }
        }
        if (!asked.isEmpty()) {
            Map<String, KafkaStore.Topic> read = lookup(tenant, asked, create);
            known.found(tenant, read.values(), now);
            found.putAll(read);
        }
        return found;
    }

    /**
     * The named topics that exist; with {@code create} (and auto-creation on) the valid missing ones are created
     * first with the default partition count. A name no queue can have ({@link #storable}) is not looked up: it is
     * simply not found, and the caller answers it for itself.
     */
    Map<String, KafkaStore.Topic> lookup(UUID tenant, List<String> names, boolean create) throws SQLException {
        List<String> asked = names.stream().filter(Topics::storable).toList();
        Map<String, KafkaStore.Topic> found = asked.isEmpty() ? new LinkedHashMap<>()
                : byName(store.topics(tenant, asked));
        if (create && autoCreate) {
            List<String> missing = new ArrayList<>();
            for (String n : names) {
                if (!found.containsKey(n) && valid(n)) {
                    store.create(tenant, n, defaultPartitions, 0, TopicConfigs.DELETE, dedupWindowSeconds);
                    missing.add(n);
                }
            }
            if (!missing.isEmpty()) {
                LOG.infof("kafka topics auto-created: tenant=%s topics=%s", tenant, missing);
                found.putAll(byName(store.topics(tenant, missing)));
            }
        }
        return found;
    }

    /** Creates a topic; false when it exists. */
    boolean create(UUID tenant, String name, int partitions, TopicConfigs.Requested configs) throws SQLException {
        boolean created = store.create(tenant, name, partitions, configs.retentionSeconds(), configs.cleanupPolicy(),
                dedupWindowSeconds);
        if (created && !configs.compaction().isEmpty()) {
            UUID id = store.topics(tenant, List.of(name)).get(0).id();
            for (Map.Entry<String, String> e : configs.compaction().entrySet()) {
                compaction.set(id, e.getKey(), e.getValue());
            }
        }
        if (created) {
            LOG.infof("kafka topic created: tenant=%s topic=%s partitions=%d cleanup.policy=%s", tenant, name,
                    partitions, configs.cleanupPolicy());
        }
        return created;
    }

    /** Deletes a topic's queue with everything it holds, as the HTTP queue delete does; false when unknown. */
    boolean delete(UUID tenant, String name) throws SQLException {
        return deletion.delete(tenant, name);
    }

    /**
     * Whether {@code name} could be a stored queue name at all (not null, no NUL, at most 255 characters). Any
     * other name bound to SQL fails the whole statement (PostgreSQL text holds no U+0000), and with it every other
     * topic of the request.
     */
    static boolean storable(String name) {
        return name != null && Input.isValid(name, Input.MAX_NAME_CHARS);
    }

    public static boolean valid(String name) {
        try {
            validate(name);
            return true;
        } catch (InvalidTopicException e) {
            return false;
        }
    }

    private static Map<String, KafkaStore.Topic> byName(List<KafkaStore.Topic> topics) {
        Map<String, KafkaStore.Topic> out = new LinkedHashMap<>();
        for (KafkaStore.Topic t : topics) {
            out.put(t.name(), t);
        }
        return out;
    }
}
