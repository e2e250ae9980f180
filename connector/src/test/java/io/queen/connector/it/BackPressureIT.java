package io.queen.connector.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.queen.connector.app.Consumer;
import io.queen.connector.app.Recorder;
import io.queen.connector.app.WeldApp;
import io.queen.connector.health.ChannelMetrics;

/**
 * A slow consumer behind a queue that a fast producer filled: the connector must hold at most one batch beyond
 * what the application asked for. Asserted on the number of messages fetched but not yet processed, sampled
 * throughout the run, not on timing.
 */
class BackPressureIT extends BrokerTest {

    @Test
    void slowConsumerKeepsTheClientBufferBounded() throws InterruptedException {
        int total = 400, batch = 10;
        List<Map<String, Object>> payloads = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            payloads.add(Map.of("id", i, "pad", "x".repeat(200)));
        }
        // Half is waiting before the consumer starts; a producer thread pushes the rest while it consumes.
        for (int p = 0; p < 4; p++) {
            broker.push("flood", "p" + p, payloads.subList(p * 100, p * 100 + 50), null);
        }
        Thread producer = new Thread(() -> {
            for (int p = 0; p < 4; p++) {
                for (int k = 0; k < 5; k++) {
                    int from = p * 100 + 50 + k * 10;
                    broker.push("flood", "p" + p, payloads.subList(from, from + 10), null);
                }
            }
        });
        System.setProperty("app.delay.ms", "3");
        long maxAhead = 0;
        try {
            app = WeldApp.start(channel("mp.messaging.incoming.in", "queue", "flood", "batch-size",
                    Integer.toString(batch), "wait-timeout", "1000"), Consumer.class);
            ChannelMetrics metrics = app.connector().sources().get(0).metrics();
            producer.start();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (Recorder.ENTRIES.size() < total && System.nanoTime() < deadline) {
                // Read processed first: received only grows, so the difference can only be overestimated.
                long processed = Recorder.ENTRIES.size();
                long received = metrics.received.get();
                maxAhead = Math.max(maxAhead, received - processed);
                Broker.sleep(2);
            }
            producer.join(10_000);
            assertEquals(total, Recorder.ENTRIES.size(), "all messages processed");
            // One message in processing (sequential demand) plus at most one batch fetched ahead.
            assertTrue(maxAhead <= batch + 1, "fetched ahead of processing: " + maxAhead);
            assertTrue(metrics.bufferedMax.get() <= batch + 1, "buffered high-water mark " + metrics.bufferedMax.get());
            assertTrue(metrics.pops.get() >= total / batch, "pops were demand-driven: " + metrics.pops.get());
        } finally {
            System.clearProperty("app.delay.ms");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> app.connector().sources().get(0).metrics().buffered.get() == 0);
    }
}
