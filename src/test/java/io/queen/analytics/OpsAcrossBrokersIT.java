package io.queen.analytics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.TwoBrokers;
import io.queen.testing.Api;
import io.queen.testing.BrokerProcess;
import io.queen.testing.Http;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two packaged brokers on one database, flushing every 500 ms: each labels its rows with its own worker id, the
 * analytics routes of either broker see both, the cluster totals add up both, and with {@code QUEEN_LOG_JSON=true}
 * a broker writes one JSON object per line, including the queue-deleted and dead-letter events.
 */
class OpsAcrossBrokersIT {
    /** Event lines name the queue's tenant: the default one here. */
    static final String TENANT = "tenant=00000000-0000-0000-0000-000000000001";
    @RegisterExtension
    static final TwoBrokers brokers = new TwoBrokers("opsmetrics",
            "ops-a", Map.of("QUEEN_WORKER_ID", "7", "QUEEN_METRICS_FLUSH_MS", "500", "QUEEN_LOG_JSON", "true",
                    "QUEEN_HOSTNAME", "host-a"),
            "ops-b", Map.of("QUEEN_WORKER_ID", "8", "QUEEN_METRICS_FLUSH_MS", "500", "QUEEN_HOSTNAME", "host-b"));

    @Test
    void bothBrokersAreCountedAndTheJsonLogCarriesTheEvents() throws Exception {
        assertEquals(200, Http.post(brokers.a().url(), "/api/v1/configure",
                "{\"queue\":\"x-ops\",\"options\":{\"retryLimit\":0}}").status());
        push(brokers.a(), 3);
        push(brokers.b(), 2);
        // one message failed to the dead-letter queue through broker b
        JsonNode popped = Api.json(Http.get(brokers.b().url(), "/api/v1/pop/queue/x-ops?batch=1").body());
        JsonNode m = popped.get("messages").get(0);
        Http.Reply ack = Http.post(brokers.b().url(), "/api/v1/ack",
                "{\"transactionId\":\"" + m.get("transactionId").asText()
                + "\",\"partitionId\":\"" + m.get("partitionId").asText() + "\",\"leaseId\":\""
                + m.get("leaseId").asText() + "\",\"status\":\"failed\",\"error\":\"poison\"}");
        assertTrue(ack.body().contains("\"dlq\":true"), ack.body());

        JsonNode w = awaitWorkers(brokers.a(), 5);
        List<Integer> ids = new ArrayList<>();
        w.get("workers").forEach(x -> ids.add(x.get("workerId").asInt()));
        assertEquals(List.of(7, 8), ids);
        assertEquals(3, w.get("workers").get(0).get("pushMessages").asLong());
        assertEquals("host-a", w.get("workers").get(0).get("hostname").asText());
        assertEquals(2, w.get("workers").get(1).get("pushMessages").asLong());
        assertEquals(1, w.get("summary").get("totalDlq").asLong());
        JsonNode sys = Api.json(Http.get(brokers.b().url(), "/api/v1/analytics/system-metrics").body());
        assertEquals(2, sys.get("replicaCount").asInt(), sys.toString());
        assertEquals(5.0, waitForMetric(brokers.b(), "queen_cluster_push_messages_total{scope=\"cluster\"}", 5.0));

        assertEquals(200, Http.send(
                HttpRequest.newBuilder(URI.create(brokers.a().url() + "/api/v1/resources/queues/x-ops"))
                .DELETE().build()).status());
        String log = awaitLog(brokers.a(), "queue deleted: " + TENANT + " queue=x-ops");
        List<JsonNode> lines = new ArrayList<>();
        for (String line : log.lines().toList()) {
            if (line.startsWith("{")) {
                lines.add(Api.json(line));  // every JSON line parses
            }
        }
        assertFalse(lines.isEmpty(), "JSON log lines:\n" + log);
        JsonNode deleted = lines.stream().filter(j -> j.path("message").asText().startsWith("queue deleted"))
                .findFirst().orElseThrow();
        assertEquals("INFO", deleted.get("level").asText());
        assertEquals("io.queen.queue.QueueDeletion", deleted.get("loggerName").asText());
        assertTrue(lines.stream().anyMatch(j -> j.path("message").asText().startsWith("queue configured: " + TENANT
                + " queue=x-ops")));
        // broker b logs text (the default) and carries the dead-letter event
        String textLog = awaitLog(brokers.b(), "dead-lettered 1 message(s): " + TENANT + " queue=x-ops");
        assertFalse(textLog.lines().anyMatch(l -> l.startsWith("{\"timestamp\"")), "b logs text");
    }

    private static void push(BrokerProcess broker, int n) {
        StringBuilder items = new StringBuilder();
        for (int i = 0; i < n; i++) {
            items.append(i == 0 ? "" : ",").append("{\"queue\":\"x-ops\",\"payload\":{\"n\":").append(i).append("}}");
        }
        assertEquals(201, Http.post(broker.url(), "/api/v1/push", "{\"items\":[" + items + "]}").status());
    }

    private static JsonNode awaitWorkers(BrokerProcess broker, long pushed) throws InterruptedException {
        JsonNode w = null;
        for (int i = 0; i < 100; i++) {
            w = Api.json(Http.get(broker.url(), "/api/v1/analytics/worker-metrics").body());
            // per broker too: the summary can be complete while a broker's own row still lags its flush
            if (w.get("summary").get("totalPushMessages").asLong() == pushed && w.get("workers").size() == 2
                    && w.get("summary").get("totalDlq").asLong() == 1
                    && w.get("workers").get(0).get("pushMessages").asLong()
                    + w.get("workers").get(1).get("pushMessages").asLong() == pushed) {
                return w;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("worker-metrics never showed both brokers: " + w);
    }

    private static double waitForMetric(BrokerProcess broker, String series, double want) throws InterruptedException {
        double v = -1;
        for (int i = 0; i < 100; i++) {
            v = Api.samples(Http.get(broker.url(), "/metrics/prometheus").body()).getOrDefault(series, -1.0);
            if (v == want) {
                return v;
            }
            Thread.sleep(100);
        }
        return v;
    }

    private static String awaitLog(BrokerProcess broker, String needle) throws Exception {
        for (int i = 0; i < 100; i++) {
            String log = broker.logText();
            if (log.contains(needle)) {
                return log;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no '" + needle + "' in the log:\n" + broker.logText());
    }
}
