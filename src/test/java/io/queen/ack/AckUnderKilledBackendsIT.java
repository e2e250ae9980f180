package io.queen.ack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.Api;
import io.queen.testing.BrokerDatabase;
import io.queen.testing.BrokerProcess;
import io.queen.testing.Http;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Acks under a fused load on a broker process while its PostgreSQL backends are killed (an outside benchmark
 * harness of PostgreSQL queues kills two a second; this test eight): every ack answer must be true. Success when
 * the commit happened, a retryable 503 when its outcome is unknown (the client retries, and the retry answers
 * success), and "Invalid or expired lease" only when the lease had expired, which a lease of 10 s cannot within
 * the bound measured here. A message acked with success is never delivered again, every message is acked in the
 * end, and the storage invariants hold over everything the broker did ({@link BrokerDatabase#close}).
 */
class AckUnderKilledBackendsIT {
    static final String QUEUE = "killed-backends";
    static final int MESSAGES = 8000;
    static final int PARTITIONS = 8;
    static final int CONSUMERS = 8;
    static final long LEASE_MS = 10_000;

    @Test
    void everyAckAnswerIsTrueWhileBackendsAreKilled() throws Exception {
        try (BrokerDatabase database = BrokerDatabase.create("killedacks")) {
            BrokerProcess broker = database.start("killed-acks", Map.of());
            String url = broker.url();
            Http.Reply configured = Http.post(url, "/api/v1/configure",
                    "{\"queue\":\"" + QUEUE + "\",\"options\":{\"leaseTime\":" + LEASE_MS / 1000 + "}}");
            assertEquals(200, configured.status(), configured.body());
            for (int p = 0; p < PARTITIONS; p++) {
                StringBuilder items = new StringBuilder();
                for (int i = 0; i < MESSAGES / PARTITIONS; i++) {
                    items.append(i == 0 ? "" : ",").append("{\"queue\":\"" + QUEUE + "\",\"partition\":\"P").append(p)
                            .append("\",\"transactionId\":\"k").append(p).append('-').append(i)
                            .append("\",\"payload\":{\"n\":").append(i).append("}}");
                }
                Http.Reply pushed = Http.post(url, "/api/v1/push", "{\"items\":[" + items + "]}");
                assertEquals(201, pushed.status(), pushed.body());
            }
            Set<String> acked = ConcurrentHashMap.newKeySet();
            List<String> violations = new ArrayList<>();
            AtomicInteger retryable = new AtomicInteger();
            AtomicInteger kills = new AtomicInteger();
            CountDownLatch consumersStarted = new CountDownLatch(CONSUMERS);

            ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
            Future<?> killer = pool.submit(() -> {
                consumersStarted.await();
                // two busy backends of the broker's database at random each time (never the killer's own): a busy
                // ack backend spends most of its time waiting for its commit to flush, the window where a kill
                // leaves a commit done and its answer lost
                try (Connection c = database.connect(); Statement st = c.createStatement()) {
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
                    while (System.nanoTime() < until && acked.size() < MESSAGES) {
                        try (ResultSet rs = st.executeQuery("SELECT count(*) FROM (SELECT pg_terminate_backend(pid)"
                                + " FROM pg_stat_activity WHERE datname = current_database()"
                                + " AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
                                + " AND state = 'active' ORDER BY random() LIMIT 2) k")) {
                            rs.next();
                            kills.addAndGet(rs.getInt(1));
                        }
                        // the first kills come quickly: on a quiet machine the 800 pop/ack rounds take well under a
                        // second, and the test must have killed backends while they ran, whatever the machine's pace
                        Thread.sleep(kills.get() < 4 ? 20 : 250);
                    }
                }
                return null;
            });
            List<Future<?>> consumers = new ArrayList<>();
            for (int i = 0; i < CONSUMERS; i++) {
                consumers.add(pool.submit(() -> {
                    consumersStarted.countDown();
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                    while (acked.size() < MESSAGES && System.nanoTime() < deadline) {
                        long popSent = System.nanoTime();
                        Http.Reply r = Http.get(url, "/api/v1/pop/queue/" + QUEUE + "?batch=10&wait=true&timeout=500");
                        if (r.status() != 200) {
                            assertTrue(r.status() == 204 || r.status() == 503, r.status() + " " + r.body());
                            continue;
                        }
                        JsonNode popped = Api.json(r.body());
                        for (JsonNode m : popped.get("messages")) {
                            if (acked.contains(m.get("transactionId").asText())) {
                                synchronized (violations) {
                                    violations.add("delivered again after a successful ack: " + m);
                                }
                            }
                        }
                        ackUntilAnswered(url, popped, popSent, acked, violations, retryable);
                    }
                    return null;
                }));
            }
            for (Future<?> f : consumers) {
                f.get(120, TimeUnit.SECONDS);
            }
            killer.get(30, TimeUnit.SECONDS);
            pool.shutdown();

            assertTrue(kills.get() >= 4, "backends were killed while the acks ran: " + kills.get());
            assertEquals(List.of(), violations);
            assertEquals(MESSAGES, acked.size(), "every message acked in the end");
            try (Connection c = database.connect(); Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT count(*) FROM queen.log_consumers c"
                            + " JOIN queen.log_partitions p ON p.id = c.partition_id"
                            + " JOIN queen.queues q ON q.id = p.queue_id"
                            + " WHERE q.name = '" + QUEUE + "' AND c.committed <> p.last_offset")) {
                rs.next();
                assertEquals(0, rs.getInt(1), "every cursor at the end of its partition");
            }
            System.out.printf("killed %d backends; %d ack answers were retryable 503s%n", kills.get(),
                    retryable.get());
        }
    }

    /** Acks a popped batch, retrying a 503 (outcome unknown) until it answers; records what each answer says. */
    private static void ackUntilAnswered(String url, JsonNode popped, long popSent, Set<String> acked,
            List<String> violations, AtomicInteger retryable) {
        String body = Api.ackAllBody(popped, "completed", null);
        for (int attempt = 0; ; attempt++) {
            Http.Reply r = Http.post(url, "/api/v1/ack/batch", body);
            long sincePop = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - popSent);
            if (r.status() >= 500) {
                assertEquals(503, r.status(), r.body());
                retryable.incrementAndGet();
                assertTrue(attempt < 200, "the ack never answered: " + r.body());
                continue;
            }
            assertEquals(200, r.status(), r.body());
            for (JsonNode res : Api.json(r.body())) {
                String txn = res.get("transactionId").asText();
                if (res.get("success").asBoolean()) {
                    acked.add(txn);
                } else if (sincePop < LEASE_MS) {
                    // the lease began after the pop was sent and the ack arrived before its answer: less than
                    // sincePop apart, so the lease was live whatever the answer says
                    synchronized (violations) {
                        violations.add("refused " + sincePop + " ms after the pop, inside its lease: " + res);
                    }
                }
            }
            return;
        }
    }
}
