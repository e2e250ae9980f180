package io.queen.analytics;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Json;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.queen.api.QueryParams;
import io.queen.api.Times;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The time-series routes of API spec 4.8 over the per-minute bucket tables: {@code system-metrics},
 * {@code worker-metrics}, {@code queue-lag}, {@code queue-ops}, {@code queue-parked-replicas} ({@code retention} is
 * served by the retention feature, {@code postgres-stats} by {@link PostgresStatsResource}). Every route takes
 * {@code from}/{@code to} (default: the last hour, at most 31 days, see {@link TimeRange}); its cost is one or
 * a few index range scans over (brokers x active queues x minutes) rows. The per-queue routes answer the caller's
 * tenant's queues only; the broker-wide ones ({@code system-metrics}, {@code worker-metrics}) only the default
 * tenant's callers. Stateless.
 */
@Path("/api/v1/analytics")
@Access(Access.Level.READ)
@RunOnVirtualThread
@Produces(MediaType.APPLICATION_JSON)
public class AnalyticsResource {
    private static final String BIN = "date_bin(make_interval(mins => ?), bucket, TIMESTAMPTZ '2000-01-01 00:00:00+00')";
    private static final String WINDOW = " bucket >= ? AND bucket <= ?";
    /** A minute's counters summed over brokers, under their column names (the peaks: the max). */
    private static final String MINUTE_SUMS = " sum(push_requests) AS push_requests,"
            + " sum(push_messages) AS push_messages, sum(pop_requests) AS pop_requests,"
            + " sum(pop_messages) AS pop_messages, sum(pop_empty) AS pop_empty,"
            + " sum(ack_requests) AS ack_requests, sum(ack_messages) AS ack_messages, sum(ack_failed) AS ack_failed,"
            + " sum(transactions) AS transactions, sum(dlq) AS dlq, sum(lag_count) AS lag_count,"
            + " sum(lag_sum_ms) AS lag_sum_ms, max(lag_max_ms) AS lag_max_ms, sum(parked) AS parked";
    /** Per-minute sums over brokers of one queue (the inner level of the two-level aggregation). */
    private static final String QUEUE_MINUTES = "SELECT " + BIN + " AS b, bucket, tenant_id, queue_name," + MINUTE_SUMS
            + " FROM queen.metrics_queue_minute WHERE" + WINDOW + " AND tenant_id = ?"
            + " AND (?::text IS NULL OR queue_name = ?::text)"
            + " AND (?::text IS NULL OR hostname = ?::text) AND (?::int IS NULL OR worker_id = ?::int)"
            + " GROUP BY 1, 2, 3, 4";

    @Inject AnalyticsReads reads;
    @Inject Callers callers;

    /**
     * Broker-wide figures (every tenant's traffic summed, brokers' processes) are the cluster operator's: served to
     * callers of the default tenant only.
     */
    static void requireClusterView(Callers callers) {
        if (!callers.tenant().equals(callers.defaultTenant())) {
            throw new ApiException(403, "broker-wide metrics are served to callers of the default tenant only");
        }
    }

    @GET
    @Path("/queue-ops")
    public Response queueOps(@QueryParam("from") String from, @QueryParam("to") String to,
            @QueryParam("queue") String queue) throws SQLException {
        TimeRange r = TimeRange.parse(from, to, Duration.ofHours(1));
        String q = QueryParams.blankToNull(queue);
        ObjectNode out = envelope(r);
        ArrayNode series = reads.rows("SELECT b AS bucket, queue_name AS \"queueName\", " + AnalyticsReads.SUMS
                + ", max(parked)::bigint AS \"parkedCount\" FROM (" + QUEUE_MINUTES + ") m GROUP BY b, queue_name"
                + " ORDER BY b, queue_name", queueArgs(r, callers.tenant(), q, null, null));
        for (JsonNode n : perSecond(series, r)) {
            ((ObjectNode) n).put("emptyPerSecond", n.get("popEmpty").asLong() / (r.bucketMinutes() * 60.0));
        }
        out.set("series", series);
        out.set("queues", queueTotals(r, callers.tenant(), q, null, null));
        return Json.ok(out);
    }

