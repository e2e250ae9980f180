package io.queen.browse;

import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.configure;
import static io.queen.testing.Api.json;
import static io.queen.testing.Api.metric;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.queen.retention.RetentionCycle;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Non-destructive reads: message browse, one message by address, batched fetch. None of them moves a cursor. */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class ReadTest {
    @Inject
    AgroalDataSource ds;
    @Inject
    RetentionCycle cycle;
    @Inject
    io.queen.live.LiveSampler live;

    String cursors() {
        return String.valueOf(Sql.rows(ds, "SELECT partition_id, consumer_group, committed, batch_end, worker_id,"
                + " lease_expires_at, attempt_count, total_consumed FROM queen.log_consumers ORDER BY 1, 2"));
    }

    static JsonNode get(String path) {
        Http.Reply r = Http.get(path);
        assertEquals(200, r.status(), path + " -> " + r.body());
        return json(r.body());
    }

    static JsonNode fetch(String body) {
        Http.Reply r = Http.post("/api/v1/fetch", body);
        assertEquals(200, r.status(), r.body());
        return json(r.body()).get("entries");
    }

    static List<Long> recordOffsets(JsonNode entry) {
        List<Long> out = new ArrayList<>();
        entry.get("records").forEach(r -> out.add(r.get("offset").asLong()));
        return out;
    }

    @Test
    void browseDerivesStatusNewestFirstWithoutMovingACursor() {
        pushN("m-browse", "Default", "mb", 0, 3);                   // offsets 0..2
        pushN("m-browse", "Default", "mb", 3, 2);                   // offsets 3..4
        JsonNode done = pop("/api/v1/pop/queue/m-browse/partition/Default?batch=2");
        ackAll(done, "completed", null);                             // 0, 1 completed
        pop("/api/v1/pop/queue/m-browse/partition/Default?batch=1"); // 2 leased: processing
        String pid = done.get("partitionId").asText();
        Sql.exec(ds, "INSERT INTO queen.log_dlq (partition_id, consumer_group, \"offset\", transaction_id, payload, error)"
                + " VALUES ('" + pid + "', '__QUEUE_MODE__', 4, 'mb-4', '{}', 'bad')");
        String before = cursors();

        JsonNode page = get("/api/v1/messages?queue=m-browse");
        JsonNode ms = page.get("messages");
        assertEquals(5, ms.size());
        List<String> statuses = new ArrayList<>();
        List<String> txns = new ArrayList<>();
        ms.forEach(m -> {
            statuses.add(m.get("status").asText());
            txns.add(m.get("transactionId").asText());
        });
        assertEquals(List.of("mb-4", "mb-3", "mb-2", "mb-1", "mb-0"), txns, "newest first");
        assertEquals(List.of("dead_letter", "pending", "processing", "completed", "completed"), statuses);
        JsonNode m0 = ms.get(4);
        assertEquals("m-browse/Default", m0.get("queuePath").asText());
        assertEquals(pid, m0.get("partitionId").asText());
        assertTrue(m0.get("createdAt").asText().endsWith("Z"));
        assertFalse(m0.has("data"), "payloads are not part of the list");
        assertEquals("queue", page.get("mode").get("type").asText());
        assertTrue(ms.get(2).get("leaseExpiresAt").isTextual());

        assertEquals(2, get("/api/v1/messages?queue=m-browse&status=completed").get("messages").size());
        JsonNode paged = get("/api/v1/messages?queue=m-browse&limit=2&offset=1").get("messages");
        assertEquals("mb-3", paged.get(0).get("transactionId").asText());
        assertEquals(2, paged.size());
        assertEquals(0, get("/api/v1/messages?queue=m-browse&from=2020-01-01T00:00:00Z&to=2020-01-01T01:00:00Z")
                .get("messages").size());
        assertEquals(400, Http.get("/api/v1/messages?status=weird").status());
        assertEquals(400, Http.get("/api/v1/messages?limit=x").status());
        assertEquals(400, Http.get("/api/v1/messages?from=x").status());
        assertEquals(before, cursors(), "browse moved no cursor");
    }

    @Test
    void oneMessageByAddressAlsoAfterTheHashWasPurged() throws Exception {
        configure("m-one", "{\"dedupWindowSeconds\":60}");
        JsonNode pushed = pushN("m-one", "P", "one", 0, 3);
        String pid = pushed.get(0).get("partition_id").asText();
        pop("/api/v1/pop/queue/m-one/partition/P?batch=1");
        String before = cursors();
        JsonNode m = get("/api/v1/messages/" + pid + "/one-1");
        assertEquals(pushed.get(1).get("message_id").asText(), m.get("id").asText());
        assertEquals(1, m.get("offset").asLong());
        assertEquals(1, m.get("data").get("n").asInt());
        assertEquals(m.get("data"), m.get("payload"));
        assertEquals("pending", m.get("status").asText());
        assertEquals("m-one/P", m.get("queuePath").asText());
        assertEquals(300, m.get("queueConfig").get("leaseTime").asInt(), "configure defaults leaseTime to 300");
        assertEquals("__QUEUE_MODE__", m.get("consumerGroups").get(0).get("name").asText());
        assertEquals("processing", get("/api/v1/messages/" + pid + "/one-0").get("status").asText());

        // purge the sidecar: the lookup falls back to scanning the segments themselves
        Instant created = Instant.parse(m.get("createdAt").asText());
        cycle.runOnce(created.plusSeconds(3600));
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.log_txns WHERE partition_id = '" + pid + "'"));
        assertEquals(2, get("/api/v1/messages/" + pid + "/one-2").get("data").get("n").asInt());

        for (String path : List.of("/api/v1/messages/" + pid + "/nope", "/api/v1/messages/not-a-uuid/one-1",
                "/api/v1/messages/00000000-0000-0000-0000-000000000000/one-1")) {
            Http.Reply r = Http.get(path);
            assertEquals(404, r.status(), path);
            assertEquals("Message not found", json(r.body()).get("error").asText());
        }
        assertEquals(before, cursors(), "the lookup moved no cursor");
    }

    @Test
    void fetchReadsByAbsoluteOffsetWithWatermarksAndErrors() throws Exception {
        configure("m-fetch", "{\"retentionEnabled\":true,\"retentionSeconds\":30}");
        pushN("m-fetch", "Default", "f", 0, 2);   // 0..1
        pushN("m-fetch", "Default", "f", 2, 3);   // 2..4
        pushN("m-fetch", "3", "g", 0, 1);         // partition named "3"
        JsonNode leased = pop("/api/v1/pop/queue/m-fetch/partition/Default?batch=1");
        String before = cursors();

        JsonNode e = fetch("{\"entries\":[{\"queue\":\"m-fetch\",\"offset\":0},"
                + "{\"queue\":\"m-fetch\",\"partition\":\"Default\",\"offset\":3},"
                + "{\"queue\":\"m-fetch\",\"offset\":5},"
                + "{\"queue\":\"m-fetch\",\"offset\":6},"
                + "{\"queue\":\"m-fetch-none\",\"offset\":0},"
                + "{\"queue\":\"m-fetch\",\"partition\":3,\"offset\":0},"
                + "{\"queue\":\"m-fetch\",\"partition\":\"nope\",\"offset\":0},"
                + "{\"queue\":\"m-fetch\",\"offset\":0,\"maxBytes\":1}],\"maxWaitMs\":0}");
        assertEquals(8, e.size());
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), recordOffsets(e.get(0)));
        assertEquals(5, e.get(0).get("highWatermark").asLong());
        assertEquals(0, e.get(0).get("logStartOffset").asLong());
        assertFalse(e.get(0).has("error"));
        JsonNode r0 = e.get(0).get("records").get(0);
        assertEquals("f-0", r0.get("transactionId").asText());
        assertEquals(0, r0.get("payload").get("n").asInt());
        assertTrue(r0.get("ts").asText().endsWith("Z"));
        assertEquals(List.of(3L, 4L), recordOffsets(e.get(1)), "starts inside the covering segment");
        assertEquals(List.of(), recordOffsets(e.get(2)), "offset = high: valid and empty");
        assertFalse(e.get(2).has("error"));
        assertEquals("OFFSET_OUT_OF_RANGE", e.get(3).get("error").asText());
        assertEquals("UNKNOWN_TOPIC_OR_PARTITION", e.get(4).get("error").asText());
        assertEquals("m-fetch-none", e.get(4).get("queue").asText());
        assertEquals("3", e.get(5).get("partition").asText());
        assertEquals(List.of(0L), recordOffsets(e.get(5)));
        assertEquals(0, e.get(6).get("highWatermark").asLong(), "a queue without that partition: an empty log");
        assertFalse(e.get(6).has("error"));
        assertEquals(List.of(0L, 1L), recordOffsets(e.get(7)), "the first segment always comes, then the byte bound");

        // after retention removed the first segment, offset 0 is below logStart
        String pid = leased.get("partitionId").asText();
        Instant second = ((java.sql.Timestamp) Sql.rows(ds, "SELECT created_at FROM queen.log_segments WHERE"
                + " partition_id = '" + pid + "' AND base_offset = 2").get(0).get(0)).toInstant();
        cycle.runOnce(second.plusSeconds(30));
        JsonNode after = fetch("{\"entries\":[{\"queue\":\"m-fetch\",\"offset\":0},{\"queue\":\"m-fetch\",\"offset\":2}]}");
        assertEquals(2, after.get(0).get("logStartOffset").asLong());
        assertEquals("OFFSET_OUT_OF_RANGE", after.get(0).get("error").asText());
        assertEquals(List.of(2L, 3L, 4L), recordOffsets(after.get(1)));
        assertEquals(before, cursors(), "fetch moved no cursor and took no lease");

        for (String bad : List.of("", "{}", "{\"entries\":{}}", "{\"entries\":[{\"offset\":0}]}",
                "{\"entries\":[{\"queue\":\"m-fetch\",\"offset\":-1}]}", "{\"entries\":[{\"queue\":\"m-fetch\"}]}",
                "{\"entries\":[{\"queue\":\"m-fetch\",\"offset\":\"1\"}]}",
                "{\"entries\":[{\"queue\":\"m-fetch\",\"offset\":0,\"maxBytes\":0}]}",
                "{\"entries\":[{\"queue\":\"m-fetch\",\"partition\":{},\"offset\":0}]}",
                "{\"entries\":[],\"maxWaitMs\":-5}", "{\"entries\":[],\"maxWaitMs\":-1e40}",
                "{\"entries\":[],\"maxWaitMs\":1e40}", "{\"entries\":[],\"maxWaitMs\":18446744073709551616}",
                "{\"entries\":[],\"maxWaitMs\":1.5}")) {
            Http.Reply r = Http.post("/api/v1/fetch", bad);
            assertEquals(400, r.status(), bad + " -> " + r.body());
            assertTrue(json(r.body()).has("error"));
        }
        StringBuilder many = new StringBuilder("{\"entries\":[");
        for (int i = 0; i < 1025; i++) {
            many.append(i == 0 ? "" : ",").append("{\"queue\":\"m-fetch\",\"offset\":0}");
        }
        assertEquals(400, Http.post("/api/v1/fetch", many.append("]}").toString()).status());
        assertEquals(0, fetch("{\"entries\":[]}").size());
    }

    @Test
    void fetchWithMaxWaitParksUntilDataArrivesOrTheTimeIsUp() throws Exception {
        pushN("m-wait", "Default", "w", 0, 1);                      // high watermark 1
        long t0 = System.nanoTime();
        JsonNode empty = fetch("{\"entries\":[{\"queue\":\"m-wait\",\"offset\":1}],\"maxWaitMs\":400}").get(0);
        long waited = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(List.of(), recordOffsets(empty));
        assertTrue(waited >= 350, "parked until maxWaitMs: " + waited + " ms");

        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        long t1 = System.nanoTime();
        java.util.concurrent.Future<JsonNode> parked = pool.submit(() ->
                fetch("{\"entries\":[{\"queue\":\"m-wait\",\"offset\":1}],\"maxWaitMs\":20000}").get(0));
        Thread.sleep(300);
        pushN("m-wait", "Default", "w", 1, 2);
        JsonNode got = parked.get();
        pool.shutdown();
        assertEquals(List.of(1L, 2L), recordOffsets(got), "the push woke the parked fetch");
        assertTrue((System.nanoTime() - t1) / 1_000_000 < 10_000, "returned on data, long before maxWaitMs");
        // minBytes 0 never parks; an error answers at once
        long t2 = System.nanoTime();
        fetch("{\"entries\":[{\"queue\":\"m-wait\",\"offset\":3}],\"maxWaitMs\":5000,\"minBytes\":0}");
        fetch("{\"entries\":[{\"queue\":\"m-wait\",\"offset\":9}],\"maxWaitMs\":5000}");
        assertTrue((System.nanoTime() - t2) / 1_000_000 < 4000);
    }

    /** The entry of partition {@code partition} in a fetch answer (entries come back in request order). */
    static JsonNode entry(JsonNode entries, int i, String partition) {
        JsonNode e = entries.get(i);
        assertEquals(partition, e.get("partition").asText());
        return e;
    }

    @Test
    void aCaughtUpFetchSeesEveryWriteToItsPartitionsAtOnce() throws Exception {
        pushN("m-known", "Default", "k", 0, 1);
        pushN("m-known", "b", "k", 1, 1);
        String atHigh = "{\"entries\":[{\"queue\":\"m-known\",\"partition\":\"Default\",\"offset\":%d},"
                + "{\"queue\":\"m-known\",\"partition\":\"b\",\"offset\":%d}],\"maxWaitMs\":0}";
        double memory = 0;
        double database = 0;
        long firstSent = 0;
        for (int round = 0; round < 2; round++) {  // the second round is answered from what the first found
            memory = metric("queen_fetch_entries_total{read=\"memory\"}");
            database = metric("queen_fetch_entries_total{read=\"database\"}");
            firstSent = round == 0 ? System.nanoTime() : firstSent;
            JsonNode e = fetch(String.format(atHigh, 1, 1));
            for (int i = 0; i < 2; i++) {
                JsonNode p = entry(e, i, i == 0 ? "Default" : "b");
                assertEquals(List.of(), recordOffsets(p));
                assertEquals(1, p.get("highWatermark").asLong());
                assertEquals(0, p.get("logStartOffset").asLong());
            }
        }
        // what a read found stands for a second (KnownWatermarks.VALID_NANOS): both reads inside one, the broker
        // timed its two reads inside one as well, and the second came from memory
        if (System.nanoTime() - firstSent < 900_000_000L) {
            assertEquals(2, metric("queen_fetch_entries_total{read=\"memory\"}") - memory,
                    "the second read came from memory");
            assertEquals(0, metric("queen_fetch_entries_total{read=\"database\"}") - database);
        }
        // a push to one partition: read there at once, the other still caught up
        pushN("m-known", "Default", "k", 2, 2);
        JsonNode e = fetch(String.format(atHigh, 1, 1));
        assertEquals(List.of(1L, 2L), recordOffsets(entry(e, 0, "Default")));
        assertEquals(3, entry(e, 0, "Default").get("highWatermark").asLong());
        assertEquals(List.of(), recordOffsets(entry(e, 1, "b")));
        assertEquals(1, entry(e, 1, "b").get("highWatermark").asLong());
        // a push inside a transaction (a write of the queue, not of the push path) to the other one
        Http.Reply t = Http.post("/api/v1/transaction", "{\"operations\":[{\"type\":\"push\",\"items\":"
                + "[{\"queue\":\"m-known\",\"partition\":\"b\",\"payload\":{\"n\":9}}]}]}");
        assertEquals(200, t.status(), t.body());
        assertTrue(json(t.body()).get("success").asBoolean(), t.body());
        e = fetch(String.format(atHigh, 3, 1));
        assertEquals(List.of(), recordOffsets(entry(e, 0, "Default")));
        assertEquals(List.of(1L), recordOffsets(entry(e, 1, "b")));
        assertEquals(2, entry(e, 1, "b").get("highWatermark").asLong());
        // a parked read of both wakes for a push to either, and answers with it
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            java.util.concurrent.Future<JsonNode> parked = pool.submit(() -> fetch(
                    String.format(atHigh, 3, 2).replace("\"maxWaitMs\":0", "\"maxWaitMs\":20000")));
            pushN("m-known", "b", "k", 10, 1);
            e = parked.get(15, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(List.of(2L), recordOffsets(entry(e, 1, "b")), "the push to b woke the read");
        } finally {
            pool.shutdownNow();
        }
        // the queue deleted here and created again: the old high watermark is out of range, not "nothing new"
        e = fetch(String.format(atHigh, 3, 3));
        assertEquals(3, entry(e, 0, "Default").get("highWatermark").asLong());
        assertEquals(200, Http.delete("/api/v1/resources/queues/m-known").status());
        pushN("m-known", "Default", "k", 20, 1);
        e = fetch(String.format(atHigh, 3, 3));
        assertEquals("OFFSET_OUT_OF_RANGE", entry(e, 0, "Default").get("error").asText(), e.toString());
        assertEquals(1, entry(e, 0, "Default").get("highWatermark").asLong());
        assertEquals("OFFSET_OUT_OF_RANGE", entry(e, 1, "b").get("error").asText(), e.toString());
    }

    @Test
    void aMessagesStatusPerGroupPendingLeasedAckedOrDeadLettered() throws Exception {
        pushN("m-groups", "p0", "g", 0, 3);
        pushN("m-groups", "p1", "h", 0, 1);
        ackAll(pop("/api/v1/pop/queue/m-groups/partition/p0?batch=2&consumerGroup=acker"), "completed", "acker");
        JsonNode leased = pop("/api/v1/pop/queue/m-groups/partition/p0?batch=2&consumerGroup=holder");
        JsonNode one = pop("/api/v1/pop/queue/m-groups/partition/p0?batch=1&consumerGroup=filer").get("messages").get(0);
        io.queen.testing.Api.ack("g-0", one.get("partitionId").asText(), one.get("leaseId").asText(), "dlq", "filer",
                "bad sku");
        ackAll(pop("/api/v1/pop/queue/m-groups/partition/p1?batch=1&consumerGroup=elsewhere"), "completed", "elsewhere");
        String pid = leased.get("partitionId").asText();
        String before = cursors();
        live.publishNow(); // the lease holder's client is read from the brokers' live publications

        JsonNode g0 = get("/api/v1/messages/" + pid + "/g-0/groups");
        assertEquals(List.of("m-groups", "p0", "0"), List.of(g0.get("queue").asText(), g0.get("partition").asText(),
                g0.get("offset").asText()));
        assertEquals("{acker=acked, elsewhere=pending, filer=dead-lettered, holder=leased}", statuses(g0));
        JsonNode holder = group(g0, "holder");
        assertEquals(leased.get("leaseId").asText(), holder.get("lease").get("leaseId").asText());
        assertEquals(1, holder.get("lease").get("leasedUpTo").asLong());
        assertTrue(Instant.parse(holder.get("lease").get("expiresAt").asText()).isAfter(Instant.now()));
        assertTrue(holder.get("lease").get("address").asText().startsWith("127.0.0.1:"), holder.toString());
        assertEquals("bad sku", group(g0, "filer").get("deadLetter").get("errorMessage").asText());
        assertTrue(group(g0, "elsewhere").get("committedOffset").isNull(), "no cursor on p0");
        assertEquals(1, group(g0, "acker").get("committedOffset").asLong());

        // offset 2: past the acked and the leased spans; the filer's cursor moved past offset 0 only
        assertEquals("{acker=pending, elsewhere=pending, filer=pending, holder=pending}",
                statuses(get("/api/v1/messages/" + pid + "/g-2/groups")));
        assertEquals(before, cursors(), "a read moves no cursor");
        assertEquals(404, Http.get("/api/v1/messages/" + pid + "/no-such/groups").status());
        assertEquals(404, Http.get("/api/v1/messages/not-a-uuid/g-0/groups").status());
        Http.Reply tooLong = Http.get("/api/v1/messages/" + pid + "/" + "t".repeat(1025) + "/groups");
        assertEquals(400, tooLong.status(), tooLong.body());
        assertTrue(json(tooLong.body()).get("error").asText().startsWith("transactionId"), tooLong.body());
    }

    private static String statuses(JsonNode answer) {
        java.util.Map<String, String> out = new java.util.TreeMap<>();
        answer.get("groups").forEach(g -> out.put(g.get("group").asText(), g.get("status").asText()));
        return out.toString();
    }

    private static JsonNode group(JsonNode answer, String name) {
        for (JsonNode g : answer.get("groups")) {
            if (g.get("group").asText().equals(name)) {
                return g;
            }
        }
        throw new AssertionError(name + " not in " + answer);
    }
}
