package io.queen.browse;

import jakarta.inject.Inject;
import io.queen.sql.SqlCalls;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/**
 * SQL calls of the non-destructive reads (db/011_log_read.sql): message browse, one message by address, batched
 * fetch by offset. Every function called is STABLE: nothing here writes, leases or moves a cursor. Thread-safe
 * (stateless; one pooled connection per call).
 */
@ApplicationScoped
public class ReadStore {
    @Inject SqlCalls sql;

    /** Where a partition stands: its id, its queue's and its own name, the queue's namespace and task. */
    public interface Place {
        UUID partitionId();

        String queue();

        String partition();

        String namespace();

        String task();
    }

    public record PartitionContext(UUID partitionId, String queue, String partition, String namespace, String task,
            int priority, int leaseTime, int retryLimit, int retryDelay, int ttl, boolean encryptionEnabled,
            long logStart, long lastOffset) implements Place {
    }

    public record Segment(long baseOffset, long endOffset, OffsetDateTime createdAt, byte[] blob) {
    }

    /** A browse segment with the names of its partition. */
    public record BrowseSegment(UUID partitionId, String queue, String partition, String namespace, String task,
            int priority, Segment segment) implements Place {
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
        return sql.one("SELECT partition_id, queue_name, partition_name, namespace, task, priority, lease_time,"
                + " retry_limit, retry_delay, ttl, encryption_enabled, log_start, last_offset"
                + " FROM queen.log_partition_context_v1(?, ?)",
                rs -> new PartitionContext(rs.getObject(1, UUID.class), rs.getString(2), rs.getString(3),
                        rs.getString(4), rs.getString(5), rs.getInt(6), rs.getInt(7), rs.getInt(8), rs.getInt(9),
                        rs.getInt(10), rs.getBoolean(11), rs.getLong(12), rs.getLong(13)),
                tenant, pid);
    }

    /** The offset of a transaction hash in the sidecar, or null when the hash is not (or no longer) there. */
    public Long locate(UUID pid, byte[] hash) throws SQLException {
        return sql.one("SELECT queen.log_locate_txn_v1(?, ?)", rs -> SqlCalls.longOrNull(rs, 1), pid, hash);
    }

    public Segment segmentAt(UUID pid, long offset) throws SQLException {
        return sql.one("SELECT base_offset, end_offset, created_at, blob FROM queen.log_segment_at_v1(?, ?)",
                rs -> segment(rs, 1), pid, offset);
    }

    /** Up to {@code limit} segments with base_offset below {@code before}, newest first. */
    public List<Segment> segmentsBefore(UUID pid, long before, int limit) throws SQLException {
        return sql.list("SELECT base_offset, end_offset, created_at, blob FROM queen.log_segments_before_v1(?, ?, ?)",
                rs -> segment(rs, 1), pid, before, limit);
    }

    public List<Cursor> cursors(List<UUID> pids) throws SQLException {
        return sql.list("SELECT partition_id, consumer_group, committed, batch_end, lease_expires_at"
                + " FROM queen.log_cursors_v1(?)",
                rs -> new Cursor(rs.getObject(1, UUID.class), rs.getString(2), rs.getLong(3),
                        SqlCalls.longOrNull(rs, 4), rs.getObject(5, OffsetDateTime.class)),
                (Object) pids.toArray(UUID[]::new));
    }

    public List<DeadLetterRef> deadLetters(List<UUID> pids) throws SQLException {
        return sql.list("SELECT partition_id, \"offset\", transaction_id, error, retry_count FROM queen.log_dlq_of_v1(?)",
                rs -> new DeadLetterRef(rs.getObject(1, UUID.class), rs.getLong(2), rs.getString(3), rs.getString(4),
                        rs.getInt(5)),
                (Object) pids.toArray(UUID[]::new));
    }

    /** One consumer group's hold on one message; lease fields null unless a live lease spans the partition. */
    public record GroupHold(String group, boolean hasCursor, long committed, Long leasedUpTo, String leaseId,
            OffsetDateTime leaseAcquiredAt, OffsetDateTime leaseExpiresAt, UUID deadLetterId, OffsetDateTime failedAt,
            String error) {
    }

    /** Every consumer group of the partition's queue with its cursor, live lease and dead letter of {@code offset}. */
    public List<GroupHold> groupHolds(UUID pid, long offset) throws SQLException {
        return sql.list("SELECT consumer_group, has_cursor, committed, batch_end, lease_id, lease_acquired_at,"
                + " lease_expires_at, dlq_id, failed_at, error FROM queen.log_message_groups_v1(?, ?)",
                rs -> new GroupHold(rs.getString(1), rs.getBoolean(2), rs.getLong(3), SqlCalls.longOrNull(rs, 4),
                        rs.getString(5), rs.getObject(6, OffsetDateTime.class), rs.getObject(7, OffsetDateTime.class),
                        rs.getObject(8, UUID.class), rs.getObject(9, OffsetDateTime.class), rs.getString(10)),
                pid, offset);
    }

    public List<BrowseSegment> browse(UUID tenant, String queue, String partition, String namespace, String task,
            Instant from, Instant to, int maxSegments, int perPartition) throws SQLException {
        return sql.list("SELECT partition_id, queue_name, partition_name, namespace, task, priority, base_offset,"
                + " end_offset, created_at, blob FROM queen.log_browse_segments_v1(?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rs -> new BrowseSegment(rs.getObject(1, UUID.class), rs.getString(2), rs.getString(3),
                        rs.getString(4), rs.getString(5), rs.getInt(6), segment(rs, 7)),
                tenant, queue, partition, namespace, task, from, to,
                maxSegments, perPartition);
    }

    public List<FetchRow> fetch(UUID tenant, String[] queues, String[] partitions, Long[] offsets, Integer[] maxBytes,
            long budget, int maxRecords) throws SQLException {
        return sql.list("SELECT ord, error, high_watermark, log_start, base_offset, end_offset, created_at, blob"
                + " FROM queen.log_fetch_v1(?, ?, ?, ?, ?, ?, ?)",
                rs -> {
                    rs.getLong(5);
                    Segment s = rs.wasNull() ? null : segment(rs, 5); // base NULL: no segment
                    return new FetchRow(rs.getInt(1) - 1, rs.getString(2), rs.getLong(3), rs.getLong(4), s);
                },
                tenant, queues, partitions, offsets, maxBytes, budget, maxRecords);
    }

    private static Segment segment(ResultSet rs, int i) throws SQLException {
        return new Segment(rs.getLong(i), rs.getLong(i + 1), rs.getObject(i + 2, OffsetDateTime.class),
                rs.getBytes(i + 3));
    }
}
