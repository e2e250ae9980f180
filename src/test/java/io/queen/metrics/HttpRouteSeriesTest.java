package io.queen.metrics;

import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The HTTP request histograms are labelled by route template, never by a queue name in the path: 50 queues pushed,
 * popped and read by name give the series of 5 queues; every series has the fixed bucket set.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class HttpRouteSeriesTest {
    private static void traffic(int from, int to) {
        for (int i = from; i < to; i++) {
            String q = "route-" + i;
            pushN(q, "p" + i, "m", 0, 1);
            assertEquals(200, Http.get("/api/v1/pop/queue/" + q + "/partition/p" + i + "?batch=1").status());
            Http.get("/api/v1/pop/queue/" + q + "?batch=1");
            Http.get("/api/v1/resources/queues/" + q);
            Http.get("/console/assets/missing-" + i + ".js");
        }
    }

    private static List<String> series(String suffix) {
        return Http.get("/metrics/prometheus").body().lines()
                .filter(l -> l.startsWith("http_server_requests_seconds" + suffix + "{")).toList();
    }

    @Test
    void fiftyQueuesByNameGiveTheSeriesOfFive() {
        series("_count");  // the scrape's own series exists from here on
        traffic(0, 5);
        List<String> few = series("_count");
        traffic(5, 50);
        List<String> many = series("_count");
        assertEquals(few.size(), many.size(), "no series per queue name: " + many);
        assertTrue(many.stream().anyMatch(l -> l.contains("uri=\"/api/v1/pop/queue/{queue}/partition/{partition}\"")),
                "pop by partition under its template: " + many);
        assertTrue(many.stream().noneMatch(l -> l.contains("route-")), "no queue name in a label");
        long bucketsPerSeries = series("_bucket").size() / many.size();
        assertEquals(LatencyBuckets.BOUNDS_NANOS.length + 1, bucketsPerSeries, "the fixed buckets and +Inf");
    }
}
