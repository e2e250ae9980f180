package io.queen.status;

import static io.queen.testing.Api.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Resources and status routes on {@link KnownDataSet} (3 queues, 10 partitions, 2 named groups plus queue mode,
 * acked, leased, failed and dead-lettered messages): every figure is asserted exactly.
 */
@QuarkusTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class StatusRoutesTest extends OnKnownDataSet {
    static JsonNode get(String path) {
        return KnownDataSet.get(path);
    }

    static void assertFigures(JsonNode m, long total, long pending, long processing, long completed, long failed,
            long deadLetter) {
        KnownDataSet.assertFigures(m, total, pending, processing, completed, failed, deadLetter);
    }

    static Map<String, JsonNode> byName(JsonNode arr, String key) {
        return KnownDataSet.byName(arr, key);
    }

    String pid(String queue, String partition) {
        return KnownDataSet.pid(ds, queue, partition);
    }

    @Test
    void queueDetailHasEveryPartitionFigureConfigAndStorage() {
        JsonNode q = get("/api/v1/resources/queues/st-orders");
        assertEquals("st-orders", q.get("name").asText());
        assertEquals("shop", q.get("namespace").asText());
        assertEquals("orders", q.get("task").asText());
        assertEquals("segments", q.get("storage").asText());
        assertEquals(300, q.get("config").get("leaseTime").asInt());
        assertEquals(3, q.get("config").get("retryLimit").asInt());
        assertTrue(q.get("config").get("deadLetterQueue").asBoolean());
        assertEquals(3600, q.get("config").get("dedupWindowSeconds").asInt());
        Map<String, JsonNode> ps = byName(q.get("partitions"), "name");
        assertEquals(4, ps.size());
        assertFigures(ps.get("p0").get("stats"), 10, 3, 3, 4, 0, 0);
        assertFigures(ps.get("p1").get("stats"), 10, 7, 0, 2, 0, 1);
        assertFigures(ps.get("p2").get("stats"), 10, 10, 0, 0, 0, 0);
        assertFigures(ps.get("p3").get("stats"), 10, 5, 5, 0, 0, 0);
        assertFigures(q.get("totals"), 40, 25, 8, 6, 0, 1);
        assertNotNull(ps.get("p1").get("oldestMessage").textValue());
        assertTrue(ps.get("p1").get("newestMessage").asText().compareTo(ps.get("p1").get("oldestMessage").asText()) > 0,
                "newest segment is the later one");

        JsonNode ev = get("/api/v1/resources/queues/st-events");
        Map<String, JsonNode> es = byName(ev.get("partitions"), "name");
        assertFigures(es.get("e0").get("stats"), 5, 0, 0, 5, 0, 0);
        assertFigures(es.get("e1").get("stats"), 5, 5, 0, 0, 1, 0);
        assertFigures(es.get("e2").get("stats"), 5, 5, 0, 0, 0, 0);
        assertFigures(ev.get("totals"), 15, 10, 0, 5, 1, 0);
    }

    @Test
    void unknownQueueIs404WithTheSpecText() {
        for (String path : List.of("/api/v1/resources/queues/nope", "/api/v1/status/queues/nope",
                "/api/v1/status/queues/nope/messages")) {
            Http.Reply r = Http.get(path);
            assertEquals(404, r.status(), path);
            assertEquals("Queue not found", json(r.body()).get("error").asText(), path);
        }
        // a NUL cannot name a queue: refused before any lookup, naming the path parameter
        for (String path : List.of("/api/v1/resources/queues/a%00b", "/api/v1/status/queues/%00")) {
            Http.Reply r = Http.get(path);
            assertEquals(400, r.status(), path);
            assertTrue(json(r.body()).get("error").asText().contains("queue"), path + " " + r.body());
        }
    }

    @Test
    void overviewSumsEverything() {
        JsonNode o = get("/api/v1/resources/overview");
        assertEquals(3, o.get("queues").asInt());
        assertEquals(10, o.get("partitions").asInt());
        assertEquals(1, o.get("namespaces").asInt());
        assertEquals(2, o.get("tasks").asInt());
        assertFigures(o.get("messages"), 61, 41, 8, 11, 1, 1);
        // every (group, partition) of the queues a group consumes: cursors p0 qm lag 6, p1 qm 7, p3 g1 0, p3 g2 10
        // (a lease consumes nothing), e0 g1 0, e1 qm 5; untouched, all unread: qm p2 p3, g1 p0 p1 p2, g2 p0 p1 p2
        // (10 each), g1 e1 e2, qm e0 e2 (5 each)
        JsonNode off = o.get("lag").get("offset");
        assertEquals(0, off.get("min").asLong());
        assertEquals(10, off.get("max").asLong());
        assertEquals(128.0 / 18, off.get("avg").asDouble(), 1e-9);
        assertEquals(8.5, off.get("median").asDouble(), 1e-9);
        JsonNode time = o.get("lag").get("time");
        assertEquals(0, time.get("min").asDouble(), 1e-9);
        assertTrue(time.get("max").asDouble() >= 7200 && time.get("max").asDouble() < 7300, time.toString());
        assertTrue(o.get("throughput").get("ingestedPerSecond").isNumber());
        assertEquals(0, o.get("statsAge").asInt());
    }

    /**
     * Throughput comes from the per-minute bucket rows: rows written (as brokers' flushes would) for two brokers
     * two and three minutes ago, one row of another tenant that must not count, and the current minute, which the
     * overview's rates leave out until it is complete. The data set's own traffic may be flushed meanwhile (at most
     * its 61 messages), so the overview's rates are bounded from both sides and the series is filtered by a queue
     * of its own.
     */
    @Test
    void throughputComesFromThePerMinuteBuckets() {
        String dflt = "'00000000-0000-0000-0000-000000000001'";
        String insert = "INSERT INTO queen.metrics_queue_minute (bucket, hostname, worker_id, tenant_id, queue_name,"
                + " push_messages, ack_messages, pop_messages, lag_count, lag_sum_ms, lag_max_ms) VALUES ";
        Sql.exec(ds, insert
                + "(date_trunc('minute', now()) - interval '2 minutes', 'h1', 1, " + dflt + ", 'st-rates', 600, 300, 310, 310, 3100, 90),"
                + "(date_trunc('minute', now()) - interval '2 minutes', 'h2', 1, " + dflt + ", 'st-rates', 300, 150, 150, 150, 3000, 40),"
                + "(date_trunc('minute', now()) - interval '3 minutes', 'h1', 1, " + dflt + ", 'st-rates', 60, 0, 0, 0, 0, 0),"
                + "(date_trunc('minute', now()) - interval '2 minutes', 'h1', 1, '00000000-0000-0000-0000-00000000000b',"
                + " 'st-rates', 99000, 99000, 99000, 0, 0, 0),"
                + "(date_trunc('minute', now()), 'h1', 1, " + dflt + ", 'st-rates', 6000, 6000, 0, 0, 0, 0)");
        // a broker has recorded since more than an hour ago: the series covers the whole hour
        Sql.exec(ds, "INSERT INTO queen.metrics_broker_minute (bucket, hostname, worker_id)"
                + " VALUES (date_trunc('minute', now()) - interval '70 minutes', 'h1', 1) ON CONFLICT DO NOTHING");
        JsonNode tp = get("/api/v1/resources/overview").get("throughput");
        double in = tp.get("ingestedPerSecond").asDouble();
        double done = tp.get("processedPerSecond").asDouble();
        assertTrue(in >= 960 / 300.0 && in <= (960 + 61) / 300.0, tp.toString());
        assertTrue(done >= 450 / 300.0 && done <= (450 + 61) / 300.0, tp.toString());

        JsonNode s = get("/api/v1/status?queue=st-rates");
        assertEquals(1, s.get("bucketMinutes").asInt());
        JsonNode series = s.get("throughput");
        assertEquals(series.size(), s.get("pointCount").asInt());
        assertTrue(series.size() >= 60 && series.size() <= 62, "a point per minute of the hour, zeros included");
        Map<Long, JsonNode> byAge = new HashMap<>();
        long nowMinute = java.time.Instant.now().getEpochSecond() / 60;
        for (JsonNode p : series) {
            byAge.put(nowMinute - java.time.Instant.parse(p.get("timestamp").asText()).getEpochSecond() / 60, p);
        }
        JsonNode two = byAge.get(2L);
        assertEquals(900, two.get("ingested").asLong(), two.toString());
        assertEquals(450, two.get("processed").asLong());
        assertEquals(460, two.get("popMessages").asLong());
        assertEquals(15.0, two.get("ingestedPerSecond").asDouble(), 1e-9);
        assertEquals(Math.round(6100.0 / 460), two.get("avgLagMs").asLong());
        assertEquals(90, two.get("maxLagMs").asLong());
        assertEquals(60, byAge.get(3L).get("ingested").asLong());
        assertEquals(0, byAge.get(10L).get("ingested").asLong(), "an idle minute is a zero point");

        JsonNode day = get("/api/v1/status?queue=st-rates&from=" + java.time.Instant.now().minusSeconds(86400));
        assertEquals(1, day.get("bucketMinutes").asInt(), "1,440 points fit");
        JsonNode week = get("/api/v1/status?queue=st-rates&from=" + java.time.Instant.now().minusSeconds(7 * 86400));
        assertEquals(10, week.get("bucketMinutes").asInt(), "a week is widened to at most 1,500 points");
        long sum = 0;
        for (JsonNode p : week.get("throughput")) {
            sum += p.get("ingested").asLong();
        }
        assertEquals(960 + 6000, sum, "every bucket row of the tenant's queue counted once");
        assertEquals(400, Http.get("/api/v1/status?from=" + java.time.Instant.now().minusSeconds(40L * 86400))
                .status(), "more than 31 days");
    }

    @Test
    void queueListHonoursFiltersSearchAndPaging() {
        JsonNode all = get("/api/v1/resources/queues");
        assertEquals(3, all.get("total").asInt());
        List<String> names = new ArrayList<>();
        all.get("queues").forEach(q -> names.add(q.get("name").asText()));
        assertEquals(List.of("st-plain", "st-events", "st-orders"), names, "newest first");
        Map<String, JsonNode> qs = byName(all.get("queues"), "name");
        assertFigures(qs.get("st-orders").get("messages"), 40, 25, 8, 6, 0, 1);
        assertFigures(qs.get("st-events").get("messages"), 15, 10, 0, 5, 1, 0);
        assertFigures(qs.get("st-plain").get("messages"), 6, 6, 0, 0, 0, 0);
        assertEquals(4, qs.get("st-orders").get("partitions").asInt());

        JsonNode shop = get("/api/v1/resources/queues?namespace=shop");
        assertEquals(2, shop.get("queues").size());
        assertEquals(1, get("/api/v1/resources/queues?namespace=shop&task=events").get("queues").size());
        JsonNode search = get("/api/v1/resources/queues?search=PLA");
        assertEquals(1, search.get("queues").size());
        assertEquals("st-plain", search.get("queues").get(0).get("name").asText());
        JsonNode page = get("/api/v1/resources/queues?limit=1&offset=1");
        assertEquals(1, page.get("queues").size());
        assertEquals("st-events", page.get("queues").get(0).get("name").asText());
        assertEquals(3, page.get("total").asInt());
        JsonNode beyond = get("/api/v1/resources/queues?offset=10");
        assertEquals(0, beyond.get("queues").size());
        assertEquals(3, beyond.get("total").asInt());
        JsonNode huge = get("/api/v1/resources/queues?limit=1000000000");
        assertEquals(1000, huge.get("pagination").get("limit").asInt(), "clamped");
        assertEquals(3, huge.get("queues").size());
    }

    @Test
    void malformedQueryValuesAre400NamingTheParameter() {
        Map<String, String> cases = Map.ofEntries(
                Map.entry("/api/v1/resources/queues?limit=abc", "limit"),
                Map.entry("/api/v1/resources/queues?limit=0", "limit"),
                Map.entry("/api/v1/resources/queues?offset=-1", "offset"),
                Map.entry("/api/v1/resources/queues?limit=99999999999", "limit"),
                Map.entry("/api/v1/status/queues?limit=x", "limit"),
                Map.entry("/api/v1/status/queues/st-orders/messages?offset=y", "offset"),
                Map.entry("/api/v1/status?from=yesterday", "from"),
                Map.entry("/api/v1/status?to=2026-13-45", "to"),
                Map.entry("/api/v1/status?from=2026-12-02T00:00:00Z&to=2026-12-01T00:00:00Z", "from"),
                Map.entry("/api/v1/resources/queues?search=a%00b", "search"),
                Map.entry("/api/v1/status/queues?namespace=%00", "namespace"),
                Map.entry("/api/v1/status?queue=%00", "queue"));
        cases.forEach((path, param) -> {
            Http.Reply r = Http.get(path);
            assertEquals(400, r.status(), path + " -> " + r.body());
            assertTrue(json(r.body()).get("error").asText().contains(param), path + " -> " + r.body());
        });
    }

    @Test
    void namespacesAndTasksRollUp() {
        JsonNode ns = get("/api/v1/resources/namespaces").get("namespaces");
        assertEquals(1, ns.size(), "only non-empty namespaces");
        JsonNode shop = ns.get(0);
        assertEquals("shop", shop.get("namespace").asText());
        assertEquals(2, shop.get("queues").asInt());
        assertEquals(7, shop.get("partitions").asInt());
        assertEquals(55, shop.get("messages").get("total").asLong());
        assertEquals(35, shop.get("messages").get("pending").asLong());

        Map<String, JsonNode> tasks = byName(get("/api/v1/resources/tasks").get("tasks"), "task");
        assertEquals(2, tasks.size());
        assertEquals(4, tasks.get("orders").get("partitions").asInt());
        assertEquals(40, tasks.get("orders").get("messages").get("total").asLong());
        assertEquals(25, tasks.get("orders").get("messages").get("pending").asLong());
        assertEquals(1, tasks.get("events").get("queues").asInt());
        assertEquals(15, tasks.get("events").get("messages").get("total").asLong());
        assertEquals(10, tasks.get("events").get("messages").get("pending").asLong());
    }

    @Test
    void statusQueuesAndQueueDetail() {
        JsonNode list = get("/api/v1/status/queues?namespace=shop&limit=5");
        assertEquals(5, list.get("pagination").get("limit").asInt());
        Map<String, JsonNode> qs = byName(list.get("queues"), "name");
        assertEquals(2, qs.size());
        assertFigures(qs.get("st-orders").get("messages"), 40, 25, 8, 6, 0, 1);

        JsonNode d = get("/api/v1/status/queues/st-orders?includePartitions=true");
        assertEquals("st-orders", d.get("queue").get("name").asText());
        JsonNode cfg = d.get("queue").get("config");
        assertEquals(300, cfg.get("leaseTime").asInt());
        assertEquals(3, cfg.get("retryLimit").asInt());
        assertEquals(1000, cfg.get("retryDelay").asInt());
        assertEquals(3600, cfg.get("ttl").asInt());
        assertEquals(0, cfg.get("maxQueueSize").asInt());
        assertTrue(cfg.get("deadLetterQueue").asBoolean());
        Map<String, JsonNode> ps = byName(d.get("partitions"), "name");
        assertFigures(ps.get("p0").get("messages"), 10, 3, 3, 4, 0, 0);
        assertFigures(ps.get("p3").get("stats"), 10, 5, 5, 0, 0, 0);
        // total_consumed: p3 g1 acked 10, g2 leased 5 (counted when claimed: the column counts deliveries)
        assertEquals(Sql.count(ds, "SELECT sum(total_consumed) FROM queen.log_consumers WHERE partition_id = '"
                + pid("st-orders", "p3") + "'"), ps.get("p3").get("cursor").get("totalConsumed").asLong());
        assertEquals(2, ps.get("p3").get("cursor").get("consumers").asInt());
        assertEquals(1, ps.get("p3").get("cursor").get("activeLeases").asInt());
        assertFigures(d.get("totals").get("messages"), 40, 25, 8, 6, 0, 1);
        assertFigures(d.get("totals"), 40, 25, 8, 6, 0, 1);
    }

    @Test
    void statusQueueMessagesListsNewestWithDerivedStatus() {
        Http.Reply r = Http.get("/api/v1/status/queues/st-events/messages?limit=100");
        assertEquals(200, r.status(), r.body());
        JsonNode arr = json(r.body());
        assertTrue(arr.isArray());
        assertEquals(15, arr.size());
        Map<String, Integer> statuses = new HashMap<>();
        arr.forEach(m -> statuses.merge(m.get("status").asText(), 1, Integer::sum));
        // e0 consumed by its only group g1; e1 (queue mode, failed, released) and e2 are pending
        assertEquals(Map.of("completed", 5, "pending", 10), statuses);
        JsonNode first = arr.get(0);
        for (String k : List.of("id", "transactionId", "partitionId", "queuePath", "queue", "partition", "status",
                "createdAt")) {
            assertTrue(first.hasNonNull(k), k + " in " + first);
        }
        assertEquals(2, get("/api/v1/status/queues/st-events/messages?limit=2&offset=3").size());
    }

    @Test
    void statusSummaryHasQueuesMessagesLeasesAndDeadLetters() {
        JsonNode s = get("/api/v1/status");
        assertEquals(3, s.get("queues").size());
        assertEquals(3, s.get("queuesTotal").asInt());
        assertFigures(s.get("messages"), 61, 41, 8, 11, 1, 1);
        assertEquals(2, s.get("leases").get("active").asInt());
        assertEquals(2, s.get("leases").get("partitionsWithLeases").asInt());
        assertEquals(8, s.get("leases").get("totalBatchSize").asInt());
        JsonNode dlq = s.get("deadLetterQueue");
        assertEquals(1, dlq.get("totalMessages").asInt());
        assertEquals(1, dlq.get("affectedPartitions").asInt());
        assertEquals("poison pill", dlq.get("topErrors").get(0).get("error").asText());
        assertEquals(1, dlq.get("topErrors").get(0).get("count").asInt());
        assertNotNull(s.get("timeRange").get("from").textValue());

        JsonNode events = get("/api/v1/status?queue=st-events");
        assertEquals(1, events.get("queues").size());
        assertFigures(events.get("messages"), 15, 10, 0, 5, 1, 0);
        assertEquals(0, events.get("leases").get("active").asInt());
        assertEquals(0, events.get("deadLetterQueue").get("totalMessages").asInt());
        assertEquals(0, events.get("deadLetterQueue").get("topErrors").size());
        assertFigures(get("/api/v1/status?namespace=shop&task=orders").get("messages"), 40, 25, 8, 6, 0, 1);
    }
}
