package io.queen.streams;

import io.agroal.api.AgroalDataSource;
import java.math.BigDecimal;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * SQL calls of the streams feature ({@code db/013_streams.sql}). Methods taking a {@link Connection} run inside
 * the caller's transaction (a cycle is one transaction). Thread-safe (stateless).
 */
@ApplicationScoped
public class StreamsStore {
    private final AgroalDataSource ds;

    StreamsStore(AgroalDataSource ds) {
        this.ds = ds;
    }

    /** {@code conflict} non-null: the registration differs and nothing changed. */
    public record Registration(UUID queryId, boolean fresh, boolean reset, String conflict) {
    }

    public Registration register(UUID tenant, String name, String source, String sink, String hash, boolean reset)
            throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT query_id, fresh, did_reset, conflict FROM queen_streams.register_query_v1(?, ?, ?, ?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, name);
            ps.setString(3, source);
            ps.setString(4, sink);
            ps.setString(5, hash);
            ps.setBoolean(6, reset);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new Registration(rs.getObject(1, UUID.class), rs.getBoolean(2), rs.getBoolean(3),
                        rs.getString(4));
            }
        }
    }

    /** Serializes the (query, partition) shard; answers the reason the cycle cannot run, or null. */
    public String begin(Connection c, UUID tenant, UUID query, UUID pid) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT problem FROM queen_streams.cycle_begin_v1(?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setObject(2, query);
            ps.setObject(3, pid);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    public int applyState(Connection c, UUID query, UUID pid, List<CycleRequest.StateOp> ops) throws SQLException {
        String[] types = new String[ops.size()];
        String[] keys = new String[ops.size()];
        String[] values = new String[ops.size()];
        for (int i = 0; i < ops.size(); i++) {
            CycleRequest.StateOp op = ops.get(i);
            types[i] = op.upsert() ? "upsert" : "delete";
            keys[i] = op.key();
            values[i] = op.valueJson();
        }
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT queen_streams.state_apply_v1(?, ?, ?, ?, ?::jsonb[])")) {
            ps.setObject(1, query);
            ps.setObject(2, pid);
            ps.setArray(3, c.createArrayOf("text", types));
            ps.setArray(4, c.createArrayOf("text", keys));
            ps.setArray(5, c.createArrayOf("text", values));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /** {@code outcome}: ok, no_cursor, invalid_lease, count_exceeds_batch, already_committed, txn_not_in_span. */
    public record AckOutcome(String outcome, long acked, boolean leaseReleased) {
    }

    /** {@code txnHash}: the hash of the ack's transactionId (null = unchecked). */
    public AckOutcome ack(Connection c, UUID pid, String group, String lease, Long count, boolean release,
            byte[] txnHash) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT outcome, acked, lease_released FROM queen_streams.cycle_ack_v1(?, ?, ?, ?, ?, ?)")) {
            ps.setObject(1, pid);
            ps.setString(2, group);
            ps.setString(3, lease);
            ps.setObject(4, count);
            ps.setBoolean(5, release);
            ps.setBytes(6, txnHash);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new AckOutcome(rs.getString(1), rs.getLong(2), rs.getBoolean(3));
            }
        }
    }

    /** Holds the cursor row of an ack-less cycle against deletion; false = the group has no cursor there. */
    public boolean hold(Connection c, UUID pid, String group) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT queen_streams.cycle_hold_v1(?, ?)")) {
            ps.setObject(1, pid);
            ps.setString(2, group);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    public record Row(String key, String valueJson, OffsetDateTime updatedAt) {
    }

    /** Does the query exist (for this tenant)? */
    public boolean queryExists(UUID tenant, UUID query) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT 1 FROM queen_streams.queries WHERE id = ? AND tenant_id = ?")) {
            ps.setObject(1, query);
            ps.setObject(2, tenant);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** The state read's filters (API spec 5.1); an empty list or a null filter filters nothing. */
    public record StateFilter(List<String> keys, String keyPrefix, BigDecimal ripeAtOrBefore) {
    }

    public List<Row> state(UUID tenant, UUID query, UUID pid, StateFilter f) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT key, value::text, updated_at FROM queen_streams.state_get_v1(?, ?, ?, ?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setObject(2, query);
            ps.setObject(3, pid);
            ps.setArray(4, f.keys().isEmpty() ? null : c.createArrayOf("text", f.keys().toArray()));
            ps.setString(5, f.keyPrefix());
            ps.setBigDecimal(6, f.ripeAtOrBefore());
            List<Row> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Row(rs.getString(1), rs.getString(2), rs.getObject(3, OffsetDateTime.class)));
                }
            }
            return out;
        }
    }
}