    @GET
    @Path("/queue-lag")
    public Response queueLag(@QueryParam("from") String from, @QueryParam("to") String to,
            @QueryParam("queue") String queue) throws SQLException {
        TimeRange r = TimeRange.parse(from, to, Duration.ofHours(1));
        String q = QueryParams.blankToNull(queue);
        return Json.ok(reads.rows("SELECT queue_name AS \"queueName\", sum(lag_count)::bigint AS \"popCount\","
                + " COALESCE(round(sum(lag_sum_ms)::numeric / NULLIF(sum(lag_count), 0)), 0)::bigint AS \"avgLagMs\","
                + " max(lag_max_ms)::bigint AS \"maxLagMs\", b AS \"bucketTime\" FROM (" + QUEUE_MINUTES + ") m"
                + " WHERE lag_count > 0 GROUP BY b, queue_name ORDER BY b, queue_name",
                queueArgs(r, callers.tenant(), q, null, null)));
    }

    @GET
    @Path("/queue-parked-replicas")
    public Response parkedReplicas(@QueryParam("from") String from, @QueryParam("to") String to,
            @QueryParam("queue") String queue) throws SQLException {
        TimeRange r = TimeRange.parse(from, to, Duration.ofHours(1));
        String q = QueryParams.blankToNull(queue);
        UUID tenant = callers.tenant();
        ObjectNode out = envelope(r);
        out.set("series", reads.rows("SELECT " + BIN + " AS bucket, queue_name AS \"queueName\", hostname,"
                + " worker_id AS \"workerId\", max(parked)::bigint AS \"parkedCount\" FROM queen.metrics_queue_minute"
                + " WHERE" + WINDOW + " AND tenant_id = ? AND (?::text IS NULL OR queue_name = ?::text) AND parked > 0"
                + " GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4", r.bucketMinutes(), r.fromMinute(), r.toTime(), tenant,
                q, q));
        // the brokers that served the caller's queues in the window (not every broker of the cluster)
        out.set("replicas", reads.rows("SELECT DISTINCT hostname, worker_id AS \"workerId\""
                + " FROM queen.metrics_queue_minute WHERE" + WINDOW + " AND tenant_id = ? ORDER BY 1, 2",
                r.fromMinute(), r.toTime(), tenant));
        return Json.ok(out);
    }

    @GET
    @Path("/worker-metrics")
    public Response workerMetrics(@QueryParam("from") String from, @QueryParam("to") String to,
            @QueryParam("hostname") String hostname, @QueryParam("workerId") String workerId) throws SQLException {
        BrokerWindow w = brokerWindow(from, to, hostname, workerId);
        String filter = " FROM queen.metrics_broker_minute WHERE" + WINDOW
                + " AND (?::text IS NULL OR hostname = ?::text) AND (?::int IS NULL OR worker_id = ?::int)";
        ObjectNode out = envelope(w.range());
        // per minute summed over brokers, then per bucket: sums, and the peak of the per-minute parked sums
        ArrayNode series = reads.rows("SELECT b AS timestamp, " + AnalyticsReads.SUMS
                + ", sum(db_errors)::bigint AS \"dbErrors\", max(parked)::bigint AS parked,"
                + " max(workers)::bigint AS \"workerCount\" FROM (SELECT " + BIN + " AS b, bucket," + MINUTE_SUMS
                + ", sum(db_errors) AS db_errors, count(*) AS workers" + filter
                + " GROUP BY 1, 2) m GROUP BY b ORDER BY b",
                w.bucketedArgs());
        perSecond(series, w.range());
        out.put("pointCount", series.size());
        out.set("timeSeries", series);
        ArrayNode workers = reads.rows("SELECT hostname, worker_id AS \"workerId\", max(port) AS port, "
                + AnalyticsReads.SUMS + ", sum(db_errors)::bigint AS \"dbErrors\", min(bucket) AS \"firstSeen\","
                + " max(bucket) AS \"lastSeen\"" + filter + " GROUP BY 1, 2 ORDER BY 1, 2",
                w.args());
        out.set("workers", workers);
        out.set("queues", queueTotals(w.range(), callers.defaultTenant(), null, w.host(), w.worker()));
        ObjectNode summary = out.putObject("summary");
        ObjectNode total = reads.one("SELECT " + AnalyticsReads.SUMS + ", sum(db_errors)::bigint AS \"dbErrors\""
                + filter, w.args());
        String[] keyThenColumn = {"totalPushMessages", "pushMessages", "totalPopMessages", "popMessages",
            "totalAckMessages", "ackSuccess", "totalPushRequests", "pushRequests", "totalPopRequests", "popRequests",
            "totalAckRequests", "ackRequests", "totalDbErrors", "dbErrors", "totalAckFailed", "ackFailed", "totalDlq",
            "dlq", "totalTransactions", "transactions"};
        for (int i = 0; i < keyThenColumn.length; i += 2) {
            summary.put(keyThenColumn[i], total.path(keyThenColumn[i + 1]).asLong());
        }
        // now, not over the window: queue-mode backlog by offset arithmetic over every partition
        summary.put("pendingMessages", reads.one("SELECT COALESCE(sum(GREATEST(p.last_offset"
                + " - COALESCE(c.committed, p.log_start - 1), 0)), 0)::bigint AS n FROM queen.log_partitions p"
                + " LEFT JOIN queen.log_consumers c ON c.partition_id = p.id AND c.consumer_group = '__QUEUE_MODE__'")
                .path("n").asLong());
        return Json.ok(out);
    }

