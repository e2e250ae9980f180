package io.queen.push;

import io.agroal.api.AgroalDataSource;
import jakarta.inject.Singleton;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * SQL calls of the push feature: one {@code queen.log_push_multi_v1} call per bundle (one transaction, one
 * commit) and the segment lookup that resolves a duplicate's original message. Thread-safe (stateless).
 *
 * <p>Binds by hand rather than through {@code sql.SqlCalls}: this is the write path every message takes, so its
 * nine typed arrays are bound once per bundle with no per-argument type dispatch, boxing or row lambda.
 */
@Singleton
public class PushStore {
    private final AgroalDataSource ds;

    PushStore(AgroalDataSource ds) {
        this.ds = ds;
    }

    /**
     * One segment of a bundle, for one partition. {@code verified} is vouched for partition {@code verifiedPid}
     * (null with verified -1): the dedup probe skips the offsets up to it, assuming a window of
     * {@code assumedWindow} seconds. Built by the factories, one per way a writer knows the partition's past.
     */
    public record SegmentWrite(UUID tenant, String queue, String partition, int count, byte[] hashes, long verified,
            int assumedWindow, UUID verifiedPid, byte[] blob) {

        /** Nothing vouched for: SQL probes the partition's whole dedup window. */
        public static SegmentWrite probed(UUID tenant, String queue, String partition, int count, byte[] hashes,
                byte[] blob) {
            return new SegmentWrite(tenant, queue, partition, count, hashes, -1L, 0, null, blob);
        }

        /** The fusion's dedup index vouches for partition {@code pid} up to offset {@code verified}. */
        static SegmentWrite vouched(UUID tenant, String queue, String partition, int count, byte[] hashes,
                long verified, int window, UUID pid, byte[] blob) {
            return new SegmentWrite(tenant, queue, partition, count, hashes, verified, window, pid, blob);
        }

        /**
         * Transaction ids unique by construction (a Kafka transaction's staged records): the probe is skipped for
         * every offset of partition {@code pid}; a partition not created yet ({@code pid} null) is probed.
         */
        public static SegmentWrite unique(UUID tenant, String queue, String partition, int count, byte[] hashes,
                UUID pid, byte[] blob) {
            return pid == null ? probed(tenant, queue, partition, count, hashes, blob)
                    : new SegmentWrite(tenant, queue, partition, count, hashes, Long.MAX_VALUE, Integer.MAX_VALUE,
                            pid, blob);
        }
    }

    /** Verdict of one segment, by input ordinal (0-based). */
    public record SegmentResult(int ordinal, UUID partitionId, boolean duplicate, long baseOffset,
            OffsetDateTime createdAt, int[] dupIndexes, long[] dupOffsets, int dedupWindow) {
    }

    public record StoredSegment(long baseOffset, long endOffset, OffsetDateTime createdAt, byte[] blob) {
    }

    SegmentResult[] pushBundle(List<SegmentWrite> segments) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return pushBundle(c, segments);
        }
    }

    /** Same, inside the caller's transaction ({@link LogWriter.InTransaction}). */
    SegmentResult[] pushBundle(Connection c, List<SegmentWrite> segments) throws SQLException {
        int n = segments.size();
        UUID[] tenants = new UUID[n];
        String[] queues = new String[n];
        String[] partitions = new String[n];
        Integer[] counts = new Integer[n];
        byte[][] hashes = new byte[n][];
        Long[] verified = new Long[n];
        Integer[] windows = new Integer[n];
        UUID[] verifiedPids = new UUID[n];
        byte[][] blobs = new byte[n][];
        for (int i = 0; i < n; i++) {
            SegmentWrite s = segments.get(i);
            tenants[i] = s.tenant();
            queues[i] = s.queue();
            partitions[i] = s.partition();
            counts[i] = s.count();
            hashes[i] = s.hashes();
            verified[i] = s.verified();
            windows[i] = s.assumedWindow();
            verifiedPids[i] = s.verifiedPid();
            blobs[i] = s.blob();
        }
        SegmentResult[] out = new SegmentResult[n];
        try (PreparedStatement ps = c.prepareStatement("SELECT ord, partition_id, status, base_offset, created_at,"
                        + " dup_idx, dup_off, dedup_window FROM queen.log_push_multi_v1(?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            ps.setArray(1, c.createArrayOf("uuid", tenants));
            ps.setArray(2, c.createArrayOf("text", queues));
            ps.setArray(3, c.createArrayOf("text", partitions));
            ps.setArray(4, c.createArrayOf("int4", counts));
            ps.setArray(5, c.createArrayOf("bytea", hashes));
            ps.setArray(6, c.createArrayOf("int8", verified));
            ps.setArray(7, c.createArrayOf("int4", windows));
            ps.setArray(8, c.createArrayOf("uuid", verifiedPids));
            ps.setArray(9, c.createArrayOf("bytea", blobs));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int ord = rs.getInt(1) - 1;
                    boolean dup = "duplicate".equals(rs.getString(3));
                    out[ord] = new SegmentResult(ord, rs.getObject(2, UUID.class), dup, rs.getLong(4),
                            rs.getObject(5, OffsetDateTime.class), dup ? ints(rs.getArray(6)) : null,
                            dup ? longs(rs.getArray(7)) : null, rs.getInt(8));
                }
            }
        }
        for (int i = 0; i < n; i++) {
            if (out[i] == null) {
                throw new SQLException("log_push_multi_v1 returned no verdict for segment " + i);
            }
        }
        return out;
    }

    public record TxnSpan(long baseOffset, long endOffset, OffsetDateTime createdAt, byte[] hashes) {
    }

    /** Sidecar rows of a partition in (after, before) created inside the last {@code window} seconds. */
    public List<TxnSpan> txnSpans(UUID partitionId, long after, long before, int window) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT base_offset, end_offset, created_at, hashes FROM queen.log_txns_range_v1(?, ?, ?, ?)")) {
            ps.setObject(1, partitionId);
            ps.setLong(2, after);
            ps.setLong(3, before);
            ps.setInt(4, window);
            List<TxnSpan> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new TxnSpan(rs.getLong(1), rs.getLong(2), rs.getObject(3, OffsetDateTime.class),
                            rs.getBytes(4)));
                }
            }
            return out;
        }
    }

    public StoredSegment segmentAt(UUID partitionId, long offset) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT base_offset, end_offset, created_at, blob FROM queen.log_segment_at_v1(?, ?)")) {
            ps.setObject(1, partitionId);
            ps.setLong(2, offset);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                return new StoredSegment(rs.getLong(1), rs.getLong(2), rs.getObject(3, OffsetDateTime.class),
                        rs.getBytes(4));
            }
        }
    }

    private static int[] ints(Array a) throws SQLException {
        Integer[] v = (Integer[]) a.getArray();
        int[] out = new int[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = v[i];
        }
        return out;
    }

    private static long[] longs(Array a) throws SQLException {
        Long[] v = (Long[]) a.getArray();
        long[] out = new long[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = v[i];
        }
        return out;
    }
}
