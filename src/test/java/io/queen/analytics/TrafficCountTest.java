package io.queen.analytics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every path that writes or acknowledges messages is counted once in the per-minute counters: pushes, stream cycles
 * (sink pushes and the source ack), transactions, dead-letter replays and spool drains. The status series starts
 * at the first minute a broker recorded, and counts dead letters from the table, before any flush. All traffic is
 * in one test method, on a fresh database: the tenant's totals are exact only if nothing else writes.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class TrafficCountTest {
    @Inject
    MetricsFlusher flusher;
    @Inject
    AgroalDataSource ds;

    static JsonNode ok(Http.Reply r) {
        assertEquals(200, r.status(), r.body());
        return Api.json(r.body());
    }

    static long sum(JsonNode series, String field) {
        long n = 0;
        for (JsonNode p : series) {
            n += p.get(field).asLong();
        }
        return n;
    }

    @Test
    void everyWritingOrAckingPathCountsOnceAndTheSeriesHasNoInventedPast() throws Exception {
        // push: 5
        Api.pushN("tc-src", "p", "s", 0, 5);
        // a stream cycle: 3 sink messages, the 5 source messages acknowledged
        String query = ok(Http.post("/streams/v1/queries", "{\"name\":\"tc\",\"source_queue\":\"tc-src\","
                + "\"sink_queue\":\"tc-sink\",\"config_hash\":\"h\"}")).get("query_id").asText();
        JsonNode popped = Api.pop("/api/v1/pop/queue/tc-src/partition/p?wait=false&batch=5&consumerGroup=sg");
        List<JsonNode> ms = Api.messages(popped);
        assertEquals(5, ms.size());
        ObjectNode cycle = Api.M.createObjectNode().put("query_id", query)
                .put("partition_id", ms.get(0).get("partitionId").asText()).put("consumer_group", "sg");
        for (int i = 0; i < 3; i++) {
            cycle.withArray("push_items").addObject().put("queue", "tc-sink").put("partition", "out")
                    .put("transactionId", "k" + i).put("payload", i);
        }
        cycle.putObject("ack").put("transactionId", ms.get(4).get("transactionId").asText())
                .put("leaseId", popped.get("leaseId").asText()).put("status", "completed").put("count", 5);
        JsonNode c = ok(Http.post("/streams/v1/cycle", cycle.toString()));
        assertTrue(c.get("success").asBoolean(), c.toString());
        // a transaction: 2
        JsonNode tx = ok(Http.post("/api/v1/transaction", "{\"operations\":[{\"type\":\"push\",\"items\":["
                + "{\"queue\":\"tc-tx\",\"payload\":1},{\"queue\":\"tc-tx\",\"payload\":2}]}]}"));
        assertTrue(tx.get("success").asBoolean(), tx.toString());
        // a dead letter (1 pushed), seen in the status series before any flush, then replayed: 1 more written
        Api.configure("tc-dlq", "{\"retryLimit\":0}");
        Api.pushN("tc-dlq", "p", "d", 0, 1);
        JsonNode d = Api.pop("/api/v1/pop/queue/tc-dlq/partition/p?wait=false");
        assertTrue(Api.ackAll(d, "failed", null).get(0).get("dlq").asBoolean());
        JsonNode before = ok(Http.get("/api/v1/status"));
        assertEquals(1, before.get("deadLetterQueue").get("totalMessages").asLong());
        assertEquals(1, sum(before.get("throughput"), "deadLettered"), "filed this minute, counted before a flush");
        String dlqId = Sql.one(ds, "SELECT id FROM queen.log_dlq");
        assertEquals("moved", ok(Http.post("/api/v1/dlq/" + dlqId + "/replay", "")).get("result").asText());
        // two pushes buffered during push maintenance, counted when the drain writes them: 2
        ok(Http.post("/api/v1/system/maintenance", "{\"enabled\":true}"));
        Http.Reply buffered = Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"tc-spool\",\"payload\":1},"
                + "{\"queue\":\"tc-spool\",\"payload\":2}]}");
        assertEquals(201, buffered.status(), buffered.body());
        assertEquals("buffered", Api.json(buffered.body()).get(0).get("status").asText());
        ok(Http.post("/api/v1/system/maintenance", "{\"enabled\":false}"));
        Await.until("the spool drains",
                () -> ok(Http.get("/api/v1/system/maintenance")).get("bufferedMessages").asLong() == 0,
                Duration.ofSeconds(60));

        long written = Sql.count(ds, "SELECT COALESCE(sum(last_offset + 1), 0) FROM queen.log_partitions");
        assertEquals(5 + 3 + 2 + 1 + 1 + 2, written, "what the log holds");
        flusher.flushNow();
        String to = Instant.now().plusSeconds(60).toString();
        JsonNode status = ok(Http.get("/api/v1/status?to=" + to));
        JsonNode series = status.get("throughput");
        assertEquals(written, sum(series, "ingested"), "every written message counted once: " + series);
        assertEquals(5, sum(series, "processed"), "the cycle's ack of 5");
        // the series starts at the first minute a broker recorded, not an hour of zeros before the database
        String first = Sql.one(ds, "SELECT to_char(min(bucket) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI')"
                + " FROM queen.metrics_broker_minute");
        assertTrue(series.get(0).get("timestamp").asText().startsWith(first), first + " vs " + series.get(0));
        assertTrue(series.size() <= 10, "a fresh database has minutes of history, not an hour: " + series.size());
    }
}
