package io.queen.analytics;

import static io.queen.testing.Api.ack;
import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.configure;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.queen.testing.Api;
import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The per-minute counters end to end: a known workload over HTTP (pushes, pops, acks, a dead letter, a
 * transaction, an empty pop, a parked pop), one forced flush, then exact counts in queue-ops, queue-lag,
 * worker-metrics, status/analytics, the Prometheus per-queue gauges and cluster totals, and the bucket tables.
 * All traffic happens in one test method: worker-level totals are exact only if nothing else pushes meanwhile.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class OpsMetricsTest {
    @Inject
    MetricsFlusher flusher;
    @Inject
    AgroalDataSource ds;
    @Inject
    io.queen.metrics.OpsMeter meter;

    @Test
    void aKnownWorkloadIsCountedExactlyInEveryView() throws Exception {
        configure("ops-a", "{\"retryLimit\":1}");
        pushN("ops-a", "Default", "a", 0, 6);
        pushN("ops-a", "Default", "a", 6, 4);
        pushN("ops-a", "Default", "a", 0, 2);  // duplicates: a request, no message
        JsonNode p = pop("/api/v1/pop/queue/ops-a/partition/Default?batch=5");
        assertEquals(5, p.get("messages").size());
        ackAll(p, "completed", null);
        for (int attempt = 0; attempt < 2; attempt++) {
            JsonNode one = pop("/api/v1/pop/queue/ops-a/partition/Default?batch=1");
            JsonNode m = one.get("messages").get(0);
            JsonNode r = ack(m.get("transactionId").asText(), m.get("partitionId").asText(),
                    m.get("leaseId").asText(), "failed", null, "boom");
            assertEquals(attempt == 1, r.get("dlq").asBoolean(), r.toString());
        }
        JsonNode rest = pop("/api/v1/pop/queue/ops-a/partition/Default?batch=10");
        assertEquals(4, rest.get("messages").size());
        assertNull(pop("/api/v1/pop/queue/ops-a/partition/Default?batch=10"), "all leased: an empty pop");
        Http.Reply tx = Http.post("/api/v1/transaction", "{\"operations\":[{\"type\":\"push\",\"items\":["
                + "{\"queue\":\"ops-a\",\"partition\":\"Default\",\"payload\":{\"t\":1}}]}]}");
        assertEquals(200, tx.status(), tx.body());
        assertTrue(Api.json(tx.body()).get("success").asBoolean());

        // a pop parked on another queue while the flush runs (one that exists: a name that exists nowhere takes no label)
        configure("ops-park", "{}");
        CompletableFuture<JsonNode> parked = CompletableFuture.supplyAsync(
                () -> pop("/api/v1/pop/queue/ops-park?wait=true&timeout=4000"));
        waitFor(() -> meter.queue(java.util.UUID.fromString("00000000-0000-0000-0000-000000000001"), "ops-park").parkedNow() == 1);
        assertTrue(flusher.flushNow() >= 2, "ops-a and ops-park rows written");
        assertEquals(1.0, prometheus().get("queen_queue_parked_consumers{queue=\"ops-park\"}"), "live parked gauge");
        assertNull(parked.get(), "the parked pop times out empty");

        String range = "from=" + Instant.now().minus(10, ChronoUnit.MINUTES) + "&to=" + Instant.now().plusSeconds(60);
        JsonNode ops = get("/api/v1/analytics/queue-ops?queue=ops-a&" + range);
        assertEquals(1, ops.get("bucketMinutes").asInt());
        Map<String, Long> sum = sums(ops.get("series"));
        Map<String, Long> want = Map.ofEntries(Map.entry("pushRequests", 3L), Map.entry("pushMessages", 11L),
                Map.entry("popRequests", 5L), Map.entry("popMessages", 11L), Map.entry("popEmpty", 1L),
                Map.entry("ackRequests", 3L), Map.entry("ackSuccess", 5L), Map.entry("ackFailed", 2L),
                Map.entry("dlq", 1L), Map.entry("transactions", 1L));
        want.forEach((k, v) -> assertEquals(v, sum.get(k), k + " in " + ops));
        JsonNode q = ops.get("queues").get(0);
        assertEquals("ops-a", q.get("queueName").asText());
        assertEquals(11, q.get("popMessages").asLong());
        assertEquals(1, q.get("partitionCount").asLong());
        assertTrue(q.get("maxLagMs").asLong() >= q.get("avgLagMs").asLong());

        JsonNode lag = get("/api/v1/analytics/queue-lag?queue=ops-a&" + range);
        assertTrue(lag.isArray());
        assertEquals(11, lag.findValues("popCount").stream().mapToLong(JsonNode::asLong).sum(), lag.toString());

        JsonNode parkedSeries = get("/api/v1/analytics/queue-parked-replicas?queue=ops-park&" + range);
        assertEquals(1, parkedSeries.get("series").get(0).get("parkedCount").asLong(), parkedSeries.toString());
        assertEquals(flusher.broker().hostname(), parkedSeries.get("replicas").get(0).get("hostname").asText());

        // worker level: both queues of this broker; the parked pop that timed out is not flushed yet
        JsonNode workers = get("/api/v1/analytics/worker-metrics?" + range);
        JsonNode s = workers.get("summary");
        assertEquals(11, s.get("totalPushMessages").asLong());
        assertEquals(11, s.get("totalPopMessages").asLong());
        assertEquals(5, s.get("totalAckMessages").asLong());
        assertEquals(3, s.get("totalPushRequests").asLong());
        assertEquals(5, s.get("totalPopRequests").asLong(), "the parked pop counts when it ends");
        assertEquals(3, s.get("totalAckRequests").asLong());
        assertEquals(2, s.get("totalAckFailed").asLong());
        assertEquals(1, s.get("totalDlq").asLong());
        assertEquals(0, s.get("totalDbErrors").asLong());
        assertEquals(11 - 5 - 1 - 0, s.get("pendingMessages").asLong(), "11 pushed, 6 committed (5 acked + 1 DLQ)"
                + " - the other 4 are leased but not committed, plus the transaction's one");
        assertEquals(1, workers.get("workers").size());
        assertEquals(flusher.broker().workerId(), workers.get("workers").get(0).get("workerId").asInt());
        assertEquals(sum.get("pushMessages"), sums(workers.get("timeSeries")).get("pushMessages"));
        JsonNode filtered = get("/api/v1/analytics/worker-metrics?workerId=99999&" + range);
        assertEquals(0, filtered.get("workers").size());
        assertEquals(0, filtered.get("summary").get("totalPushMessages").asLong());

        JsonNode sys = get("/api/v1/analytics/system-metrics?" + range);
        assertEquals(1, sys.get("replicaCount").asInt());
        JsonNode point = sys.get("replicas").get(0).get("timeSeries").get(0);
        assertEquals(1, point.get("sampleCount").asInt());
        assertTrue(point.get("metrics").get("memory").get("heapUsedBytes").asLong() > 0);
        assertTrue(point.get("metrics").get("database").get("poolSize").asLong() > 0);
        assertTrue(point.get("metrics").get("threadpool").get("threads").asDouble() > 0);

        JsonNode status = get("/api/v1/status/analytics?interval=minute&queue=ops-a&" + range);
        assertEquals("minute", status.get("interval").asText());
        assertEquals(11, status.get("dataPoints").findValues("messages").stream().mapToLong(JsonNode::asLong).sum());
        assertTrue(status.get("dataPoints").size() >= 10, "every minute of the window has a point");
        JsonNode none = get("/api/v1/status/analytics?interval=minute&namespace=nope&" + range);
        assertEquals(0, none.get("dataPoints").findValues("messages").stream().mapToLong(JsonNode::asLong).sum());

        Map<String, Double> prom = prometheus();
        assertEquals(11.0, prom.get("queen_queue_push_messages_per_minute{queue=\"ops-a\"}"));
        assertEquals(3.0, prom.get("queen_queue_push_requests_per_minute{queue=\"ops-a\"}"));
        assertEquals(11.0, prom.get("queen_queue_pop_messages_per_minute{queue=\"ops-a\"}"));
        assertEquals(1.0, prom.get("queen_queue_pop_empty_per_minute{queue=\"ops-a\"}"));
        assertEquals(7.0, prom.get("queen_queue_ack_per_minute{queue=\"ops-a\"}"));
        assertEquals(1.0, prom.get("queen_queue_transactions_per_minute{queue=\"ops-a\"}"));
        assertTrue(prom.containsKey("queen_queue_pop_lag_milliseconds{queue=\"ops-a\",stat=\"max\"}"));
        assertEquals(11.0, prom.get("queen_cluster_push_messages_total{scope=\"cluster\"}"));
        assertEquals(7.0, prom.get("queen_cluster_ack_total{scope=\"cluster\"}"));
        assertEquals(1.0, prom.get("queen_cluster_dlq_total{scope=\"cluster\"}"));
        assertEquals(1.0, prom.get("queen_dlq_depth{scope=\"cluster\"}"));
        assertEquals(1.0, prom.get("queen_dlq_depth_by_queue{queue=\"ops-a\"}"));
        assertTrue(prom.get("queen_db_pool_size") > 0);

        // the bucket rows: one per active queue and minute, plus the broker row
        assertEquals(2, Sql.count(ds, "SELECT count(*) FROM queen.metrics_queue_minute"));
        assertEquals(1, Sql.count(ds, "SELECT count(*) FROM queen.metrics_broker_minute"));
        // a second flush with nothing new writes no queue row, only the broker's sample; the timed-out pop now counts
        flusher.flushNow();
        assertEquals(1, get("/api/v1/analytics/queue-ops?queue=ops-park&" + range).get("queues").get(0)
                .get("popEmpty").asLong());
        assertEquals(0.0, prometheus().get("queen_queue_push_messages_per_minute{queue=\"ops-a\"}"),
                "last-minute gauges fall back to 0");
    }

    @Test
    void badParametersAreNamedAndTheRangeIsBounded() {
        for (String route : new String[] {"queue-ops", "queue-lag", "worker-metrics", "system-metrics",
                "queue-parked-replicas"}) {
            Http.Reply r = Http.get("/api/v1/analytics/" + route + "?from=yesterday");
            assertEquals(400, r.status(), route);
            assertTrue(r.body().contains("from"), r.body());
            r = Http.get("/api/v1/analytics/" + route + "?to=nope");
            assertEquals(400, r.status(), route);
            assertTrue(r.body().contains("to"), r.body());
            r = Http.get("/api/v1/analytics/" + route + "?from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z");
            assertEquals(400, r.status(), route + ": more than 31 days");
            r = Http.get("/api/v1/analytics/" + route + "?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z");
            assertEquals(400, r.status(), route + ": from after to");
        }
        assertEquals(400, Http.get("/api/v1/analytics/worker-metrics?workerId=x").status());
        Http.Reply r = Http.get("/api/v1/status/analytics?interval=week");
        assertEquals(400, r.status());
        assertTrue(r.body().contains("interval"));
        // 31 days: 30-minute buckets keep the series under 1,500 points
        JsonNode month = get("/api/v1/analytics/queue-ops?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z");
        assertEquals(30, month.get("bucketMinutes").asInt());
        JsonNode status = get("/api/v1/status/analytics?interval=minute&from=2026-01-01T00:00:00Z"
                + "&to=2026-01-05T00:00:00Z");
        assertEquals("hour", status.get("interval").asText(), "minute widened: 5,760 points would be too many");
        assertEquals(97, status.get("dataPoints").size());
        JsonNode def = get("/api/v1/status/analytics");
        assertEquals("hour", def.get("interval").asText());
        assertTrue(def.get("dataPoints").size() >= 24 && def.get("dataPoints").size() <= 25);
    }

    @Test
    void postgresStatsDescribeTheQueenSchema() {
        JsonNode pg = get("/api/v1/analytics/postgres-stats");
        for (String k : new String[] {"timestamp", "database", "databaseCache", "tableCache", "indexCache",
                "cacheSummary", "deadTuples", "hotUpdates", "activeQueries", "autovacuumStatus", "bufferConfig",
                "bufferUsage", "tableSizes"}) {
            assertTrue(pg.has(k), k);
        }
        assertFalse(pg.get("database").get("name").asText().isEmpty());
        assertTrue(pg.get("tableSizes").findValues("table").stream().anyMatch(t -> t.asText().equals("log_segments")));
        assertTrue(pg.get("tableSizes").findValues("table").stream()
                .anyMatch(t -> t.asText().equals("metrics_queue_minute")));
        assertTrue(pg.get("autovacuumStatus").has("enabled"));
        assertTrue(pg.get("bufferUsage").get("bgwriter").isObject());
    }

    @Test
    void activeQueriesShowOtherSessionsStatementsWithoutLiterals() throws Exception {
        long key = 727_001;
        try (Connection holder = ds.getConnection(); Connection other = ds.getConnection();
                Statement h = holder.createStatement()) {
            h.execute("SELECT pg_advisory_lock(" + key + ")");
            // another application's statement, parked on the lock while the route reads pg_stat_activity
            CompletableFuture<Void> blocked = CompletableFuture.runAsync(() -> {
                try (Statement o = other.createStatement()) {
                    o.execute("SELECT pg_advisory_lock(" + key + "), 'SECRET_LITERAL_SAME_DB' AS s, 4711 AS pin,"
                            + " $tag$SECRET_DOLLAR$tag$ /* SECRET_COMMENT */");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            JsonNode row = Await.within(() -> parkedStatement() != null, Duration.ofSeconds(10)) ? parkedStatement()
                    : null;
            h.execute("SELECT pg_advisory_unlock(" + key + ")");
            blocked.get();
            assertTrue(row != null, "the parked statement is listed");
            assertEquals("SELECT pg_advisory_lock(?), ? AS s, ? AS pin, ?", row.get("query").asText().strip());
        }
    }

    @Test
    void metricsJsonHasTheReferenceShape() {
        JsonNode m = get("/metrics");
        for (String path : new String[] {"/uptime", "/requests/total", "/requests/rate", "/messages/total",
                "/messages/rate", "/database/poolSize", "/database/idleConnections", "/database/waitingRequests",
                "/memory/rss", "/memory/heapTotal", "/memory/heapUsed", "/memory/external", "/memory/arrayBuffers",
                "/cpu/user", "/cpu/system"}) {
            assertFalse(m.at(path).isMissingNode(), path + " in " + m);
        }
        assertTrue(m.at("/memory/heapUsed").asLong() > 0);
        assertTrue(m.at("/cpu/user").asLong() > 0);
    }

    @Test
    void everyPrometheusFamilyHasHelpText() {
        String text = Http.get("/metrics/prometheus").body();
        Map<String, String> help = new HashMap<>();
        for (String line : text.lines().toList()) {
            if (line.startsWith("# HELP ")) {
                String[] p = line.split(" ", 4);
                help.put(p[2], p.length > 3 ? p[3].strip() : "");
            }
        }
        int families = 0;
        for (String line : text.lines().toList()) {
            if (line.startsWith("# TYPE ")) {
                String name = line.split(" ")[2];
                families++;
                assertTrue(help.containsKey(name) && !help.get(name).isEmpty(), "no HELP for " + name);
            }
        }
        assertTrue(families > 20, "families: " + families);
        for (String f : new String[] {"queen_uptime_seconds", "queen_cpu_user_microseconds_total",
                "queen_process_resident_memory_bytes", "queen_db_pool_active", "queen_db_pool_idle",
                "queen_cluster_pop_messages_total", "queen_dlq_depth", "queen_queue_metrics_age_seconds"}) {
            assertTrue(text.contains("\n" + f + " ") || text.contains("\n" + f + "{"), f);
        }
    }

    static Map<String, Double> prometheus() {
        return Api.samples(Http.get("/metrics/prometheus").body());
    }

    private static Map<String, Long> sums(JsonNode series) {
        Map<String, Long> out = new HashMap<>();
        for (JsonNode p : series) {
            p.fields().forEachRemaining(e -> {
                if (e.getValue().isIntegralNumber()) {
                    out.merge(e.getKey(), e.getValue().asLong(), Long::sum);
                }
            });
        }
        return out;
    }

    static JsonNode get(String path) {
        Http.Reply r = Http.get(path);
        assertEquals(200, r.status(), path + ": " + r.body());
        return Api.json(r.body());
    }

    /** The statement parked on the advisory lock, as the postgres-stats view lists it (null: not listed). */
    private static JsonNode parkedStatement() {
        JsonNode row = null;
        for (JsonNode q : get("/api/v1/analytics/postgres-stats").get("activeQueries")) {
            if (q.path("query").asText().contains("pg_advisory_lock")) {
                row = q;
            }
        }
        return row;
    }

    private static void waitFor(java.util.function.BooleanSupplier cond) throws Exception {
        Await.until("the condition", cond::getAsBoolean, Duration.ofSeconds(5));
    }
}
