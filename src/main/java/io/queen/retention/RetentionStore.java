package io.queen.retention;

import jakarta.inject.Inject;
import io.queen.sql.SqlCalls;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/**
 * SQL calls of the retention feature (db/009_log_maintenance.sql). Every step is one autocommitted function call
 * on a pooled connection and takes exactly one partition row lock. Thread-safe (stateless).
 */
@ApplicationScoped
public class RetentionStore {
    /** The cluster-wide retention lock: one broker runs a cycle at a time. */
    static final long RETENTION_LOCK = 737001L;

    @Inject SqlCalls sql;

    /** What one cycle has to do for one partition. */
    public record Work(String kind, UUID partitionId, UUID queueId, OffsetDateTime cutoffA, OffsetDateTime cutoffB) {
    }

    public record StepResult(int deleted, long messages, long newStart, boolean done) {
    }

    public record CleanupResult(int deleted, UUID lastId, boolean done) {
    }

    /**
     * Tries to become the cycle's leader: a transaction-scoped advisory lock held by a connection that runs
     * nothing else until {@link Leadership#close()} ends its transaction. Returns null when another broker (or
     * another cycle) holds it. A transaction lock, not a session lock: if this broker dies or the connection
     * breaks, PostgreSQL releases it with the transaction.
     */
    public Leadership tryLead() throws SQLException {
        Connection c = sql.tryLocked("SELECT pg_try_advisory_xact_lock(" + RETENTION_LOCK + ")");
        return c == null ? null : new Leadership(c);
    }

    /** Holds the retention lock until closed. Not thread-safe; owned by the cycle that acquired it. */
    public static final class Leadership implements AutoCloseable {
        private final Connection c;

        Leadership(Connection c) {
            this.c = c;
        }

        @Override
        public void close() throws SQLException {
            try {
                c.rollback(); // ends the transaction, releasing the xact lock
                c.setAutoCommit(true);
            } finally {
                c.close();
            }
        }
    }

    public List<Work> workList(Instant now, int dueCap) throws SQLException {
        return sql.list("SELECT kind, partition_id, queue_id, cutoff_a, cutoff_b FROM queen.log_retention_work_v1(?, ?)",
                rs -> new Work(rs.getString(1), rs.getObject(2, UUID.class), rs.getObject(3, UUID.class),
                        rs.getObject(4, OffsetDateTime.class), rs.getObject(5, OffsetDateTime.class)),
                now, dueCap);
    }

    public StepResult retentionStep(UUID pid, OffsetDateTime allCutoff, OffsetDateTime completedCutoff, int maxRows)
            throws SQLException {
        return step("SELECT deleted, messages, new_log_start, done FROM queen.log_retention_step_v1(?, ?, ?, ?)", pid,
                allCutoff, completedCutoff, maxRows);
    }

    public StepResult evictStep(UUID pid, OffsetDateTime cutoff, int maxRows) throws SQLException {
        return step("SELECT deleted, messages, new_log_start, done FROM queen.log_evict_max_wait_step_v1(?, ?, ?)",
                pid, cutoff, maxRows);
    }

    /** What one orphan sweep removed (sidecar rows, dead letters, traces, distinct partitions they belonged to). */
    public record OrphanSweep(int txnRows, int dlqRows, int traceRows, int partitions) {
    }

    /** {@code queen.trace_purge_v1}: traces older than their queue's retention; how many were deleted. */
    public int tracePurge(OffsetDateTime now, int maxRows) throws SQLException {
        return (int) sql.number("SELECT queen.trace_purge_v1(?, ?)", now, maxRows);
    }

    /** {@code queen.log_orphan_sweep_v1}: sidecar and dead-letter rows of partitions that no longer exist. */
    public OrphanSweep orphanSweep(int maxPartitions) throws SQLException {
        return sql.one("SELECT txn_rows, dlq_rows, trace_rows, partitions FROM queen.log_orphan_sweep_v1(?)",
                rs -> new OrphanSweep(rs.getInt(1), rs.getInt(2), rs.getInt(3), rs.getInt(4)), maxPartitions);
    }

    public StepResult txnsPurgeStep(UUID pid, OffsetDateTime cutoff, int maxRows) throws SQLException {
        return step("SELECT deleted, deleted::bigint, new_txns_start, done FROM queen.log_txns_purge_step_v1(?, ?, ?)",
                pid, cutoff, maxRows);
    }

    public CleanupResult cleanupStep(OffsetDateTime cutoff, int maxRows, UUID after) throws SQLException {
        return sql.one("SELECT deleted, last_id, done FROM queen.log_partition_cleanup_step_v1(?, ?, ?)",
                rs -> new CleanupResult(rs.getInt(1), rs.getObject(2, UUID.class), rs.getBoolean(3)),
                cutoff, maxRows, after);
    }

    /** Runs one step function (arguments bound in order) and reads its (deleted, messages, watermark, done). */
    private StepResult step(String call, Object... args) throws SQLException {
        return sql.one(call, rs -> new StepResult(rs.getInt(1), rs.getLong(2), rs.getLong(3), rs.getBoolean(4)), args);
    }

    public record HistoryRow(String queue, String type, long messages, long events, OffsetDateTime firstAt,
            OffsetDateTime lastAt) {
    }

    public record SeriesRow(OffsetDateTime bucket, String type, long messages, long events) {
    }

    public List<HistoryRow> history(UUID tenant, String queue, Instant from, Instant to) throws SQLException {
        return sql.list("SELECT queue_name, retention_type, messages, events, first_at, last_at"
                + " FROM queen.retention_history_summary_v1(?, ?, ?, ?)",
                rs -> new HistoryRow(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4),
                        rs.getObject(5, OffsetDateTime.class), rs.getObject(6, OffsetDateTime.class)),
                tenant, queue, from, to);
    }

    public List<SeriesRow> series(UUID tenant, String queue, Instant from, Instant to, int bucketMinutes)
            throws SQLException {
        return sql.list("SELECT bucket, retention_type, messages, events"
                + " FROM queen.retention_history_series_v1(?, ?, ?, ?, ?)",
                rs -> new SeriesRow(rs.getObject(1, OffsetDateTime.class), rs.getString(2), rs.getLong(3),
                        rs.getLong(4)),
                tenant, queue, from, to, bucketMinutes);
    }
}
