package io.queen.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.agroal.api.AgroalDataSource;
import io.queen.testing.Api;
import io.queen.testing.ArtificialLoad;
import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.queen.testing.StorageInvariants;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Queue delete against concurrent writers: it must leave no sidecar or dead-letter row behind (neither table has
 * a foreign key) and must not deadlock with dead-letter filing or a wildcard pop's first-contact claims (every
 * party takes queue, partition and cursor rows in the global order). A push racing a delete always succeeds: it
 * lands before the delete (and goes with the queue) or after it, re-creating the queue. The pushes are checked
 * deterministically, the delete held in each gap between its steps; the other races run for many rounds, and the
 * storage invariants (no orphan rows among them) must hold afterwards.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class QueueDeleteRaceTest {
    static final ExecutorService POOL = Executors.newFixedThreadPool(48);

    @Inject
    AgroalDataSource ds;

    @AfterAll
    static void stop() {
        POOL.shutdownNow();
    }

    /**
     * The stress variant: single- and multi-partition pushes creating partitions while the queue is deleted over
     * and over, under artificial CPU and database load. Every push answers 201 (it lands before a delete and goes
     * with the queue, or after it in a re-created queue). {@code -DdeleteRaceRounds=N} repeats it.
     */
    @Test
    void pushesCreatingPartitionsWhileTheQueueIsDeletedAllLandUnderLoad() throws Exception {
        int rounds = Integer.getInteger("deleteRaceRounds", 1);
        try (ArtificialLoad load = ArtificialLoad.start(4, 2, ds)) {
            for (int round = 0; round < rounds; round++) {
                pushesRacingRepeatedDeletes("orph" + round);
            }
        }
    }

    private void pushesRacingRepeatedDeletes(String q) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger failures = new AtomicInteger();
        AtomicInteger pushed = new AtomicInteger();
        List<String> errors = new ArrayList<>();
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int thread = t;
            fs.add(POOL.submit(() -> {
                for (int i = 0; !stop.get(); i++) {
                    String item = "{\"queue\":\"" + q + "\",\"partition\":\"p-" + thread + "-" + i
                            + "\",\"transactionId\":\"t-" + thread + "-" + i + "\",\"payload\":{\"i\":" + i + "}}";
                    // every third request also writes an existing partition: a bundle with several targets
                    String items = i % 3 == 0 ? item + ",{\"queue\":\"" + q + "\",\"partition\":\"p-" + thread
                            + "\",\"transactionId\":\"u-" + thread + "-" + i + "\",\"payload\":1}" : item;
                    Http.Reply r = thread == 3
                            ? Http.post("/api/v1/transaction", "{\"operations\":[{\"type\":\"push\",\"items\":["
                                    + items + "]}]}")
                            : Http.post("/api/v1/push", "{\"items\":[" + items + "]}");
                    boolean ok = thread == 3 ? r.status() == 200 && Api.json(r.body()).path("success").asBoolean()
                            : r.status() == 201;
                    if (!ok) {
                        failures.incrementAndGet();
                        synchronized (errors) {
                            errors.add(r.status() + " " + r.body());
                        }
                    } else {
                        pushed.incrementAndGet();
                    }
                }
            }));
        }
        fs.add(POOL.submit(() -> {
            try {
                for (int i = 0; i < 80; i++) {
                    Http.Reply r = Http.delete("/api/v1/resources/queues/" + q);
                    if (r.status() != 200) {
                        failures.incrementAndGet();
                        synchronized (errors) {
                            errors.add(r.status() + " " + r.body());
                        }
                    }
                    Thread.sleep(50);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                stop.set(true);
            }
        }));
        for (Future<?> f : fs) {
            f.get();
        }
        assertTrue(pushed.get() > 100, "pushes ran: " + pushed.get());
        StorageInvariants.assertHold(ds);
        assertEquals(0, failures.get(), errors.toString());
    }

    /** Where the delete is held: each gap is opened by a lock the test holds that the next step needs. */
    enum Gap {
        BEFORE_DEAD_LETTERS("SELECT 1 FROM queen.log_dlq d JOIN queen.log_partitions lp ON lp.id = d.partition_id"
                + " JOIN queen.queues q ON q.id = lp.queue_id WHERE q.name = '%s' FOR UPDATE OF d"),
        BEFORE_QUEUE_ROW("SELECT 1 FROM queen.queues q WHERE q.name = '%s' FOR KEY SHARE"),
        BEFORE_LAST_PARTITION("SELECT 1 FROM queen.log_partitions lp WHERE lp.id = (SELECT max(lp2.id::text)::uuid"
                + " FROM queen.log_partitions lp2 JOIN queen.queues q ON q.id = lp2.queue_id WHERE q.name = '%s')"
                + " FOR UPDATE"),
        BEFORE_CURSORS("SELECT 1 FROM queen.log_consumers c JOIN queen.log_partitions lp ON lp.id = c.partition_id"
                + " JOIN queen.queues q ON q.id = lp.queue_id WHERE q.name = '%s' FOR UPDATE OF c");

        final String hold;

        Gap(String hold) {
            this.hold = hold;
        }
    }

    @Test
    void aPushIntoTheGapBeforeTheDeadLettersLandsBeforeTheDeleteOrInTheNewQueue() throws Exception {
        pushIntoGap(Gap.BEFORE_DEAD_LETTERS);
    }

    @Test
    void aPushIntoTheGapBeforeTheQueueRowLandsBeforeTheDeleteOrInTheNewQueue() throws Exception {
        pushIntoGap(Gap.BEFORE_QUEUE_ROW);
    }

    /** A multi-partition push resolved its partitions before the delete locked them: it must not lose them. */
    @Test
    void aPushIntoTheGapBeforeTheLastPartitionLandsInTheNewQueue() throws Exception {
        pushIntoGap(Gap.BEFORE_LAST_PARTITION);
    }

    @Test
    void aPushIntoTheGapBeforeTheCursorsLandsInTheNewQueue() throws Exception {
        pushIntoGap(Gap.BEFORE_CURSORS);
    }

    /**
     * Holds the delete of a queue (partitions a, b, c with a cursor and a dead letter) in one gap between its steps,
     * pushes into the gap through every write path (one existing partition, the partition the delete locks last, a
     * new partition, a transaction writing two existing partitions), then lets the delete finish. Every push
     * succeeds; one that answered while the delete was held landed before it and is gone with the queue, one that
     * was waiting landed after it, in the re-created queue.
     */
    private void pushIntoGap(Gap gap) throws Exception {
        String q = "gap-" + gap.name().toLowerCase();
        Api.configure(q, "{\"retryLimit\":0}");
        for (String p : List.of("a", "b", "c")) {
            Api.pushN(q, p, "seed-" + p, 0, 2);
        }
        JsonNode popped = Api.pop("/api/v1/pop/queue/" + q + "/partition/a?wait=false");
        Api.ackAll(popped, "failed", null);
        assertEquals(1, Sql.count(ds, "SELECT count(*) FROM queen.log_dlq"
                + " WHERE partition_id IN (SELECT lp.id FROM queen.log_partitions lp JOIN queen.queues q"
                + " ON q.id = lp.queue_id WHERE q.name = '" + q + "')"));
        List<String> byId = Sql.rows(ds, "SELECT lp.name FROM queen.log_partitions lp JOIN queen.queues q"
                + " ON q.id = lp.queue_id WHERE q.name = '" + q + "' ORDER BY lp.id").stream()
                .map(r -> (String) r.get(0)).toList();
        String first = byId.get(0);
        String last = byId.get(byId.size() - 1);

        List<String> txns = List.of("x-first", "x-last", "x-new", "x-tx1", "x-tx2");
        Future<Http.Reply> delete;
        List<Future<Http.Reply>> pushes = new ArrayList<>();
        List<Boolean> answeredWhileHeld = new ArrayList<>();
        try (Connection holder = ds.getConnection()) {
            holder.setAutoCommit(false);
            try (Statement st = holder.createStatement()) {
                assertTrue(st.executeQuery(gap.hold.formatted(q)).next(), gap + " holds nothing");
            }
            delete = POOL.submit(() -> Http.delete("/api/v1/resources/queues/" + q));
            awaitWaiting("%delete_queue_v1%", 1);
            pushes.add(POOL.submit(() -> push(q, first, "x-first")));
            pushes.add(POOL.submit(() -> push(q, last, "x-last")));
            pushes.add(POOL.submit(() -> push(q, "new", "x-new")));
            pushes.add(POOL.submit(() -> Http.post("/api/v1/transaction", "{\"operations\":[{\"type\":\"push\","
                    + "\"items\":[{\"queue\":\"" + q + "\",\"partition\":\"" + first + "\",\"transactionId\":"
                    + "\"x-tx1\",\"payload\":1},{\"queue\":\"" + q + "\",\"partition\":\"" + last + "\","
                    + "\"transactionId\":\"x-tx2\",\"payload\":2}]}]}")));
            // every push has either answered or is waiting on a lock the held delete owns
            Await.until("every push answered or waiting on the held delete's lock", () -> {
                long done = pushes.stream().filter(Future::isDone).count();
                long waiting = Sql.count(ds, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
                        + " AND query LIKE '%log_push_multi_v1%'");
                return done + waiting == pushes.size();
            }, Duration.ofSeconds(120));
            assertFalse(delete.isDone(), "the delete was held");
            for (Future<Http.Reply> f : pushes) {
                answeredWhileHeld.add(f.isDone());
            }
            holder.rollback();
        }
        Http.Reply d = delete.get();
        assertEquals(200, d.status(), d.body());
        assertTrue(Api.json(d.body()).get("existed").asBoolean(), d.body());
        Set<String> expected = new TreeSet<>();
        for (int i = 0; i < pushes.size(); i++) {
            Http.Reply r = pushes.get(i).get();
            if (i < 3) {
                assertEquals(201, r.status(), r.body());
                assertEquals("queued", Api.json(r.body()).get(0).get("status").asText(), r.body());
                if (!answeredWhileHeld.get(i)) {
                    expected.add(txns.get(i));
                }
            } else {
                assertEquals(200, r.status(), r.body());
                assertTrue(Api.json(r.body()).get("success").asBoolean(), r.body());
                if (!answeredWhileHeld.get(i)) {
                    expected.addAll(List.of("x-tx1", "x-tx2"));
                }
            }
        }
        Set<String> stored = new TreeSet<>();
        for (JsonNode p; (p = Api.pop("/api/v1/pop/queue/" + q + "?batch=100&partitions=10&wait=false")) != null; ) {
            Api.messages(p).forEach(m -> stored.add(m.get("transactionId").asText()));
        }
        assertEquals(expected, stored, "answered while held: " + answeredWhileHeld);
        StorageInvariants.assertHold(ds);
    }

    private static Http.Reply push(String q, String partition, String txn) {
        return Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"" + q + "\",\"partition\":\"" + partition
                + "\",\"transactionId\":\"" + txn + "\",\"payload\":0}]}");
    }

    /** Waits until {@code n} backends running a statement like {@code like} wait on a lock. */
    private void awaitWaiting(String like, int n) throws Exception {
        Await.until(n + " waiting on a lock: " + like, () -> Sql.count(ds, "SELECT count(*) FROM pg_stat_activity"
                + " WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '" + like + "'") >= n,
                Duration.ofSeconds(120));
    }

    /**
     * Adds the delete of queue {@code q} ({@code delayMs} after the gate opens) to the racing calls {@code fs}, opens
     * the gate {@code go}, and returns the bodies of the answers >= 500.
     */
    private static List<String> deleteAmong(String q, long delayMs, CountDownLatch go, List<Future<Http.Reply>> fs)
            throws Exception {
        fs.add(POOL.submit(() -> {
            go.await();
            Thread.sleep(delayMs);
            return Http.delete("/api/v1/resources/queues/" + q);
        }));
        go.countDown();
        List<String> errors = new ArrayList<>();
        for (Future<Http.Reply> f : fs) {
            Http.Reply r = f.get();
            if (r.status() >= 500) {
                errors.add(r.body());
            }
        }
        return errors;
    }

    @Test
    void deadLetterFilingRacingQueueDeleteNeverDeadlocks() throws Exception {
        List<String> errors = new ArrayList<>();
        for (int round = 0; round < 12; round++) {
            String q = "dlqrace" + round;
            Api.configure(q, "{\"retryLimit\":0}");
            for (int p = 0; p < 40; p++) {
                Api.pushN(q, "p" + p, "m" + p, 0, 1);
            }
            List<JsonNode> msgs = new ArrayList<>();
            for (int p = 0; p < 40; p++) {
                msgs.addAll(Api.messages(Api.pop("/api/v1/pop/queue/" + q + "/partition/p" + p + "?wait=false")));
            }
            assertEquals(40, msgs.size());
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Http.Reply>> fs = new ArrayList<>();
            for (JsonNode m : msgs) {
                ObjectNode body = Api.M.createObjectNode();
                body.put("transactionId", m.get("transactionId").asText());
                body.put("partitionId", m.get("partitionId").asText());
                body.put("leaseId", m.get("leaseId").asText());
                body.put("status", "failed");
                body.put("error", "boom");
                fs.add(POOL.submit(() -> {
                    go.await();
                    return Http.post("/api/v1/ack", body.toString());
                }));
            }
            errors.addAll(deleteAmong(q, round % 4, go, fs));
        }
        assertTrue(errors.isEmpty(), errors.size() + " answers >= 500: " + errors);
        StorageInvariants.assertHold(ds);
    }

    @Test
    void wildcardFirstContactPopsRacingQueueDeleteNeverDeadlock() throws Exception {
        List<String> errors = new ArrayList<>();
        for (int round = 0; round < 40; round++) {
            String q = "poprace" + round;
            ArrayNode items = Api.M.createArrayNode();
            for (int p = 0; p < 40; p++) {
                items.addObject().put("queue", q).put("partition", "p" + p).put("transactionId", "x" + p)
                        .putObject("payload").put("p", p);
            }
            ObjectNode body = Api.M.createObjectNode();
            body.set("items", items);
            assertEquals(201, Http.post("/api/v1/push", body.toString()).status());
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Http.Reply>> fs = new ArrayList<>();
            for (int c = 0; c < 3; c++) {
                fs.add(POOL.submit(() -> {
                    go.await();
                    return Http.get("/api/v1/pop/queue/" + q + "?batch=40&partitions=40&wait=false&consumerGroup=g");
                }));
            }
            errors.addAll(deleteAmong(q, round % 3, go, fs));
        }
        assertTrue(errors.isEmpty(), errors.size() + " answers >= 500: " + errors);
        StorageInvariants.assertHold(ds);
    }
}
