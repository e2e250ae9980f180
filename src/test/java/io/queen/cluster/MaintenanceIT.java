package io.queen.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.TwoBrokers;
import io.queen.testing.Api;
import io.queen.testing.Await;
import io.queen.testing.BrokerProcess;
import io.queen.testing.Http;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Maintenance modes across two broker processes on one database: a switch set through one broker reaches the
 * other within a second; pushes buffered on a broker killed with -9 are drained when it restarts on its spool;
 * every buffered push is delivered exactly once and in push order.
 */
class MaintenanceIT {
    @RegisterExtension
    static final TwoBrokers brokers = new TwoBrokers("maintenance", "maint-a", Map.of(),
            "maint-b", Map.of());

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

    /** A third broker on the shared database, {@code queue} configured through it, push maintenance switched on. */
    BrokerProcess startInPushMaintenance(String name, String queue) throws Exception {
        BrokerProcess b = brokers.database().start(name, Map.of());
        assertEquals(200, Http.post(b.url(), "/api/v1/configure", "{\"queue\":\"" + queue + "\"}").status());
        set(b, "/api/v1/system/maintenance", true);
        return b;
    }

    @Test
    void switchesReachEveryBrokerAndAKilledBrokersSpoolIsDrainedOnRestart() throws Exception {
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            assertEquals("queued", push(brokers.a(), "pre-" + i));
            expected.add("pre-" + i);
        }
        set(brokers.b(), "/api/v1/system/maintenance", true);
        long t0 = System.nanoTime();
        int probe = 0;
        String status;
        do {
            status = push(brokers.a(), "probe-" + probe);
            expected.add("probe-" + probe++);
        } while (!status.equals("buffered") && System.nanoTime() - t0 < 5_000_000_000L);
        long reachedMs = (System.nanoTime() - t0) / 1_000_000;
        assertEquals("buffered", status);
        assertTrue(reachedMs < 1000, "push maintenance reached the other broker in " + reachedMs + " ms");

        for (int i = 0; i < 20; i++) {
            assertEquals("buffered", push(brokers.a(), "a-" + i));
            expected.add("a-" + i);
            assertEquals("buffered", push(brokers.b(), "b-" + i));
            expected.add("b-" + i);
        }
        brokers.a().kill();   // its spool holds a-0..a-19 (and the buffered probes)
        set(brokers.b(), "/api/v1/system/maintenance", false);
        brokers.restartA();   // same spool directory: drained at start

        Map<String, Integer> seen = new HashMap<>();
        List<String> order = new ArrayList<>();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (order.size() < expected.size() && System.nanoTime() < deadline) {
            Http.Reply r = Http.get(brokers.b().url(),
                    "/api/v1/pop/queue/mq/partition/Default?batch=100&wait=true&timeout=1000");
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
            Http.Reply acked = Http.post(brokers.b().url(), "/api/v1/ack/batch", acks.append("]}").toString());
            assertEquals(200, acked.status(), acked.body());
        }
        assertEquals(expected.size(), order.size(), "delivered " + order);
        assertTrue(seen.values().stream().allMatch(n -> n == 1), "each once: " + seen);
        assertEquals(new java.util.HashSet<>(expected), seen.keySet());
        assertInOrder(order, "a-");
        assertInOrder(order, "b-");
        assertInOrder(order, "probe-");

