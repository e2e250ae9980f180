package io.queen.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.Handouts;
import io.queen.testing.TwoBrokers;
import io.queen.testing.Api;
import io.queen.testing.BrokerProcess;
import io.queen.testing.Http;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two real broker processes on one database: what the storage model promises across brokers (dedup, one lease
 * per (partition, group), wake-ups through NOTIFY) and what survives a broker killed with -9.
 */
class MultiBrokerIT {
    // B re-checks parked pops only every 60 s: within a test, only a NOTIFY can wake it
    @RegisterExtension
    static final TwoBrokers brokers = new TwoBrokers("multibroker", "a", Map.of(),
            "b", Map.of("POP_WAIT_MAX_INTERVAL_MS", "60000"));

    static String push(BrokerProcess broker, String queue, String txn, int n) {
        Http.Reply r = Http.post(broker.url(), "/api/v1/push", "{\"items\":[{\"queue\":\"" + queue
                + "\",\"transactionId\":\"" + txn + "\",\"payload\":{\"n\":" + n + "}}]}");
        assertEquals(201, r.status(), r.body());
        return r.body();
    }

    long count(String sql) throws Exception {
        try (Connection c = brokers.database().connect();
                Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void dedupHoldsAcrossBrokers() throws Exception {
        JsonNode first = Api.json(push(brokers.a(), "mb-dedup", "same", 1)).get(0);
        JsonNode second = Api.json(push(brokers.b(), "mb-dedup", "same", 2)).get(0);
        assertEquals("queued", first.get("status").asText());
        assertEquals("duplicate", second.get("status").asText());
        assertEquals(first.get("message_id").asText(), second.get("message_id").asText());
        // concurrent: 16 pushes of one id spread over both brokers -> exactly one frame
        ExecutorService pool = Executors.newFixedThreadPool(16);
        List<Future<JsonNode>> fs = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            BrokerProcess target = i % 2 == 0 ? brokers.a() : brokers.b();
            int n = i;
            fs.add(pool.submit(() -> Api.json(push(target, "mb-dedup", "race", n)).get(0)));
        }
        int queued = 0;
        Set<String> ids = new HashSet<>();
        for (Future<JsonNode> f : fs) {
            JsonNode r = f.get();
            queued += "queued".equals(r.get("status").asText()) ? 1 : 0;
            ids.add(r.get("message_id").asText());
        }
        pool.shutdown();
        assertEquals(1, queued);
        assertEquals(1, ids.size());
        assertEquals(2, count("SELECT last_offset + 1 FROM queen.log_partitions p JOIN queen.queues q ON q.id = p.queue_id"
                + " WHERE q.name = 'mb-dedup'"), "a duplicate writes nothing");
    }

    @Test
    void longPollOnOneBrokerWakesOnAPushToTheOther() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<Http.Reply> parked = pool.submit(() -> Http.get(brokers.b().url(),
                "/api/v1/pop/queue/mb-wake/partition/Default?wait=true&timeout=30000"));
        Thread.sleep(500);
        long t0 = System.nanoTime();
        push(brokers.a(), "mb-wake", "w-1", 1);
        Http.Reply r = parked.get();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        pool.shutdown();
        assertEquals(200, r.status(), "woken by the NOTIFY, not the 30 s timeout or the 60 s re-check");
        assertEquals(1, Api.json(r.body()).get("messages").get(0).get("data").get("n").asInt());
        System.out.println("cross-broker long-poll wake-up latency: " + ms + " ms");
        assertTrue(ms < 10_000, "wake-up took " + ms + " ms");
    }

    static JsonNode fetch(BrokerProcess broker, long offset, long maxWaitMs) {
        Http.Reply r = Http.post(broker.url(), "/api/v1/fetch", "{\"entries\":[{\"queue\":\"mb-fetch\","
                + "\"partition\":\"Default\",\"offset\":" + offset + "}],\"maxWaitMs\":" + maxWaitMs + "}");
        assertEquals(200, r.status(), r.body());
        return Api.json(r.body()).get("entries").get(0);
    }

