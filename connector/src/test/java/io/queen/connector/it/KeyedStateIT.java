package io.queen.connector.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.queen.connector.app.WordCounter;

/**
 * Keyed state with exactly-once: a word-counting application ({@link WordCounter}) is killed with SIGKILL twice
 * mid-stream and restarted; every word's count in the broker's state must be exact (nothing counted twice, nothing
 * missed), and the emitted running counts must be 1..n once each.
 */
class KeyedStateIT extends BrokerTest {

    private static final int PARTITIONS = 3, WORDS = 4, PER_PARTITION = 60;

    private List<JsonNode> outputs(String group) {
        return broker.drain("ks-out", group);
    }

    @Test
    void countsAreExactAcrossKills() {
        broker.configure("ks-in", Map.of("leaseTime", 3));
        Map<String, Integer> expected = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            List<Map<String, Object>> payloads = new ArrayList<>();
            for (int i = 0; i < PER_PARTITION; i++) {
                String word = "w" + p + "-" + (i * 7 % WORDS);
                payloads.add(Map.of("word", word));
                expected.merge(word, 1, Integer::sum);
            }
            broker.push("ks-in", "p" + p, payloads, null);
        }
        Map<String, String> config = new LinkedHashMap<>(merge(
                channel("mp.messaging.incoming.in", "queue", "ks-in", "batch-size", "10", "wait-timeout", "1000",
                        "consumer-group", "counter", "state-query", "word-count"),
                channel("mp.messaging.outgoing.out", "queue", "ks-out")));
        config.put("app.delay.ms", "15");

        int drained = 0;
        for (int round = 0; round < 2; round++) {
            try (AppProcess app = AppProcess.start("ks-" + round, config, WordCounter.class)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> app.entries().size() >= 25);
                app.kill();
            }
            drained += outputs("progress" + round).size();
            assertTrue(drained > 0, "round " + round + " made progress");
        }
        int total = PARTITIONS * PER_PARTITION;
        try (AppProcess app = AppProcess.start("ks-final", config, WordCounter.class)) {
            await().atMost(Duration.ofSeconds(90)).until(() -> outputs("count" + System.nanoTime()).size() >= total);
            Broker.sleep(1_000);
            // the state: exact per word
            ObjectNode reg = Broker.JSON.createObjectNode().put("name", "word-count").put("source_queue", "ks-in")
                    .put("config_hash", "1");
            String queryId = broker.call("POST", "/streams/v1/queries", reg).get("query_id").asText();
            Map<String, Integer> counted = new HashMap<>();
            for (String pid : partitionIds()) {
                ObjectNode get = Broker.JSON.createObjectNode().put("query_id", queryId).put("partition_id", pid);
                for (JsonNode row : broker.call("POST", "/streams/v1/state/get", get).get("rows")) {
                    counted.put(row.get("key").asText(), row.get("value").get("count").asInt());
                }
            }
            assertEquals(expected, counted, "counts in the broker's state");
            // the emitted running counts: each (word, n) once, n = 1..count
            Map<String, Set<Integer>> seen = new HashMap<>();
            List<JsonNode> out = outputs("final");
            for (JsonNode m : out) {
                assertTrue(seen.computeIfAbsent(m.path("data").path("word").asText(), k -> new TreeSet<>())
                        .add(m.path("data").path("count").asInt()), "emitted twice: " + m.path("data"));
            }
            assertEquals(total, out.size());
            expected.forEach((w, n) -> assertEquals(n, seen.get(w).size(), "running counts of " + w));
            assertEquals(null, broker.call("GET", "/api/v1/pop/queue/ks-in?batch=10&consumerGroup=counter", null));
        }
    }

    private List<String> partitionIds() {
        Set<String> ids = new TreeSet<>();
        broker.drain("ks-in", "ids").forEach(m -> ids.add(m.path("partitionId").asText()));
        assertEquals(PARTITIONS, ids.size());
        return new ArrayList<>(ids);
    }
}
