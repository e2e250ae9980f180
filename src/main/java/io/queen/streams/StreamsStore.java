package io.queen.streams;

import jakarta.inject.Inject;
import io.queen.sql.SqlCalls;
import java.math.BigDecimal;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/**
 * SQL calls of the streams feature ({@code db/013_streams.sql}). Methods taking a {@link Connection} run inside
 * the caller's transaction (a cycle is one transaction). Thread-safe (stateless).
 */
@ApplicationScoped
public class StreamsStore {
    @Inject SqlCalls sql;

    /** {@code conflict} non-null: the registration differs and nothing changed. */
    public record Registration(UUID queryId, boolean fresh, boolean reset, String conflict) {
    }

    public Registration register(UUID tenant, String name, String source, String sink, String hash, boolean reset)
            throws SQLException {
        return sql.one("SELECT query_id, fresh, did_reset, conflict FROM queen_streams.register_query_v1(?, ?, ?, ?, ?, ?)",
                rs -> new Registration(rs.getObject(1, UUID.class), rs.getBoolean(2), rs.getBoolean(3), rs.getString(4)),
                tenant, name, source, sink, hash, reset);
    }

    /** Why a cycle cannot run (null: it can), and the query's source queue (null when the query is unknown). */
    public record Begin(String problem, String sourceQueue) {
    }

    /** Serializes the (query, partition) shard. */
    public Begin begin(Connection c, UUID tenant, UUID query, UUID pid) throws SQLException {
        return SqlCalls.on(c).one("SELECT problem, source_queue FROM queen_streams.cycle_begin_v1(?, ?, ?)",
                rs -> new Begin(rs.getString(1), rs.getString(2)), tenant, query, pid);
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
        return (int) SqlCalls.on(c).number("SELECT queen_streams.state_apply_v1(?, ?, ?, ?, ?::jsonb[])",
                query, pid, types, keys, values);
    }

    /** {@code outcome}: ok, no_cursor, invalid_lease, count_exceeds_batch, already_committed, txn_not_in_span. */
    public record AckOutcome(String outcome, long acked, boolean leaseReleased) {
    }

    /** {@code txnHash}: the hash of the ack's transactionId (null = unchecked). */
    public AckOutcome ack(Connection c, UUID pid, String group, String lease, Long count, boolean release,
            byte[] txnHash) throws SQLException {
        return SqlCalls.on(c).one("SELECT outcome, acked, lease_released FROM queen_streams.cycle_ack_v1(?, ?, ?, ?, ?, ?)",
                rs -> new AckOutcome(rs.getString(1), rs.getLong(2), rs.getBoolean(3)),
                pid, group, lease, count, release, txnHash);
    }

    /** Holds the cursor row of an ack-less cycle against deletion; false = the group has no cursor there. */
    public boolean hold(Connection c, UUID pid, String group) throws SQLException {
        return SqlCalls.on(c).flag("SELECT queen_streams.cycle_hold_v1(?, ?)", pid, group);
    }

    public record Row(String key, String valueJson, OffsetDateTime updatedAt) {
    }

    /** Does the query exist (for this tenant)? */
    public boolean queryExists(UUID tenant, UUID query) throws SQLException {
        return sql.one("SELECT 1 FROM queen_streams.queries WHERE id = ? AND tenant_id = ?", rs -> true, query,
                tenant) != null;
    }

    /** The state read's filters (API spec 5.1); an empty list or a null filter filters nothing. */
    public record StateFilter(List<String> keys, String keyPrefix, BigDecimal ripeAtOrBefore) {
    }

    public List<Row> state(UUID tenant, UUID query, UUID pid, StateFilter f) throws SQLException {
        return sql.list("SELECT key, value::text, updated_at FROM queen_streams.state_get_v1(?, ?, ?, ?, ?, ?)",
                rs -> new Row(rs.getString(1), rs.getString(2), rs.getObject(3, OffsetDateTime.class)),
                tenant, query, pid, f.keys().isEmpty() ? null : f.keys().toArray(String[]::new), f.keyPrefix(),
                f.ripeAtOrBefore());
    }
}
