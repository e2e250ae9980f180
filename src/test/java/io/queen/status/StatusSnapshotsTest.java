package io.queen.status;

import static io.queen.testing.Api.json;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Snapshots of costly status answers, with every answer counted as costly (threshold 1 ms) and a fast refresher:
 * a kept overview is served as computed (a push right after it is not yet counted, statsAge says how old), the
 * refresher brings it up to date by itself, stats/refresh drops it at once, and an unknown queue's 404 is never
 * kept. A queue's totals say when they were read ({@code asOf}): every push answered before then is in them.
 */
@QuarkusTest
// refresh 1 s: a snapshot is served for up to 2 s, long enough to see one on a busy machine
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS, initArgs = {
        @ResourceArg(name = "queen.status.snapshot-threshold-ms", value = "1"),
        @ResourceArg(name = "queen.status.snapshot-refresh-ms", value = "1000")})
class StatusSnapshotsTest {
    @Inject
    StatusSnapshots snapshots;

    static long total(String path) {
        return json(Http.get(path).body()).get("messages").get("total").asLong();
    }

    @Test
    void costlyAnswersAreServedFromSnapshotsRefreshedInTheBackground() throws Exception {
        pushN("snap", "p0", "a", 0, 5);
        assertEquals(5, total("/api/v1/resources/overview"));
        assertTrue(snapshots.size() >= 1, "the overview was kept");
        pushN("snap", "p0", "a", 5, 3);
        JsonNode served = json(Http.get("/api/v1/resources/overview").body());
        // served from the snapshot unless the refresher ran in between; either way statsAge is consistent
        long seen = served.get("messages").get("total").asLong();
        assertTrue(seen == 5 || seen == 8, served.toString());
        assertTrue(served.get("statsAge").asLong() >= 0 && served.get("statsAge").asLong() <= 2, served.toString());

        Await.within(() -> total("/api/v1/resources/overview") == 8, Duration.ofSeconds(10));
        assertEquals(8, total("/api/v1/resources/overview"), "the refresher updated the snapshot by itself");

        pushN("snap", "p0", "a", 8, 2);
        Http.Reply r = Http.post("/api/v1/stats/refresh", "{}");
        assertEquals(200, r.status(), r.body());
        assertTrue(json(r.body()).get("dropped").asInt() >= 1, r.body());
        JsonNode fresh = json(Http.get("/api/v1/resources/overview").body());
        assertEquals(10, fresh.get("messages").get("total").asLong(), "dropped: computed afresh");
        assertEquals(0, fresh.get("statsAge").asLong());
        assertEquals(10, json(Http.get("/api/v1/resources/queues/snap").body()).get("totals").get("total").asLong());

        int kept = snapshots.size();
        assertEquals(404, Http.get("/api/v1/resources/queues/nope").status());
        assertEquals(404, Http.get("/api/v1/resources/queues/nope").status());
        assertEquals(kept, snapshots.size(), "a 404 is never kept");
    }

    @Test
    void queueTotalsSayWhenTheyWereReadAndHoldEveryPushAnsweredBefore() throws Exception {
        // (when each push call was answered, messages pushed by then)
        java.util.List<long[]> answered = new java.util.ArrayList<>();
        long pushed = 0;
        for (int round = 0; round < 6; round++) {
            pushN("asof", "p0", "r" + round, 0, 3);
            pushed += 3;
            answered.add(new long[] {System.currentTimeMillis(), pushed});
            JsonNode q = json(Http.get("/api/v1/resources/queues/asof").body());
            long asOf = java.time.Instant.parse(q.get("asOf").asText()).toEpochMilli();
            long total = q.get("totals").get("total").asLong();
            long before = 0;
            for (long[] a : answered) {
                if (a[0] < asOf) {
                    before = a[1];
                }
            }
            assertTrue(total >= before && total <= pushed, "totals hold every push answered before asOf: " + q);
            assertTrue(asOf <= System.currentTimeMillis(), q.toString());
            assertTrue(q.get("statsAge").asLong() * 1000 <= System.currentTimeMillis() - asOf + 1000, q.toString());
        }
        assertEquals(200, Http.post("/api/v1/stats/refresh", "{}").status());
        JsonNode fresh = json(Http.get("/api/v1/resources/queues/asof").body());
        assertTrue(java.time.Instant.parse(fresh.get("asOf").asText()).toEpochMilli() >= answered.get(5)[0],
                fresh.toString());
        assertEquals(pushed, fresh.get("totals").get("total").asLong(), "read after the last push was answered: exact");
    }
}
