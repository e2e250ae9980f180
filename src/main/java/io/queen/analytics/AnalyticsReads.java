package io.queen.analytics;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.Times;
import io.queen.sql.SqlCalls;
import jakarta.enterprise.context.ApplicationScoped;
import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * Reads behind the analytics routes: the metric bucket tables (db/015_metrics.sql) re-bucketed with
 * {@code date_bin}, and PostgreSQL's statistics views. Each read is one statement whose column labels are the JSON
 * keys; rows become JSON objects (timestamps in the wire format, numerics as numbers, json/jsonb as JSON).
 * Thread-safe (stateless).
 */
@ApplicationScoped
public class AnalyticsReads {
    /** Sums of the additive counters over the rows of one group, as JSON keys. */
    static final String SUMS = "sum(push_requests)::bigint AS \"pushRequests\", sum(push_messages)::bigint AS"
            + " \"pushMessages\", sum(pop_requests)::bigint AS \"popRequests\", sum(pop_messages)::bigint AS"
            + " \"popMessages\", sum(pop_empty)::bigint AS \"popEmpty\", sum(ack_requests)::bigint AS \"ackRequests\","
            + " sum(ack_messages)::bigint AS \"ackSuccess\", sum(ack_failed)::bigint AS \"ackFailed\","
            + " sum(transactions)::bigint AS transactions, sum(dlq)::bigint AS dlq,"
            + " COALESCE(round(sum(lag_sum_ms)::numeric / NULLIF(sum(lag_count), 0)), 0)::bigint AS \"avgLagMs\","
            + " max(lag_max_ms)::bigint AS \"maxLagMs\"";

    @Inject SqlCalls sql;
    @Inject ObjectMapper mapper;

    /**
     * Runs {@code sql} with {@code args} bound in order (a null as a text null: these statements compare it in
     * expressions, where PostgreSQL cannot infer its type) and appends one object per row to {@code out}.
     */
    ArrayNode rows(String query, ArrayNode out, Object... args) throws SQLException {
        Object[] bound = new Object[args.length];
        for (int i = 0; i < args.length; i++) {
            bound[i] = args[i] == null ? SqlCalls.NULL_TEXT : args[i];
        }
        out.addAll(sql.list(query, rs -> row(rs, rs.getMetaData()), bound));
        return out;
    }

    ArrayNode rows(String sql, Object... args) throws SQLException {
        return rows(sql, mapper.createArrayNode(), args);
    }

    /** The first row of {@code sql}, or an empty object. */
    ObjectNode one(String sql, Object... args) throws SQLException {
        ArrayNode a = rows(sql, args);
        return a.isEmpty() ? mapper.createObjectNode() : (ObjectNode) a.get(0);
    }

    /** Sets {@code read}, the value just read from {@code rs}, or JSON null when that column was SQL NULL. */
    private static void putRead(ObjectNode n, String key, JsonNode read, ResultSet rs) throws SQLException {
        n.set(key, rs.wasNull() ? n.nullNode() : read);
    }

    private ObjectNode row(ResultSet rs, ResultSetMetaData md) throws SQLException {
        ObjectNode n = mapper.createObjectNode();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            String key = md.getColumnLabel(i);
            String type = md.getColumnTypeName(i);
            switch (md.getColumnType(i)) {
                case Types.BIGINT, Types.INTEGER, Types.SMALLINT -> putRead(n, key, n.numberNode(rs.getLong(i)), rs);
                case Types.DOUBLE, Types.REAL, Types.FLOAT -> putRead(n, key, n.numberNode(rs.getDouble(i)), rs);
                case Types.NUMERIC, Types.DECIMAL -> {
                    BigDecimal v = rs.getBigDecimal(i);
                    if (v == null) {
                        n.putNull(key);
                    } else {
                        n.put(key, v.stripTrailingZeros().scale() <= 0 ? v.longValue() : v.doubleValue());
                    }
                }
                case Types.BOOLEAN, Types.BIT -> putRead(n, key, n.booleanNode(rs.getBoolean(i)), rs);
                case Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE ->
                        n.put(key, Times.millis(rs.getObject(i, OffsetDateTime.class)));
                default -> {
                    String s = rs.getString(i);
                    if (s != null && ("json".equals(type) || "jsonb".equals(type))) {
                        n.set(key, readJson(s));
                    } else {
                        n.put(key, s);
                    }
                }
            }
        }
        return n;
    }

    private JsonNode readJson(String s) throws SQLException {
        try {
            return mapper.readTree(s);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new SQLException("unreadable json column: " + e.getOriginalMessage(), e);
        }
    }

    /** The distinct values of {@code key} in {@code rows}, in first-seen order. */
    static List<String> distinct(ArrayNode rows, String key) {
        java.util.LinkedHashSet<String> out = new java.util.LinkedHashSet<>();
        rows.forEach(r -> out.add(r.path(key).asText()));
        return List.copyOf(out);
    }
}
