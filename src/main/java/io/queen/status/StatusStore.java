package io.queen.status;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.queue.QueueOptions;
import jakarta.enterprise.context.ApplicationScoped;
import io.queen.sql.SqlCalls;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/**
 * SQL calls of the resources and status views (db/014_admin_status.sql). Every function called is STABLE and
 * computes figures from watermarks, cursors and dead-letter counts, never from segment contents. Thread-safe
 * (stateless; one pooled connection per call).
 */
@ApplicationScoped
public class StatusStore {
    @Inject SqlCalls sql;

    /** Message figures of a partition, a queue or a sum of them (see 014_admin_status.sql for the definitions). */
    public record Figures(long total, long pending, long processing, long completed, long failed, long deadLetter) {
        static Figures read(ResultSet rs, String prefix) throws SQLException {
            return new Figures(rs.getLong(prefix + "total"), rs.getLong(prefix + "pending"),
                    rs.getLong(prefix + "processing"), rs.getLong(prefix + "completed"), rs.getLong(prefix + "failed"),
                    rs.getLong(prefix + "dead_letter"));
        }
    }

    public record QueueRow(UUID id, String name, String namespace, String task, int priority, OffsetDateTime createdAt,
            long partitions, long totalConsumed, Figures figures) {
    }

    public record QueuePage(long matching, List<QueueRow> queues) {
    }

    public record Totals(long queues, long partitions, long namespaces, long tasks, Figures figures, long leases,
            long partitionsWithLeases, long leasedSpan, long totalConsumed, long dlqPartitions) {
    }

    public record Rollup(String key, long queues, long partitions, long total, long pending) {
    }

    public record ErrorCount(String error, long count) {
    }

    /** A queue row: identity plus its effective configuration in wire names. */
    public record Queue(UUID id, String name, String namespace, String task, int priority, OffsetDateTime createdAt,
            ObjectNode config) {
    }

    public record PartitionRow(UUID id, String name, OffsetDateTime createdAt, OffsetDateTime lastWriteAt,
            OffsetDateTime oldestAt, OffsetDateTime newestAt, long logStart, long lastOffset, Figures figures,
            long cursors, long leases, long totalConsumed) {
    }

    public record LagStats(long cursors, double timeAvg, double timeMedian, double timeMin, double timeMax,
            double offsetAvg, double offsetMedian, long offsetMin, long offsetMax) {
    }

    public QueuePage queues(UUID tenant, String queue, String namespace, String task, String search, int limit,
            int offset) throws SQLException {
        SqlCalls.Page<QueueRow> page = sql.page("SELECT * FROM queen.status_queue_page_v1(?, ?, ?, ?, ?, ?, ?)",
                "matching", rs -> {
                    UUID id = rs.getObject("queue_id", UUID.class);
                    return id == null ? null : new QueueRow(id, rs.getString("name"), rs.getString("namespace"),
                            rs.getString("task"), rs.getInt("priority"),
                            rs.getObject("created_at", OffsetDateTime.class), rs.getLong("partitions"),
                            rs.getLong("total_consumed"), Figures.read(rs, ""));
                }, tenant, queue, namespace, task, search, limit, offset);
        return new QueuePage(page.total(), page.rows());
    }

    public Totals totals(UUID tenant, String queue, String namespace, String task) throws SQLException {
        return sql.one("SELECT * FROM queen.status_totals_v1(?, ?, ?, ?)",
                rs -> new Totals(rs.getLong("queues"), rs.getLong("partitions"), rs.getLong("namespaces"),
                        rs.getLong("tasks"), Figures.read(rs, ""), rs.getLong("leases"),
                        rs.getLong("partitions_with_leases"), rs.getLong("leased_span"), rs.getLong("total_consumed"),
                        rs.getLong("dlq_partitions")),
                tenant, queue, namespace, task);
    }

    public List<ErrorCount> topErrors(UUID tenant, String queue, String namespace, String task, int limit)
            throws SQLException {
        return sql.list("SELECT error, n FROM queen.status_dlq_top_errors_v1(?, ?, ?, ?, ?)",
                rs -> new ErrorCount(rs.getString(1), rs.getLong(2)), tenant, queue, namespace, task, limit);
    }

