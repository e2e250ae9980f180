package io.queen.pop;

import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.configure;
import static io.queen.testing.Api.messages;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static io.queen.testing.Popped.ns;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Pop through HTTP: the answer's shape, empty pops, auto-ack, delays and windows, wildcard claims. */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class PopTest {
    @Inject
    AgroalDataSource ds;
    @Inject
    io.queen.analytics.MetricsFlusher flusher;

    /**
     * Pops of names that exist nowhere, each with its own group, long-polling or not, answer 204 and take no metric
     * label from the queues that exist ({@code queen.metrics.max-queues} of them get one).
     */
    @Test
    void popsOfNamesThatExistNowhereTakeNoLabel() {
        for (int i = 0; i < 20; i++) {
            String q = "/api/v1/pop/queue/made-up-" + i + "?consumerGroup=g" + i;
            assertEquals(204, Http.get(i % 2 == 0 ? q : q + "&wait=true&timeout=50&batch=5").status());
        }
        pushN("labelled", "P1", "l", 0, 1);
        assertEquals(1, messages(pop("/api/v1/pop/queue/labelled?consumerGroup=g0")).size());
        flusher.flushNow();
        String scrape = Http.get("/metrics/prometheus").body();
        assertFalse(scrape.contains("queue=\"made-up-"), "a name that exists nowhere got a label");
        assertTrue(scrape.contains("queue=\"labelled\""));
    }

    @Test
    void popShapeAndNothingIs204() {
        assertEquals(204, Http.get("/api/v1/pop/queue/nope/partition/Default").status());
        assertEquals(204, Http.get("/api/v1/pop/queue/nope").status());
        assertEquals(204, Http.get("/api/v1/pop/queue/nope?wait=true&timeout=200").status());
        pushN("shape", "P1", "s", 0, 2);
        JsonNode p = pop("/api/v1/pop/queue/shape/partition/P1?batch=10");
        assertEquals(true, p.get("success").asBoolean());
        assertEquals("shape", p.get("queue").asText());
        assertEquals("P1", p.get("partition").asText());
        assertEquals("__QUEUE_MODE__", p.get("consumerGroup").asText());
        assertEquals(1, p.get("partitionsClaimed").asInt());
        String lease = p.get("leaseId").asText();
        assertFalse(lease.isEmpty());
        List<JsonNode> ms = messages(p);
        assertEquals(2, ms.size());
        for (int i = 0; i < 2; i++) {
            JsonNode m = ms.get(i);
            assertEquals("s-" + i, m.get("transactionId").asText());
            assertEquals(p.get("partitionId").asText(), m.get("partitionId").asText());
            assertEquals(lease, m.get("leaseId").asText());
            assertEquals(i, m.get("data").get("n").asInt());
            assertEquals(i, m.get("offset").asInt());
            assertTrue(m.get("createdAt").asText().matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z"));
            assertTrue(m.get("traceId").isNull());
            assertTrue(m.get("producerSub").isNull());
            assertEquals("shape", m.get("queue").asText());
        }
        assertNull(pop("/api/v1/pop/queue/shape/partition/P1"), "the lease is held: nothing for anyone else");
        assertEquals(204, Http.get("/api/v1/pop/queue/shape/partition/P1?wait=true&timeout=300").status(),
                "a held lease is not an early empty answer: the long poll runs to its timeout");
    }

    /**
     * A pop that finds nothing pending leaves read-only: it does not lock the cursor row, so it takes no
     * transaction id and its commit flushes no WAL (an fsync per empty pop before). Transaction ids are
     * cluster-wide (anything else on the server moves them), so the test reads what a write or a row lock of
     * this queue's own pops would leave behind: a new version (ctid, xmin) or a locker (xmax) on its partition
     * and cursor rows.
     */
    @Test
    void emptyPopsTakeNoTransactionId() {
        pushN("empty-pop", "Default", "e", 0, 3);
        JsonNode got = pop("/api/v1/pop/queue/empty-pop/partition/Default?batch=10");
        ackAll(got, "completed", null);
        String rowVersions = """
                SELECT string_agg(v, ' ' ORDER BY v) FROM (
                  SELECT 'p' || p.ctid || ':' || p.xmin || ':' || p.xmax AS v
                    FROM queen.log_partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'empty-pop'
                  UNION ALL
                  SELECT 'c' || c.ctid || ':' || c.xmin || ':' || c.xmax || ':' || c.consumer_group
                    FROM queen.log_consumers c JOIN queen.log_partitions p ON p.id = c.partition_id
                    JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'empty-pop') r""";
        String before = Sql.one(ds, rowVersions);
        assertTrue(before.contains("c("), "the acked pop left a cursor row: " + before);
        for (int i = 0; i < 40; i++) {
            assertNull(pop("/api/v1/pop/queue/empty-pop/partition/Default?batch=10"));
            assertNull(pop("/api/v1/pop/queue/empty-pop?batch=10"));
        }
        assertEquals(before, Sql.one(ds, rowVersions), "40 empty pops wrote or locked this queue's rows");
    }

    @Test
    void autoAckCommitsOnDelivery() {
        pushN("auto", "Default", "a", 0, 3);
        JsonNode p = pop("/api/v1/pop/queue/auto/partition/Default?batch=2&autoAck=true");
        assertEquals("", p.get("leaseId").asText());
        assertEquals("", p.get("messages").get(0).get("leaseId").asText());
        assertEquals(List.of(2), ns(pop("/api/v1/pop/queue/auto/partition/Default?batch=5&autoAck=1")));
        assertNull(pop("/api/v1/pop/queue/auto/partition/Default"));
    }

    @Test
    void delayedProcessingAndWindowBuffer() throws Exception {
        configure("delayed", "{\"delayedProcessing\":1}");
        pushN("delayed", "Default", "dl", 0, 1);
        assertNull(pop("/api/v1/pop/queue/delayed/partition/Default"));
        assertEquals(List.of(0), ns(Await.value("the 1 s delay matured",
                () -> pop("/api/v1/pop/queue/delayed/partition/Default"), Duration.ofSeconds(10))));

        configure("windowed", "{\"windowBuffer\":1}");
        pushN("windowed", "Default", "w", 0, 3);
        assertNull(pop("/api/v1/pop/queue/windowed/partition/Default?batch=4"));
        assertEquals(List.of(0, 1, 2), ns(Await.value("the 1 s window closed",
                () -> pop("/api/v1/pop/queue/windowed/partition/Default?batch=4"), Duration.ofSeconds(10))));
    }

    @Test
    void wildcardPopClaimsSeveralPartitionsUnderOneLease() {
        for (String part : List.of("A", "B", "C")) {
            pushN("wild", part, "w" + part, 0, 2);
        }
        JsonNode p = pop("/api/v1/pop/queue/wild?batch=100&partitions=3");
        assertEquals(6, messages(p).size());
        assertEquals(3, p.get("partitionsClaimed").asInt());
        Set<String> pids = new HashSet<>();
        Set<String> leases = new HashSet<>();
        for (JsonNode m : messages(p)) {
            pids.add(m.get("partitionId").asText());
            leases.add(m.get("leaseId").asText());
        }
        assertEquals(3, pids.size());
        assertEquals(1, leases.size());
        assertEquals(200, Http.post("/api/v1/lease/" + p.get("leaseId").asText() + "/extend", "").status());
        for (JsonNode r : ackAll(p, "completed", null)) {
            assertTrue(r.get("success").asBoolean());
        }
        for (String part : List.of("D", "E", "F", "G", "H")) {
            pushN("wild2", part, "w" + part, 0, 100);
        }
        assertEquals(10, messages(pop("/api/v1/pop/queue/wild2?batch=10&partitions=5")).size(), "batch is a global cap");
        assertEquals(1, pop("/api/v1/pop/queue/wild2?batch=1000").get("partitionsClaimed").asInt(),
                "default: one partition");
    }
}
