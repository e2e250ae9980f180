package io.queen.streams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A stream consumer in its own JVM that drives the broker exactly as the streaming SDK's runner does: register
 * the query, pop with a consumer group (several partitions per pop), read the partition's state, reduce an
 * event-time tumbling-window sum, and commit state ops + closed-window emits + the source ack in one
 * {@code /streams/v1/cycle}. Closed windows go to the sink with the window as transaction id. Killed with -9 by
 * {@link StreamsIT}. Args: broker url, query name, source queue, sink queue, window ms, pause ms per cycle.
 */
public final class WindowedSumWorker {
    private static final ObjectMapper M = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    static final String WM = "__wm__";

    private WindowedSumWorker() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String name = args[1];
        String source = args[2];
        String sink = args[3];
        long windowMs = Long.parseLong(args[4]);
        long pauseMs = Long.parseLong(args[5]);
        String group = "streams." + name;
        ObjectNode reg = M.createObjectNode().put("name", name).put("source_queue", source).put("sink_queue", sink)
                .put("config_hash", "sum-" + windowMs);
        String queryId = post(url, "/streams/v1/queries", reg).get("query_id").asText();
        System.out.println("WORKER STARTED " + queryId);
        while (true) {
            HttpResponse<String> popped = HTTP.send(HttpRequest.newBuilder(URI.create(url + "/api/v1/pop/queue/"
                    + source + "?batch=50&partitions=2&wait=true&timeout=1000&consumerGroup=" + group))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            if (popped.statusCode() == 204) {
                continue;
            }
            Map<String, List<JsonNode>> byPartition = new LinkedHashMap<>();
            for (JsonNode m : M.readTree(popped.body()).get("messages")) {
                byPartition.computeIfAbsent(m.get("partitionId").asText(), k -> new java.util.ArrayList<>()).add(m);
            }
            for (Map.Entry<String, List<JsonNode>> e : byPartition.entrySet()) {
                JsonNode res = cycle(url, queryId, group, sink, windowMs, e.getKey(), e.getValue());
                if (!res.path("success").asBoolean()) {
                    System.out.println("cycle failed: " + res);
                }
                Thread.sleep(pauseMs);
            }
        }
    }

    private static JsonNode cycle(String url, String queryId, String group, String sink, long windowMs, String pid,
            List<JsonNode> msgs) throws Exception {
        ObjectNode get = M.createObjectNode().put("query_id", queryId).put("partition_id", pid);
        Map<String, JsonNode> state = new TreeMap<>();
        for (JsonNode row : post(url, "/streams/v1/state/get", get).get("rows")) {
            state.put(row.get("key").asText(), row.get("value"));
        }
        long wm = state.containsKey(WM) ? state.get(WM).get("eventTimeMs").asLong() : Long.MIN_VALUE;
        Map<Long, Long> sums = new TreeMap<>();
        for (Map.Entry<String, JsonNode> s : state.entrySet()) {
            if (!s.getKey().equals(WM)) {
                sums.put(s.getValue().get("windowStart").asLong(), s.getValue().get("acc").asLong());
            }
        }
        String partition = msgs.get(0).get("partition").asText();
        for (JsonNode m : msgs) {
            long ts = m.get("data").get("ts").asLong();
            sums.merge(Math.floorDiv(ts, windowMs) * windowMs, m.get("data").get("v").asLong(), Long::sum);
            wm = Math.max(wm, ts);
        }
        ObjectNode body = M.createObjectNode().put("query_id", queryId).put("partition_id", pid)
                .put("consumer_group", group);
        ArrayNode ops = body.putArray("state_ops");
        ArrayNode items = body.putArray("push_items");
        for (Map.Entry<Long, Long> w : sums.entrySet()) {
            String key = "sum\u001f" + w.getKey();
            if (w.getKey() + windowMs <= wm) {
                // closed: emit once, forget
                ObjectNode it = items.addObject().put("queue", sink).put("partition", partition)
                        .put("transactionId", partition + ":" + w.getKey());
                it.putObject("payload").put("windowStart", w.getKey()).put("sum", w.getValue());
                if (state.containsKey(key)) {
                    ops.addObject().put("type", "delete").put("key", key);
                }
            } else {
                ops.addObject().put("type", "upsert").put("key", key).putObject("value")
                        .put("windowStart", w.getKey()).put("acc", w.getValue());
            }
        }
        ops.addObject().put("type", "upsert").put("key", WM).putObject("value").put("eventTimeMs", wm);
        JsonNode last = msgs.get(msgs.size() - 1);
        body.putObject("ack").put("transactionId", last.get("transactionId").asText())
                .put("leaseId", last.get("leaseId").asText()).put("status", "completed").put("count", msgs.size());
        return post(url, "/streams/v1/cycle", body);
    }

    static JsonNode post(String url, String path, JsonNode body) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url + path))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
        return M.readTree(r.body());
    }
}
