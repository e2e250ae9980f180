package io.queen.admin;

import static io.queen.testing.Api.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.queen.status.KnownDataSet;
import io.queen.testing.Http;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.queen.testing.FreshDatabase;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Consumer-group views (list, lagging, one group) and {@code POST /api/v1/stats/refresh} on {@link KnownDataSet}:
 * cursors p0 queue mode committed 3 (lag 6, leased), p1 queue mode committed 2 (lag 7, next offset in a segment
 * 2 h old), p3 g1 committed 9 (lag 0), p3 g2 committed -1 (lag 10, leased), e0 g1 committed 4 (lag 0), e1 queue
 * mode committed -1 (lag 5).
 */
@QuarkusTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class ConsumerGroupViewTest {
    @Inject
    AgroalDataSource ds;

    boolean built;

    // once per class, but after Quarkus has set the test port (a @BeforeAll runs before it)
    @BeforeEach
    void dataSet() {
        if (!built) {
            KnownDataSet.build(ds);
            built = true;
        }
    }

    @Test
    void listHasOneEntryPerGroupAndQueueWithExactLag() {
        JsonNode arr = KnownDataSet.get("/api/v1/consumer-groups");
        assertTrue(arr.isArray());
        Map<String, JsonNode> by = new HashMap<>();
        arr.forEach(e -> by.put(e.get("name").asText() + "@" + e.get("queueName").asText(), e));
        assertEquals(5, by.size(), by.keySet().toString());

        JsonNode qmOrders = by.get("__QUEUE_MODE__@st-orders");
        assertEquals(2, qmOrders.get("members").asInt());
        assertEquals(2, qmOrders.get("partitionsWithLag").asInt());
        assertEquals(13, qmOrders.get("totalLag").asLong());
        assertTrue(qmOrders.get("maxTimeLag").asDouble() >= 7200 && qmOrders.get("maxTimeLag").asDouble() < 7300);
        assertEquals("Lagging", qmOrders.get("state").asText());
        assertEquals(1, qmOrders.get("activeLeases").asInt());
        assertEquals("st-orders", qmOrders.get("topics").get(0).asText());
        assertEquals("segments", qmOrders.get("storage").asText());

        JsonNode g2 = by.get("g2@st-orders");
        assertEquals(1, g2.get("members").asInt());
        assertEquals(1, g2.get("partitionsWithLag").asInt());
        assertEquals(10, g2.get("totalLag").asLong());
        assertEquals("Stable", g2.get("state").asText());
        assertEquals("all", g2.get("subscriptionMode").asText());
        assertTrue(g2.hasNonNull("subscriptionTimestamp"));

        JsonNode g1Orders = by.get("g1@st-orders");
        assertEquals(0, g1Orders.get("totalLag").asLong());
        assertEquals(0, g1Orders.get("partitionsWithLag").asInt());
        assertEquals(0, g1Orders.get("maxTimeLag").asDouble(), 1e-9);
        assertEquals(0, by.get("g1@st-events").get("totalLag").asLong());
        assertEquals(5, by.get("__QUEUE_MODE__@st-events").get("totalLag").asLong());
    }

    @Test
    void laggingFiltersByTimeLagLargestFirst() {
        JsonNode old = KnownDataSet.get("/api/v1/consumer-groups/lagging?minLagSeconds=3600");
        assertEquals(1, old.size(), old.toString());
        JsonNode p1 = old.get(0);
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
        assertEquals(4, rows.size(), rows.toString());
        assertEquals("__QUEUE_MODE__/p1=7", rows.get(0), "largest time lag first");
        assertTrue(rows.containsAll(List.of("__QUEUE_MODE__/p0=6", "g2/p3=10", "__QUEUE_MODE__/e1=5")),
                rows.toString());
        assertEquals(2, KnownDataSet.get("/api/v1/consumer-groups/lagging?minLagSeconds=0&limit=2").size());
        assertEquals(1, KnownDataSet.get("/api/v1/consumer-groups/lagging").size(), "default 3600 s");
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
        assertEquals(1, parts.size());
        JsonNode p3 = parts.get(0);
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
