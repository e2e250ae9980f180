package io.queen.kafka.group;

import io.queen.cache.CappedMap;
import io.queen.sql.SqlCalls;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;

/**
 * SQL calls of Kafka committed offsets (db/022_kafka_groups.sql). Offsets here are Kafka's ("the next offset to
 * read"); the conversion to and from the cursor's "last offset consumed" happens in SQL on the way in and here on
 * the way out. Thread-safe (the id cache is a concurrent map).
 */
@ApplicationScoped
public class GroupOffsetStore {
    /** Partition ids remembered for commits; the cache is emptied when a commit finds it this full. */
    static final int MAX_IDS = 100_000;

    @Inject SqlCalls sql;

    private record PartitionKey(UUID tenant, String topic, int partition) {
    }

    /**
     * Partition ids as commits answered them: a commit passes them so that SQL answers an unmoved partition from its
     * cursor row alone (db/022_kafka_groups.sql). An id never names another partition; one deleted since only sends
     * its entry the longer way, whose answer brings the new id; so does one forgotten when the cache was emptied.
     */
    private final CappedMap<PartitionKey, UUID> ids = new CappedMap<>(MAX_IDS);

    /** One partition's offset: a request entry, or a stored offset ({@code offset} -1 = none committed). */
    public record PartitionOffset(String topic, int partition, long offset) {
    }

    /**
     * Stores {@code offsets} as the group's cursors in one transaction; answers the entries that were stored (the
     * others name a topic or partition that does not exist).
     */
    public Set<TopicPartition> commit(UUID tenant, String group, List<PartitionOffset> offsets) throws SQLException {
        int n = offsets.size();
        String[] queues = new String[n];
        String[] partitions = new String[n];
        Long[] values = new Long[n];
        UUID[] known = new UUID[n];
        Map<UUID, TopicPartition> byId = new HashMap<>();
        for (int i = 0; i < n; i++) {
            PartitionOffset o = offsets.get(i);
            queues[i] = o.topic();
            partitions[i] = Integer.toString(o.partition());
            values[i] = o.offset();
            known[i] = ids.get(new PartitionKey(tenant, o.topic(), o.partition()));
            if (known[i] != null) {
                byId.put(known[i], new TopicPartition(o.topic(), o.partition()));
            }
        }
        record Stored(String topic, String partition, UUID id) {
        }
        List<Stored> rows = sql.list(
                "SELECT queue_name, partition_name, partition_id FROM queen.kafka_offset_commit_v1(?, ?, ?, ?, ?, ?)",
                rs -> new Stored(rs.getString(1), rs.getString(2), rs.getObject(3, UUID.class)),
                tenant, group, queues, partitions, values, known);
        Set<TopicPartition> stored = new HashSet<>();
        for (Stored r : rows) {
            if (r.topic() == null) {
                stored.add(byId.get(r.id()));  // a partition whose cursor held the value: answered by the id we sent
                continue;
            }
            TopicPartition tp = new TopicPartition(r.topic(), Integer.parseInt(r.partition()));
            ids.put(new PartitionKey(tenant, tp.topic(), tp.partition()), r.id());
            stored.add(tp);
        }
        return stored;
    }

    /**
     * The group's committed offsets on {@code topics} (null: on every topic), one per cursor of a partition whose
     * name is a Kafka partition number (a partition named otherwise, made by HTTP pushes, has no Kafka address).
     */
    public List<PartitionOffset> fetch(UUID tenant, String group, List<String> topics) throws SQLException {
        List<PartitionOffset> rows = sql.list(
                "SELECT queue_name, partition_name, committed FROM queen.kafka_offset_fetch_v1(?, ?, ?)",
                rs -> new PartitionOffset(rs.getString(1), KafkaPartitions.number(rs.getString(2)), rs.getLong(3) + 1),
                tenant, group, textArrayOrNull(topics));
        return rows.stream().filter(o -> o.partition() >= 0).toList();
    }

    /**
     * The partitions of {@code topics} (null: of every topic) on which an open Kafka transaction has staged an
     * offset for {@code group} (db/023_kafka_transactions.sql).
     */
    public Set<TopicPartition> unstable(UUID tenant, String group, List<String> topics) throws SQLException {
        List<TopicPartition> rows = sql.list(
                "SELECT queue_name, partition_name FROM queen.kafka_txn_unstable_v1(?, ?, ?)",
                rs -> new TopicPartition(rs.getString(1), KafkaPartitions.number(rs.getString(2))),
                tenant, group, textArrayOrNull(topics));
        return new HashSet<>(rows);
    }

    /** Of {@code groups} (null: of every group), those holding at least one cursor in the tenant's queues. */
    public Set<String> groupsWithOffsets(UUID tenant, List<String> groups) throws SQLException {
        return new HashSet<>(sql.list("SELECT consumer_group FROM queen.kafka_groups_with_offsets_v1(?, ?)",
                rs -> rs.getString(1), tenant, textArrayOrNull(groups)));
    }

    private static Object textArrayOrNull(List<String> names) {
        return names == null ? new SqlCalls.NullOf(java.sql.Types.ARRAY) : names.toArray(String[]::new);
    }
}
