package io.queen.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.Api;
import io.queen.testing.BrokerProcess;
import io.queen.testing.Http;
import io.queen.testing.StorageInvariants;
import io.queen.testing.TestPostgres;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Maintenance modes across two broker processes on one database: a switch set through one broker reaches the
 * other within a second; pushes buffered on a broker killed with -9 are drained when it restarts on its spool;
 * every buffered push is delivered exactly once and in push order.
 */
class MaintenanceIT {
    static TestPostgres.Server pg;
    static String db;
    static BrokerProcess a;
    static BrokerProcess b;

    @BeforeAll
    static void start() throws Exception {
        pg = TestPostgres.server();
        db = TestPostgres.createDatabase("maintenance");
        a = BrokerProcess.start("maint-a", pg, db, Map.of());
        b = BrokerProcess.start("maint-b", pg, db, Map.of());
    }

    @AfterAll
    static void stop() throws Exception {
        StorageInvariants.assertHold(pg.jdbcUrl(db), pg.user(), pg.password());
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
        TestPostgres.dropDatabase(db);
    }

    static String push(BrokerProcess broker, String txn) {
        Http.Reply r = Http.post(broker.url(), "/api/v1/push", "{\"items\":[{\"queue\":\"mq\",\"transactionId\":\""
                + txn + "\",\"payload\":{\"t\":\"" + txn + "\"}}]}");
        assertEquals(201, r.status(), r.body());
        return Api.json(r.body()).get(0).get("status").asText();
    }

    static void set(BrokerProcess broker, String path, boolean on) {
        Http.Reply r = Http.post(broker.url(), path, "{\"enabled\":" + on + "}");
        assertEquals(200, r.status(), r.body());
    }

    @Test
    void switchesReachEveryBrokerAndAKilledBrokersSpoolIsDrainedOnRestart() throws Exception {
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            assertEquals("queued", push(a, "pre-" + i));
            expected.add("pre-" + i);
        }
        set(b, "/api/v1/system/maintenance", true);
        long t0 = System.nanoTime();
        int probe = 0;
        String status;
        do {
            status = push(a, "probe-" + probe);
            expected.add("probe-" + probe++);
        } while (!status.equals("buffered") && System.nanoTime() - t0 < 5_000_000_000L);
        long reachedMs = (System.nanoTime() - t0) / 1_000_000;
        assertEquals("buffered", status);
        assertTrue(reachedMs < 1000, "push maintenance reached the other broker in " + reachedMs + " ms");

        for (int i = 0; i < 20; i++) {
            assertEquals("buffered", push(a, "a-" + i));
            expected.add("a-" + i);
            assertEquals("buffered", push(b, "b-" + i));
            expected.add("b-" + i);
        }
        a.kill();   // its spool holds a-0..a-19 (and the buffered probes)
        set(b, "/api/v1/system/maintenance", false);
        a = BrokerProcess.start("maint-a", pg, db, Map.of());   // same spool directory: drained at start

        Map<String, Integer> seen = new HashMap<>();
        List<String> order = new ArrayList<>();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (order.size() < expected.size() && System.nanoTime() < deadline) {
            Http.Reply r = Http.get(b.url(), "/api/v1/pop/queue/mq/partition/Default?batch=100&wait=true&timeout=1000");
            if (r.status() == 204) {
                continue;
            }
            assertEquals(200, r.status(), r.body());
            JsonNode p = Api.json(r.body());
            StringBuilder acks = new StringBuilder("{\"acknowledgments\":[");
            for (JsonNode m : Api.messages(p)) {
                String t = m.get("transactionId").asText();
                seen.merge(t, 1, Integer::sum);
                order.add(t);
                acks.append(acks.length() > 20 ? "," : "").append("{\"transactionId\":\"").append(t)
                        .append("\",\"partitionId\":\"").append(m.get("partitionId").asText())
                        .append("\",\"leaseId\":\"").append(m.get("leaseId").asText()).append("\"}");
            }
            Http.Reply acked = Http.post(b.url(), "/api/v1/ack/batch", acks.append("]}").toString());
            assertEquals(200, acked.status(), acked.body());
        }
        assertEquals(expected.size(), order.size(), "delivered " + order);
        assertTrue(seen.values().stream().allMatch(n -> n == 1), "each once: " + seen);
        assertEquals(new java.util.HashSet<>(expected), seen.keySet());
        assertInOrder(order, "a-");
        assertInOrder(order, "b-");
        assertInOrder(order, "probe-");

        // pop maintenance set through A stops pops on B within a second
        assertEquals("queued", push(a, "late"));
        set(a, "/api/v1/system/maintenance/pop", true);
        Thread.sleep(1000);
        assertEquals(204, Http.get(b.url(), "/api/v1/pop/queue/mq/partition/Default?wait=false").status());
        set(a, "/api/v1/system/maintenance/pop", false);
        Thread.sleep(1000);
        assertEquals(200, Http.get(b.url(), "/api/v1/pop/queue/mq/partition/Default?wait=false").status());
    }

    private static void assertInOrder(List<String> order, String prefix) {
        int last = -1;
        for (String t : order) {
            if (t.startsWith(prefix)) {
                int n = Integer.parseInt(t.substring(prefix.length()));
                assertTrue(n > last, prefix + " out of order: " + order);
                last = n;
            }
        }
    }
}