    @GET
    @Path("/system-metrics")
    public Response systemMetrics(@QueryParam("from") String from, @QueryParam("to") String to,
            @QueryParam("hostname") String hostname, @QueryParam("workerId") String workerId) throws SQLException {
        BrokerWindow w = brokerWindow(from, to, hostname, workerId);
        ArrayNode rows = reads.rows("SELECT hostname, worker_id AS \"workerId\", max(port) AS port, " + BIN
                + " AS timestamp, sum(samples)::bigint AS \"sampleCount\","
                + " avg(cpu_user_pct) AS cpu_user, max(cpu_user_pct) AS cpu_user_max,"
                + " avg(cpu_system_pct) AS cpu_system, max(cpu_system_pct) AS cpu_system_max,"
                + " round(avg(rss_bytes))::bigint AS rss, max(rss_bytes) AS rss_max,"
                + " round(avg(heap_used))::bigint AS heap_used, max(heap_used) AS heap_used_max,"
                + " max(heap_committed) AS heap_committed, max(heap_max) AS heap_max,"
                + " round(avg(nonheap_used))::bigint AS nonheap_used,"
                + " max(db_pool_max)::bigint AS pool_size, avg(db_pool_active) AS pool_active,"
                + " max(db_pool_active)::bigint AS pool_active_max, avg(db_pool_idle) AS pool_idle,"
                + " max(db_pool_waiting)::bigint AS pool_waiting_max,"
                + " avg(threads) AS threads, max(threads)::bigint AS threads_max, avg(daemon_threads) AS daemon,"
                + " sum(push_messages)::bigint AS push_messages, sum(pop_messages)::bigint AS pop_messages,"
                + " sum(ack_messages)::bigint AS ack_messages, sum(db_errors)::bigint AS db_errors"
                + " FROM queen.metrics_broker_minute WHERE" + WINDOW + " AND (?::text IS NULL OR hostname = ?::text)"
                + " AND (?::int IS NULL OR worker_id = ?::int) GROUP BY 1, 2, 4 ORDER BY 1, 2, 4",
                w.bucketedArgs());
        ObjectNode out = envelope(w.range());
        Map<String, ObjectNode> replicas = new LinkedHashMap<>();
        ArrayNode list = out.putArray("replicas");
        int points = 0;
        for (JsonNode n : rows) {
            String key = n.get("hostname").asText() + '\u001f' + n.get("workerId").asLong();
            ObjectNode rep = replicas.computeIfAbsent(key, k -> {
                ObjectNode x = list.addObject();
                x.put("hostname", n.get("hostname").asText());
                x.set("port", n.get("port"));
                x.put("workerId", n.get("workerId").asLong());
                x.putArray("timeSeries");
                return x;
            });
            ObjectNode p = ((ArrayNode) rep.get("timeSeries")).addObject();
            p.set("timestamp", n.get("timestamp"));
            p.set("sampleCount", n.get("sampleCount"));
            ObjectNode m = p.putObject("metrics");
            copy(m.putObject("cpu"), n, "userPercent", "cpu_user", "userPercentMax", "cpu_user_max", "systemPercent",
                    "cpu_system", "systemPercentMax", "cpu_system_max");
            copy(m.putObject("memory"), n, "rssBytes", "rss", "rssBytesMax", "rss_max", "heapUsedBytes", "heap_used",
                    "heapUsedBytesMax", "heap_used_max", "heapCommittedBytes", "heap_committed", "heapMaxBytes",
                    "heap_max", "nonHeapUsedBytes", "nonheap_used");
            copy(m.putObject("database"), n, "poolSize", "pool_size", "poolActive", "pool_active", "poolActiveMax",
                    "pool_active_max", "poolIdle", "pool_idle", "poolWaitingMax", "pool_waiting_max", "errors",
                    "db_errors");
            copy(m.putObject("threadpool"), n, "threads", "threads", "threadsMax", "threads_max", "daemonThreads",
                    "daemon");
            copy(m.putObject("throughput"), n, "pushMessages", "push_messages", "popMessages", "pop_messages",
                    "ackMessages", "ack_messages");
            points++;
        }
        out.put("replicaCount", replicas.size());
        out.put("pointCount", points);
        return Json.ok(out);
    }

