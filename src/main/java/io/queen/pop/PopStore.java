package io.queen.pop;

import io.agroal.api.AgroalDataSource;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * SQL calls of the pop feature: one function call per claim (one round trip, one commit). Returns raw segment
 * rows with slicing bounds; frames are decoded in Java (PostgreSQL never looks inside a blob). Thread-safe.
 *
 * <p>Binds by hand rather than through {@code sql.SqlCalls}: the claim is the read every consumed message takes,
 * and its blobs are read straight into the segment records; {@code call} is the same bind-call-read shape kept
 * local, so the claim path has no per-argument type dispatch.
 */
@Singleton
public class PopStore {
    private final AgroalDataSource ds;

    PopStore(AgroalDataSource ds) {
        this.ds = ds;
    }

    /** Frames [startIdx, startIdx + take) of a segment based at baseOffset are leased to the caller. */
    public record ClaimedSegment(UUID partitionId, String partitionName, long baseOffset, int startIdx, int take,
            OffsetDateTime createdAt, byte[] blob) {
    }

    public record Claim(String group, int budget, String worker, boolean autoAck, String subMode, Instant subFrom) {
    }

    /**
     * Claims on a connection of its own: a claim that wrote nothing but its lease commits without waiting for the
     * flush ({@code log_pop_lease_commit_v1}).
     */
    public List<ClaimedSegment> popPartition(UUID tenant, String queue, String partition, Claim c)
            throws SQLException {
        try (Connection con = ds.getConnection()) {
            return popPartition(con, tenant, queue, partition, c, true);
        }
    }

    /** Same, on the caller's connection (inside its transaction, which commits as it always does). */
    public List<ClaimedSegment> popPartition(Connection con, UUID tenant, String queue, String partition, Claim c)
            throws SQLException {
        return popPartition(con, tenant, queue, partition, c, false);
    }

    private List<ClaimedSegment> popPartition(Connection con, UUID tenant, String queue, String partition, Claim c,
            boolean async) throws SQLException {
        return query(con, "SELECT partition_id, partition_name, base_offset, start_idx, take, created_at, blob"
                + " FROM queen.log_pop_partition_v1(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", ps -> {
                    ps.setObject(1, tenant);
                    ps.setString(2, queue);
                    ps.setString(3, partition);
                    bindClaim(ps, 4, c);
                    ps.setBoolean(10, async);
                });
    }

    /** As {@link #popPartition(UUID, String, String, Claim)}, from any partition of the queue with work. */
    public List<ClaimedSegment> popQueue(UUID tenant, String queue, Claim c, int maxPartitions, Instant floor)
            throws SQLException {
        try (Connection con = ds.getConnection()) {
            return popQueue(con, tenant, queue, c, maxPartitions, floor, true);
        }
    }

    /** Same, on the caller's connection (inside its transaction, which commits as it always does). */
    public List<ClaimedSegment> popQueue(Connection con, UUID tenant, String queue, Claim c, int maxPartitions,
            Instant floor) throws SQLException {
        return popQueue(con, tenant, queue, c, maxPartitions, floor, false);
    }

    private List<ClaimedSegment> popQueue(Connection con, UUID tenant, String queue, Claim c, int maxPartitions,
            Instant floor, boolean async) throws SQLException {
        return query(con, "SELECT partition_id, partition_name, base_offset, start_idx, take, created_at, blob"
                + " FROM queen.log_pop_queue_v1(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", ps -> {
                    ps.setObject(1, tenant);
                    ps.setString(2, queue);
                    bindClaim(ps, 3, c);
                    ps.setInt(9, maxPartitions);
                    ps.setTimestamp(10, Timestamp.from(floor));
                    ps.setBoolean(11, async);
                });
    }

    /** See {@code log_pop_give_back_v1}: true when the claim's tail was given back. */
    public boolean giveBack(UUID partitionId, String group, String worker, long claimedLast, long keepLast, int returned)
            throws SQLException {
        return call("SELECT queen.log_pop_give_back_v1(?, ?, ?, ?, ?, ?)", ps -> {
            ps.setObject(1, partitionId);
            ps.setString(2, group);
            ps.setString(3, worker);
            ps.setLong(4, claimedLast);
            ps.setLong(5, keepLast);
            ps.setInt(6, returned);
        }, rs -> rs.next() && rs.getBoolean(1));
    }

