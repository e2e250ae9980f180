package io.queen.browse;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * SQL calls of the non-destructive reads (db/011_log_read.sql): message browse, one message by address, batched
 * fetch by offset. Every function called is STABLE: nothing here writes, leases or moves a cursor. Thread-safe
 * (stateless; one pooled connection per call).
 */
@ApplicationScoped
public class ReadStore {
    private final AgroalDataSource ds;

    ReadStore(AgroalDataSource ds) {
        this.ds = ds;
    }

    public record PartitionContext(UUID partitionId, String queue, String partition, String namespace, String task,
            int priority, int leaseTime, int retryLimit, int retryDelay, int ttl, boolean encryptionEnabled,
            long logStart, long lastOffset) {
    }

    public record Segment(long baseOffset, long endOffset, OffsetDateTime createdAt, byte[] blob) {
    }

    /** A browse segment with the names of its partition. */
    public record BrowseSegment(UUID partitionId, String queue, String partition, String namespace, String task,
            int priority, Segment segment) {
    }

    public record Cursor(UUID partitionId, String group, long committed, Long leasedUpTo,
            OffsetDateTime leaseExpiresAt) {
    }

    public record DeadLetterRef(UUID partitionId, long offset, String transactionId, String error, int retryCount) {
    }

    /** One row of a fetch: an entry's watermarks and (when {@code segment} is non-null) one of its segments. */
    public record FetchRow(int ordinal, String error, long highWatermark, long logStart, Segment segment) {
    }

    public PartitionContext context(UUID tenant, UUID pid) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT partition_id, queue_name, partition_name, namespace, task, priority, lease_time, retry_limit,"
                        + " retry_delay, ttl, encryption_enabled, log_start, last_offset"
                        + " FROM queen.log_partition_context_v1(?, ?)")) {
            ps.setObject(1, tenant);
            ps.setObject(2, pid);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                return new PartitionContext(rs.getObject(1, UUID.class), rs.getString(2), rs.getString(3),
                        rs.getString(4), rs.getString(5), rs.getInt(6), rs.getInt(7), rs.getInt(8), rs.getInt(9),
                        rs.getInt(10), rs.getBoolean(11), rs.getLong(12), rs.getLong(13));
            }
        }
    }

    /** The offset of a transaction hash in the sidecar, or null when the hash is not (or no longer) there. */
    public Long locate(UUID pid, byte[] hash) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT queen.log_locate_txn_v1(?, ?)")) {
            ps.setObject(1, pid);
            ps.setBytes(2, hash);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long v = rs.getLong(1);
                return rs.wasNull() ? null : v;
            }
        }
    }

    public Segment segmentAt(UUID pid, long offset) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT base_offset, end_offset, created_at, blob FROM queen.log_segment_at_v1(?, ?)")) {
            ps.setObject(1, pid);
            ps.setLong(2, offset);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? segment(rs, 1) : null;
            }
        }
    }

    /** Up to {@code limit} segments with base_offset below {@code before}, newest first. */
    public List<Segment> segmentsBefore(UUID pid, long before, int limit) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT base_offset, end_offset, created_at, blob FROM queen.log_segments_before_v1(?, ?, ?)")) {
            ps.setObject(1, pid);
            ps.setLong(2, before);
            ps.setInt(3, limit);
            List<Segment> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(segment(rs, 1));
                }
            }
            return out;
        }
    }

    public List<Cursor> cursors(List<UUID> pids) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT partition_id, consumer_group, committed, batch_end, lease_expires_at"
                        + " FROM queen.log_cursors_v1(?)")) {
            ps.setArray(1, c.createArrayOf("uuid", pids.toArray()));
            List<Cursor> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long be = rs.getLong(4);
                    Long leased = rs.wasNull() ? null : be;
                    out.add(new Cursor(rs.getObject(1, UUID.class), rs.getString(2), rs.getLong(3), leased,
                            rs.getObject(5, OffsetDateTime.class)));
                }
            }
            return out;
        }
    }

    public List<DeadLetterRef> deadLetters(List<UUID> pids) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT partition_id, \"offset\", transaction_id, error, retry_count FROM queen.log_dlq_of_v1(?)")) {
            ps.setArray(1, c.createArrayOf("uuid", pids.toArray()));
            List<DeadLetterRef> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new DeadLetterRef(rs.getObject(1, UUID.class), rs.getLong(2), rs.getString(3),
                            rs.getString(4), rs.getInt(5)));
                }
            }
            return out;
        }
    }

    public List<BrowseSegment> browse(UUID tenant, String queue, String partition, String namespace, String task,
            Instant from, Instant to, int maxSegments, int perPartition) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT partition_id, queue_name, partition_name, namespace, task, priority, base_offset, end_offset,"
                        + " created_at, blob FROM queen.log_browse_segments_v1(?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, queue);
            ps.setString(3, partition);
            ps.setString(4, namespace);
            ps.setString(5, task);
            ps.setObject(6, OffsetDateTime.ofInstant(from, ZoneOffset.UTC));
            ps.setObject(7, OffsetDateTime.ofInstant(to, ZoneOffset.UTC));
            ps.setInt(8, maxSegments);
            ps.setInt(9, perPartition);
            List<BrowseSegment> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new BrowseSegment(rs.getObject(1, UUID.class), rs.getString(2), rs.getString(3),
                            rs.getString(4), rs.getString(5), rs.getInt(6), segment(rs, 7)));
                }
            }
            return out;
        }
    }

    public List<FetchRow> fetch(UUID tenant, String[] queues, String[] partitions, Long[] offsets, Integer[] maxBytes,
            long budget, int maxRecords) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT ord, error, high_watermark, log_start, base_offset, end_offset, created_at, blob"
                        + " FROM queen.log_fetch_v1(?, ?, ?, ?, ?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setArray(2, c.createArrayOf("text", queues));
            ps.setArray(3, c.createArrayOf("text", partitions));
            ps.setArray(4, c.createArrayOf("int8", offsets));
            ps.setArray(5, c.createArrayOf("int4", maxBytes));
            ps.setLong(6, budget);
            ps.setInt(7, maxRecords);
            List<FetchRow> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rs.getLong(5);
                    Segment s = rs.wasNull() ? null : segment(rs, 5); // base NULL: no segment
                    out.add(new FetchRow(rs.getInt(1) - 1, rs.getString(2), rs.getLong(3), rs.getLong(4), s));
                }
            }
            return out;
        }
    }

    private static Segment segment(ResultSet rs, int i) throws SQLException {
        return new Segment(rs.getLong(i), rs.getLong(i + 1), rs.getObject(i + 2, OffsetDateTime.class),
                rs.getBytes(i + 3));
    }
}
