package io.queen.push;

import static io.queen.testing.Api.metric;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasSize;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.queen.segment.Frame;
import io.queen.segment.SegmentCodec;
import io.queen.testing.Handouts;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class PushTest {
    @Inject
    AgroalDataSource ds;

    static JsonPath push(String body) {
        Http.Reply r = Http.post("/api/v1/push", body);
        assertEquals(201, r.status(), r.body());
        return JsonPath.from(r.body());
    }

    static JsonNode pushTree(String body) throws Exception {
        Http.Reply r = Http.post("/api/v1/push", body);
        assertEquals(201, r.status(), r.body());
        return Api.M.readTree(r.body());
    }

    static String item(String queue, String partition, String txn, String payload) {
        return "{\"queue\":\"" + queue + "\"" + (partition == null ? "" : ",\"partition\":\"" + partition + "\"")
                + (txn == null ? "" : ",\"transactionId\":\"" + txn + "\"") + ",\"payload\":" + payload + "}";
    }

    List<Frame> frames(String queue, String partition) {
        List<Frame> out = new ArrayList<>();
        for (List<Object> row : Sql.rows(ds, "SELECT s.blob FROM queen.log_segments s JOIN queen.log_partitions p"
                + " ON p.id = s.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = '" + queue
                + "' AND p.name = '" + partition + "' ORDER BY s.base_offset")) {
            out.addAll(SegmentCodec.decode((byte[]) row.get(0)));
        }
        return out;
    }

    @Test
    void pushStoresPayloadBytesExactlyAndAnswersPerItem() {
        String odd = "{ \"a\" :  [1, 2.50, \"\\u00e9\"] , \"b\":null }";
        JsonPath r = push("{\"items\":[" + item("p-basic", null, "t-1", odd) + ","
                + item("p-basic", "P2", null, "\"just a string\"") + ","
                + "{\"queue\":\"p-basic\",\"transactionId\":\"t-3\",\"traceId\":\"0190b6a4-7a2b-7c3d-8e4f-123456789abc\"},"
                + item("p-basic", null, "t-4", "null") + "," + item("p-basic", null, "t-5", "{}") + ","
                + item("p-basic", null, "t-6", "-12.5e3") + "]}");
        assertEquals(6, r.getList("$").size());
        for (int i = 0; i < 6; i++) {
            assertEquals(i, r.getInt("[" + i + "].index"));
            assertEquals("queued", r.getString("[" + i + "].status"));
            assertTrue(r.getString("[" + i + "].message_id").matches("[0-9a-f-]{36}"));
            assertEquals("p-basic", r.getString("[" + i + "].queueName"));
        }
        assertEquals("t-1", r.getString("[0].transaction_id"));
        assertEquals("t-1", r.getString("[0].transactionId"));
        assertEquals(r.getString("[1].message_id"), r.getString("[1].transaction_id"), "minted txn id = message id");
        assertEquals("0190b6a4-7a2b-7c3d-8e4f-123456789abc", r.getString("[2].trace_id"));

        List<Frame> d = frames("p-basic", "Default");
        assertEquals(5, d.size());
        assertEquals(odd, new String(d.get(0).payload(), StandardCharsets.UTF_8));
        assertEquals("null", new String(d.get(1).payload(), StandardCharsets.UTF_8), "absent payload is null");
        assertEquals("0190b6a4-7a2b-7c3d-8e4f-123456789abc", d.get(1).traceId().toString());
        assertEquals("null", new String(d.get(2).payload(), StandardCharsets.UTF_8));
        assertEquals("{}", new String(d.get(3).payload(), StandardCharsets.UTF_8));
        assertEquals("-12.5e3", new String(d.get(4).payload(), StandardCharsets.UTF_8));
        assertEquals(r.getString("[0].message_id"), d.get(0).messageId().toString());
        assertEquals("\"just a string\"", new String(frames("p-basic", "P2").get(0).payload(), StandardCharsets.UTF_8));
        // the sidecar mirrors each segment's range with 16 bytes per frame
        assertEquals("0", Sql.one(ds, "SELECT count(*) FROM queen.log_segments s JOIN queen.log_txns t USING"
                + " (partition_id, base_offset) WHERE s.end_offset <> t.end_offset OR s.created_at <> t.created_at"
                + " OR octet_length(t.hashes) <> 16 * (t.end_offset - t.base_offset + 1)"));
    }

    @Test
    void emptyItemsIs201EmptyArray() {
        given().contentType(ContentType.JSON).body("{\"items\":[]}").post("/api/v1/push").then().statusCode(201)
                .body("$", hasSize(0));
    }

    @Test
    void badInputIs400AndWritesNothing() {
        bad("", "Empty request body");
        bad("{\"items\":[", "Invalid JSON");
        bad("[1,2]", "Invalid JSON");
        bad("{}", "items array is required");
        bad("{\"items\":{}}", "items array is required");
        bad("{\"items\":[7]}", "items[0] must be an object");
        bad("{\"items\":[{\"payload\":1}]}", "Queue must be a string");
        bad("{\"items\":[" + item("ok", null, null, "1") + ",{\"queue\":5}]}", "items[1].queue");
        bad("{\"items\":[{\"queue\":\"\"}]}", "items[0].queue must be a non-empty string");
        bad("{\"items\":[{\"queue\":\"" + "q".repeat(256) + "\"}]}", "longer than 255");
        bad("{\"items\":[{\"queue\":\"a\\u0007\"}]}", "control characters");
        bad("{\"items\":[{\"queue\":\"q\",\"partition\":\"a/b\"}]}", "items[0].partition must not contain '/'");
        bad("{\"items\":[{\"queue\":\"q\",\"partition\":3}]}", "Partition must be a string");
        bad("{\"items\":[{\"queue\":\"q\",\"transactionId\":\"a\\nb\"}]}", "items[0].transactionId must not contain control");
        bad("{\"items\":[{\"queue\":\"q\",\"transactionId\":{}}]}", "TransactionId must be a string");
        bad("{\"items\":[{\"queue\":\"q\",\"transactionId\":\"" + "x".repeat(65536) + "\"}]}", "65535");
        bad("{\"items\":[{\"queue\":\"q\",\"traceId\":\"not-a-uuid\"}]}", "TraceId must be a valid UUID");
        bad("{\"items\":[{\"queue\":\"q\",\"traceId\":12}]}", "TraceId must be a string");
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.queues WHERE name IN ('ok', 'q')"));
        // exactly 65535 bytes is accepted (u16 length in the frame)
        JsonPath r = push("{\"items\":[{\"queue\":\"q-long-txn\",\"transactionId\":\"" + "é".repeat(32767) + "x\"}]}");
        assertEquals("queued", r.getString("[0].status"));
    }

    @Test
    void bodyOverTheLimitIs413() {
        String big = "{\"items\":[{\"queue\":\"q-big\",\"payload\":\"" + "x".repeat(13 * 1024 * 1024) + "\"}]}";
        Http.Reply tooBig = Http.post("/api/v1/push", big);
        assertEquals(413, tooBig.status());
        assertTrue(tooBig.body().contains("\"error\":\"Request body too large"), tooBig.body());
        String ok = "{\"items\":[{\"queue\":\"q-big\",\"payload\":\"" + "x".repeat(1_800_000) + "\"}]}";
        push(ok);
        assertEquals(1, Sql.count(ds, "SELECT last_offset + 1 FROM queen.log_partitions p JOIN queen.queues q"
                + " ON q.id = p.queue_id WHERE q.name = 'q-big'"));
    }

    @Test
    void concurrentPushersGetContiguousDisjointRanges() throws Exception {
        double vouchedBefore = metric("queen_push_dedup_vouched_total");
        double fullBefore = metric("queen_push_dedup_full_probes_total");
        int threads = 16;
        int requests = 25;
        int perRequest = 20;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<List<Long>>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int tt = t;
            results.add(pool.submit(() -> {
                List<Long> offsets = new ArrayList<>();
                for (int r = 0; r < requests; r++) {
                    StringBuilder b = new StringBuilder("{\"items\":[");
                    for (int i = 0; i < perRequest; i++) {
                        b.append(i == 0 ? "" : ",").append(item("p-conc", "hot", "c-" + tt + "-" + r + "-" + i,
                                "{\"t\":" + tt + ",\"r\":" + r + ",\"i\":" + i + "}"));
                    }
                    JsonNode j = pushTree(b.append("]}").toString());
                    long prev = -1;
                    for (int i = 0; i < perRequest; i++) {
                        assertEquals("queued", j.get(i).get("status").asText());
                        long off = j.get(i).get("offset").asLong();
                        assertTrue(off > prev, "item order inside a request is offset order");
                        prev = off;
                        offsets.add(off);
                    }
                }
                return offsets;
            }));
        }
        Set<Long> all = Handouts.once(results, "offset", "handed out twice");
        pool.shutdown();
        long total = (long) threads * requests * perRequest;
        assertEquals(total, all.size());
        for (long o = 0; o < total; o++) {
            assertTrue(all.contains(o), "hole at offset " + o);
        }
        // segments: disjoint, contiguous from 0, created_at non-decreasing in offset order, frames = messages
        long expectBase = 0;
        OffsetDateTime prevTs = null;
        long frames = 0;
        int segs = 0;
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT s.base_offset, s.end_offset, s.created_at, s.blob FROM queen.log_segments s"
                        + " JOIN queen.log_partitions p ON p.id = s.partition_id WHERE p.name = 'hot'"
                        + " ORDER BY s.base_offset"); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                segs++;
                assertEquals(expectBase, rs.getLong(1), "segment ranges are contiguous and disjoint");
                expectBase = rs.getLong(2) + 1;
                OffsetDateTime ts = rs.getObject(3, OffsetDateTime.class);
                assertTrue(prevTs == null || !ts.isBefore(prevTs), "created_at non-decreasing in offset order");
                prevTs = ts;
                int n = SegmentCodec.decode(rs.getBytes(4)).size();
                assertEquals(rs.getLong(2) - rs.getLong(1) + 1, n, "frame count matches the segment range");
                frames += n;
            }
        }
        assertEquals(total, frames);
        assertEquals(total - 1, Sql.count(ds, "SELECT last_offset FROM queen.log_partitions WHERE name = 'hot'"));
        assertTrue(segs < total / perRequest,
                "fusion packs concurrent requests: " + segs + " segments for " + total + " messages");
        // the broker-side dedup index covers the partition, so the SQL probe only scans what it cannot vouch
        // for: every segment after the partition's first is pushed with the broker vouching
        double vouched = metric("queen_push_dedup_vouched_total") - vouchedBefore;
        double full = metric("queen_push_dedup_full_probes_total") - fullBefore;
        assertTrue(full <= 1 && vouched >= segs - 1, "vouched " + vouched + ", full probes " + full + ", " + segs
                + " segments");
    }

    @Test
    void duplicateTransactionIdsWriteNothing() throws Exception {
        JsonPath first = push("{\"items\":[" + item("p-dedup", null, "d-1", "1") + ","
                + item("p-dedup", null, "d-1", "2") + "," + item("p-dedup", "other", "d-1", "3") + "]}");
        assertEquals("queued", first.getString("[0].status"));
        assertEquals("duplicate", first.getString("[1].status"));
        assertEquals(first.getString("[0].message_id"), first.getString("[1].message_id"));
        assertEquals("queued", first.getString("[2].status"), "same id in another partition is independent");

        JsonPath again = push("{\"items\":[" + item("p-dedup", null, "d-1", "9") + "," + item("p-dedup", null, "d-2", "4") + "]}");
        assertEquals("duplicate", again.getString("[0].status"));
        assertEquals(first.getString("[0].message_id"), again.getString("[0].message_id"));
        assertEquals("queued", again.getString("[1].status"));

        // 8 concurrent pushes of one id: exactly one queued, the rest point at the winner
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<JsonPath>> fs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            int ii = i;
            fs.add(pool.submit(() -> push("{\"items\":[" + item("p-dedup", null, "d-conc", "{\"n\":" + ii + "}") + "]}")));
        }
        int queued = 0;
        Set<String> ids = new HashSet<>();
        for (Future<JsonPath> f : fs) {
            JsonPath j = f.get();
            queued += "queued".equals(j.getString("[0].status")) ? 1 : 0;
            ids.add(j.getString("[0].message_id"));
        }
        pool.shutdown();
        assertEquals(1, queued);
        assertEquals(1, ids.size(), "every duplicate names the winner");
        assertEquals(3, frames("p-dedup", "Default").size(), "d-1, d-2, d-conc: a duplicate writes nothing");
    }

    @Test
    void aRecreatedPartitionIsNotVouchedForByTheOldIndex() throws Exception {
        assertEquals("queued", push("{\"items\":[" + item("p-recreate", null, "r-0", "0") + "]}").getString("[0].status"));
        assertEquals(200, Http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(Http.base()
                + "/api/v1/resources/queues/p-recreate")).DELETE().build()).status());
        // "another broker" recreates the partition and writes txn r-x at offset 0, unseen by this broker's index
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT status FROM queen.log_push_multi_v1(?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            ps.setArray(1, c.createArrayOf("uuid", new Object[] {java.util.UUID.fromString("00000000-0000-0000-0000-000000000001")}));
            ps.setArray(2, c.createArrayOf("text", new Object[] {"p-recreate"}));
            ps.setArray(3, c.createArrayOf("text", new Object[] {"Default"}));
            ps.setArray(4, c.createArrayOf("int4", new Object[] {1}));
            ps.setArray(5, c.createArrayOf("bytea", new byte[][] {io.queen.segment.TransactionHash.of("r-x")}));
            ps.setArray(6, c.createArrayOf("int8", new Object[] {-1L}));
            ps.setArray(7, c.createArrayOf("int4", new Object[] {0}));
            ps.setArray(8, c.createArrayOf("uuid", new Object[] {null}));
            ps.setArray(9, c.createArrayOf("bytea", new byte[][] {SegmentCodec.encode(List.of(
                    Frame.of(io.queen.segment.Uuid7.next(), "r-x", "1".getBytes(StandardCharsets.UTF_8))))}));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertEquals("queued", rs.getString(1));
            }
        }
        assertEquals("duplicate", push("{\"items\":[" + item("p-recreate", null, "r-x", "2") + "]}").getString("[0].status"),
                "the index of the deleted partition must not narrow the new partition's probe");
        assertEquals(1, frames("p-recreate", "Default").size());
    }

    @Test
    void dedupWindowBoundsTheProbe() throws Exception {
        given().contentType(ContentType.JSON).body("{\"queue\":\"p-win\",\"options\":{\"dedupWindowSeconds\":1}}")
                .post("/api/v1/configure").then().statusCode(200);
        assertEquals("queued", push("{\"items\":[" + item("p-win", null, "w-1", "1") + "]}").getString("[0].status"));
        assertEquals("duplicate", push("{\"items\":[" + item("p-win", null, "w-1", "1") + "]}").getString("[0].status"));
        Thread.sleep(2100);
        assertEquals("queued", push("{\"items\":[" + item("p-win", null, "w-1", "1") + "]}").getString("[0].status"),
                "beyond the window a repeat is accepted again");

        given().contentType(ContentType.JSON).body("{\"queue\":\"p-nowin\",\"options\":{\"dedupWindowSeconds\":0}}")
                .post("/api/v1/configure").then().statusCode(200);
        push("{\"items\":[" + item("p-nowin", null, "n-1", "1") + "]}");
        assertEquals("queued", push("{\"items\":[" + item("p-nowin", null, "n-1", "1") + "]}").getString("[0].status"),
                "window 0 disables the probe");
        assertEquals(2, frames("p-nowin", "Default").size());
    }

    @Test
    void failedPushTransactionLeavesNoHoleAndNoPartialSegment() {
        push("{\"items\":[" + item("p-fail", "boom", "f-0", "0") + "]}");
        Sql.exec(ds, """
                CREATE OR REPLACE FUNCTION queen.test_fail_boom() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                  IF (SELECT name FROM queen.log_partitions WHERE id = NEW.partition_id) = 'boom' THEN
                    RAISE EXCEPTION 'injected failure';
                  END IF;
                  RETURN NEW;
                END $$;
                CREATE TRIGGER test_fail_boom BEFORE INSERT ON queen.log_txns FOR EACH ROW
                  EXECUTE FUNCTION queen.test_fail_boom();""");
        try {
            JsonPath r = given().contentType(ContentType.JSON)
                    .body("{\"items\":[" + item("p-fail", "boom", "f-1", "1") + "," + item("p-fail", "boom", "f-2", "2") + "]}")
                    .post("/api/v1/push").then().statusCode(500).body("error", containsString("Internal error"))
                    .extract().jsonPath();
            assertEquals("failed", r.getString("items[0].status"));
            assertEquals("failed", r.getString("items[1].status"));
            // the database's text stays in the log; the answer names the request id the log line carries
            assertFalse(r.getString("error").contains("injected failure"), r.prettify());
            assertTrue(r.getString("items[1].error").contains("requestId"), r.prettify());
        } finally {
            Sql.exec(ds, "DROP TRIGGER test_fail_boom ON queen.log_txns");
        }
        assertEquals(0, Sql.count(ds, "SELECT last_offset FROM queen.log_partitions WHERE name = 'boom'"),
                "the allocator bump rolled back");
        assertEquals(1, Sql.count(ds, "SELECT count(*) FROM queen.log_segments s JOIN queen.log_partitions p"
                + " ON p.id = s.partition_id WHERE p.name = 'boom'"));
        JsonPath retry = push("{\"items\":[" + item("p-fail", "boom", "f-1", "1") + "," + item("p-fail", "boom", "f-2", "2") + "]}");
        assertEquals(1, retry.getLong("[0].offset"), "no hole: the retry continues at the next offset");
        assertEquals(2, retry.getLong("[1].offset"));
    }

    private static void bad(String body, String message) {
        given().contentType(ContentType.JSON).body(body).post("/api/v1/push").then().statusCode(400)
                .body("error", containsString(message));
    }

    /** The push body is read whole on the event loop for HTTP/1.x; HTTP/2 (h2c, what a JDK client speaks by
     *  default) takes the standard path and must work just the same, empty body included. */
    @Test
    void pushOverHttp2() throws Exception {
        java.net.http.HttpClient h2 = java.net.http.HttpClient.newBuilder()
                .version(java.net.http.HttpClient.Version.HTTP_2).build();
        // the first request upgrades the connection (h2c); the pushes then travel as HTTP/2 streams
        h2.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(Http.base() + "/health")).GET().build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        for (int i = 0; i < 3; i++) {
            String body = "{\"items\":[{\"queue\":\"h2\",\"transactionId\":\"h2-" + i + "\",\"payload\":{\"n\":" + i
                    + "}}]}";
            var r = h2.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(Http.base() + "/api/v1/push"))
                    .header("Content-Type", "application/json")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(java.net.http.HttpClient.Version.HTTP_2, r.version(), "the push went over HTTP/2");
            assertEquals(201, r.statusCode(), r.body());
            assertTrue(r.body().contains("\"queued\""), r.body());
        }
        var empty = h2.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(Http.base() + "/api/v1/push"))
                .header("Content-Type", "application/json").POST(java.net.http.HttpRequest.BodyPublishers.noBody())
                .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(400, empty.statusCode(), empty.body());
    }
}
