package io.queen.groups;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** SQL calls of consumer-group administration. Thread-safe (stateless). */
@ApplicationScoped
public class ConsumerGroupStore {
    private final AgroalDataSource ds;

    ConsumerGroupStore(AgroalDataSource ds) {
        this.ds = ds;
    }

    public record Deleted(int partitions, int metadata) {
    }

    public record Moved(String partition, long committed) {
    }

    public Deleted delete(UUID tenant, String group, String queue, boolean metadata) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT deleted_partitions, metadata_deleted FROM queen.log_group_delete_v1(?, ?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, group);
            ps.setString(3, queue);
            ps.setBoolean(4, metadata);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new Deleted(rs.getInt(1), rs.getInt(2));
            }
        }
    }

    public int moveSubscription(UUID tenant, String group, Instant ts) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT queen.log_group_subscription_v1(?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, group);
            ps.setTimestamp(3, Timestamp.from(ts));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    public List<Moved> seek(UUID tenant, String group, String queue, String partition, Instant ts) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT partition_name, committed FROM queen.log_group_seek_v1(?, ?, ?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, group);
            ps.setString(3, queue);
            ps.setString(4, partition);
            ps.setTimestamp(5, ts == null ? null : Timestamp.from(ts));
            List<Moved> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Moved(rs.getString(1), rs.getLong(2)));
                }
            }
            return out;
        }
    }

    public boolean queueExists(UUID tenant, String queue) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT queen.log_queue_exists_v1(?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, queue);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    public boolean partitionExists(UUID tenant, String queue, String partition) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT queen.log_partition_exists_v1(?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, queue);
            ps.setString(3, partition);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }
}