    /** See {@code log_pop_pass_holes_v1}: completes a lease that covered only compaction holes. */
    public boolean passHoles(UUID partitionId, String group, String worker, long claimedLast) throws SQLException {
        return call("SELECT queen.log_pop_pass_holes_v1(?, ?, ?, ?)", ps -> {
            ps.setObject(1, partitionId);
            ps.setString(2, group);
            ps.setString(3, worker);
            ps.setLong(4, claimedLast);
        }, rs -> rs.next() && rs.getBoolean(1));
    }

    public boolean hasPending(UUID tenant, String queue, String group) throws SQLException {
        return call("SELECT queen.log_queue_has_pending_v1(?, ?, ?)", ps -> {
            ps.setObject(1, tenant);
            ps.setString(2, queue);
            ps.setString(3, group);
        }, rs -> rs.next() && rs.getBoolean(1));
    }

    /** Messages a claim could take now from the partition, or from the whole queue when {@code partition} is null. */
    public long fill(UUID tenant, String queue, String partition, String group) throws SQLException {
        return call("SELECT queen.log_pop_fill_v1(?, ?, ?, ?)", ps -> {
            ps.setObject(1, tenant);
            ps.setString(2, queue);
            ps.setString(3, partition);
            ps.setString(4, group);
        }, rs -> rs.next() ? rs.getLong(1) : 0L);
    }

    /**
     * Milliseconds until something pending for the pop could become claimable without a write (a lease expiring,
     * a delay maturing), or -1 when nothing is pending at all. {@code queue} null: the namespace/task's queues.
     */
    public double nextDueMs(UUID tenant, String queue, String partition, String namespace, String task, String group)
            throws SQLException {
        return call("SELECT queen.log_pop_next_due_v1(?, ?, ?, ?, ?, ?)", ps -> {
            ps.setObject(1, tenant);
            ps.setString(2, queue);
            ps.setString(3, partition);
            ps.setString(4, namespace);
            ps.setString(5, task);
            ps.setString(6, group);
        }, rs -> {
            if (!rs.next()) {
                return -1.0;
            }
            double ms = rs.getDouble(1);
            return rs.wasNull() ? -1.0 : ms;
        });
    }

    public List<String> queuesByNamespace(UUID tenant, String namespace, String task) throws SQLException {
        try (Connection con = ds.getConnection();
                PreparedStatement ps = con.prepareStatement("SELECT name FROM queen.log_queues_by_namespace_v1(?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, namespace);
            ps.setString(3, task);
            List<String> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
            return out;
        }
    }

    private static void bindClaim(PreparedStatement ps, int i, Claim c) throws SQLException {
        // order in both functions: group, budget, worker, auto_ack, sub_mode, sub_from
        ps.setString(i, c.group());
        ps.setInt(i + 1, c.budget());
        ps.setString(i + 2, c.worker());
        ps.setBoolean(i + 3, c.autoAck());
        ps.setString(i + 4, c.subMode());
        ps.setTimestamp(i + 5, c.subFrom() == null ? null : Timestamp.from(c.subFrom()));
    }

    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    private interface Reader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** One call of a function outside the claim path: its statement bound by {@code binder}, its rows read by {@code reader}. */
    private <T> T call(String sql, Binder binder, Reader<T> reader) throws SQLException {
        try (Connection con = ds.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            binder.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                return reader.read(rs);
            }
        }
    }

    private static List<ClaimedSegment> query(Connection con, String sql, Binder binder) throws SQLException {
        try (PreparedStatement ps = con.prepareStatement(sql)) {
            binder.bind(ps);
            List<ClaimedSegment> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new ClaimedSegment(rs.getObject(1, UUID.class), rs.getString(2), rs.getLong(3), rs.getInt(4),
                            rs.getInt(5), rs.getObject(6, OffsetDateTime.class), rs.getBytes(7)));
                }
            }
            return out;
        }
    }
}
