package io.queen.compaction;

import io.queen.config.QueenConfig;
import io.queen.sql.SqlCalls;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * SQL of the compaction duty (db/031_compaction.sql). A pass over one partition is one transaction on one
 * connection: the partition's advisory lock, the read of its segments, then (under the partition row lock, taken
 * last so pushes wait only for the writes) the replacements and the new compaction point. Thread-safe (stateless).
 */
@ApplicationScoped
public class CompactionStore {
    /** First key of the per-partition transaction advisory lock (the second is the partition id's hash). */
    static final int COMPACTION_LOCK = 737005;

    @Inject SqlCalls sql;

    /**
     * A partition of a compacted queue, as the due listing reports it; {@code tombstoneHorizon}/{@code horizonAt}
     * its delete horizon (-1 / null before its first pass).
     */
    public record Partition(UUID partitionId, UUID queueId, String queue, String partition, long logStart,
            long txnsStart, long cleanedTo, Long cleanableEnd, double dirtyRatio, long deleteRetentionMs, long lagMs,
            boolean due, UUID tenant, long tombstoneHorizon, OffsetDateTime horizonAt) {
    }

    /** The topic defaults the listing applies where a queue sets none. */
    public record Defaults(long minLagMs, long maxLagMs, long deleteRetentionMs, double minDirtyRatio) {
        /** The broker's configured defaults ({@code queen.compaction.*}). */
        public static Defaults of(QueenConfig.Compaction c) {
            return new Defaults(c.minCompactionLagMs(), c.maxCompactionLagMs(), c.deleteRetentionMs(),
                    c.minCleanableDirtyRatio());
        }
    }

    /** Every partition of a compacted queue holding records: due ones first, most dirty first. */
    public List<Partition> partitions(Instant now, Defaults d) throws SQLException {
        return partitions(now, d, null);
    }

    /** The partitions of the one compacted queue {@code queueId} (of any compacted queue when null) holding records. */
    public List<Partition> partitions(Instant now, Defaults d, UUID queueId) throws SQLException {
        return sql.list("SELECT * FROM queen.log_compaction_due_v1(?, ?, ?, ?, ?, ?)", rs -> new Partition(
                rs.getObject("partition_id", UUID.class), rs.getObject("queue_id", UUID.class),
                rs.getString("queue_name"), rs.getString("partition_name"), rs.getLong("log_start"),
                rs.getLong("txns_start"), rs.getLong("cleaned_to"), (Long) rs.getObject("cleanable_end"),
                rs.getDouble("dirty_ratio"), rs.getLong("delete_retention_ms"), rs.getLong("lag_ms"),
                rs.getBoolean("due"), rs.getObject("tenant_id", UUID.class), rs.getLong("tombstone_horizon"),
                rs.getObject("horizon_at", OffsetDateTime.class)), now, d.minLagMs(), d.maxLagMs(),
                d.deleteRetentionMs(), d.minDirtyRatio(), queueId);
    }

    /**
     * What compaction did to one partition: offsets up to {@code cleanedTo} are compacted and held {@code
     * cleanRecords} records after the last pass; the removed totals count every pass.
     */
    public record State(long cleanedTo, OffsetDateTime cleanedAt, long cleanRecords, long recordsRemoved,
            long bytesRemoved) {
    }

    /** The state of every partition of the queue compaction ever rewrote, by partition id. */
    public Map<UUID, State> states(UUID queueId) throws SQLException {
        Map<UUID, State> out = new HashMap<>();
        for (Map.Entry<UUID, State> e : sql.list("SELECT * FROM queen.log_compaction_state_v1(?)",
                rs -> Map.entry(rs.getObject("partition_id", UUID.class), new State(rs.getLong("cleaned_to"),
                        rs.getObject("cleaned_at", OffsetDateTime.class), rs.getLong("clean_records"),
                        rs.getLong("records_removed"), rs.getLong("bytes_removed"))), queueId)) {
            out.put(e.getKey(), e.getValue());
        }
        return out;
    }

    /** An open pass: its connection's transaction holds the partition's advisory lock until {@link #close}. */
    public final class Pass implements AutoCloseable {
        private final Connection c;
        private final UUID pid;
        private boolean committed;

        private Pass(Connection c, UUID pid) {
            this.c = c;
            this.pid = pid;
        }

        /** The segments from {@code from} on, in order, until they hold more than {@code maxRecords} past {@code dirtyFrom}. */
        public List<CompactionPass.Segment> segments(long from, long to, long dirtyFrom, long maxRecords)
                throws SQLException {
            List<CompactionPass.Segment> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT base_offset, end_offset, blob"
                    + " FROM queen.log_segments WHERE partition_id = ? AND base_offset >= ? AND end_offset <= ?"
                    + " ORDER BY base_offset")) {
                ps.setObject(1, pid);
                ps.setLong(2, from);
                ps.setLong(3, to);
                ps.setFetchSize(64);
                try (ResultSet rs = ps.executeQuery()) {
                    long dirty = 0;
                    while (rs.next()) {
                        long base = rs.getLong(1);
                        long end = rs.getLong(2);
                        if (base >= dirtyFrom) {
                            if (dirty > 0 && dirty + (end - base + 1) > maxRecords) {
                                break;
                            }
                            dirty += end - base + 1;
                        }
                        out.add(new CompactionPass.Segment(base, end, rs.getBytes(3)));
                    }
                }
            }
            return out;
        }

        /**
         * Writes the pass: the partition row lock, each replacement ({@code log_compaction_replace_v1} raises when
         * the segments changed since they were read, and the whole pass then rolls back), the compaction point.
         */
        public void write(List<CompactionPass.Rewrite> rewrites, long cleanedTo, long kept, long records, long bytes,
                Instant now, long horizon, Instant horizonAt) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT 1 FROM queen.log_partitions WHERE id = ? FOR UPDATE")) {
                ps.setObject(1, pid);
                ps.executeQuery().close();
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT queen.log_compaction_replace_v1(?, ?, ?, ?, ?)")) {
                for (CompactionPass.Rewrite r : rewrites) {
                    ps.setObject(1, pid);
                    ps.setLong(2, r.baseOffset());
                    ps.setLong(3, r.endOffset());
                    ps.setInt(4, r.rows());
                    ps.setBytes(5, r.blob());
                    ps.executeQuery().close();
                }
            }
            SqlCalls.on(c).execute("SELECT queen.log_compaction_done_v1(?, ?, ?, ?, ?, ?, ?, ?)", pid, cleanedTo, kept,
                    records, bytes, OffsetDateTime.ofInstant(now, ZoneOffset.UTC), horizon,
                    OffsetDateTime.ofInstant(horizonAt, ZoneOffset.UTC));
            c.commit();
            committed = true;
        }

        @Override
        public void close() throws SQLException {
            try {
                if (!committed) {
                    c.rollback();
                }
                c.setAutoCommit(true);
            } finally {
                c.close();
            }
        }
    }

    /** Opens a pass over {@code pid}, or null when another pass (on any broker) holds the partition. */
    public Pass open(UUID pid) throws SQLException {
        Connection c = sql.tryLocked("SELECT pg_try_advisory_xact_lock(?, hashtext(?::text))", COMPACTION_LOCK, pid);
        return c == null ? null : new Pass(c, pid);
    }
}
