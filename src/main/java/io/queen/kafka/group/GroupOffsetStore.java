package io.queen.kafka.group;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;

/**
 * SQL calls of Kafka committed offsets (db/022_kafka_groups.sql). Offsets here are Kafka's ("the next offset to
 * read"); the conversion to and from the cursor's "last offset consumed" happens in SQL on the way in and here on
 * the way out. Thread-safe (stateless).
 */
@ApplicationScoped
public class GroupOffsetStore {
    private final AgroalDataSource ds;

    GroupOffsetStore(AgroalDataSource ds) {
        this.ds = ds;
    }

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
        for (int i = 0; i < n; i++) {
            PartitionOffset o = offsets.get(i);
            queues[i] = o.topic();
            partitions[i] = Integer.toString(o.partition());
            values[i] = o.offset();
        }
        Set<TopicPartition> stored = new HashSet<>();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT queue_name, partition_name, committed FROM queen.kafka_offset_commit_v1(?, ?, ?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, group);
            ps.setArray(3, c.createArrayOf("text", queues));
            ps.setArray(4, c.createArrayOf("text", partitions));
            ps.setArray(5, c.createArrayOf("bigint", values));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    stored.add(new TopicPartition(rs.getString(1), Integer.parseInt(rs.getString(2))));
                }
            }
        }
        return stored;
    }

    /**
     * The group's committed offsets on {@code topics} (null: on every topic), one per cursor of a partition whose
     * name is a Kafka partition number (a partition named otherwise, made by HTTP pushes, has no Kafka address).
     */
    public List<PartitionOffset> fetch(UUID tenant, String group, List<String> topics) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT queue_name, partition_name, committed FROM queen.kafka_offset_fetch_v1(?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, group);
            Array arr = topics == null ? null : c.createArrayOf("text", topics.toArray());
            ps.setArray(3, arr);
            List<PartitionOffset> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int partition = KafkaPartitions.number(rs.getString(2));
                    if (partition >= 0) {
                        out.add(new PartitionOffset(rs.getString(1), partition, rs.getLong(3) + 1));
                    }
                }
            }
            return out;
        }
    }

    /** Of {@code groups} (null: of every group), those holding at least one cursor in the tenant's queues. */
    public Set<String> groupsWithOffsets(UUID tenant, List<String> groups) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT consumer_group FROM queen.kafka_groups_with_offsets_v1(?, ?)")) {
            ps.setObject(1, tenant);
            ps.setArray(2, groups == null ? null : c.createArrayOf("text", groups.toArray()));
            Set<String> out = new HashSet<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
            return out;
        }
    }
}
