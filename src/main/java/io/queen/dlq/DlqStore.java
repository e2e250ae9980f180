package io.queen.dlq;

import jakarta.inject.Inject;
import io.queen.sql.SqlCalls;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/** SQL calls of the dead-letter feature (db/010_log_dlq.sql). Thread-safe (stateless; one pooled connection per call). */
@ApplicationScoped
public class DlqStore {
    private static final String COLUMNS = "id, partition_id, consumer_group, \"offset\", message_id, transaction_id,"
            + " payload, error, retry_count, failed_at, trace_id, producer_sub, message_created_at, queue_name,"
            + " partition_name, namespace, task";

    @Inject SqlCalls sql;

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

    /** A letter's place in the bulk actions' order. */
    public record Mark(UUID id, Instant failedAt) {
    }

    /** One bulk delete batch: how many letters went, and the batch's last key (null when it was empty). */
    public record Deleted(int deleted, Mark last) {
    }

    public Page browse(UUID tenant, DlqFilter f, int limit, int offset) throws SQLException {
        SqlCalls.Page<DeadLetter> page = sql.page("SELECT total, " + COLUMNS
                + " FROM queen.log_dlq_search_v1(?, ?, ?, ?, ?, ?, ?, ?, ?)", "total",
                rs -> rs.getObject(2) == null ? null : read(rs, 2),
                tenant, f.queue(), f.group(), f.partition(), f.error(), f.from(), f.to(), limit, offset);
        return new Page(page.total(), page.rows());
    }

    /** How many letters a count found, and the newest of them (null when none). */
    public record Count(long count, DlqFilter.Key newest) {
    }

    /** The letters matching {@code f} after {@code after} up to {@code until} (null: no bound on that side). */
    public Count count(UUID tenant, DlqFilter f, DlqFilter.Key after, DlqFilter.Key until) throws SQLException {
        return sql.one("SELECT n, last_at, last_id FROM queen.log_dlq_count_until_v1(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rs -> new Count(rs.getLong(1), rs.getObject(3) == null ? null
                        : new DlqFilter.Key(rs.getObject(2, OffsetDateTime.class).toInstant(),
                                rs.getObject(3, UUID.class))),
                tenant, f.queue(), f.group(), f.partition(), f.error(), f.from(), f.to(), at(after), id(after),
                at(until), id(until));
    }

    /** The next {@code limit} letters matching {@code f} after {@code after} up to {@code until}, oldest first. */
    public List<Mark> batch(UUID tenant, DlqFilter f, DlqFilter.Key after, DlqFilter.Key until, int limit)
            throws SQLException {
        return sql.list("SELECT id, failed_at FROM queen.log_dlq_batch_until_v1(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rs -> new Mark(rs.getObject(1, UUID.class), rs.getObject(2, OffsetDateTime.class).toInstant()),
                tenant, f.queue(), f.group(), f.partition(), f.error(), f.from(), f.to(), at(after), id(after),
                at(until), id(until), limit);
    }

    /** Deletes the next {@code limit} letters matching {@code f} after {@code after} up to {@code until}. */
    public Deleted deleteBatch(UUID tenant, DlqFilter f, DlqFilter.Key after, DlqFilter.Key until, int limit)
            throws SQLException {
        return sql.one("SELECT deleted, last_at, last_id"
                + " FROM queen.log_dlq_delete_batch_until_v1(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rs -> new Deleted(rs.getInt(1), rs.getObject(3) == null ? null
                        : new Mark(rs.getObject(3, UUID.class), rs.getObject(2, OffsetDateTime.class).toInstant())),
                tenant, f.queue(), f.group(), f.partition(), f.error(), f.from(), f.to(), at(after), id(after),
                at(until), id(until), limit);
    }

    private static Object at(DlqFilter.Key k) {
        return k == null ? null : k.failedAt();
    }

    private static Object id(DlqFilter.Key k) {
        return k == null ? null : k.id();
    }

    public DeadLetter get(UUID tenant, UUID id) throws SQLException {
        return sql.one("SELECT " + COLUMNS + " FROM queen.log_dlq_get_v1(?, ?)", rs -> read(rs, 1), tenant, id);
    }

    /** The message key a dead letter keeps (frame flag 32, as it was stored), null without one. */
    public byte[] key(UUID id) throws SQLException {
        return sql.one("SELECT queen.log_dlq_key_v1(?)", rs -> rs.getBytes(1), id);
    }

    public UUID find(UUID tenant, UUID partitionId, String transactionId) throws SQLException {
        return sql.one("SELECT queen.log_dlq_find_v1(?, ?, ?)", rs -> rs.getObject(1, UUID.class),
                tenant, partitionId, transactionId);
    }

    public int delete(UUID tenant, UUID partitionId, String transactionId) throws SQLException {
        return (int) sql.number("SELECT queen.log_dlq_delete_v1(?, ?, ?)", tenant, partitionId, transactionId);
    }

    public Move move(UUID tenant, UUID id, String queue, String partition, byte[] hash, byte[] blob)
            throws SQLException {
        return sql.one("SELECT verdict, partition_id, base_offset, created_at, dup_offset"
                + " FROM queen.log_dlq_move_v1(?, ?, ?, ?, ?, ?)",
                rs -> new Move(rs.getString(1), rs.getObject(2, UUID.class), rs.getLong(3),
                        rs.getObject(4, OffsetDateTime.class), rs.getLong(5)),
                tenant, id, queue, partition, hash, blob);
    }

    /** The segment covering an offset (to name the message a duplicate replay collided with). */
    public Segment segmentAt(UUID partitionId, long offset) throws SQLException {
        return sql.one("SELECT base_offset, end_offset, blob FROM queen.log_segment_at_v1(?, ?)",
                rs -> new Segment(rs.getLong(1), rs.getLong(2), rs.getBytes(3)), partitionId, offset);
    }

    private static DeadLetter read(ResultSet rs, int i) throws SQLException {
        return new DeadLetter(rs.getObject(i, UUID.class), rs.getObject(i + 1, UUID.class), rs.getString(i + 2),
                rs.getLong(i + 3), rs.getObject(i + 4, UUID.class), rs.getString(i + 5), rs.getString(i + 6),
                rs.getString(i + 7), rs.getInt(i + 8), rs.getObject(i + 9, OffsetDateTime.class),
                rs.getObject(i + 10, UUID.class), rs.getString(i + 11), rs.getObject(i + 12, OffsetDateTime.class),
                rs.getString(i + 13), rs.getString(i + 14), rs.getString(i + 15), rs.getString(i + 16));
    }
}
