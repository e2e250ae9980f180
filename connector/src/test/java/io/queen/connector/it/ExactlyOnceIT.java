package io.queen.connector.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.queen.connector.app.Transformer;

/**
 * Exactly-once consume-transform-produce: a transforming application is killed with SIGKILL twice mid-stream and
 * restarted; every input must yield its two outputs exactly once, none lost, none duplicated.
 */
class ExactlyOnceIT extends BrokerTest {

    private static final int PARTITIONS = 3, PER_PARTITION = 60, INPUTS = PARTITIONS * PER_PARTITION;
    private int drains;

    private List<JsonNode> outputs() {
        return broker.drain("eo-out", "check" + (++drains));
    }

    @Test
    void killedAndRestartedTransformerProducesEachOutputExactlyOnce() {
        broker.configure("eo-in", Map.of("leaseTime", 3));
        for (int p = 0; p < PARTITIONS; p++) {
            List<Map<String, Object>> payloads = new ArrayList<>();
            for (int i = 0; i < PER_PARTITION; i++) {
                payloads.add(Map.of("id", p * 1000 + i));
            }
            broker.push("eo-in", "p" + p, payloads, null);
        }
        Map<String, String> config = new LinkedHashMap<>(merge(
                channel("mp.messaging.incoming.in", "queue", "eo-in", "batch-size", "10", "wait-timeout", "1000"),
                channel("mp.messaging.outgoing.out", "queue", "eo-out")));
        config.put("app.delay.ms", "15");

        for (int round = 0; round < 2; round++) {
            int before = outputs().size();
            try (AppProcess app = AppProcess.start("eo-" + round, config, Transformer.class)) {
                // Kill once this instance has committed some transactions, in the middle of the stream.
                await().atMost(Duration.ofSeconds(60)).until(() -> app.entries().size() >= 25);
                app.kill();
            }
            assertTrue(outputs().size() > before, "round " + round + " made progress");
        }
        try (AppProcess app = AppProcess.start("eo-final", config, Transformer.class)) {
            await().atMost(Duration.ofSeconds(90)).until(() -> outputs().size() >= 2 * INPUTS);
            Broker.sleep(1_000);
            List<JsonNode> out = outputs();
            Set<String> keys = new HashSet<>();
            Set<String> txns = new HashSet<>();
            for (JsonNode m : out) {
                keys.add(m.path("data").path("id").asInt() + "/" + m.path("data").path("part").asInt());
                txns.add(m.path("transactionId").asText());
            }
            assertEquals(2 * INPUTS, out.size(), "outputs, counting duplicates");
            assertEquals(2 * INPUTS, keys.size(), "distinct (input, part) outputs");
            assertEquals(2 * INPUTS, txns.size(), "distinct output transaction ids");
            assertTrue(txns.stream().allMatch(t -> t.endsWith(":0") || t.endsWith(":1")), "derived ids");
            // And every input was acked: nothing left to consume.
            assertEquals(null, broker.call("GET", "/api/v1/pop/queue/eo-in?batch=10", null));
        }
    }
}