        // pop maintenance set through A stops pops on B within a second
        assertEquals("queued", push(brokers.a(), "late"));
        set(brokers.a(), "/api/v1/system/maintenance/pop", true);
        Thread.sleep(1000);
        assertEquals(204, Http.get(brokers.b().url(), "/api/v1/pop/queue/mq/partition/Default?wait=false").status());
        set(brokers.a(), "/api/v1/system/maintenance/pop", false);
        Thread.sleep(1000);
        assertEquals(200, Http.get(brokers.b().url(), "/api/v1/pop/queue/mq/partition/Default?wait=false").status());
    }

    /**
     * A broker killed during push maintenance and restarted on its spool must not drain it before it has read the
     * switch: the restart holds the switches table locked (so the first read cannot complete) until the spool has
     * either drained (the defect) or said it waits; then nothing is in the log until maintenance is switched off,
     * and after that every buffered push is delivered exactly once.
     */
    @Test
    void aSpoolRestartedDuringPushMaintenanceWaitsForTheSwitch() throws Exception {
        String q = "crashq";
        BrokerProcess c = startInPushMaintenance("maint-c", q);   // adopted by c at once
        try {
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                Http.Reply r = Http.post(c.url(), "/api/v1/push", "{\"items\":[{\"queue\":\"" + q
                        + "\",\"transactionId\":\"c-" + i + "\",\"payload\":{\"i\":" + i + "}}]}");
                assertEquals(201, r.status(), r.body());
                assertEquals("buffered", Api.json(r.body()).get(0).get("status").asText());
                expected.add("c-" + i);
            }
            c.kill();

            try (Connection lock = brokers.database().connect()) {
                lock.setAutoCommit(false);
                try (Statement st = lock.createStatement()) {
                    st.execute("LOCK TABLE queen.system_switches IN ACCESS EXCLUSIVE MODE");
                }
                // the schema is in place; applying it again would wait on the lock too
                c = brokers.database().start("maint-c", Map.of("QUEEN_APPLY_SCHEMA", "false"));
                String said = awaitLog(c, "wait for the first read of the maintenance switches",
                        "push spool: drained (");
                assertEquals("wait for the first read of the maintenance switches", said,
                        "the spool drained before the switch was read");
                assertEquals(0, segments(lock, q), "buffered pushes reached the log during maintenance");
                lock.rollback();   // the switch read completes: maintenance is on
            }
            awaitLog(c, "this broker now has push maintenance on", "this broker now has push maintenance on");
            try (Connection read = brokers.database().connect()) {
                assertEquals(0, segments(read, q), "buffered pushes reached the log during maintenance");
            }
            assertEquals(204, Http.get(brokers.b().url(), "/api/v1/pop/queue/" + q + "?wait=false").status());

            set(brokers.b(), "/api/v1/system/maintenance", false);
            Map<String, Integer> seen = new HashMap<>();
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (seen.size() < expected.size() && System.nanoTime() < deadline) {
                Http.Reply r = Http.get(brokers.b().url(), "/api/v1/pop/queue/" + q
                        + "?batch=100&wait=true&timeout=1000&autoAck=true");
                if (r.status() == 204) {
                    continue;
                }
                assertEquals(200, r.status(), r.body());
                for (JsonNode m : Api.messages(Api.json(r.body()))) {
                    seen.merge(m.get("transactionId").asText(), 1, Integer::sum);
                }
            }
            assertEquals(new java.util.HashSet<>(expected), seen.keySet());
            assertTrue(seen.values().stream().allMatch(n -> n == 1), "each once: " + seen);
            assertEquals(204, Http.get(brokers.b().url(), "/api/v1/pop/queue/" + q + "?wait=false").status());
        } finally {
            c.close();
        }
    }

    @Test
    void aPushBeforeTheFirstSwitchReadAfterARestartIsBuffered() throws Exception {
        String q = "firstreadq";
        BrokerProcess d = startInPushMaintenance("maint-d", q);
        try {
            d.kill();   // its spool is empty: nothing holds a later push back but the switch itself
            // pg_stat_activity is read outside the locking transaction, which would see one snapshot of it
            try (Connection lock = brokers.database().connect();
                    Connection watch = brokers.database().connect()) {
                lock.setAutoCommit(false);
                try (Statement st = lock.createStatement()) {
                    st.execute("LOCK TABLE queen.system_switches IN ACCESS EXCLUSIVE MODE");
                }
                d = brokers.database().start("maint-d", Map.of("QUEEN_APPLY_SCHEMA", "false"));
                BrokerProcess restarted = d;
                // every broker's poller (a, b and the restarted d) waits for the switch; then the push is sent
                Await.within(() -> switchReadsWaiting(watch) >= 3, Duration.ofSeconds(60));
                long pollers = switchReadsWaiting(watch);
                java.util.concurrent.CompletableFuture<Http.Reply> push = java.util.concurrent.CompletableFuture
                        .supplyAsync(() -> Http.post(restarted.url(), "/api/v1/push", "{\"items\":[{\"queue\":\""
                                + q + "\",\"transactionId\":\"d-0\",\"payload\":{}}]}"));
                // the push waits for the switch too (without the fix it answered at once, from the default)
                Await.within(() -> push.isDone() || switchReadsWaiting(watch) > pollers, Duration.ofSeconds(60));
                assertTrue(!push.isDone(), "a push answered before the switch was read: " + push.getNow(null));
                lock.rollback();
                Http.Reply r = push.get(60, java.util.concurrent.TimeUnit.SECONDS);
                assertEquals(201, r.status(), r.body());
                assertEquals("buffered", Api.json(r.body()).get(0).get("status").asText(), r.body());
            }
            try (Connection read = brokers.database().connect()) {
                assertEquals(0, segments(read, q), "a push reached the log during maintenance");
            }
        } finally {
            set(brokers.b(), "/api/v1/system/maintenance", false);
            d.close();
        }
    }

    private static long switchReadsWaiting(Connection c) throws Exception {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                        + " AND wait_event_type = 'Lock' AND query LIKE '%maintenance_get_v1%'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Waits for the first of two lines in the broker's log; returns which appeared. */
    private static String awaitLog(BrokerProcess broker, String one, String other) throws Exception {
        String log = Await.value("'" + one + "' or '" + other + "' logged", () -> {
            String text = broker.logText();
            return text.contains(one) || text.contains(other) ? text : null;
        }, Duration.ofSeconds(60));
        return log.contains(one) ? one : other;
    }

    private static long segments(Connection c, String queue) throws Exception {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                "SELECT count(*) FROM queen.log_segments s JOIN queen.log_partitions lp ON lp.id = s.partition_id"
                        + " JOIN queen.queues q ON q.id = lp.queue_id WHERE q.name = '" + queue + "'")) {
            rs.next();
            return rs.getLong(1);
        }
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
