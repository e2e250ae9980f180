package io.queen.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.agroal.api.AgroalDataSource;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.StorageInvariants;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
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
 * party takes queue, partition and cursor rows in the global order). Each race is run for many rounds; every
 * answer must be below 500 and the storage invariants (no orphan rows among them) must hold afterwards.
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

    @Test
    void pushesCreatingPartitionsWhileTheQueueIsDeletedLeaveNoOrphanSidecarRows() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger fiveHundreds = new AtomicInteger();
        AtomicInteger pushed = new AtomicInteger();
        List<String> errors = new ArrayList<>();
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int thread = t;
            fs.add(POOL.submit(() -> {
                for (int i = 0; !stop.get(); i++) {
                    Http.Reply r = Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"orph\",\"partition\":\"p-"
                            + thread + "-" + i + "\",\"transactionId\":\"t-" + thread + "-" + i
                            + "\",\"payload\":{\"i\":" + i + "}}]}");
                    if (r.status() >= 500) {
                        fiveHundreds.incrementAndGet();
                        synchronized (errors) {
                            errors.add(r.body());
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
                    Http.Reply r = Http.delete("/api/v1/resources/queues/orph");
                    if (r.status() >= 500) {
                        fiveHundreds.incrementAndGet();
                        synchronized (errors) {
                            errors.add(r.body());
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
        assertEquals(0, fiveHundreds.get(), errors.toString());
    }

    @Test
    void deadLetterFilingRacingQueueDeleteNeverDeadlocks() throws Exception {
        int fiveHundreds = 0;
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
            int r0 = round;
            fs.add(POOL.submit(() -> {
                go.await();
                Thread.sleep(r0 % 4);
                return Http.delete("/api/v1/resources/queues/" + q);
            }));
            go.countDown();
            for (Future<Http.Reply> f : fs) {
                Http.Reply r = f.get();
                if (r.status() >= 500) {
                    fiveHundreds++;
                    errors.add(r.body());
                }
            }
        }
        assertEquals(0, fiveHundreds, errors.toString());
        StorageInvariants.assertHold(ds);
    }

    @Test
    void wildcardFirstContactPopsRacingQueueDeleteNeverDeadlock() throws Exception {
        int fiveHundreds = 0;
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
            int r0 = round;
            fs.add(POOL.submit(() -> {
                go.await();
                Thread.sleep(r0 % 3);
                return Http.delete("/api/v1/resources/queues/" + q);
            }));
            go.countDown();
            for (Future<Http.Reply> f : fs) {
                Http.Reply r = f.get();
                if (r.status() >= 500) {
                    fiveHundreds++;
                    errors.add(r.body());
                }
            }
        }
        assertEquals(0, fiveHundreds, errors.toString());
        StorageInvariants.assertHold(ds);
    }
}
