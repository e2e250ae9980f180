package io.queen.kafka.share;

import io.queen.kafka.RecordBatches;
import io.queen.sql.SqlCalls;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** SQL calls of share groups (db/029_kafka_share_groups.sql). Thread-safe (stateless). */
@ApplicationScoped
class ShareStore {
    /** A record a share operation answered: {@code acquired}, {@code dead_letter} or {@code invalid}. */
    record Held(String kind, long offset, int deliveryCount) {
    }

    private final SqlCalls sql;

    ShareStore(SqlCalls sql) {
        this.sql = sql;
    }

    /** The configs a group set (GROUP resource), by name. */
    Map<String, String> configs(UUID tenant, String group) throws SQLException {
        Map<String, String> out = new HashMap<>();
        for (String[] kv : sql.list("SELECT name, value FROM queen.kafka_group_configs_v1(?, ?)",
                rs -> new String[] {rs.getString(1), rs.getString(2)}, tenant, group)) {
            out.put(kv[0], kv[1]);
        }
        return out;
    }

    /** Sets a group config; {@code value} null removes it. */
    void setConfig(UUID tenant, String group, String name, String value) throws SQLException {
        sql.execute("SELECT queen.kafka_set_group_config_v1(?, ?, ?, ?)", tenant, group, name,
                value == null ? SqlCalls.NULL_TEXT : value);
    }

    /** Whether the share group began (it had a member once, or its offsets were set), though it has none now. */
    boolean exists(UUID tenant, String group) throws SQLException {
        return sql.flag("SELECT queen.kafka_share_group_exists_v1(?, ?)", tenant, group);
    }

    /** The tenant's share groups (those that began). */
    List<String> groups(UUID tenant) throws SQLException {
        return sql.list("SELECT group_id FROM queen.kafka_share_groups_v1(?)", rs -> rs.getString(1), tenant);
    }

    boolean deleteGroup(UUID tenant, String group) throws SQLException {
        return sql.flag("SELECT queen.kafka_share_delete_group_v1(?, ?)", tenant, group);
    }

    /** Registers the share group where new; answers when it began. */
    OffsetDateTime begin(UUID tenant, String group) throws SQLException {
        return sql.one("SELECT queen.kafka_share_group_v1(?, ?)", rs -> rs.getObject(1, OffsetDateTime.class),
                tenant, group);
    }

    List<Held> acquire(UUID tenant, String queue, String partition, String group, String member, int max,
            int window, ShareGroupConfigs.Settings s, OffsetDateTime since) throws SQLException {
        return sql.list("SELECT kind, \"offset\", delivery_count"
                        + " FROM queen.kafka_share_acquire_v1(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                ShareStore::held, tenant, queue, partition, group, member, max, window, s.lockMs(),
                s.deliveryLimit(), s.reset(), since);
    }

    List<Held> acknowledge(UUID tenant, String queue, String partition, String group, String member,
            Long[] offsets, Integer[] types, ShareGroupConfigs.Settings s) throws SQLException {
        return sql.list("SELECT kind, \"offset\", delivery_count"
                        + " FROM queen.kafka_share_acknowledge_v1(?, ?, ?, ?, ?, ?, ?, ?, ?)",
                ShareStore::held, tenant, queue, partition, group, member, offsets, types, s.lockMs(),
                s.deliveryLimit());
    }

    /** Releases every record the member holds in the group. */
    void release(UUID tenant, String group, String member, int deliveryLimit) throws SQLException {
        sql.execute("SELECT queen.kafka_share_release_member_v1(?, ?, ?, ?)", tenant, group, member, deliveryLimit);
    }

    /**
     * Files the records of a partition waiting to be dead-lettered, with their snapshots (absent: no longer
     * stored); answers how many were filed.
     */
    int deadLetters(UUID tenant, String queue, String partition, String group, List<ShareStore.Held> pending,
            Map<Long, RecordBatches.Snapshot> snapshots, List<String> errors, ShareGroupConfigs.Settings s)
            throws SQLException {
        int n = pending.size();
        Long[] offsets = new Long[n];
        UUID[] ids = new UUID[n];
        UUID[] traces = new UUID[n];
        String[] txns = new String[n];
        String[] payloads = new String[n];
        String[] subs = new String[n];
        String[] created = new String[n];
        for (int i = 0; i < n; i++) {
            offsets[i] = pending.get(i).offset();
            RecordBatches.Snapshot f = snapshots.get(offsets[i]);
            if (f != null) {
                ids[i] = f.messageId();
                traces[i] = f.traceId();
                txns[i] = f.transactionId();
                payloads[i] = f.payload();
                subs[i] = f.producerSub();
                created[i] = f.committedAt() == null ? null : f.committedAt().toString();
            }
        }
        return (int) sql.number("SELECT queen.kafka_share_dead_letters_v1(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                tenant, queue, partition, group, offsets, ids, txns, payloads, errors.toArray(new String[0]), traces,
                subs, created, s.lockMs(), s.deliveryLimit());
    }

    /** One partition's share-group offset: start offset (-1 = none) and lag (-1 = none). */
    record Offset(String topic, UUID topicId, int partition, long startOffset, long lag) {
    }

    List<Offset> offsets(UUID tenant, String group, List<String> topics) throws SQLException {
        return sql.list("SELECT topic, topic_id, partition_index, start_offset, lag"
                        + " FROM queen.kafka_share_offsets_v1(?, ?, ?::text[])",
                rs -> new Offset(rs.getString(1), rs.getObject(2, UUID.class), rs.getInt(3), rs.getLong(4),
                        rs.getLong(5)),
                tenant, group, topics == null ? null : topics.toArray(new String[0]));
    }

    boolean setStart(UUID tenant, String group, String topic, int partition, long start) throws SQLException {
        return sql.flag("SELECT queen.kafka_share_set_start_v1(?, ?, ?, ?, ?)", tenant, group, topic,
                Integer.toString(partition), start);
    }

    boolean deleteOffsets(UUID tenant, String group, String topic) throws SQLException {
        return sql.flag("SELECT queen.kafka_share_delete_offsets_v1(?, ?, ?)", tenant, group, topic);
    }

    private static Held held(java.sql.ResultSet rs) throws SQLException {
        return new Held(rs.getString(1), rs.getLong(2), rs.getInt(3));
    }
}
