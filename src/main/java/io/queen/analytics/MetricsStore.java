package io.queen.analytics;

import io.agroal.api.AgroalDataSource;
import io.queen.metrics.OpsMeter;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Writes of the metric tables (db/015_metrics.sql): one broker flush is one function call; the purge is a bounded
 * step. Thread-safe (stateless; one pooled connection per call).
 */
@ApplicationScoped
public class MetricsStore {
    /** Cluster lifetime totals, as returned by a flush. */
    public record ClusterTotals(long pushRequests, long pushMessages, long popRequests, long popMessages,
            long ackRequests, long ackMessages, long ackFailed, long transactions, long dlq, long dbErrors) {
        static final ClusterTotals ZERO = new ClusterTotals(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    /** The broker's identity in the rows. */
    public record Broker(String hostname, int workerId, int port) {
    }

    private final AgroalDataSource ds;

    MetricsStore(AgroalDataSource ds) {
        this.ds = ds;
    }

    /**
     * Writes one flush: {@code queues} rows (each {@link OpsMeter#FIELDS} values), the broker totals and the
     * system sample, all in one statement; returns the cluster totals after adding the broker's deltas.
     */
    public ClusterTotals flush(OffsetDateTime bucket, Broker broker, List<OpsMeter.Sample> queues, long[] totals,
            double[] system) throws SQLException {
        String[] names = new String[queues.size()];
        Object[] tenants = new Object[queues.size()];
        Long[] counts = new Long[queues.size() * OpsMeter.FIELDS];
        for (int i = 0; i < queues.size(); i++) {
            names[i] = queues.get(i).queue();
            tenants[i] = queues.get(i).tenant();  // null for _other
            long[] v = queues.get(i).values();
            for (int k = 0; k < OpsMeter.FIELDS; k++) {
                counts[i * OpsMeter.FIELDS + k] = v[k];
            }
        }
        Long[] b = new Long[OpsMeter.FIELDS];
        for (int k = 0; k < OpsMeter.FIELDS; k++) {
            b[k] = totals[k];
        }
        Double[] sys = new Double[system.length];
        for (int k = 0; k < system.length; k++) {
            sys[k] = Double.isNaN(system[k]) ? null : system[k];
        }
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT * FROM queen.metrics_flush_v1(?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            ps.setObject(1, bucket);
            ps.setString(2, broker.hostname());
            ps.setInt(3, broker.workerId());
            ps.setInt(4, broker.port());
            Array a1 = c.createArrayOf("text", names);
            Array a2 = c.createArrayOf("bigint", counts);
            Array a3 = c.createArrayOf("bigint", b);
            Array a4 = c.createArrayOf("float8", sys);
            ps.setArray(5, a1);
            ps.setArray(6, a2);
            ps.setArray(7, a3);
            ps.setArray(8, a4);
            ps.setArray(9, c.createArrayOf("uuid", tenants));
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return ClusterTotals.ZERO;  // the totals row is seeded by the schema; missing only if deleted
                }
                return new ClusterTotals(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5),
                        rs.getLong(6), rs.getLong(7), rs.getLong(8), rs.getLong(9), rs.getLong(10));
            }
        }
    }

    /**
     * Dead letters per queue of the default tenant (the largest {@code limit} queues; the rest and every other
     * tenant's summed under {@link OpsMeter#OTHER}).
     * Cost: one pass over log_dlq's partition index joined to partitions and queues.
     */
    public Map<String, Long> dlqDepth(UUID defaultTenant, int limit) throws SQLException {
        Map<String, Long> out = new LinkedHashMap<>();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT q.tenant_id = ? AS named, q.name, count(*) FROM queen.log_dlq d"
                        + " JOIN queen.log_partitions p ON p.id = d.partition_id JOIN queen.queues q ON q.id = p.queue_id"
                        + " GROUP BY 1, 2 ORDER BY count(*) DESC, q.name")) {
            ps.setObject(1, defaultTenant);
            try (ResultSet rs = ps.executeQuery()) {
            long other = 0;
            while (rs.next()) {
                // only the default tenant's queues are named (the Prometheus endpoint is public)
                if (rs.getBoolean(1) && out.size() < limit) {
                    out.put(rs.getString(2), rs.getLong(3));
                } else {
                    other += rs.getLong(3);
                }
            }
            if (other > 0) {
                out.merge(OpsMeter.OTHER, other, Long::sum);
            }
            }
        }
        return out;
    }

    /** One purge step of rows older than {@code cutoff}; returns {deleted, done (1/0)}. */
    public long[] purgeStep(Instant cutoff, int maxRows) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT deleted, done FROM queen.metrics_purge_step_v1(?, ?)")) {
            ps.setObject(1, OffsetDateTime.ofInstant(cutoff, ZoneOffset.UTC));
            ps.setInt(2, maxRows);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new long[] {rs.getInt(1), rs.getBoolean(2) ? 1 : 0};
            }
        }
    }
}
