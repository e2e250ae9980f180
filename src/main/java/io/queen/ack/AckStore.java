package io.queen.ack;

import io.agroal.api.AgroalDataSource;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * SQL calls of the ack feature. Methods that take a {@link Connection} run inside the caller's transaction
 * (ack + DLQ filing, and the transaction wire, are each one transaction). Thread-safe (stateless).
 *
 * <p>Binds by hand rather than through {@code sql.SqlCalls}: every consumed message is acked here, on a
 * connection the caller's transaction holds, and the typed arrays of a fused ack are bound once per commit.
 */
@Singleton
public class AckStore {
    private final AgroalDataSource ds;

    AckStore(AgroalDataSource ds) {
        this.ds = ds;
    }

    public Connection transaction() throws SQLException {
        Connection c = ds.getConnection();
        c.setAutoCommit(false);
        return c;
    }

    /** SQL work on one connection. */
    public interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /** Runs {@code work} in a transaction of its own: committed when it returns, rolled back when it throws. */
    public <T> T inTransaction(Work<T> work) throws SQLException {
        try (Connection c = transaction()) {
            try {
                T out = work.run(c);
                c.commit();
                return out;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /** One input's verdict; {@code ord} is 1-based input position. */
    public record AckRow(int ord, String outcome, Long offset, boolean leaseReleased, Long dlqOffset) {
    }

    public List<AckRow> ackByHash(Connection c, UUID pid, String group, String worker, byte[][] hashes,
            String[] statuses) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT ord, outcome, off, lease_released, dlq_off FROM queen.log_ack_by_hash_v1(?, ?, ?, ?, ?)")) {
            ps.setObject(1, pid);
            ps.setString(2, group);
            ps.setString(3, worker);
            ps.setArray(4, c.createArrayOf("bytea", hashes));
            ps.setArray(5, c.createArrayOf("text", statuses));
            List<AckRow> out = new ArrayList<>(hashes.length);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new AckRow(rs.getInt(1), rs.getString(2), (Long) rs.getObject(3), rs.getBoolean(4),
                            (Long) rs.getObject(5)));
                }
            }
            return out;
        }
    }

    /** Positional acks in one transaction of their own (ack fusion); one verdict per input, in input order. */
    public List<AckFusion.Verdict> ackMulti(List<AckFusion.Positional> acks) throws SQLException {
        return inTransaction(c -> ackMulti(c, acks));
    }

    /** Same, inside the caller's transaction. */
    public List<AckFusion.Verdict> ackMulti(Connection c, List<AckFusion.Positional> acks) throws SQLException {
        int n = acks.size();
        UUID[] pids = new UUID[n];
        String[] groups = new String[n];
        Long[] ends = new Long[n];
        String[] workers = new String[n];
        for (int i = 0; i < n; i++) {
            AckFusion.Positional a = acks.get(i);
            pids[i] = a.partitionId();
            groups[i] = a.group();
            ends[i] = a.upTo();
            workers[i] = a.worker();
        }
        List<AckFusion.Verdict> out = new ArrayList<>(n);
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT ord, ok, lease_released, idle FROM queen.log_ack_multi_v1(?, ?, ?, ?)")) {
            ps.setArray(1, c.createArrayOf("uuid", pids));
            ps.setArray(2, c.createArrayOf("text", groups));
            ps.setArray(3, c.createArrayOf("bigint", ends));
            ps.setArray(4, c.createArrayOf("text", workers));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new AckFusion.Verdict(rs.getBoolean(2), rs.getBoolean(3), rs.getBoolean(4)));
                }
            }
        }
        if (out.size() != n) {
            throw new SQLException("log_ack_multi_v1 answered " + out.size() + " rows for " + n + " inputs");
        }
        return out;
    }

    public record Segment(long baseOffset, long endOffset, OffsetDateTime createdAt, byte[] blob) {
    }

    public Segment segmentAt(Connection c, UUID pid, long offset) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT base_offset, end_offset, created_at, blob FROM queen.log_segment_at_v1(?, ?)")) {
            ps.setObject(1, pid);
            ps.setLong(2, offset);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Segment(rs.getLong(1), rs.getLong(2), rs.getObject(3, OffsetDateTime.class),
                        rs.getBytes(4)) : null;
            }
        }
    }

    /** {@code key}: the message's key as stored (frame flag 32; an envelope where the payload snapshot is one). */
    public record DeadLetter(UUID pid, String group, long offset, UUID messageId, String transactionId,
            String payloadJson, String error, UUID traceId, String producerSub, OffsetDateTime createdAt,
            byte[] key) {
    }

    public void fileDeadLetter(Connection c, DeadLetter d) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT queen.log_dlq_head_v1(?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?)")) {
            ps.setObject(1, d.pid());
            ps.setString(2, d.group());
            ps.setLong(3, d.offset());
            ps.setObject(4, d.messageId());
            ps.setString(5, d.transactionId());
            ps.setString(6, d.payloadJson());
            ps.setString(7, d.error());
            ps.setObject(8, d.traceId());
            ps.setString(9, d.producerSub());
            ps.setTimestamp(10, d.createdAt() == null ? null : Timestamp.from(d.createdAt().toInstant()));
            ps.setBytes(11, d.key());
            ps.execute();
        }
    }

    /** A partition's names and tenant ({@code tenant} null where only the names are known). */
    public record PartitionInfo(String partition, String queue, UUID tenant) {
    }

    public Map<UUID, PartitionInfo> partitionInfo(Connection c, UUID[] pids) throws SQLException {
        Map<UUID, PartitionInfo> out = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT partition_id, partition_name, queue_name, tenant_id FROM queen.log_partition_info_v1(?)")) {
            ps.setArray(1, c.createArrayOf("uuid", pids));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getObject(1, UUID.class), new PartitionInfo(rs.getString(2), rs.getString(3),
                            rs.getObject(4, UUID.class)));
                }
            }
        }
        return out;
    }

    /**
     * The consumer group each (partition, lease id) pair names while its lease is held, as "partition/lease" keys;
     * pairs of another tenant or whose lease ended are absent.
     */
    public Map<String, String> leaseGroups(UUID tenant, UUID[] pids, String[] leases) throws SQLException {
        Map<String, String> out = new HashMap<>();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT partition_id, lease_id, consumer_group FROM queen.log_lease_groups_v1(?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setArray(2, c.createArrayOf("uuid", pids));
            ps.setArray(3, c.createArrayOf("text", leases));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getObject(1, UUID.class) + "/" + rs.getString(2), rs.getString(3));
                }
            }
        }
        return out;
    }

    public record Renewal(int renewed, int expired, OffsetDateTime newExpiry) {
    }

    /** Renews the tenant's leases held under {@code leaseId}; another tenant's lease counts as not found. */
    public Renewal renew(UUID tenant, String leaseId, int seconds, List<UUID> pids) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT renewed, expired, new_expiry FROM queen.log_renew_lease_v1(?, ?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, leaseId);
            ps.setInt(3, seconds);
            ps.setArray(4, pids == null ? null : c.createArrayOf("uuid", pids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new Renewal(rs.getInt(1), rs.getInt(2), rs.getObject(3, OffsetDateTime.class));
            }
        }
    }
}
