package io.queen.connector.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.queen.connector.app.Consumer;
import io.queen.connector.app.Recorder;
import io.queen.connector.app.WeldApp;

/** Nacks under each failure strategy, checked on the broker (cursor, dead-letter queue). */
class FailureStrategyIT extends BrokerTest {

    private static List<Map<String, Object>> fiveWithPoisonAt2() {
        List<Map<String, Object>> payloads = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            payloads.add(i == 2 ? Map.of("id", i, "poison", true) : Map.of("id", i));
        }
        return payloads;
    }

    private static List<String> processedIds() {
        return Recorder.ENTRIES.stream().map(Recorder.Entry::id).toList();
    }

    @Test
    void retryNacksUntilTheRetryLimitThenTheBrokerDeadLetters() {
        broker.configure("retry-q", Map.of("retryLimit", 1, "leaseTime", 30));
        broker.push("retry-q", "Default", fiveWithPoisonAt2(), null);
        app = WeldApp.start(channel("mp.messaging.incoming.in", "queue", "retry-q", "failure-strategy", "retry",
                "wait-timeout", "500"), Consumer.class);

        await().atMost(Duration.ofSeconds(30)).until(() -> broker.dlq("retry-q").path("total").asInt() == 1
                && Recorder.ENTRIES.size() >= 4);
        JsonNode dead = broker.dlq("retry-q").path("messages").get(0);
        assertEquals(2, dead.path("data").path("id").asInt());
        assertTrue(dead.path("errorMessage").asText().contains("poison message 2"), dead.toString());
        assertEquals(1, dead.path("retryCount").asInt(), dead.toString());
        // Messages after the failed one are not processed before its redelivery, and none twice.
        assertEquals(List.of("0", "1", "3", "4"), processedIds());
        assertEquals(2, app.connector().sources().get(0).metrics().nacks.get(), "one nack per delivery of 2");
    }

    @Test
    void deadLetterQueueFilesAtOnce() {
        broker.configure("dlq-q", Map.of("retryLimit", 5));
        broker.push("dlq-q", "Default", fiveWithPoisonAt2(), null);
        app = WeldApp.start(channel("mp.messaging.incoming.in", "queue", "dlq-q", "failure-strategy",
                "dead-letter-queue", "wait-timeout", "500"), Consumer.class);

        await().atMost(Duration.ofSeconds(30)).until(() -> Recorder.ENTRIES.size() >= 4);
        JsonNode dlq = broker.dlq("dlq-q");
        assertEquals(1, dlq.path("total").asInt(), dlq.toString());
        assertEquals(0, dlq.path("messages").get(0).path("retryCount").asInt());
        assertEquals(List.of("0", "1", "3", "4"), processedIds());
        assertEquals(1, app.connector().sources().get(0).metrics().nacks.get(), "filed on the first failure");
    }

    @Test
    void ignoreAcksAndGoesOn() {
        broker.push("ignore-q", "Default", fiveWithPoisonAt2(), null);
        app = WeldApp.start(channel("mp.messaging.incoming.in", "queue", "ignore-q", "failure-strategy", "ignore",
                "wait-timeout", "500"), Consumer.class);
        await().atMost(Duration.ofSeconds(30)).until(() -> Recorder.ENTRIES.size() >= 4);
        var source = app.connector().sources().get(0);
        await().atMost(Duration.ofSeconds(10)).until(() -> source.metrics().acks.get() == 5);
        app.close();
        app = null;
        assertEquals(0, broker.dlq("ignore-q").path("total").asInt());
        assertEquals(null, broker.call("GET", "/api/v1/pop/queue/ignore-q", null), "all five acked");
    }

    @Test
    void failStopsTheChannelAndTheMessageStaysOnTheBroker() {
        broker.push("fail-q", "Default", fiveWithPoisonAt2(), null);
        app = WeldApp.start(channel("mp.messaging.incoming.in", "queue", "fail-q", "failure-strategy", "fail",
                "wait-timeout", "500"), Consumer.class);
        await().atMost(Duration.ofSeconds(30)).until(() -> !app.health().getLiveness().isOk());
        assertEquals(List.of("0", "1"), processedIds());
        assertFalse(app.health().getReadiness().isOk());
        app.close();
        app = null;
        // Stopping released the lease: the poison message and the rest are deliverable again at once.
        JsonNode again = broker.call("GET", "/api/v1/pop/queue/fail-q?batch=10", null);
        assertEquals(2, again.path("messages").get(0).path("data").path("id").asInt(), again.toString());
        assertEquals(3, again.path("messages").size());
        assertEquals(0, broker.dlq("fail-q").path("total").asInt());
    }

    @Test
    void unknownStrategyFailsAtStartupWithItsName() {
        java.util.Set<Long> timersBefore = connectorTimers();
        Exception e = org.junit.jupiter.api.Assertions.assertThrows(Exception.class, () -> WeldApp.start(
                channel("mp.messaging.incoming.in", "queue", "x", "failure-strategy", "bogus"), Consumer.class));
        Throwable t = e;
        StringBuilder messages = new StringBuilder();
        while (t != null) {
            messages.append(t.getMessage()).append('\n');
            t = t.getCause();
        }
        assertTrue(messages.toString().contains("Unknown failure-strategy 'bogus'"), messages.toString());
        // The refused channel left no client behind: nothing was scheduled, so no timer thread was started whose
        // reconnect probes would run for the rest of the JVM's life once this broker is gone.
        java.util.Set<Long> left = connectorTimers();
        left.removeAll(timersBefore);
        assertTrue(left.isEmpty(), "a timer thread of the application that failed to start is running");
    }

    private static java.util.Set<Long> connectorTimers() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("queen-connector-timer"))
                .map(Thread::threadId).collect(java.util.stream.Collectors.toCollection(java.util.HashSet::new));
    }

    @Test
    void immediateCommitStrategyAcksEachMessage() {
        List<Map<String, Object>> payloads = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            payloads.add(Map.of("id", i));
        }
        broker.push("immediate-q", "Default", payloads, null);
        app = WeldApp.start(channel("mp.messaging.incoming.in", "queue", "immediate-q", "commit-strategy",
                "immediate", "batch-size", "8", "wait-timeout", "500"), Consumer.class);
        await().atMost(Duration.ofSeconds(30)).until(() -> Recorder.ENTRIES.size() >= 30);
        var source = app.connector().sources().get(0);
        await().atMost(Duration.ofSeconds(10)).until(() -> source.metrics().acks.get() == 30);
        assertEquals(30, Recorder.ENTRIES.size());
        assertEquals(null, broker.call("GET", "/api/v1/pop/queue/immediate-q", null), "all acked");
    }
}