    /** Namespace ({@code by = "namespace"}) or task ({@code "task"}) rollup. */
    public List<Rollup> rollup(UUID tenant, String by) throws SQLException {
        return sql.list("SELECT key, queues, partitions, total, pending FROM queen.status_rollup_v1(?, ?)",
                rs -> new Rollup(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5)),
                tenant, by);
    }

    /** The queue named {@code name} in the tenant, or null. */
    public Queue queue(UUID tenant, String name) throws SQLException {
        return sql.one("SELECT * FROM queen.status_queue_v1(?, ?)",
                rs -> new Queue(rs.getObject("id", UUID.class), rs.getString("name"), nz(rs.getString("namespace")),
                        nz(rs.getString("task")), rs.getInt("priority"), rs.getObject("created_at", OffsetDateTime.class),
                        QueueOptions.fromRow(rs)),
                tenant, name);
    }

    public List<PartitionRow> partitions(UUID queueId) throws SQLException {
        return sql.list("SELECT * FROM queen.status_queue_partitions_v1(?)",
                rs -> new PartitionRow(rs.getObject("partition_id", UUID.class), rs.getString("partition_name"),
                        rs.getObject("created_at", OffsetDateTime.class),
                        rs.getObject("last_write_at", OffsetDateTime.class),
                        rs.getObject("oldest_at", OffsetDateTime.class),
                        rs.getObject("newest_at", OffsetDateTime.class), rs.getLong("log_start"),
                        rs.getLong("last_offset"), Figures.read(rs, ""), rs.getLong("cursors"),
                        rs.getLong("leases"), rs.getLong("total_consumed")),
                queueId);
    }

    /** One point of the status throughput series (db/015_metrics.sql). */
    public record Throughput(OffsetDateTime bucket, long pushMessages, long ackMessages, long popMessages,
            long lagCount, long lagSumMs, long lagMaxMs, long deadLettered) {
    }

    public List<Throughput> throughput(UUID tenant, OffsetDateTime from, OffsetDateTime to, int bucketMinutes,
            String queue, String namespace, String task) throws SQLException {
        return sql.list("SELECT * FROM queen.metrics_throughput_v1(?, ?, ?, ?, ?, ?, ?)",
                rs -> new Throughput(rs.getObject(1, OffsetDateTime.class), rs.getLong(2), rs.getLong(3),
                        rs.getLong(4), rs.getLong(5), rs.getLong(6), rs.getLong(7), rs.getLong(8)),
                tenant, from, to, bucketMinutes, queue, namespace, task);
    }

    /** The recorded depth of one bucket (db/026_metrics_depth.sql): what the queues held when it was sampled. */
    public record Depth(OffsetDateTime bucket, OffsetDateTime sampledAt, long pending, long deadLetters) {
    }

    public List<Depth> depth(UUID tenant, OffsetDateTime from, OffsetDateTime to, int bucketMinutes, String queue,
            String namespace, String task) throws SQLException {
        return sql.list("SELECT * FROM queen.metrics_depth_series_v1(?, ?, ?, ?, ?, ?, ?)",
                rs -> new Depth(rs.getObject(1, OffsetDateTime.class), rs.getObject(2, OffsetDateTime.class),
                        rs.getLong(3), rs.getLong(4)),
                tenant, from, to, bucketMinutes, queue, namespace, task);
    }

    /** Pushed and positively acked messages per second over the last {@code minutes} complete minutes. */
    public double[] recentRates(UUID tenant, int minutes) throws SQLException {
        return sql.one("SELECT * FROM queen.metrics_recent_rates_v1(?, ?)",
                rs -> new double[] {rs.getDouble(1), rs.getDouble(2)}, tenant, minutes);
    }

    public LagStats lagStats(UUID tenant) throws SQLException {
        return sql.one("SELECT * FROM queen.status_lag_stats_v1(?)",
                rs -> new LagStats(rs.getLong("cursors"), rs.getDouble("time_avg"), rs.getDouble("time_median"),
                        rs.getDouble("time_min"), rs.getDouble("time_max"), rs.getDouble("offset_avg"),
                        rs.getDouble("offset_median"), rs.getLong("offset_min"), rs.getLong("offset_max")),
                tenant);
    }

    private static String nz(String s) {
        return s == null ? "" : s;
    }
}
