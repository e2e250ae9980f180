package io.queen.connector.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.queen.connector.app.Consumer;
import io.queen.connector.app.Recorder;
import io.queen.connector.app.WeldApp;

/**
 * Processing a batch takes longer than the queue's lease: with lease renewal the connector keeps the lease, so a
 * competing consumer never receives the batch and every message is processed once.
 */
class LeaseRenewalIT extends BrokerTest {

    @Test
    void leaseIsRenewedWhileABatchIsProcessed() {
        broker.configure("slow", Map.of("leaseTime", 2));
        List<Map<String, Object>> payloads = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            payloads.add(Map.of("id", i));
        }
        broker.push("slow", "Default", payloads, null);
        System.setProperty("app.delay.ms", "500");
        try {
            app = WeldApp.start(channel("mp.messaging.incoming.in", "queue", "slow", "batch-size", "8",
                    "lease-renewal-interval", "700", "lease-extension", "2", "wait-timeout", "500"), Consumer.class);
            // A competitor pops while the batch is being processed (4 s > the 2 s lease): it must get nothing.
            Broker.sleep(2_500);
            assertEquals(null, broker.call("GET", "/api/v1/pop/queue/slow?batch=10", null), "lease was lost");
            await().atMost(Duration.ofSeconds(20)).until(() -> Recorder.ENTRIES.size() >= 8);
        } finally {
            System.clearProperty("app.delay.ms");
        }
        assertEquals(8, new HashSet<>(Recorder.ENTRIES.stream().map(Recorder.Entry::id).toList()).size());
        assertEquals(8, Recorder.ENTRIES.size(), "no redelivery");
        assertTrue(app.connector().sources().get(0).metrics().leaseExtensions.get() >= 2);
    }
}
