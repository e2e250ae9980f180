package io.queen.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.queen.testing.Api;
import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.StorageInvariants;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Push and pop maintenance through the HTTP API, as the official JS client's maintenance test drives it: pushes
 * during push maintenance are answered "buffered" and reach the log, in order and once each, after it ends.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class MaintenanceTest {
    @Inject
    AgroalDataSource ds;

    @AfterEach
    void off() throws Exception {
        Http.post("/api/v1/system/maintenance", "{\"enabled\":false}");
        Http.post("/api/v1/system/maintenance/pop", "{\"enabled\":false}");
        awaitDrained();
    }

    static JsonNode get(String path) {
        Http.Reply r = Http.get(path);
        assertEquals(200, r.status(), r.body());
        return Api.json(r.body());
    }

    static JsonNode set(String path, boolean on) {
        Http.Reply r = Http.post(path, "{\"enabled\":" + on + "}");
        assertEquals(200, r.status(), r.body());
        return Api.json(r.body());
    }

    static long buffered() {
        return get("/api/v1/system/maintenance").get("bufferedMessages").asLong();
    }

    static void awaitDrained() throws Exception {
        Await.within(() -> buffered() == 0, Duration.ofSeconds(10));
        assertEquals(0, buffered());
    }

    static List<String> drain(String queue) {
        List<String> out = new ArrayList<>();
        JsonNode p;
        while ((p = Api.pop("/api/v1/pop/queue/" + queue + "/partition/Default?batch=1000&wait=false")) != null) {
            for (JsonNode m : Api.messages(p)) {
                out.add(m.get("transactionId").asText());
            }
            Api.ackAll(p, "completed", null);
        }
        return out;
    }

    @Test
    void theSwitchesRefuseAnythingButABoolean() {
        for (String body : new String[] {"", "{}", "{\"enabled\":\"yes\"}", "{\"enabled\":1}", "[]"}) {
            for (String path : new String[] {"/api/v1/system/maintenance", "/api/v1/system/maintenance/pop"}) {
                Http.Reply r = Http.post(path, body);
                assertEquals(400, r.status(), path + " " + body + ": " + r.body());
                assertTrue(r.body().contains("enabled (boolean) is required") || r.body().contains("error"), r.body());
            }
        }
        JsonNode g = get("/api/v1/system/maintenance");
        assertFalse(g.get("maintenanceMode").asBoolean());
        assertFalse(g.get("popMaintenanceMode").asBoolean());
        assertEquals(0, g.get("bufferedMessages").asLong());
        assertTrue(g.get("bufferHealthy").asBoolean());
    }

    @Test
    void pushesDuringMaintenanceAreBufferedThenDeliveredInOrderOnce() throws Exception {
        Api.pushN("maint", "Default", "before", 0, 2);
        JsonNode on = set("/api/v1/system/maintenance", true);
        assertTrue(on.get("maintenanceMode").asBoolean());
        assertEquals(1.0, Api.metric("queen_maintenance_mode_enabled{mode=\"push\"}"));
        List<String> expected = new ArrayList<>(List.of("before-0", "before-1"));
        for (int i = 0; i < 10; i++) {
            Http.Reply r = Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"maint\",\"transactionId\":\"m-" + i
                    + "\",\"payload\":{\"i\":" + i + "}},{\"queue\":\"maint\",\"transactionId\":\"n-" + i
                    + "\",\"payload\":{\"i\":" + i + "}}]}");
            assertEquals(201, r.status(), r.body());
            for (JsonNode it : Api.json(r.body())) {
                assertEquals("buffered", it.get("status").asText(), r.body());
                assertEquals("maint", it.get("queue").asText());
            }
            expected.add("m-" + i);
            expected.add("n-" + i);
        }
        assertEquals(20, get("/api/v1/system/maintenance").get("bufferedMessages").asLong());
        assertEquals(20, get("/api/v1/status/buffers").get("pending").asLong());
        assertEquals(20.0, Api.metric("queen_file_buffer_pending"));
        assertTrue(Api.metric("queen_file_buffer_bytes") > 20 * 10, "the spooled bytes of 20 pushes");
        assertEquals(List.of("before-0", "before-1"), drain("maint"), "nothing buffered reached the log");

        set("/api/v1/system/maintenance", false);
        // a push right after the switch waits for the spool: it lands after everything buffered before it
        Http.Reply after = Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"maint\",\"transactionId\":\"after\"}]}");
        assertEquals(201, after.status(), after.body());
        assertEquals("queued", Api.json(after.body()).get(0).get("status").asText(), after.body());
        expected.add("after");
        awaitDrained();
        assertEquals(0.0, Api.metric("queen_file_buffer_bytes"), "drained: the spool file is cut back");
        List<String> got = drain("maint");
        assertEquals(expected.subList(2, expected.size()), got);
        StorageInvariants.assertHold(ds);
    }

    @Test
    void aBufferedPushKeepsItsKey() throws Exception {
        set("/api/v1/system/maintenance", true);
        Http.Reply r = Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"maint-key\",\"key\":\"k-1\",\"payload\":1},"
                + "{\"queue\":\"maint-key\",\"payload\":2}]}");
        assertEquals(201, r.status(), r.body());
        assertEquals("buffered", Api.json(r.body()).get(0).get("status").asText(), r.body());
        set("/api/v1/system/maintenance", false);
        awaitDrained();
        List<String> keys = new ArrayList<>();
        Api.messages(Api.pop("/api/v1/pop/queue/maint-key/partition/Default?batch=10&wait=false"))
                .forEach(m -> keys.add(m.get("key").toString()));
        assertEquals(List.of("\"k-1\"", "null"), keys);
    }

    /** The official JS client's maintenance test, compressed in time: a live producer and consumer across it. */
    @Test
    void theJsClientSequenceLosesAndDuplicatesNothing() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean producing = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.concurrent.atomic.AtomicBoolean consuming = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.concurrent.ConcurrentHashMap<Integer, Integer> received = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.concurrent.atomic.AtomicInteger produced = new java.util.concurrent.atomic.AtomicInteger();
        CompletableFuture<Void> consumer = CompletableFuture.runAsync(() -> {
            while (consuming.get()) {
                JsonNode p = Api.pop("/api/v1/pop/queue/jsmaint?batch=10&wait=true&timeout=1000");
                if (p != null) {
                    for (JsonNode m : Api.messages(p)) {
                        received.merge(m.get("data").get("n").asInt(), 1, Integer::sum);
                    }
                    Api.ackAll(p, "completed", null);
                }
            }
        });
        CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
            while (producing.get()) {
                StringBuilder b = new StringBuilder("{\"items\":[");
                int base = produced.get();
                for (int i = 0; i < 10; i++) {
                    b.append(i == 0 ? "" : ",").append("{\"queue\":\"jsmaint\",\"payload\":{\"n\":")
                            .append(base + i).append("}}");
                }
                Http.Reply r = Http.post("/api/v1/push", b.append("]}").toString());
                assertEquals(201, r.status(), r.body());
                produced.addAndGet(10);
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        Await.until("the consumer receives what is pushed", () -> received.size() >= 20, Duration.ofSeconds(30));
        set("/api/v1/system/maintenance", true);
        Await.until("pushes are buffered", () -> buffered() > 0, Duration.ofSeconds(30));
        int during = received.size();
        long bufferedFirst = buffered();
        Await.until("more pushes buffered", () -> buffered() >= bufferedFirst + 30, Duration.ofSeconds(30));
        assertTrue(received.size() <= during + 10, "nothing new is delivered during push maintenance");
        set("/api/v1/system/maintenance", false);
        awaitDrained();
        int afterMaintenance = produced.get();
        Await.until("the producer goes on after maintenance", () -> produced.get() >= afterMaintenance + 20,
                Duration.ofSeconds(30));
        producing.set(false);
        producer.get();
        Await.within(() -> received.size() >= produced.get(), Duration.ofSeconds(15));
        consuming.set(false);
        consumer.get();
        assertEquals(produced.get(), received.size(), "every produced message received");
        assertTrue(received.values().stream().allMatch(n -> n == 1), "none twice");
    }

    @Test
    void aRepeatedBufferedPushIsStoredOnce() throws Exception {
        set("/api/v1/system/maintenance", true);
        for (int k = 0; k < 3; k++) {
            Http.Reply r = Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"maintdup\",\"transactionId\":\"same\"}]}");
            assertEquals("buffered", Api.json(r.body()).get(0).get("status").asText());
        }
        set("/api/v1/system/maintenance", false);
        awaitDrained();
        assertEquals(List.of("same"), drain("maintdup"));
    }

    @Test
    void popMaintenanceAnswersNothingAndHoldsLongPolls() throws Exception {
        Api.pushN("popmaint", "Default", "p", 0, 3);
        set("/api/v1/system/maintenance/pop", true);
        assertTrue(get("/api/v1/system/maintenance/pop").get("popMaintenanceMode").asBoolean());
        assertEquals(204, Http.get("/api/v1/pop/queue/popmaint/partition/Default?wait=false").status());
        long t0 = System.nanoTime();
        assertEquals(204, Http.get("/api/v1/pop/queue/popmaint?wait=true&timeout=1000").status());
        long heldMs = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(heldMs >= 900, "a long poll is held for its timeout during pop maintenance: " + heldMs + " ms");
        // maintenance ending during a held long poll: it goes on and gets the messages
        CompletableFuture<Http.Reply> held = CompletableFuture.supplyAsync(
                () -> Http.get("/api/v1/pop/queue/popmaint/partition/Default?wait=true&timeout=10000&batch=10"));
        Thread.sleep(300);
        assertFalse(held.isDone());
        set("/api/v1/system/maintenance/pop", false);
        Http.Reply r = held.get();
        assertEquals(200, r.status(), r.body());
        assertEquals(3, Api.json(r.body()).get("messages").size());
    }
}
