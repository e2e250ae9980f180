package io.queen.status;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.agroal.api.AgroalDataSource;
import io.queen.queue.QueueOptions;
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
 * SQL calls of the resources and status views (db/014_admin_status.sql). Every function called is STABLE and
 * computes figures from watermarks, cursors and dead-letter counts, never from segment contents. Thread-safe
 * (stateless; one pooled connection per call).
 */
@ApplicationScoped
public class StatusStore {
    private final AgroalDataSource ds;

    StatusStore(AgroalDataSource ds) {
        this.ds = ds;
    }

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
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT * FROM queen.status_queue_page_v1(?, ?, ?, ?, ?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, queue);
            ps.setString(3, namespace);
            ps.setString(4, task);
            ps.setString(5, search);
            ps.setInt(6, limit);
            ps.setInt(7, offset);
            long matching = 0;
            List<QueueRow> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    matching = rs.getLong("matching");
                    UUID id = rs.getObject("queue_id", UUID.class);
                    if (id != null) {
                        rows.add(new QueueRow(id, rs.getString("name"), rs.getString("namespace"),
                                rs.getString("task"), rs.getInt("priority"),
                                rs.getObject("created_at", OffsetDateTime.class), rs.getLong("partitions"),
                                rs.getLong("total_consumed"), Figures.read(rs, "")));
                    }
                }
            }
            return new QueuePage(matching, rows);
        }
    }

    public Totals totals(UUID tenant, String queue, String namespace, String task) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT * FROM queen.status_totals_v1(?, ?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, queue);
            ps.setString(3, namespace);
            ps.setString(4, task);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new Totals(rs.getLong("queues"), rs.getLong("partitions"), rs.getLong("namespaces"),
                        rs.getLong("tasks"), Figures.read(rs, ""), rs.getLong("leases"),
                        rs.getLong("partitions_with_leases"), rs.getLong("leased_span"), rs.getLong("total_consumed"),
                        rs.getLong("dlq_partitions"));
            }
        }
    }

    public List<ErrorCount> topErrors(UUID tenant, String queue, String namespace, String task, int limit)
            throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT error, n FROM queen.status_dlq_top_errors_v1(?, ?, ?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, queue);
            ps.setString(3, namespace);
            ps.setString(4, task);
            ps.setInt(5, limit);
            List<ErrorCount> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new ErrorCount(rs.getString(1), rs.getLong(2)));
                }
            }
            return out;
        }
    }

    /** Namespace ({@code by = "namespace"}) or task ({@code "task"}) rollup. */
    public List<Rollup> rollup(UUID tenant, String by) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT key, queues, partitions, total, pending FROM queen.status_rollup_v1(?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, by);
            List<Rollup> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Rollup(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5)));
                }
            }
            return out;
        }
    }

    /** The queue named {@code name} in the tenant, or null. */
    public Queue queue(UUID tenant, String name) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT * FROM queen.status_queue_v1(?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                return new Queue(rs.getObject("id", UUID.class), rs.getString("name"), nz(rs.getString("namespace")),
                        nz(rs.getString("task")), rs.getInt("priority"), rs.getObject("created_at", OffsetDateTime.class),
                        QueueOptions.fromRow(rs));
            }
        }
    }

    public List<PartitionRow> partitions(UUID queueId) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT * FROM queen.status_queue_partitions_v1(?)")) {
            ps.setObject(1, queueId);
            List<PartitionRow> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new PartitionRow(rs.getObject("partition_id", UUID.class), rs.getString("partition_name"),
                            rs.getObject("created_at", OffsetDateTime.class),
                            rs.getObject("last_write_at", OffsetDateTime.class),
                            rs.getObject("oldest_at", OffsetDateTime.class),
                            rs.getObject("newest_at", OffsetDateTime.class), rs.getLong("log_start"),
                            rs.getLong("last_offset"), Figures.read(rs, ""), rs.getLong("cursors"),
                            rs.getLong("leases"), rs.getLong("total_consumed")));
                }
            }
            return out;
        }
    }

    /** One point of the status throughput series (db/015_metrics.sql). */
    public record Throughput(java.time.OffsetDateTime bucket, long pushMessages, long ackMessages, long popMessages,
            long lagCount, long lagSumMs, long lagMaxMs, long deadLettered) {
    }

    public List<Throughput> throughput(UUID tenant, java.time.OffsetDateTime from, java.time.OffsetDateTime to,
            int bucketMinutes, String queue, String namespace, String task) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT * FROM queen.metrics_throughput_v1(?, ?, ?, ?, ?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setObject(2, from);
            ps.setObject(3, to);
            ps.setInt(4, bucketMinutes);
            ps.setString(5, queue);
            ps.setString(6, namespace);
            ps.setString(7, task);
            List<Throughput> out = new java.util.ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Throughput(rs.getObject(1, java.time.OffsetDateTime.class), rs.getLong(2),
                            rs.getLong(3), rs.getLong(4), rs.getLong(5), rs.getLong(6), rs.getLong(7),
                            rs.getLong(8)));
                }
            }
            return out;
        }
    }

    /** Pushed and positively acked messages per second over the last {@code minutes} complete minutes. */
    public double[] recentRates(UUID tenant, int minutes) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT * FROM queen.metrics_recent_rates_v1(?, ?)")) {
            ps.setObject(1, tenant);
            ps.setInt(2, minutes);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new double[] {rs.getDouble(1), rs.getDouble(2)};
            }
        }
    }

    public LagStats lagStats(UUID tenant) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT * FROM queen.status_lag_stats_v1(?)")) {
            ps.setObject(1, tenant);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new LagStats(rs.getLong("cursors"), rs.getDouble("time_avg"), rs.getDouble("time_median"),
                        rs.getDouble("time_min"), rs.getDouble("time_max"), rs.getDouble("offset_avg"),
                        rs.getDouble("offset_median"), rs.getLong("offset_min"), rs.getLong("offset_max"));
            }
        }
    }

    private static String nz(String s) {
        return s == null ? "" : s;
    }
}
