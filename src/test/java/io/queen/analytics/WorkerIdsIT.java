package io.queen.analytics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.Api;
import io.queen.testing.BrokerProcess;
import io.queen.testing.Http;
import io.queen.testing.TwoBrokers;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two brokers on one host and one database, neither configured with a worker id or a host name: each registers a
 * worker id of its own, reports it with its host name and port on {@code /health}, and the per-minute worker metrics
 * keep their traffic apart (one row per broker, each with its own port and counts).
 */
class WorkerIdsIT {
    static final Map<String, String> ENV = Map.of("QUEEN_METRICS_FLUSH_MS", "500");
    @RegisterExtension
    static final TwoBrokers brokers = new TwoBrokers("workerids", "workers-a", ENV, "workers-b", ENV);

    @Test
    void brokersOnOneHostHaveDistinctWorkerIdsAndTheirMetricsStayApart() throws Exception {
        JsonNode a = health(brokers.a());
        JsonNode b = health(brokers.b());
        assertNotEquals(a.get("worker_id").asInt(), b.get("worker_id").asInt(), a + " " + b);
        assertEquals(a.path("hostname").asText("-"), b.path("hostname").asText("+"), "one host: " + a + " " + b);
        assertEquals(brokers.a().port(), a.get("port").asInt(), a.toString());
        assertEquals(brokers.b().port(), b.get("port").asInt(), b.toString());

        push(brokers.a(), "workers-a", 3);
        push(brokers.b(), "workers-b", 2);
        Map<Integer, JsonNode> rows = awaitRows(brokers.b(), Map.of(a.get("worker_id").asInt(), 3L,
                b.get("worker_id").asInt(), 2L));
        assertEquals(brokers.a().port(), rows.get(a.get("worker_id").asInt()).get("port").asInt(), rows.toString());
        assertEquals(brokers.b().port(), rows.get(b.get("worker_id").asInt()).get("port").asInt(), rows.toString());
        assertEquals(2, rows.size(), rows.toString());
    }

    private static JsonNode health(BrokerProcess broker) {
        Http.Reply r = Http.get(broker.url(), "/health");
        assertEquals(200, r.status(), r.body());
        return Api.json(r.body());
    }

    private static void push(BrokerProcess broker, String queue, int n) {
        StringBuilder items = new StringBuilder();
        for (int i = 0; i < n; i++) {
            items.append(i == 0 ? "" : ",").append("{\"queue\":\"").append(queue).append("\",\"payload\":{\"i\":")
                    .append(i).append("}}");
        }
        Http.Reply r = Http.post(broker.url(), "/api/v1/push", "{\"items\":[" + items + "]}");
        assertEquals(201, r.status(), r.body());
    }

    /**
     * The worker-metrics rows by worker id once each broker's flush shows the messages pushed through it
     * ({@code pushed}: worker id to count); fails naming the last answer when they never do.
     */
    private static Map<Integer, JsonNode> awaitRows(BrokerProcess reader, Map<Integer, Long> pushed)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        JsonNode answer = null;
        while (System.nanoTime() < deadline) {
            answer = Api.json(Http.get(reader.url(), "/api/v1/analytics/worker-metrics").body());
            Map<Integer, JsonNode> rows = new HashMap<>();
            answer.get("workers").forEach(w -> rows.put(w.get("workerId").asInt(), w));
            boolean all = pushed.entrySet().stream().allMatch(e -> rows.containsKey(e.getKey())
                    && rows.get(e.getKey()).get("pushMessages").asLong() == e.getValue());
            if (all) {
                return rows;   // merged rows would never show both counts: one row of 5 under one id
            }
            Thread.sleep(100);
        }
        throw new AssertionError("worker-metrics never showed each broker's own pushes: " + answer);
    }
}
