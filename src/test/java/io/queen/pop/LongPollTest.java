package io.queen.pop;

import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.configure;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static io.queen.testing.Popped.ns;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.Api;
import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Long poll through HTTP: a parked pop wakes on a push, times out with 204, and minPopWaitTime holds. The pops
 * run on a {@link DrivenClock}: a parked pop is the signal the test waits on.
 */
@QuarkusTest
@TestProfile(DrivenClock.Profile.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class LongPollTest {
    @Inject
    DrivenClock clock;

    @Test
    void longPollWakesOnAPushAndTimesOutWith204() throws Exception {
        ConcurrentHashMap<String, Long> t = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<JsonNode> waiting = pool.submit(() -> pop("/api/v1/pop/queue/lp/partition/Default?wait=true&timeout=20000"));
        clock.awaitParked(1);
        long pushed = System.nanoTime();
        pushN("lp", "Default", "lp", 0, 1);
        JsonNode got = waiting.get();
        long latencyMs = (System.nanoTime() - pushed) / 1_000_000;
        pool.shutdown();
        assertEquals(List.of(0), ns(got));
        assertTrue(latencyMs < 15000, "woken by the push, not by the 20 s timeout: " + latencyMs + " ms");
        t.put("latency", latencyMs);
        long start = System.nanoTime();
        assertEquals(204, Http.get("/api/v1/pop/queue/lp-empty/partition/Default?wait=true&timeout=700").status());
        assertTrue((System.nanoTime() - start) / 1_000_000 >= 650, "held until the timeout");
    }

    @Test
    void minPopWaitTimeHoldsAnUnderFullBatchUntilItFillsOrTheHoldEnds() throws Exception {
        double holdsBefore = Api.metric("queen_pop_holds_total");
        configure("hold-fill", "{\"minPopWaitTime\":20000}");
        configure("hold-none", "{}");
        configure("hold-short", "{\"minPopWaitTime\":300}");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        // 1 of 5 pending: the pop holds; 4 more arrive one by one and the full batch is answered at once
        pushN("hold-fill", "P", "f", 0, 1);
        pushN("hold-none", "P", "n", 0, 1);
        Future<JsonNode> fill = pool.submit(() -> pop("/api/v1/pop/queue/hold-fill/partition/P?batch=5&wait=true&timeout=30000"));
        Future<JsonNode> none = pool.submit(() -> pop("/api/v1/pop/queue/hold-none/partition/P?batch=5&wait=true&timeout=30000"));
        clock.awaitParked(1);
        Await.until("the pop without a hold answered", none::isDone, Duration.ofSeconds(30));
        for (int n = 1; n < 5; n++) {
            pushN("hold-fill", "P", "f", n, 1);
            pushN("hold-none", "P", "n", n, 1);
        }
        long start = System.nanoTime();
        assertEquals(List.of(0, 1, 2, 3, 4), ns(fill.get()));
        assertTrue((System.nanoTime() - start) / 1_000_000 < 15000, "answered when the batch filled, not at the hold's end");
        assertEquals(List.of(0), ns(none.get()), "without minPopWaitTime the pop answers what is there");
        pool.shutdown();
        // the hold ends after minPopWaitTime with what there is, long before the pop's timeout
        pushN("hold-short", "P", "s", 0, 2);
        start = System.nanoTime();
        assertEquals(List.of(0, 1), ns(pop("/api/v1/pop/queue/hold-short/partition/P?batch=5&wait=true&timeout=30000")));
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ms >= 250 && ms < 15000, "held about 300 ms: " + ms);
        // no hold without a long poll or with a batch of one, nor on an empty queue (it long-polls as usual)
        pushN("hold-short", "Q", "q", 0, 2);
        JsonNode one = pop("/api/v1/pop/queue/hold-short/partition/Q?batch=1&wait=true&timeout=30000");
        assertEquals(List.of(0), ns(one));
        ackAll(one, "completed", null);
        assertEquals(List.of(1), ns(pop("/api/v1/pop/queue/hold-short/partition/Q?batch=5")));
        assertEquals(2.0, Api.metric("queen_pop_holds_total") - holdsBefore, "held: hold-fill and hold-short/P only");
    }
}
