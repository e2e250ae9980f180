package io.queen.connector.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.queen.connector.app.Consumer;
import io.queen.connector.app.Recorder;
import io.queen.connector.app.WeldApp;

/**
 * Stopping an application mid-stream: polling stops, the message in processing finishes and is acked, the rest
 * of the leased batch is handed back at once (no wait for lease expiry), and nothing is lost or processed twice.
 */
class GracefulStopIT extends BrokerTest {

    @Test
    void stopMidBatchHandsTheRestBackWithoutLossOrRepeat() {
        broker.configure("stop-q", Map.of("leaseTime", 60));
        for (int p = 0; p < 2; p++) {
            List<Map<String, Object>> payloads = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                payloads.add(Map.of("id", p * 1000 + i));
            }
            broker.push("stop-q", "p" + p, payloads, null);
        }
        Map<String, String> config = channel("mp.messaging.incoming.in", "queue", "stop-q", "batch-size", "20",
                "wait-timeout", "500");
        System.setProperty("app.delay.ms", "20");
        List<String> first;
        try {
            app = WeldApp.start(config, Consumer.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> Recorder.ENTRIES.size() >= 30);
            app.close();
            app = null;
            first = Recorder.ENTRIES.stream().map(Recorder.Entry::id).toList();
        } finally {
            System.clearProperty("app.delay.ms");
        }
        assertTrue(first.size() < 100, "stopped mid-stream");
        Recorder.ENTRIES.clear();
        app = WeldApp.start(config, Consumer.class);
        // The queue's lease is 60 s: finishing well before proves the stop released it.
        await().atMost(Duration.ofSeconds(20)).until(() -> first.size() + Recorder.ENTRIES.size() >= 100);
        List<String> second = Recorder.ENTRIES.stream().map(Recorder.Entry::id).toList();
        Set<String> all = new HashSet<>(first);
        all.addAll(second);
        assertEquals(100, all.size(), "nothing lost");
        assertEquals(100, first.size() + second.size(), "nothing processed twice");
    }
}
