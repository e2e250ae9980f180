package io.queen.analytics;

import jakarta.inject.Inject;
import io.queen.sql.SqlCalls;
import io.queen.metrics.BacklogFamilies;
import io.queen.metrics.OpsMeter;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
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

    @Inject SqlCalls sql;

    /**
     * Writes one flush: {@code queues} rows (each {@link OpsMeter#FIELDS} values), the broker totals and the
     * system sample, all in one statement; returns the cluster totals after adding the broker's deltas.
     */
    public ClusterTotals flush(OffsetDateTime bucket, Broker broker, List<OpsMeter.Sample> queues, long[] totals,
            double[] system) throws SQLException {
        String[] names = new String[queues.size()];
        UUID[] tenants = new UUID[queues.size()];
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
        ClusterTotals after = sql.one("SELECT * FROM queen.metrics_flush_v1(?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rs -> new ClusterTotals(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5),
                        rs.getLong(6), rs.getLong(7), rs.getLong(8), rs.getLong(9), rs.getLong(10)),
                bucket, broker.hostname(), broker.workerId(), broker.port(), names, counts, b, sys, tenants);
        // the totals row is seeded by the schema; missing only if deleted
        return after == null ? ClusterTotals.ZERO : after;
    }

    /**
     * Dead letters per queue of the default tenant (the largest {@code limit} queues; the rest and every other
     * tenant's summed under {@link OpsMeter#OTHER}).
     * Cost: one pass over log_dlq's partition index joined to partitions and queues.
     */
    public Map<String, Long> dlqDepth(UUID defaultTenant, int limit) throws SQLException {
        record QueueDepth(boolean named, String queue, long depth) {
        }
        List<QueueDepth> rows = sql.list("SELECT q.tenant_id = ? AS named, q.name, count(*) FROM queen.log_dlq d"
                + " JOIN queen.log_partitions p ON p.id = d.partition_id JOIN queen.queues q ON q.id = p.queue_id"
                + " GROUP BY 1, 2 ORDER BY count(*) DESC, q.name",
                rs -> new QueueDepth(rs.getBoolean(1), rs.getString(2), rs.getLong(3)), defaultTenant);
        Map<String, Long> out = new LinkedHashMap<>();
        long other = 0;
        for (QueueDepth d : rows) {
            // only the default tenant's queues are named (the Prometheus endpoint is public)
            if (d.named() && out.size() < limit) {
                out.put(d.queue(), d.depth());
            } else {
                other += d.depth();
            }
        }
        if (other > 0) {
            out.merge(OpsMeter.OTHER, other, Long::sum);
        }
        return out;
    }

    /**
     * Records what every queue holds now (pending messages, dead letters) for this minute, unless another broker
     * already did (db/026_metrics_depth.sql); returns the queue rows written, -1 when the minute was taken.
     */
    public long sampleDepth() throws SQLException {
        return sql.number("SELECT queen.metrics_depth_sample_v1()");
    }

    /**
     * Recomputes the stored backlog and lag figures unless another broker did within {@code minIntervalMs}
     * (db/030_metrics_backlog.sql; 0 = always); returns the rows written, -1 when they were fresh.
     */
    public long sampleBacklog(long minIntervalMs) throws SQLException {
        return sql.number("SELECT queen.metrics_backlog_sample_v1(?)", minIntervalMs);
    }

    /** The stored backlog and lag figures under their Prometheus labels, and their age (NaN = never computed). */
    public record Backlog(List<BacklogFamilies.Row> rows, double sampledAgeSeconds) {
    }

    /**
     * The stored figures labelled for Prometheus: the default tenant's {@code maxQueues} queues and
     * {@code maxGroups} groups with the largest backlog named, the rest under {@link OpsMeter#OTHER}.
     */
    public Backlog backlog(UUID defaultTenant, int maxQueues, int maxGroups) throws SQLException {
        double[] age = {Double.NaN};
        List<BacklogFamilies.Row> rows = sql.list(
                "SELECT queue_label, group_label, messages, age_seconds, sampled_age_seconds"
                        + " FROM queen.metrics_backlog_read_v1(?, ?, ?)",
                rs -> {
                    double sampled = rs.getDouble(5);
                    age[0] = rs.wasNull() ? Double.NaN : sampled;
                    double a = rs.getDouble(4);
                    double ageSeconds = rs.wasNull() ? Double.NaN : a;
                    return new BacklogFamilies.Row(rs.getString(1), rs.getString(2), rs.getLong(3), ageSeconds);
                }, defaultTenant, maxQueues, maxGroups);
        if (rows.isEmpty()) {  // nothing stored: the age still says whether a sample ran
            Double sampled = sql.one("SELECT extract(epoch FROM now() - sampled_at)::double precision"
                    + " FROM queen.metrics_backlog_claim WHERE sampled_at > '-infinity'", rs -> rs.getDouble(1));
            age[0] = sampled == null ? Double.NaN : sampled;
        }
        return new Backlog(rows, age[0]);
    }

    /** One purge step of rows older than {@code cutoff}; returns {deleted, done (1/0)}. */
    public long[] purgeStep(Instant cutoff, int maxRows) throws SQLException {
        long[] counts = sql.one("SELECT deleted, done FROM queen.metrics_purge_step_v1(?, ?)",
                rs -> new long[] {rs.getInt(1), rs.getBoolean(2) ? 1 : 0}, cutoff, maxRows);
        long[] depth = sql.one("SELECT deleted, done FROM queen.metrics_depth_purge_step_v1(?, ?)",
                rs -> new long[] {rs.getInt(1), rs.getBoolean(2) ? 1 : 0}, cutoff, maxRows);
        return new long[] {counts[0] + depth[0], counts[1] & depth[1]};
    }
}
