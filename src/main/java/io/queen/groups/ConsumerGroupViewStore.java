package io.queen.groups;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * SQL calls of the consumer-group views (db/014_admin_status.sql): lag is offset arithmetic on cursors and
 * watermarks, time lag one segment primary-key probe per lagging cursor. Thread-safe (stateless).
 */
@ApplicationScoped
public class ConsumerGroupViewStore {
    private final AgroalDataSource ds;

    ConsumerGroupViewStore(AgroalDataSource ds) {
        this.ds = ds;
    }

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
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT * FROM queen.status_group_list_v1(?)")) {
            ps.setObject(1, tenant);
            List<GroupQueue> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new GroupQueue(rs.getString("consumer_group"), rs.getString("queue_name"),
                            rs.getLong("members"), rs.getLong("partitions_with_lag"), rs.getLong("total_lag"),
                            rs.getDouble("max_time_lag"), rs.getLong("leases"), rs.getString("subscription_mode"),
                            rs.getObject("subscription_timestamp", OffsetDateTime.class),
                            rs.getObject("subscription_created_at", OffsetDateTime.class)));
                }
            }
            return out;
        }
    }

    public List<CursorLag> cursors(UUID tenant, String group) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT * FROM queen.status_group_cursors_v1(?, ?) ORDER BY queue_name, partition_name")) {
            ps.setObject(1, tenant);
            ps.setString(2, group);
            List<CursorLag> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new CursorLag(rs.getString("consumer_group"), rs.getString("queue_name"),
                            rs.getObject("partition_id", UUID.class), rs.getString("partition_name"),
                            rs.getString("worker_id"), rs.getLong("committed"), rs.getLong("offset_lag"),
                            rs.getBoolean("lease_active"), rs.getLong("total_consumed"),
                            rs.getObject("oldest_unconsumed_at", OffsetDateTime.class),
                            rs.getDouble("time_lag_seconds")));
                }
            }
            return out;
        }
    }

    public List<Lagging> lagging(UUID tenant, double minLagSeconds, int limit) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT * FROM queen.status_lagging_v1(?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setDouble(2, minLagSeconds);
            ps.setInt(3, limit);
            List<Lagging> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Lagging(rs.getString("consumer_group"), rs.getString("queue_name"),
                            rs.getObject("partition_id", UUID.class), rs.getString("partition_name"),
                            rs.getString("worker_id"), rs.getLong("offset_lag"), rs.getDouble("time_lag_seconds"),
                            rs.getObject("oldest_unconsumed_at", OffsetDateTime.class)));
                }
            }
            return out;
        }
    }
}