    @Test
    void aCaughtUpFetchOnOneBrokerSeesAPushToTheOther() throws Exception {
        push(brokers.a(), "mb-fetch", "f-0", 0);
        for (int i = 0; i < 2; i++) {  // caught up on B; the second read answered from what the first found
            JsonNode e = fetch(brokers.b(), 1, 0);
            assertEquals(0, e.get("records").size(), e.toString());
            assertEquals(1, e.get("highWatermark").asLong());
        }
        // parked on B: only A's NOTIFY can wake it within the test (B re-checks every 60 s)
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<JsonNode> parked = pool.submit(() -> fetch(brokers.b(), 1, 30_000));
        push(brokers.a(), "mb-fetch", "f-1", 1);
        JsonNode e = parked.get();
        pool.shutdown();
        assertEquals(1, e.get("records").size(), e.toString());
        assertEquals(2, e.get("highWatermark").asLong());
        // not parked: B answers "nothing new" at most until A's announcement arrives (or a second passes)
        push(brokers.a(), "mb-fetch", "f-2", 2);
        long t0 = System.nanoTime();
        while (fetch(brokers.b(), 2, 0).get("records").isEmpty()) {
            assertTrue(System.nanoTime() - t0 < 10_000_000_000L, "B never read A's push");
            Thread.sleep(20);
        }
        System.out.println("cross-broker caught-up fetch saw the push after " + (System.nanoTime() - t0) / 1_000_000
                + " ms");
    }

    @Test
    void aKilledBrokersLeaseExpiresAndTheBatchIsRedeliveredElsewhere() throws Exception {
        BrokerProcess victim = brokers.database().start("victim", Map.of());
        try {
            Http.Reply cfg = Http.post(victim.url(), "/api/v1/configure",
                    "{\"queue\":\"mb-crash\",\"options\":{\"leaseTime\":2}}");
            assertEquals(200, cfg.status());
            for (int i = 0; i < 5; i++) {
                push(victim, "mb-crash", "c-" + i, i);
            }
            Http.Reply popped = Http.get(victim.url(), "/api/v1/pop/queue/mb-crash/partition/Default?batch=3");
            assertEquals(200, popped.status());
            victim.kill();
            assertEquals(204,
                    Http.get(brokers.a().url(), "/api/v1/pop/queue/mb-crash/partition/Default?batch=10").status(),
                    "the dead broker's lease still holds");
            Thread.sleep(2300);
            JsonNode again = Api.json(
                    Http.get(brokers.a().url(), "/api/v1/pop/queue/mb-crash/partition/Default?batch=10").body());
            List<Integer> ns = new ArrayList<>();
            again.get("messages").forEach(m -> ns.add(m.get("data").get("n").asInt()));
            assertEquals(List.of(0, 1, 2, 3, 4), ns, "redelivered from the cursor, nothing lost");
            assertEquals(0, count("SELECT batch_retry_count FROM queen.log_consumers c JOIN queen.log_partitions p"
                    + " ON p.id = c.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'mb-crash'"),
                    "lease expiry spends no retry budget");
        } finally {
            victim.close();
        }
    }

    @Test
    void consumersOnTwoBrokersShareAPartitionWithoutDoubleDelivery() throws Exception {
        int total = 300;
        for (int i = 0; i < total; i += 100) {
            StringBuilder items = new StringBuilder();
            for (int k = i; k < i + 100; k++) {
                items.append(k == i ? "" : ",").append("{\"queue\":\"mb-share\",\"transactionId\":\"s-").append(k)
                        .append("\",\"payload\":{\"n\":").append(k).append("}}");
            }
            assertEquals(201, Http.post(brokers.a().url(), "/api/v1/push", "{\"items\":[" + items + "]}").status());
        }
        ExecutorService pool = Executors.newFixedThreadPool(6);
        List<Future<List<Integer>>> fs = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            BrokerProcess target = t % 2 == 0 ? brokers.a() : brokers.b();
            fs.add(pool.submit(() -> {
                List<Integer> got = new ArrayList<>();
                int empty = 0;
                while (empty < 15) {
                    Http.Reply r = Http.get(target.url(), "/api/v1/pop/queue/mb-share?batch=9");
                    if (r.status() == 204) {
                        empty++;
                        Thread.sleep(10);
                        continue;
                    }
                    empty = 0;
                    JsonNode p = Api.json(r.body());
                    StringBuilder acks = new StringBuilder();
                    for (JsonNode m : p.get("messages")) {
                        got.add(m.get("data").get("n").asInt());
                        acks.append(acks.length() == 0 ? "" : ",").append("{\"transactionId\":\"")
                                .append(m.get("transactionId").asText()).append("\",\"partitionId\":\"")
                                .append(m.get("partitionId").asText()).append("\",\"leaseId\":\"")
                                .append(m.get("leaseId").asText()).append("\"}");
                    }
                    Http.Reply ack = Http.post(target.url(), "/api/v1/ack/batch", "{\"acknowledgments\":[" + acks + "]}");
                    assertEquals(200, ack.status());
                    for (JsonNode res : Api.json(ack.body())) {
                        assertTrue(res.get("success").asBoolean(), res.toString());
                    }
                }
                return got;
            }));
        }
        Set<Integer> all = Handouts.once(fs, "message", "processed twice");
        pool.shutdown();
        assertEquals(total, all.size());
        assertNotNull(brokers.a().url());
    }
}
