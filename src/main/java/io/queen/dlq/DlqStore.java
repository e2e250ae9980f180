package io.queen.dlq;

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

/** SQL calls of the dead-letter feature (db/010_log_dlq.sql). Thread-safe (stateless; one pooled connection per call). */
@ApplicationScoped
public class DlqStore {
    private static final String COLUMNS = "id, partition_id, consumer_group, \"offset\", message_id, transaction_id,"
            + " payload, error, retry_count, failed_at, trace_id, producer_sub, message_created_at, queue_name,"
            + " partition_name, namespace, task";

    private final AgroalDataSource ds;

    DlqStore(AgroalDataSource ds) {
        this.ds = ds;
    }

    /** One dead letter; {@code payload} is the JSON text of the snapshot (null when none was stored). */
    public record DeadLetter(UUID id, UUID partitionId, String consumerGroup, long offset, UUID messageId,
            String transactionId, String payload, String error, int retryCount, OffsetDateTime failedAt, UUID traceId,
            String producerSub, OffsetDateTime messageCreatedAt, String queue, String partition, String namespace,
            String task) {
    }

    public record Page(long total, List<DeadLetter> rows) {
    }

    public record Move(String verdict, UUID partitionId, long baseOffset, OffsetDateTime createdAt, long dupOffset) {
    }

    public record Segment(long baseOffset, long endOffset, byte[] blob) {
    }

    public Page browse(UUID tenant, String queue, String group, String partition, Instant from, Instant to, int limit,
            int offset) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT total, " + COLUMNS + " FROM queen.log_dlq_browse_v1(?, ?, ?, ?, ?, ?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, queue);
            ps.setString(3, group);
            ps.setString(4, partition);
            ps.setObject(5, from == null ? null : OffsetDateTime.ofInstant(from, ZoneOffset.UTC));
            ps.setObject(6, to == null ? null : OffsetDateTime.ofInstant(to, ZoneOffset.UTC));
            ps.setInt(7, limit);
            ps.setInt(8, offset);
            long total = 0;
            List<DeadLetter> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    total = rs.getLong(1);
                    if (rs.getObject(2) != null) {
                        rows.add(read(rs, 2));
                    }
                }
            }
            return new Page(total, rows);
        }
    }

    public DeadLetter get(UUID tenant, UUID id) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM queen.log_dlq_get_v1(?, ?)")) {
            ps.setObject(1, tenant);
            ps.setObject(2, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? read(rs, 1) : null;
            }
        }
    }

    public UUID find(UUID tenant, UUID partitionId, String transactionId) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT queen.log_dlq_find_v1(?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setObject(2, partitionId);
            ps.setString(3, transactionId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getObject(1, UUID.class);
            }
        }
    }

    public int delete(UUID tenant, UUID partitionId, String transactionId) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT queen.log_dlq_delete_v1(?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setObject(2, partitionId);
            ps.setString(3, transactionId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    public Move move(UUID tenant, UUID id, String queue, String partition, byte[] hash, byte[] blob)
            throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT verdict, partition_id, base_offset, created_at, dup_offset"
                        + " FROM queen.log_dlq_move_v1(?, ?, ?, ?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setObject(2, id);
            ps.setString(3, queue);
            ps.setString(4, partition);
            ps.setBytes(5, hash);
            ps.setBytes(6, blob);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new Move(rs.getString(1), rs.getObject(2, UUID.class), rs.getLong(3),
                        rs.getObject(4, OffsetDateTime.class), rs.getLong(5));
            }
        }
    }

    /** The segment covering an offset (to name the message a duplicate replay collided with). */
    public Segment segmentAt(UUID partitionId, long offset) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT base_offset, end_offset, blob FROM queen.log_segment_at_v1(?, ?)")) {
            ps.setObject(1, partitionId);
            ps.setLong(2, offset);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Segment(rs.getLong(1), rs.getLong(2), rs.getBytes(3)) : null;
            }
        }
    }

    private static DeadLetter read(ResultSet rs, int i) throws SQLException {
        return new DeadLetter(rs.getObject(i, UUID.class), rs.getObject(i + 1, UUID.class), rs.getString(i + 2),
                rs.getLong(i + 3), rs.getObject(i + 4, UUID.class), rs.getString(i + 5), rs.getString(i + 6),
                rs.getString(i + 7), rs.getInt(i + 8), rs.getObject(i + 9, OffsetDateTime.class),
                rs.getObject(i + 10, UUID.class), rs.getString(i + 11), rs.getObject(i + 12, OffsetDateTime.class),
                rs.getString(i + 13), rs.getString(i + 14), rs.getString(i + 15), rs.getString(i + 16));
    }
}
