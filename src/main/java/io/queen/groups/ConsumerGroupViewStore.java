package io.queen.groups;

import jakarta.inject.Inject;
import io.queen.sql.SqlCalls;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/**
 * SQL calls of the consumer-group views (db/014_admin_status.sql): lag is offset arithmetic on cursors and
 * watermarks, time lag one segment primary-key probe per lagging cursor. Thread-safe (stateless).
 */
@ApplicationScoped
public class ConsumerGroupViewStore {
    @Inject SqlCalls sql;

    /** One (group, queue) of the group list. */
    public record GroupQueue(String group, String queue, long members, long partitionsWithLag, long totalLag,
            double maxTimeLag, long leases, String subscriptionMode, OffsetDateTime subscriptionTimestamp,
            OffsetDateTime subscriptionCreatedAt) {
    }

    /** One cursor of a group, with its lag. */
    public record CursorLag(String group, String queue, UUID partitionId, String partition, String workerId,
            long committed, long offsetLag, boolean leaseActive, long totalConsumed, OffsetDateTime oldestUnconsumedAt,
            double timeLagSeconds) {
    }

    /** A cursor of the lagging list (largest time lag first). */
    public record Lagging(String group, String queue, UUID partitionId, String partition, String workerId,
            long offsetLag, double timeLagSeconds, OffsetDateTime oldestUnconsumedAt) {
    }

    public List<GroupQueue> list(UUID tenant) throws SQLException {
        return sql.list("SELECT * FROM queen.status_group_list_v1(?)", ConsumerGroupViewStore::groupQueue, tenant);
    }

    public List<CursorLag> cursors(UUID tenant, String group) throws SQLException {
        return sql.list("SELECT * FROM queen.status_group_cursors_v1(?, ?) ORDER BY queue_name, partition_name",
                ConsumerGroupViewStore::cursorLag, tenant, group);
    }

    public List<Lagging> lagging(UUID tenant, double minLagSeconds, int limit) throws SQLException {
        return sql.list("SELECT * FROM queen.status_lagging_v1(?, ?, ?)", ConsumerGroupViewStore::lagging,
                tenant, minLagSeconds, limit);
    }

    private static GroupQueue groupQueue(ResultSet rs) throws SQLException {
        return new GroupQueue(rs.getString("consumer_group"), rs.getString("queue_name"), rs.getLong("members"),
                rs.getLong("partitions_with_lag"), rs.getLong("total_lag"), rs.getDouble("max_time_lag"),
                rs.getLong("leases"), rs.getString("subscription_mode"),
                rs.getObject("subscription_timestamp", OffsetDateTime.class),
                rs.getObject("subscription_created_at", OffsetDateTime.class));
    }

    private static CursorLag cursorLag(ResultSet rs) throws SQLException {
        return new CursorLag(rs.getString("consumer_group"), rs.getString("queue_name"),
                rs.getObject("partition_id", UUID.class), rs.getString("partition_name"), rs.getString("worker_id"),
                rs.getLong("committed"), rs.getLong("offset_lag"), rs.getBoolean("lease_active"),
                rs.getLong("total_consumed"), rs.getObject("oldest_unconsumed_at", OffsetDateTime.class),
                rs.getDouble("time_lag_seconds"));
    }

    private static Lagging lagging(ResultSet rs) throws SQLException {
        return new Lagging(rs.getString("consumer_group"), rs.getString("queue_name"),
                rs.getObject("partition_id", UUID.class), rs.getString("partition_name"), rs.getString("worker_id"),
                rs.getLong("offset_lag"), rs.getDouble("time_lag_seconds"),
                rs.getObject("oldest_unconsumed_at", OffsetDateTime.class));
    }
}
