package io.queen.status;

import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.json;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.queen.analytics.MetricsFlusher;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import jakarta.inject.Inject;
import java.time.Instant;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The history of GET /api/v1/status: pending messages and dead letters are what the queue held when the minute was
 * sampled, whatever happened since (a bulk replay empties the dead letters and fills pending again, and the sampled
 * minute still reads as it was); a bucket still running says so ({@code complete:false}).
 */
@QuarkusTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class StatusHistoryTest {
    @Inject
    MetricsFlusher flusher;

    static JsonNode status() {
        Http.Reply r = Http.get("/api/v1/status?queue=hist");
        assertEquals(200, r.status(), r.body());
        return json(r.body());
    }

    /** The one point of the series that holds a sample. */
    static JsonNode sampled(JsonNode status) {
        JsonNode found = null;
        for (JsonNode p : status.get("throughput")) {
            if (!p.get("deadLetters").isNull()) {
                assertTrue(found == null, "one sampled minute: " + status.get("throughput"));
                found = p;
            }
        }
        assertNotNull(found, "a sampled minute: " + status.get("throughput"));
        return found;
    }

    @Test
    @Order(1)  // the first flush of the class: it samples its minute
    void historyIsWhatWasTrueThenAfterABulkReplay() {
        pushN("hist", "p0", "h", 0, 30);
        for (int i = 0; i < 25; i++) {  // a failed ack files its message and gives the rest of the lease back
            ackAll(pop("/api/v1/pop/queue/hist?batch=1"), "dlq", null);
        }
        JsonNode before = status();
        assertEquals(25, before.get("deadLetterQueue").get("totalMessages").asInt(), before.toString());
        assertEquals(5, before.get("messages").get("pending").asInt(), before.toString());

        flusher.flushNow();  // the minute's sample: 5 pending, 25 dead letters
        JsonNode then = sampled(status());
        assertEquals(25, then.get("deadLetters").asLong(), then.toString());
        assertEquals(5, then.get("pending").asLong(), then.toString());

        Http.Reply replay = Http.post("/api/v1/dlq/replay", "{\"queue\":\"hist\"}");
        assertEquals(200, replay.status(), replay.body());
        assertEquals(25, json(replay.body()).get("replayed").asInt(), replay.body());
        flusher.flushNow();  // the same minute: sampled already, nothing changes

        JsonNode after = status();
        assertEquals(0, after.get("deadLetterQueue").get("totalMessages").asInt(), after.toString());
        assertEquals(30, after.get("messages").get("pending").asInt(), after.toString());
        JsonNode still = null;
        for (JsonNode p : after.get("throughput")) {
            if (p.get("timestamp").equals(then.get("timestamp"))) {
                still = p;
            }
        }
        assertNotNull(still, after.toString());
        assertEquals(25, still.get("deadLetters").asLong(), "the dead letters of that minute, as they were: " + still);
        assertEquals(5, still.get("pending").asLong(), "the pending messages of that minute, as they were: " + still);
    }

    @Test
    @Order(2)
    void theRunningBucketSaysItIsIncomplete() {
        pushN("hist-rate", "p0", "r", 0, 3);
        flusher.flushNow();
        JsonNode st = status();
        long to = Instant.parse(st.get("timeRange").get("to").asText()).toEpochMilli();
        long width = st.get("bucketMinutes").asLong() * 60_000L;
        JsonNode points = st.get("throughput");
        assertFalse(points.isEmpty(), st.toString());
        for (JsonNode p : points) {
            long at = Instant.parse(p.get("timestamp").asText()).toEpochMilli();
            assertTrue(p.get("complete").isBoolean(), p.toString());
            if (at + width > to + 1000) {
                assertFalse(p.get("complete").asBoolean(), "the bucket holding the window's end is running: " + p);
            } else if (at + width <= to - 1000) {
                assertTrue(p.get("complete").asBoolean(), "an earlier bucket is complete: " + p);
            }
        }
        JsonNode last = points.get(points.size() - 1);
        assertFalse(last.get("complete").asBoolean(), "the series ends with the running minute: " + last);
    }
}
