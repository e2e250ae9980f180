package io.queen.groups;

import static io.queen.testing.Api.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.status.KnownDataSet;
import io.queen.status.OnKnownDataSet;
import io.queen.testing.Http;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.queen.testing.FreshDatabase;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Consumer-group views (list, lagging, one group) and {@code POST /api/v1/stats/refresh} on {@link KnownDataSet}:
 * cursors p0 queue mode committed 3 (lag 6, leased), p1 queue mode committed 2 (lag 7, next offset in a segment
 * 2 h old), p3 g1 committed 9 (lag 0), p3 g2 committed -1 (lag 10, leased), e0 g1 committed 4 (lag 0), e1 queue
 * mode committed -1 (lag 5). Every group reads its queues from the start ('all'), so in a partition it has not
 * touched every live message is unread: st-orders p0..p3 and st-events e0..e2 hold 10 and 5 each.
 */
@QuarkusTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class ConsumerGroupViewTest extends OnKnownDataSet {
    @Test
    void listHasOneEntryPerGroupAndQueueWithExactLag() {
        JsonNode arr = KnownDataSet.get("/api/v1/consumer-groups");
        assertTrue(arr.isArray());
        Map<String, JsonNode> by = new HashMap<>();
        arr.forEach(e -> by.put(e.get("name").asText() + "@" + e.get("queueName").asText(), e));
        assertEquals(5, by.size(), by.keySet().toString());

        JsonNode qmOrders = by.get("__QUEUE_MODE__@st-orders");
        assertEquals(2, qmOrders.get("members").asInt());
        assertEquals(4, qmOrders.get("partitionsWithLag").asInt());
        assertEquals(6 + 7 + 10 + 10, qmOrders.get("totalLag").asLong());
        assertTrue(qmOrders.get("maxTimeLag").asDouble() >= 7200 && qmOrders.get("maxTimeLag").asDouble() < 7300);
        assertEquals("Lagging", qmOrders.get("state").asText());
        assertEquals(1, qmOrders.get("activeLeases").asInt());
        assertEquals("st-orders", qmOrders.get("topics").get(0).asText());
        assertEquals("segments", qmOrders.get("storage").asText());

        JsonNode g2 = by.get("g2@st-orders");
        assertEquals(1, g2.get("members").asInt());
        assertEquals(4, g2.get("partitionsWithLag").asInt());
        assertEquals(40, g2.get("totalLag").asLong());
        assertEquals("Lagging", g2.get("state").asText(), "p1's unread start is 2 h old");
        assertEquals("all", g2.get("subscriptionMode").asText());
        assertTrue(g2.hasNonNull("subscriptionTimestamp"));

        // g1 acked all of p3 and never touched p0..p2
        JsonNode g1Orders = by.get("g1@st-orders");
        assertEquals(30, g1Orders.get("totalLag").asLong());
        assertEquals(3, g1Orders.get("partitionsWithLag").asInt());
        assertEquals(1, g1Orders.get("members").asInt());
        assertEquals(10, by.get("g1@st-events").get("totalLag").asLong());
        assertEquals(15, by.get("__QUEUE_MODE__@st-events").get("totalLag").asLong());
    }

    @Test
    void laggingFiltersByTimeLagLargestFirst() {
        JsonNode old = KnownDataSet.get("/api/v1/consumer-groups/lagging?minLagSeconds=3600");
        // p1's 2 h old segment is the next to read for queue mode (offset 3) and for g1 and g2 (offset 0, untouched)
        List<String> oldRows = new ArrayList<>();
        old.forEach(r -> oldRows.add(r.get("consumer_group").asText() + "/" + r.get("partition_name").asText() + "="
                + r.get("offset_lag").asLong()));
        assertEquals(List.of("g1/p1=10", "g2/p1=10", "__QUEUE_MODE__/p1=7"), oldRows);
        JsonNode p1 = old.get(2);
        assertEquals("__QUEUE_MODE__", p1.get("consumer_group").asText());
        assertEquals("st-orders", p1.get("queue_name").asText());
        assertEquals("p1", p1.get("partition_name").asText());
        assertEquals(KnownDataSet.pid(ds, "st-orders", "p1"), p1.get("partition_id").asText());
        assertEquals(7, p1.get("offset_lag").asLong());
        double secs = p1.get("time_lag_seconds").asDouble();
        assertTrue(secs >= 7200 && secs < 7300, "the segment holding offset 3 is 2 h old: " + secs);
        assertEquals(secs / 3600, p1.get("lag_hours").asDouble(), 0.01);
        assertTrue(p1.get("worker_id").isNull(), "no live lease on p1");
        assertTrue(p1.get("last_consumed_at").isNull());

        JsonNode all = KnownDataSet.get("/api/v1/consumer-groups/lagging?minLagSeconds=0");
        List<String> rows = new ArrayList<>();
        all.forEach(r -> rows.add(r.get("consumer_group").asText() + "/" + r.get("partition_name").asText() + "="
                + r.get("offset_lag").asLong()));
        assertEquals(16, rows.size(), rows.toString());
        assertEquals(List.of("g1/p1=10", "g2/p1=10", "__QUEUE_MODE__/p1=7"), rows.subList(0, 3),
                "largest time lag first");
        assertTrue(rows.containsAll(List.of("__QUEUE_MODE__/p0=6", "g2/p3=10", "__QUEUE_MODE__/e1=5", "g1/p2=10",
                "g1/e2=5", "__QUEUE_MODE__/e0=5")), rows.toString());
        assertEquals(2, KnownDataSet.get("/api/v1/consumer-groups/lagging?minLagSeconds=0&limit=2").size());
        assertEquals(3, KnownDataSet.get("/api/v1/consumer-groups/lagging").size(), "default 3600 s");
    }

    @Test
    void laggingRejectsMalformedValues() {
        for (String q : List.of("minLagSeconds=abc", "minLagSeconds=-5", "minLagSeconds=NaN", "limit=zero")) {
            Http.Reply r = Http.get("/api/v1/consumer-groups/lagging?" + q);
            assertEquals(400, r.status(), q + " -> " + r.body());
            assertTrue(json(r.body()).get("error").asText().contains(q.substring(0, q.indexOf('='))), r.body());
        }
    }

    @Test
    void oneGroupIsKeyedByQueue() {
        JsonNode g2 = KnownDataSet.get("/api/v1/consumer-groups/g2");
        assertEquals(List.of("st-orders"), fieldNames(g2));
        JsonNode parts = g2.get("st-orders").get("partitions");
        assertEquals(4, parts.size(), "every partition of the queue, touched or not");
        JsonNode p0 = parts.get(0);
        assertEquals("p0", p0.get("partition").asText());
        assertEquals(10, p0.get("offsetLag").asLong());
        assertEquals(-1, p0.get("committedOffset").asLong(), "where its first pop would start: the beginning");
        assertFalse(p0.get("leaseActive").asBoolean());
        assertEquals(0, p0.get("totalConsumed").asLong());
        JsonNode p3 = parts.get(3);
        assertEquals("p3", p3.get("partition").asText());
        assertEquals(10, p3.get("offsetLag").asLong());
        assertEquals(-1, p3.get("committedOffset").asLong());
        assertTrue(p3.get("leaseActive").asBoolean());
        assertFalse(p3.get("workerId").isNull());
        assertTrue(p3.get("timeLagSeconds").asDouble() < 600);

        JsonNode g1 = KnownDataSet.get("/api/v1/consumer-groups/g1");
        assertEquals(List.of("st-events", "st-orders"), fieldNames(g1));
        JsonNode e0 = g1.get("st-events").get("partitions").get(0);
        assertEquals(0, e0.get("offsetLag").asLong());
        assertEquals(5, e0.get("totalConsumed").asLong());
        assertFalse(e0.get("leaseActive").asBoolean());
        assertTrue(e0.get("workerId").isNull());

        assertEquals("{}", KnownDataSet.get("/api/v1/consumer-groups/nobody").toString());
        // a NUL cannot name anything: refused before any lookup, naming the path parameter
        Http.Reply nul = Http.get("/api/v1/consumer-groups/a%00b");
        assertEquals(400, nul.status(), nul.body());
        assertTrue(nul.body().contains("group"), nul.body());
    }

    @Test
    void existingGroupAdministrationStillRoutes() {
        // the views share /api/v1/consumer-groups with the administration routes: both must still be reached
        Http.Reply seek = Http.post("/api/v1/consumer-groups/g-none/queues/st-orders/seek", "{}");
        assertEquals(400, seek.status(), seek.body());
        Http.Reply del = Http.delete("/api/v1/consumer-groups/g-none?deleteMetadata=true");
        assertEquals(200, del.status(), del.body());
        assertEquals(0, json(del.body()).get("deletedPartitions").asInt());
    }

    @Test
    void statsRefreshIsANoOpSuccess() {
        for (String body : List.of("", "{}")) {
            Http.Reply r = Http.post("/api/v1/stats/refresh", body);
            assertEquals(200, r.status(), r.body());
            assertTrue(json(r.body()).get("success").asBoolean());
        }
        assertEquals(400, Http.post("/api/v1/stats/refresh", "[1]").status());
    }

    static List<String> fieldNames(JsonNode o) {
        List<String> out = new ArrayList<>();
        o.fieldNames().forEachRemaining(out::add);
        out.sort(String::compareTo);
        return out;
    }
}
