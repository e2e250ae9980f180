package io.queen.queue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/** SQL calls of the {@code queue} feature. Thread-safe (stateless; one pooled connection per call). */
@ApplicationScoped
public class QueueStore {
    private final AgroalDataSource ds;

    QueueStore(AgroalDataSource ds) {
        this.ds = ds;
    }

    public record ConfiguredQueue(UUID id, String name, String namespace, String task, ObjectNode options) {
    }

    public ConfiguredQueue configure(UUID tenant, String name, String namespace, String task, ObjectNode options)
            throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT * FROM queen.configure_queue_v1(?, ?, ?, ?, ?::jsonb)")) {
            ps.setObject(1, tenant);
            ps.setString(2, name);
            ps.setString(3, namespace);
            ps.setString(4, task);
            ps.setString(5, options.toString());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new ConfiguredQueue(rs.getObject("id", UUID.class), rs.getString("name"),
                        rs.getString("namespace"), rs.getString("task"), QueueOptions.fromRow(rs));
            }
        }
    }

    /**
     * Deletes a queue with everything it owns ({@code queen.delete_queue_v1}: sidecar and dead-letter rows
     * explicitly, the rest by cascade). Returns whether it existed.
     */
    public boolean delete(UUID tenant, String name) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT queen.delete_queue_v1(?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** What a purge removed: messages, and whether the queue exists at all. */
    public record Purged(boolean existed, int partitions, long messages) {
    }

    /**
     * Removes every message written so far from each partition of the queue, one partition and at most
     * {@code stepSegments} segments per call ({@code queen.log_retention_step_v1} with no time limit, audited as
     * {@code purge}): the same watermark move retention does, so cursors, dead letters and the dedup window stay.
     */
    public Purged purge(UUID tenant, String name, int stepSegments) throws SQLException {
        boolean existed;
        try (Connection c = ds.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement("SELECT queen.log_queue_exists_v1(?, ?)")) {
                ps.setObject(1, tenant);
                ps.setString(2, name);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    existed = rs.getBoolean(1);
                }
            }
            java.util.List<UUID> partitions = partitionIds(c, tenant, name);
            long messages = 0;
            // autocommit: each step holds one partition row lock for one bounded delete, as retention does
            try (PreparedStatement ps = c.prepareStatement("SELECT messages, done FROM"
                    + " queen.log_retention_step_v1(?, 'infinity'::timestamptz, NULL, ?, 'purge')")) {
                for (UUID pid : partitions) {
                    boolean done = false;
                    while (!done) {
                        ps.setObject(1, pid);
                        ps.setInt(2, stepSegments);
                        try (ResultSet rs = ps.executeQuery()) {
                            rs.next();
                            messages += rs.getLong(1);
                            done = rs.getBoolean(2);
                        }
                    }
                }
            }
            return new Purged(existed, partitions.size(), messages);
        }
    }

    /** The ids of the tenant's queue's partitions (none for an unknown queue). */
    public java.util.List<UUID> partitionIds(UUID tenant, String name) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return partitionIds(c, tenant, name);
        }
    }

    private static java.util.List<UUID> partitionIds(Connection c, UUID tenant, String name) throws SQLException {
        java.util.List<UUID> out = new java.util.ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT partition_id FROM queen.queue_partition_ids_v1(?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getObject(1, UUID.class));
                }
            }
        }
        return out;
    }
}
