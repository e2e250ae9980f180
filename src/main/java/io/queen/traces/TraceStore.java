package io.queen.traces;

import jakarta.inject.Inject;
import io.queen.sql.SqlCalls;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/** SQL calls of the traces feature ({@code db/017_traces.sql}). Thread-safe (stateless). */
@ApplicationScoped
public class TraceStore {
    @Inject SqlCalls sql;

    public record Trace(UUID id, UUID partitionId, String transactionId, String eventType, String dataJson,
            String consumerGroup, String workerId, OffsetDateTime createdAt, List<String> names, String queue,
            String partition) {
    }

    public record Page<T>(List<T> rows, long total) {
    }

    public record Name(String name, long traces, long messages, OffsetDateTime lastSeen) {
    }

    public UUID add(UUID tenant, UUID pid, String txn, String group, String event, String dataJson, String worker,
            List<String> names) throws SQLException {
        return sql.one("SELECT queen.trace_add_v1(?, ?, ?, ?, ?, ?::jsonb, ?, ?)", rs -> rs.getObject(1, UUID.class),
                tenant, pid, txn, group, event, dataJson, worker, names.toArray(String[]::new));
    }

    public List<Trace> ofMessage(UUID tenant, UUID pid, String txn) throws SQLException {
        return sql.list("SELECT id, event_type, data::text, consumer_group, worker_id, created_at, trace_names"
                + " FROM queen.traces_of_message_v1(?, ?, ?)",
                rs -> new Trace(rs.getObject(1, UUID.class), pid, txn, rs.getString(2), rs.getString(3),
                        rs.getString(4), rs.getString(5), rs.getObject(6, OffsetDateTime.class),
                        SqlCalls.strings(rs.getArray(7)), null, null),
                tenant, pid, txn);
    }

    public Page<Trace> byName(UUID tenant, String name, int limit, int offset) throws SQLException {
        List<Trace> rows = sql.list("SELECT id, transaction_id, partition_id, event_type, data::text, consumer_group,"
                + " worker_id, created_at, trace_names, queue_name, partition_name"
                + " FROM queen.traces_by_name_v1(?, ?, ?, ?)",
                rs -> new Trace(rs.getObject(1, UUID.class), rs.getObject(3, UUID.class), rs.getString(2),
                        rs.getString(4), rs.getString(5), rs.getString(6), rs.getString(7),
                        rs.getObject(8, OffsetDateTime.class), SqlCalls.strings(rs.getArray(9)), rs.getString(10),
                        rs.getString(11)),
                tenant, name, limit, offset);
        return new Page<>(rows, sql.number("SELECT queen.trace_name_count_v1(?, ?)", tenant, name));
    }

    public Page<Name> names(UUID tenant, int limit, int offset) throws SQLException {
        List<Name> rows = sql.list("SELECT trace_name, trace_count, message_count, last_seen"
                + " FROM queen.trace_names_v1(?, ?, ?)",
                rs -> new Name(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getObject(4, OffsetDateTime.class)),
                tenant, limit, offset);
        return new Page<>(rows, sql.number("SELECT queen.trace_names_count_v1(?)", tenant));
    }
}
