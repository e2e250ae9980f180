package io.queen.groups;

import jakarta.inject.Inject;
import io.queen.sql.SqlCalls;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** SQL calls of consumer-group administration. Thread-safe (stateless). */
@ApplicationScoped
public class ConsumerGroupStore {
    @Inject SqlCalls sql;

    public record Deleted(int partitions, int metadata) {
    }

    public record Moved(String partition, long committed) {
    }

    private static final SqlCalls.Row<Moved> MOVED = rs -> new Moved(rs.getString(1), rs.getLong(2));

    public Deleted delete(UUID tenant, String group, String queue, boolean metadata) throws SQLException {
        return sql.one("SELECT deleted_partitions, metadata_deleted FROM queen.log_group_delete_v1(?, ?, ?, ?)",
                rs -> new Deleted(rs.getInt(1), rs.getInt(2)), tenant, group, queue, metadata);
    }

    public int moveSubscription(UUID tenant, String group, Instant ts) throws SQLException {
        return (int) sql.number("SELECT queen.log_group_subscription_v1(?, ?, ?)", tenant, group, ts);
    }

    public List<Moved> seek(UUID tenant, String group, String queue, String partition, Instant ts) throws SQLException {
        return sql.list("SELECT partition_name, committed FROM queen.log_group_seek_v1(?, ?, ?, ?, ?)", MOVED,
                tenant, group, queue, partition, ts);
    }

    /** Moves the group's cursor on one partition so that {@code offset} is delivered next (clamped to the log). */
    public List<Moved> seekToOffset(UUID tenant, String group, String queue, String partition, long offset)
            throws SQLException {
        return sql.list("SELECT partition_name, committed FROM queen.log_group_seek_offset_v1(?, ?, ?, ?, ?)", MOVED,
                tenant, group, queue, partition, offset);
    }

    public boolean queueExists(UUID tenant, String queue) throws SQLException {
        return sql.flag("SELECT queen.log_queue_exists_v1(?, ?)", tenant, queue);
    }

    public boolean partitionExists(UUID tenant, String queue, String partition) throws SQLException {
        return sql.flag("SELECT queen.log_partition_exists_v1(?, ?, ?)", tenant, queue, partition);
    }
}
