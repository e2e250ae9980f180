package io.queen.traces;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** SQL calls of the traces feature ({@code db/017_traces.sql}). Thread-safe (stateless). */
@ApplicationScoped
public class TraceStore {
    private final AgroalDataSource ds;

    TraceStore(AgroalDataSource ds) {
        this.ds = ds;
    }

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
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT queen.trace_add_v1(?, ?, ?, ?, ?, ?::jsonb, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setObject(2, pid);
            ps.setString(3, txn);
            ps.setString(4, group);
            ps.setString(5, event);
            ps.setString(6, dataJson);
            ps.setString(7, worker);
            ps.setArray(8, c.createArrayOf("text", names.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getObject(1, UUID.class);
            }
        }
    }

    public List<Trace> ofMessage(UUID tenant, UUID pid, String txn) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT id, event_type, data::text, consumer_group, worker_id, created_at, trace_names"
                        + " FROM queen.traces_of_message_v1(?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setObject(2, pid);
            ps.setString(3, txn);
            List<Trace> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Trace(rs.getObject(1, UUID.class), pid, txn, rs.getString(2), rs.getString(3),
                            rs.getString(4), rs.getString(5), rs.getObject(6, OffsetDateTime.class), names(rs.getArray(7)),
                            null, null));
                }
            }
            return out;
        }
    }

    public Page<Trace> byName(UUID tenant, String name, int limit, int offset) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT id, transaction_id, partition_id, event_type, data::text, consumer_group, worker_id, created_at,"
                        + " trace_names, queue_name, partition_name FROM queen.traces_by_name_v1(?, ?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, name);
            ps.setInt(3, limit);
            ps.setInt(4, offset);
            List<Trace> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Trace(rs.getObject(1, UUID.class), rs.getObject(3, UUID.class), rs.getString(2),
                            rs.getString(4), rs.getString(5), rs.getString(6), rs.getString(7),
                            rs.getObject(8, OffsetDateTime.class), names(rs.getArray(9)), rs.getString(10),
                            rs.getString(11)));
                }
            }
            return new Page<>(out, scalar(c, "SELECT queen.trace_name_count_v1(?, ?)", tenant, name));
        }
    }

    public Page<Name> names(UUID tenant, int limit, int offset) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT trace_name, trace_count, message_count, last_seen FROM queen.trace_names_v1(?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setInt(2, limit);
            ps.setInt(3, offset);
            List<Name> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Name(rs.getString(1), rs.getLong(2), rs.getLong(3),
                            rs.getObject(4, OffsetDateTime.class)));
                }
            }
            return new Page<>(out, scalar(c, "SELECT queen.trace_names_count_v1(?)", tenant));
        }
    }

    private static long scalar(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static List<String> names(Array a) throws SQLException {
        List<String> out = new ArrayList<>();
        if (a != null) {
            for (Object o : (Object[]) a.getArray()) {
                out.add((String) o);
            }
        }
        return out;
    }
}
