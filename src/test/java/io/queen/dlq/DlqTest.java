package io.queen.dlq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.queen.metrics.OpsMeter;
import io.queen.retention.RetentionCycle;
import io.queen.segment.Frame;
import io.queen.segment.SegmentCodec;
import io.queen.testing.Api;
import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Dead-letter browse, delete, both replay routes and queue deletion, over HTTP against a real PostgreSQL. */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class DlqTest {
    @Inject
    AgroalDataSource ds;
    @Inject
    OpsMeter meter;
    @Inject
    RetentionCycle cycle;

    record Pushed(String partitionId, long offset, String messageId, String txn) {
    }

    static Pushed push(String queue, String partition, String txn, String payload) throws Exception {
        Http.Reply r = Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"" + queue + "\",\"partition\":\"" + partition
                + "\",\"transactionId\":\"" + txn + "\",\"payload\":" + payload + "}]}");
        assertEquals(201, r.status(), r.body());
        JsonNode j = Api.M.readTree(r.body()).get(0);
        assertEquals("queued", j.get("status").asText(), r.body());
        return new Pushed(j.get("partition_id").asText(), j.get("offset").asLong(), j.get("message_id").asText(), txn);
    }

    /** Files a dead letter for a pushed message the way the ack path does (a snapshot row, no FK). */
    String file(Pushed m, String group, String payload, String error, String failedAgo) {
        return Sql.one(ds, "INSERT INTO queen.log_dlq (partition_id, consumer_group, \"offset\", message_id,"
                + " transaction_id, payload, error, retry_count, failed_at, trace_id, message_created_at) VALUES ('"
                + m.partitionId() + "', '" + group + "', " + m.offset() + ", '" + m.messageId() + "', '" + m.txn()
                + "', '" + payload + "'::jsonb, " + (error == null ? "NULL" : "'" + error + "'") + ", 3, now() - interval '"
                + failedAgo + "', '0190b6a4-7a2b-7c3d-8e4f-123456789abc', now() - interval '1 hour') RETURNING id");
    }

    static JsonNode get(String path) throws Exception {
        Http.Reply r = Http.get(path);
        assertEquals(200, r.status(), r.body());
        return Api.M.readTree(r.body());
    }

    static Http.Reply delete(String path) {
        return Http.send(HttpRequest.newBuilder(URI.create(Http.base() + path)).DELETE().build());
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    List<Frame> frames(String partitionId) {
        List<Frame> out = new ArrayList<>();
        for (List<Object> row : Sql.rows(ds, "SELECT blob FROM queen.log_segments WHERE partition_id = '" + partitionId
                + "' ORDER BY base_offset")) {
            out.addAll(SegmentCodec.decode((byte[]) row.get(0)));
        }
        return out;
    }

    @Test
    void browseFiltersPagesAndAnswersTheFullMessageObject() throws Exception {
        assertEquals(0, get("/api/v1/dlq?queue=d-none").get("total").asLong(), "empty DLQ: total 0");
        Pushed a = push("d-browse", "Default", "b-1", "{\"message\":\"one\"}");
        Pushed b = push("d-browse", "P2", "b-2", "{\"message\":\"two\"}");
        Pushed c = push("d-browse-other", "Default", "b-3", "3");
        String ida = file(a, "__QUEUE_MODE__", "{\"message\":\"one\"}", "Test error", "3 minutes");
        String idb = file(b, "billing", "{\"message\":\"two\"}", null, "2 minutes");
        file(c, "billing", "3", "x", "1 minute");

        JsonNode all = get("/api/v1/dlq?queue=d-browse");
        assertEquals(2, all.get("total").asLong());
        assertEquals(100, all.get("limit").asInt());
        assertEquals(0, all.get("pagination").get("offset").asInt());
        JsonNode first = all.get("messages").get(0);
        assertEquals(idb, first.get("id").asText(), "newest failure first; id is the DLQ row id");
        assertEquals(b.messageId(), first.get("messageId").asText());
        assertEquals("b-2", first.get("transactionId").asText());
        assertEquals(b.partitionId(), first.get("partitionId").asText());
        assertEquals("d-browse", first.get("queue").asText());
        assertEquals("d-browse", first.get("queueName").asText());
        assertEquals("P2", first.get("partition").asText());
        assertEquals("P2", first.get("partitionName").asText());
        assertEquals("billing", first.get("consumerGroup").asText());
        assertEquals("Retries exhausted", first.get("errorMessage").asText());
        assertEquals(3, first.get("retryCount").asInt());
        assertEquals("two", first.get("data").get("message").asText());
        assertEquals("0190b6a4-7a2b-7c3d-8e4f-123456789abc", first.get("traceId").asText());
        assertTrue(first.get("producerSub").isNull());
        assertTrue(first.get("createdAt").asText().matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z"));
        assertEquals(first.get("createdAt"), first.get("originalCreatedAt"));
        assertEquals(first.get("failedAt"), first.get("movedToDlqAt"));
        assertEquals("Test error", all.get("messages").get(1).get("errorMessage").asText());

        assertEquals(ida, get("/api/v1/dlq?queue=d-browse&consumerGroup=__QUEUE_MODE__").get("messages").get(0)
                .get("id").asText());
        assertEquals(1, get("/api/v1/dlq?queue=d-browse&partition=P2").get("total").asLong());
        assertEquals(2, get("/api/v1/dlq?consumerGroup=billing").get("total").asLong(), "no queue: all queues");
        JsonNode page = get("/api/v1/dlq?queue=d-browse&limit=1&offset=1");
        assertEquals(2, page.get("total").asLong(), "total ignores limit/offset");
        assertEquals(ida, page.get("messages").get(0).get("id").asText());
        assertEquals(2, get("/api/v1/dlq?queue=d-browse&offset=5").get("total").asLong(), "past the end: total kept");
        String from = Instant.now().minusSeconds(150).toString();
        assertEquals(1, get("/api/v1/dlq?queue=d-browse&from=" + from).get("total").asLong());
        assertEquals(1, get("/api/v1/dlq?queue=d-browse&to=" + from).get("total").asLong());
        assertEquals(1000, get("/api/v1/dlq?limit=5000").get("limit").asInt(), "limit capped at 1000");
        for (String bad : List.of("limit=abc", "limit=0", "offset=-1", "from=nope", "to=2020-13-45")) {
            Http.Reply r = Http.get("/api/v1/dlq?" + bad);
            assertEquals(400, r.status(), bad);
            assertTrue(r.body().contains(bad.substring(0, bad.indexOf('='))), r.body());
        }
    }

    @Test
    void deleteRemovesEveryGroupsDeadLetterAndNeverALiveMessage() throws Exception {
        Pushed m = push("d-del", "Default", "del-1", "1");
        Pushed other = push("d-del", "Default", "del-2", "2");
        file(m, "g1", "1", "e", "1 minute");
        file(m, "g2", "1", "e", "1 minute");
        file(other, "g1", "2", "e", "1 minute");
        Http.Reply r = delete("/api/v1/messages/" + m.partitionId() + "/del-1");
        assertEquals(200, r.status(), r.body());
        JsonNode j = Api.M.readTree(r.body());
        assertTrue(j.get("success").asBoolean());
        assertEquals(2, j.get("deleted").asInt());
        assertEquals(1, Sql.count(ds, "SELECT count(*) FROM queen.log_dlq WHERE partition_id = '" + m.partitionId() + "'"));
        Http.Reply again = delete("/api/v1/messages/" + m.partitionId() + "/del-1");
        assertEquals(404, again.status());
        assertEquals("Message not found", Api.M.readTree(again.body()).get("error").asText());
        // a live message has no DLQ row: immutable, 404, the segment untouched
        Pushed live = push("d-del", "Default", "del-live", "3");
        assertEquals(404, delete("/api/v1/messages/" + live.partitionId() + "/del-live").status());
        assertEquals(404, delete("/api/v1/messages/not-a-uuid/del-2").status());
        assertEquals(3, frames(m.partitionId()).size());
    }

    @Test
    void replayByRowIdMovesOneFrameAndDeletesTheRowInOneTransaction() throws Exception {
        Pushed m = push("d-replay", "Default", "rp-1", "{\"message\":\"again\"}");
        String id = file(m, "__QUEUE_MODE__", "{\"message\":\"again\"}", "boom", "1 minute");
        Http.Reply r = Http.post("/api/v1/dlq/" + id + "/replay", "");
        assertEquals(200, r.status(), r.body());
        JsonNode j = Api.M.readTree(r.body());
        assertEquals("moved", j.get("result").asText());
        assertTrue(j.get("dlqRowRemoved").asBoolean());
        assertEquals("rp-1", j.get("originalTransactionId").asText());
        assertEquals("dlq:" + id, j.get("replayedAs").get("transaction_id").asText());
        assertEquals(m.offset() + 1, j.get("replayedAs").get("offset").asLong(), "appended at the tail");
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.log_dlq WHERE id = '" + id + "'"));
        List<Frame> f = frames(m.partitionId());
        assertEquals(2, f.size());
        Frame replayed = f.get(1);
        assertEquals("dlq:" + id, replayed.transactionId());
        assertEquals(j.get("replayedAs").get("message_id").asText(), replayed.messageId().toString());
        assertNotEquals(m.messageId(), replayed.messageId().toString(), "a new message id");
        assertEquals("again", Api.M.readTree(replayed.payload()).get("message").asText());
        assertEquals("0190b6a4-7a2b-7c3d-8e4f-123456789abc", replayed.traceId().toString());
        // the sidecar mirrors the new segment (ack and dedup can find it)
        assertEquals(2, Sql.count(ds, "SELECT count(*) FROM queen.log_txns WHERE partition_id = '" + m.partitionId() + "'"));
        // the row is gone: a second replay is a 404, and an unknown / malformed id too
        assertEquals(404, Http.post("/api/v1/dlq/" + id + "/replay", "{}").status());
        assertEquals(404, Http.post("/api/v1/dlq/not-a-uuid/replay", "{}").status());
    }

    @Test
    void replayToAnotherDestinationAndBadBodies() throws Exception {
        Pushed m = push("d-dest", "Default", "ds-1", "7");
        String id = file(m, "g", "7", "e", "1 minute");
        for (String bad : List.of("{\"queue\":\"\"}", "{\"partition\":5}", "{\"queue\":\"a/b\"}", "[1]", "{bad")) {
            Http.Reply r = Http.post("/api/v1/dlq/" + id + "/replay", bad);
            assertEquals(400, r.status(), bad + " -> " + r.body());
            assertTrue(Api.M.readTree(r.body()).has("error"));
        }
        assertEquals(1, Sql.count(ds, "SELECT count(*) FROM queen.log_dlq WHERE id = '" + id + "'"), "400 writes nothing");
        Http.Reply r = Http.post("/api/v1/dlq/" + id + "/replay", "{\"queue\":\"d-dest-target\",\"partition\":\"X\"}");
        assertEquals(200, r.status(), r.body());
        JsonNode j = Api.M.readTree(r.body());
        assertEquals("d-dest-target", j.get("queue").asText());
        assertEquals("X", j.get("partition").asText());
        assertEquals(0, j.get("replayedAs").get("offset").asLong());
        String target = j.get("replayedAs").get("partition_id").asText();
        assertEquals("X", Sql.one(ds, "SELECT name FROM queen.log_partitions WHERE id = '" + target + "'"));
        assertEquals("7", new String(frames(target).get(0).payload(), StandardCharsets.UTF_8));
        assertEquals(1, frames(m.partitionId()).size(), "the source partition is unchanged");
    }

    @Test
    void retryByAddressReplaysTheNewestRow() throws Exception {
        Pushed m = push("d-retry", "Default", "rt 1", "{\"n\":1}");
        String older = file(m, "g-old", "{\"n\":1}", "e", "5 minutes");
        String newer = file(m, "g-new", "{\"n\":1}", "e", "1 minute");
        Http.Reply r = Http.post("/api/v1/messages/" + m.partitionId() + "/" + enc("rt 1") + "/retry", "");
        assertEquals(200, r.status(), r.body());
        JsonNode j = Api.M.readTree(r.body());
        assertEquals(newer, j.get("dlqId").asText());
        assertEquals("g-new", j.get("consumerGroup").asText());
        assertEquals(List.of(List.of(older)), Sql.rows(ds, "SELECT id::text FROM queen.log_dlq WHERE partition_id = '"
                + m.partitionId() + "'"));
        assertEquals(404, Http.post("/api/v1/messages/" + m.partitionId() + "/nope/retry", "{}").status());
    }

    @Test
    void concurrentReplaysOfOneRowMoveItExactlyOnce() throws Exception {
        Pushed m = push("d-conc", "Default", "c-1", "{\"x\":1}");
        String id = file(m, "__QUEUE_MODE__", "{\"x\":1}", "e", "1 minute");
        int n = 8;
        ExecutorService pool = Executors.newFixedThreadPool(n);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Http.Reply>> fs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            boolean byAddress = i % 2 == 0;
            fs.add(pool.submit(() -> {
                go.await();
                return byAddress ? Http.post("/api/v1/messages/" + m.partitionId() + "/c-1/retry", "")
                        : Http.post("/api/v1/dlq/" + id + "/replay", "");
            }));
        }
        go.countDown();
        int moved = 0;
        int gone = 0;
        for (Future<Http.Reply> f : fs) {
            Http.Reply r = f.get();
            if (r.status() == 200) {
                assertEquals("moved", Api.M.readTree(r.body()).get("result").asText(), r.body());
                moved++;
            } else {
                assertEquals(404, r.status(), r.body());
                gone++;
            }
        }
        pool.shutdown();
        assertEquals(1, moved, "exactly one replay moved the row");
        assertEquals(n - 1, gone);
        assertEquals(1, frames(m.partitionId()).stream().filter(f -> f.transactionId().equals("dlq:" + id)).count(),
                "one frame in the log");
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.log_dlq WHERE id = '" + id + "'"));
    }

    @Test
    void aReplayThatWouldDuplicateKeepsTheRow() throws Exception {
        Pushed m = push("d-dup", "Default", "dp-1", "1");
        String id = file(m, "g", "1", "e", "1 minute");
        Pushed squatter = push("d-dup", "Default", "dlq:" + id, "\"already here\"");
        Http.Reply r = Http.post("/api/v1/dlq/" + id + "/replay", "");
        assertEquals(200, r.status(), r.body());
        JsonNode j = Api.M.readTree(r.body());
        assertEquals("duplicate", j.get("result").asText());
        assertEquals("duplicate", j.get("replayedAs").get("status").asText());
        assertEquals(squatter.messageId(), j.get("replayedAs").get("message_id").asText());
        assertEquals(false, j.get("dlqRowRemoved").asBoolean());
        assertEquals(1, Sql.count(ds, "SELECT count(*) FROM queen.log_dlq WHERE id = '" + id + "'"), "row kept");
        assertEquals(2, frames(m.partitionId()).size(), "nothing written");
    }

    @Test
    void aDeadLetterSurvivesRetentionOfItsSourceSegment() throws Exception {
        Http.Reply c = Http.post("/api/v1/configure",
                "{\"queue\":\"d-ret\",\"options\":{\"retentionEnabled\":true,\"retentionSeconds\":5}}");
        assertEquals(200, c.status());
        Pushed m = push("d-ret", "Default", "sv-1", "{\"keep\":true}");
        String id = file(m, "g", "{\"keep\":true}", "e", "1 minute");
        cycle.runOnce(Instant.now().plusSeconds(60));
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.log_segments WHERE partition_id = '"
                + m.partitionId() + "'"), "the source segment is gone");
        JsonNode dlq = get("/api/v1/dlq?queue=d-ret");
        assertEquals(1, dlq.get("total").asLong());
        assertEquals(true, dlq.get("messages").get(0).get("data").get("keep").asBoolean(), "the snapshot remains");
        Http.Reply r = Http.post("/api/v1/dlq/" + id + "/replay", "");
        assertEquals(200, r.status(), r.body());
        assertEquals(1, Api.M.readTree(r.body()).get("replayedAs").get("offset").asLong());
        assertEquals(Api.M.readTree("{\"keep\":true}"), Api.M.readTree(frames(m.partitionId()).get(0).payload()),
                "the frame is rebuilt from the snapshot");
    }

    @Test
    void endToEndThroughTheAckPathFiledThenBrowsedThenReplayedAndConsumed() throws Exception {
        Api.configure("d-e2e", "{\"retryLimit\":0}");
        Api.pushN("d-e2e", "Default", "e", 0, 2);
        JsonNode p1 = Api.pop("/api/v1/pop/queue/d-e2e/partition/Default?batch=1");
        JsonNode m = p1.get("messages").get(0);
        JsonNode ack = Api.ack(m.get("transactionId").asText(), m.get("partitionId").asText(),
                m.get("leaseId").asText(), "failed", null, "Test error: e2e");
        assertTrue(ack.get("dlq").asBoolean(), ack.toString());
        JsonNode dlq = get("/api/v1/dlq?queue=d-e2e");
        assertEquals(1, dlq.get("total").asLong());
        JsonNode row = dlq.get("messages").get(0);
        assertTrue(row.get("errorMessage").asText().contains("Test error"));
        assertEquals(0, row.get("data").get("n").asInt());
        assertEquals("e-0", row.get("transactionId").asText());
        assertEquals(m.get("id").asText(), row.get("messageId").asText());
        assertTrue(row.get("createdAt").isTextual(), row.toString());
        Http.Reply r = Http.post("/api/v1/dlq/" + row.get("id").asText() + "/replay", "");
        assertEquals(200, r.status(), r.body());
        assertEquals(0, get("/api/v1/dlq?queue=d-e2e").get("total").asLong());
        List<JsonNode> next = Api.messages(Api.pop("/api/v1/pop/queue/d-e2e/partition/Default?batch=10"));
        assertEquals(2, next.size());
        assertEquals("e-1", next.get(0).get("transactionId").asText());
        assertEquals("dlq:" + row.get("id").asText(), next.get(1).get("transactionId").asText(),
                "the replayed message is consumed again, at the tail");
        assertEquals(0, next.get(1).get("data").get("n").asInt());
    }

    @Test
    void aReplayIsDeliveredToAParkedLongPoll() throws Exception {
        Pushed m = push("d-wake", "Default", "w-1", "{\"w\":1}");
        String id = file(m, "__QUEUE_MODE__", "{\"w\":1}", "e", "1 minute");
        Sql.exec(ds, "INSERT INTO queen.log_consumers (partition_id, consumer_group, committed) VALUES ('"
                + m.partitionId() + "', '__QUEUE_MODE__', " + m.offset() + ")");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        long t0 = System.nanoTime();
        Future<Http.Reply> parked = pool.submit(() ->
                Http.get("/api/v1/pop/queue/d-wake/partition/Default?wait=true&timeout=20000"));
        Await.until("the pop parked", () -> meter.queue(UUID.fromString("00000000-0000-0000-0000-000000000001"),
                "d-wake").parkedNow() == 1, Duration.ofSeconds(10));
        assertEquals(200, Http.post("/api/v1/dlq/" + id + "/replay", "").status());
        Http.Reply woke = parked.get();
        pool.shutdown();
        assertEquals(200, woke.status(), woke.body());
        assertTrue(System.nanoTime() - t0 < 15_000_000_000L, "delivered before the long poll timed out");
        assertEquals("dlq:" + id, Api.json(woke.body()).get("messages").get(0).get("transactionId").asText());
    }

    @Test
    void queueDeleteRemovesSidecarAndDeadLettersExplicitly() throws Exception {
        Pushed a = push("d-qdel", "A", "q-1", "1");
        Pushed b = push("d-qdel", "B", "q-2", "2");
        Pushed keep = push("d-qdel-keep", "Default", "q-3", "3");
        file(a, "g", "1", "e", "1 minute");
        file(keep, "g", "3", "e", "1 minute");
        Sql.exec(ds, "INSERT INTO queen.log_consumers (partition_id, consumer_group, committed) VALUES ('"
                + b.partitionId() + "', 'g', 0)");
        String pids = "('" + a.partitionId() + "', '" + b.partitionId() + "')";
        assertEquals(2, Sql.count(ds, "SELECT count(*) FROM queen.log_txns WHERE partition_id IN " + pids));

        Http.Reply r = delete("/api/v1/resources/queues/d-qdel");
        assertEquals(200, r.status(), r.body());
        JsonNode j = Api.M.readTree(r.body());
        assertTrue(j.get("deleted").asBoolean());
        assertEquals("d-qdel", j.get("queue").asText());
        assertTrue(j.get("existed").asBoolean());
        for (String t : List.of("log_txns", "log_dlq", "log_segments", "log_consumers")) {
            assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen." + t + " WHERE partition_id IN " + pids), t);
        }
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.log_partitions WHERE id IN " + pids));
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.queues WHERE name = 'd-qdel'"));
        // other queues untouched; unknown queue is still 200 with existed:false
        assertEquals(1, Sql.count(ds, "SELECT count(*) FROM queen.log_dlq WHERE partition_id = '" + keep.partitionId() + "'"));
        assertEquals(1, Sql.count(ds, "SELECT count(*) FROM queen.log_txns WHERE partition_id = '" + keep.partitionId() + "'"));
        JsonNode again = Api.M.readTree(delete("/api/v1/resources/queues/d-qdel").body());
        assertEquals(false, again.get("existed").asBoolean());
        assertTrue(again.get("deleted").asBoolean());
        // a push recreates it from scratch
        assertEquals(0, push("d-qdel", "A", "q-1", "1").offset());
    }

    static long count(String query) throws Exception {
        return get("/api/v1/dlq/count?" + query).get("count").asLong();
    }

    static JsonNode bulk(String action, String body) throws Exception {
        Http.Reply r = Http.post("/api/v1/dlq/" + action, body);
        assertEquals(200, r.status(), action + " " + body + " -> " + r.body());
        return Api.M.readTree(r.body());
    }

    @Test
    void bulkActionsCountReplayAndDeleteWhatTheFilterMatchesInBatches() throws Exception {
        List<Pushed> p0 = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            p0.add(push("b-src", "p0", "b0-" + i, "{\"i\":" + i + "}"));
        }
        Pushed p1a = push("b-src", "p1", "b1-0", "10");
        Pushed p1b = push("b-src", "p1", "b1-1", "11");
        String dup = file(p0.get(0), "w", "{\"i\":0}", "Timeout talking to payments", "5 minutes");
        file(p0.get(1), "w", "{\"i\":1}", "timeout talking to payments", "4 minutes");
        file(p0.get(2), "w", "{\"i\":2}", "TIMEOUT again", "3 minutes");
        file(p0.get(2), "v", "{\"i\":2}", "timeout for v", "3 minutes");
        file(p0.get(3), "w", "{\"i\":3}", null, "2 minutes");
        file(p1a, "w", "10", "bad sku 17", "2 minutes");
        file(p1b, "w", "11", "bad sku 18", "1 minute");
        file(push("b-other", "p0", "o-0", "0"), "w", "0", "timeout elsewhere", "1 minute");

        assertEquals(7, count("queue=b-src"));
        assertEquals(4, count("queue=b-src&error=TimeOut"), "any case, a substring");
        assertEquals(3, count("queue=b-src&error=timeout&consumerGroup=w"));
        assertEquals(2, count("queue=b-src&partition=p1"));
        assertEquals(1, count("queue=b-src&error=retries%20exhausted"), "an empty error reads as it is shown");
        assertEquals(0, count("queue=b-src&error=%25"), "no pattern characters");
        assertEquals(5, count("error=timeout"), "every queue");
        assertEquals(3, count("queue=b-src&from=" + enc(Instant.now().minusSeconds(150).toString())));
        JsonNode page = get("/api/v1/dlq?queue=b-src&error=timeout&limit=2");
        assertEquals(4, page.get("total").asInt(), "the browse takes the error filter too");
        assertEquals(2, page.get("messages").size());

        // the oldest timeout of w would duplicate (its replay's transaction id is taken): it stays, and the next
        // call resumes after it instead of meeting it again
        push("b-dst", "Default", "dlq:" + dup, "0");
        String filter = "\"queue\":\"b-src\",\"consumerGroup\":\"w\",\"error\":\"timeout\"";
        JsonNode first = bulk("replay", "{" + filter + ",\"intoQueue\":\"b-dst\",\"intoPartition\":\"Default\","
                + "\"limit\":2}");
        assertEquals(List.of(2, 1, 1, 0, 1), List.of(first.get("visited").asInt(), first.get("replayed").asInt(),
                first.get("duplicates").asInt(), first.get("gone").asInt(), first.get("remaining").asInt()),
                first.toString());
        assertTrue(first.get("next").isTextual(), first.toString());
        lastRound(bulk("replay", "{" + filter + ",\"intoQueue\":\"b-dst\",\"limit\":2,\"after\":\""
                + first.get("next").asText() + "\"}"));
        assertEquals(3, get("/api/v1/resources/queues/b-dst").get("totals").get("total").asLong(),
                "the squatter and the two moved");
        assertEquals(1, count("queue=b-src&error=timeout&consumerGroup=w"), "the duplicate kept");
        assertEquals(1, count("queue=b-src&consumerGroup=v"), "another group's letter is not matched");
        assertEquals(4, frames(p0.get(0).partitionId()).size(), "nothing replayed into the source");

        // delete one partition's letters, one per call
        JsonNode d1 = bulk("delete", "{\"queue\":\"b-src\",\"partition\":\"p1\",\"limit\":1}");
        assertEquals(List.of(1, 1, 1), List.of(d1.get("visited").asInt(), d1.get("deleted").asInt(),
                d1.get("remaining").asInt()), d1.toString());
        JsonNode d2 = bulk("delete", "{\"queue\":\"b-src\",\"partition\":\"p1\",\"after\":\""
                + d1.get("next").asText() + "\"}");
        assertEquals(List.of(1, 0), List.of(d2.get("deleted").asInt(), d2.get("remaining").asInt()), d2.toString());
        assertTrue(d2.get("next").isNull());
        assertEquals(0, count("queue=b-src&partition=p1"));
        assertEquals(3, count("queue=b-src"), "the duplicate, v's letter and the one without error text");
        assertEquals(1, count("queue=b-other"), "another queue untouched");
        JsonNode none = bulk("replay", "{\"queue\":\"b-none\"}");
        assertEquals(List.of(0, 0), List.of(none.get("visited").asInt(), none.get("remaining").asInt()));
    }

    /** A bulk replay's last round: one letter visited and replayed, none remaining, no next page. */
    private static void lastRound(JsonNode round) {
        assertEquals(List.of(1, 1, 0), List.of(round.get("visited").asInt(), round.get("replayed").asInt(),
                round.get("remaining").asInt()), round.toString());
        assertTrue(round.get("next").isNull(), round.toString());
    }

    @Test
    void aBulkActionConfirmedOnACountActsOnExactlyTheLettersCounted() throws Exception {
        for (int i = 0; i < 3; i++) {
            file(push("b-upto", "p", "u-" + i, String.valueOf(i)), "w", String.valueOf(i), "flaky", (3 - i) + " minutes");
        }
        JsonNode counted = get("/api/v1/dlq/count?queue=b-upto");
        assertEquals(3, counted.get("count").asInt(), counted.toString());
        String until = counted.get("until").asText();
        // letters filed after the operator saw the count (while the dialog was open)
        file(push("b-upto", "p", "u-late-0", "10"), "w", "10", "flaky", "0 seconds");
        file(push("b-upto", "p", "u-late-1", "11"), "w", "11", "flaky", "0 seconds");
        assertEquals(5, count("queue=b-upto"));

        String filter = "\"queue\":\"b-upto\",\"until\":\"" + until + "\",\"intoQueue\":\"b-upto-out\"";
        JsonNode first = bulk("replay", "{" + filter + ",\"limit\":2}");
        assertEquals(List.of(2, 2, 1), List.of(first.get("visited").asInt(), first.get("replayed").asInt(),
                first.get("remaining").asInt()), "remaining counts the confirmed letters only: " + first);
        lastRound(bulk("replay", "{" + filter + ",\"after\":\"" + first.get("next").asText() + "\"}"));
        assertEquals(3, get("/api/v1/resources/queues/b-upto-out").get("totals").get("total").asLong(),
                "the three confirmed, not the two filed after the count");
        assertEquals(2, count("queue=b-upto"), "the late letters stay");

        JsonNode again = get("/api/v1/dlq/count?queue=b-upto");
        file(push("b-upto", "p", "u-later", "12"), "w", "12", "flaky", "0 seconds");
        JsonNode deleted = bulk("delete", "{\"queue\":\"b-upto\",\"until\":\"" + again.get("until").asText() + "\"}");
        assertEquals(List.of(2, 0), List.of(deleted.get("deleted").asInt(), deleted.get("remaining").asInt()),
                deleted.toString());
        assertEquals(1, count("queue=b-upto"), "the letter filed after the second count stays");
        assertTrue(get("/api/v1/dlq/count?queue=b-none").get("until").isNull(), "nothing counted: no bound");
    }

    /** Calls a bulk action batch after batch until nothing is left; sums {@code field} over the answers. */
    static int drain(String action, String filter, String field) throws Exception {
        int sum = 0;
        String after = null;
        for (int calls = 0; calls < 100; calls++) {
            JsonNode r = bulk(action, "{" + filter + ",\"limit\":7" + (after == null ? "" : ",\"after\":\"" + after
                    + "\"") + "}");
            sum += r.get(field).asInt();
            if (r.get("next").isNull()) {
                return sum;
            }
            after = r.get("next").asText();
        }
        throw new AssertionError(action + " did not finish in 100 calls");
    }

    @Test
    void concurrentBulkReplaysAndDeletesTakeEachLetterOnce() throws Exception {
        int n = 60;
        for (int i = 0; i < n; i++) {
            file(push("b-race", "p", "r-" + i, String.valueOf(i)), "w", String.valueOf(i), "flaky", (n - i) + " seconds");
        }
        String filter = "\"queue\":\"b-race\"";
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> replays = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                replays.add(pool.submit(() -> {
                    start.await();
                    return drain("replay", filter + ",\"intoQueue\":\"b-race-out\"", "replayed");
                }));
            }
            List<Future<Integer>> deletes = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                deletes.add(pool.submit(() -> {
                    start.await();
                    return drain("delete", filter, "deleted");
                }));
            }
            start.countDown();
            int replayed = replays.get(0).get() + replays.get(1).get();
            int deleted = deletes.get(0).get() + deletes.get(1).get();
            assertEquals(n, replayed + deleted, "each letter replayed or deleted, once: " + replayed + " + " + deleted);
            assertEquals(0, count("queue=b-race"));
            long written = replayed == 0 ? 0
                    : get("/api/v1/resources/queues/b-race-out").get("totals").get("total").asLong();
            assertEquals(replayed, written, "one message per replayed letter");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void bulkRoutesAnswerBadInput400NamingTheFieldAndChangeNothing() throws Exception {
        Pushed m = push("b-bad", "p", "bb-1", "1");
        file(m, "g", "1", "e", "1 minute");
        String longName = "n".repeat(256);
        String[][] cases = {
            {"queue", "\"\\u0000\""}, {"queue", "\"\\ud800\""}, {"queue", "\"" + longName + "\""}, {"queue", "5"},
            {"consumerGroup", "\"g\\u0000\""}, {"consumerGroup", "[]"}, {"partition", "\"\\udc00p\""},
            {"partition", "\"" + longName + "\""}, {"error", "\"" + "e".repeat(1025) + "\""},
            {"error", "\"\\u0000\""}, {"from", "\"yesterday\""}, {"to", "\"+10000-01-01T00:00:00Z\""},
            {"limit", "0"}, {"limit", "1001"}, {"limit", "\"5\""}, {"limit", "1.5"}, {"after", "\"garbage\""},
            {"after", "\"12_" + "x".repeat(36) + "\""}, {"after", "7"}, {"until", "\"garbage\""}, {"until", "7"},
            {"intoQueue", "\"a/b\""},
            {"intoQueue", "\"\""}, {"intoPartition", "\"\\u0000\""},
        };
        for (String[] c : cases) {
            for (String action : List.of("replay", "delete")) {
                if (c[0].startsWith("into") && action.equals("delete")) {
                    continue;
                }
                String body = "{" + (c[0].equals("queue") ? "" : "\"queue\":\"b-bad\",")
                        + (c[0].equals("intoPartition") ? "\"intoQueue\":\"b-x\"," : "") + "\"" + c[0] + "\":" + c[1] + "}";
                Http.Reply r = Http.post("/api/v1/dlq/" + action, body);
                assertEquals(400, r.status(), action + " " + body + " -> " + r.body());
                assertTrue(Api.M.readTree(r.body()).path("error").asText().startsWith(c[0]), body + " -> " + r.body());
            }
        }
        Http.Reply noQueue = Http.post("/api/v1/dlq/replay", "{\"intoPartition\":\"p\"}");
        assertEquals(400, noQueue.status());
        assertTrue(noQueue.body().contains("intoPartition"), noQueue.body());
        assertEquals(400, Http.post("/api/v1/dlq/delete", "{bad").status());
        assertEquals(400, Http.post("/api/v1/dlq/delete", "[1]").status());
        for (String[] q : new String[][] {{"queue", "%00"}, {"consumerGroup", "g%ED%A0%80"}, {"partition", longName},
                {"error", "e".repeat(1025)}, {"from", "soon"}, {"to", "2020-13-01"}}) {
            Http.Reply r = Http.get("/api/v1/dlq/count?" + q[0] + "=" + q[1]);
            assertEquals(400, r.status(), q[0] + " -> " + r.body());
            assertTrue(Api.M.readTree(r.body()).path("error").asText().startsWith(q[0]), r.body());
        }
        Http.Reply reversed = Http.get("/api/v1/dlq/count?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z");
        assertEquals(400, reversed.status());
        assertTrue(reversed.body().contains("from"), reversed.body());
        Http.Reply reversedBulk = Http.post("/api/v1/dlq/delete", "{\"from\":\"2026-01-02\",\"to\":\"2026-01-01\"}");
        assertEquals(400, reversedBulk.status(), reversedBulk.body());
        assertEquals(0, get("/api/v1/dlq?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z").get("total").asInt(),
                "the browse answers a reversed range with no rows, as it did");
        assertEquals(1, count("queue=b-bad"), "a 400 deletes and replays nothing");
        assertEquals(1, frames(m.partitionId()).size());
    }
}