    /** The window and broker filter of a broker-wide route. */
    private record BrokerWindow(TimeRange range, String host, Integer worker) {
        /** The arguments of a statement filtered by {@code WINDOW} and the broker filter, in that order. */
        Object[] args() {
            return new Object[] {range.fromMinute(), range.toTime(), host, host, worker, worker};
        }

        /** {@link #args} after the bucket width (a statement that bins with {@code BIN}). */
        Object[] bucketedArgs() {
            return new Object[] {range.bucketMinutes(), range.fromMinute(), range.toTime(), host, host, worker, worker};
        }
    }

    /** Checks the caller may see the whole cluster, then reads from/to, hostname and workerId (400 naming one). */
    private BrokerWindow brokerWindow(String from, String to, String hostname, String workerId) {
        requireClusterView(callers);
        return new BrokerWindow(TimeRange.parse(from, to, Duration.ofHours(1)), QueryParams.blankToNull(hostname),
                workerFilter(workerId));
    }

    /** The optional {@code workerId} filter: absent = every broker; not an integer = 400 naming it. */
    private static Integer workerFilter(String workerId) {
        return workerId == null || workerId.isBlank() ? null
                : QueryParams.intParam(workerId, "workerId", 0, Integer.MIN_VALUE);
    }

    /** Adds pushPerSecond, popPerSecond and ackPerSecond (acked and failed) to every bucket of {@code series}. */
    private static ArrayNode perSecond(ArrayNode series, TimeRange r) {
        double seconds = r.bucketMinutes() * 60.0;
        for (JsonNode n : series) {
            ObjectNode o = (ObjectNode) n;
            o.put("pushPerSecond", o.get("pushMessages").asLong() / seconds);
            o.put("popPerSecond", o.get("popMessages").asLong() / seconds);
            o.put("ackPerSecond", (o.get("ackSuccess").asLong() + o.get("ackFailed").asLong()) / seconds);
        }
        return series;
    }

    /** Sets {@code to[key] = row[column]} for each (key, column) pair, in order. */
    private static void copy(ObjectNode to, JsonNode row, String... keyThenColumn) {
        for (int i = 0; i < keyThenColumn.length; i += 2) {
            to.set(keyThenColumn[i], row.get(keyThenColumn[i + 1]));
        }
    }

    private ArrayNode queueTotals(TimeRange r, UUID tenant, String q, String host, Integer worker)
            throws SQLException {
        return reads.rows("SELECT queue_name AS \"queueName\", " + AnalyticsReads.SUMS
                + ", max(parked)::bigint AS \"parkedMax\", (SELECT count(*) FROM queen.log_partitions p JOIN"
                + " queen.queues qq ON qq.id = p.queue_id WHERE qq.tenant_id = m.tenant_id AND qq.name = m.queue_name)"
                + " AS \"partitionCount\" FROM (" + QUEUE_MINUTES + ") m GROUP BY tenant_id, queue_name"
                + " ORDER BY \"pushMessages\" DESC, queue_name", queueArgs(r, tenant, q, host, worker));
    }

    private static Object[] queueArgs(TimeRange r, UUID tenant, String q, String host, Integer worker) {
        return new Object[] {r.bucketMinutes(), r.fromMinute(), r.toTime(), tenant, q, q, host, host, worker, worker};
    }

    private ObjectNode envelope(TimeRange r) {
        ObjectNode out = Json.MAPPER.createObjectNode();
        ObjectNode range = out.putObject("timeRange");
        range.put("from", Times.millis(r.from()));
        range.put("to", Times.millis(r.to()));
        out.put("bucketMinutes", r.bucketMinutes());
        return out;
    }
}
