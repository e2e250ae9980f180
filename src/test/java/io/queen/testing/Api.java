package io.queen.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Thin typed wrappers over the HTTP API for tests (Jackson trees; safe from many threads). */
public final class Api {
    public static final ObjectMapper M = new ObjectMapper();

    private Api() {
    }

    public static JsonNode json(String s) {
        try {
            return M.readTree(s);
        } catch (Exception e) {
            throw new IllegalStateException("not JSON: " + s, e);
        }
    }

    public static void configure(String queue, String optionsJson) {
        Http.Reply r = Http.post("/api/v1/configure", "{\"queue\":\"" + queue + "\",\"options\":" + optionsJson + "}");
        assertEquals(200, r.status(), r.body());
    }

    /** Pushes payloads {"n": i} with transaction ids prefix-i to one partition; returns the results. */
    public static JsonNode pushN(String queue, String partition, String prefix, int from, int count) {
        ArrayNode items = M.createArrayNode();
        for (int i = from; i < from + count; i++) {
            ObjectNode it = items.addObject();
            it.put("queue", queue);
            it.put("partition", partition);
            it.put("transactionId", prefix + "-" + i);
            it.putObject("payload").put("n", i);
        }
        ObjectNode body = M.createObjectNode();
        body.set("items", items);
        Http.Reply r = Http.post("/api/v1/push", body.toString());
        assertEquals(201, r.status(), r.body());
        return json(r.body());
    }

    /** Pops; returns null on 204. */
    /** Pushes {@code count} messages as {@link #pushN} does from 0, then pops the partition with {@code batch}. */
    public static JsonNode pushThenPop(String queue, String partition, String prefix, int count, int batch) {
        pushN(queue, partition, prefix, 0, count);
        return pop("/api/v1/pop/queue/" + queue + "/partition/" + partition + "?batch=" + batch);
    }

    public static JsonNode pop(String path) {
        Http.Reply r = Http.get(path);
        if (r.status() == 204) {
            return null;
        }
        assertEquals(200, r.status(), r.body());
        return json(r.body());
    }

    public static List<JsonNode> messages(JsonNode popped) {
        List<JsonNode> out = new ArrayList<>();
        if (popped != null) {
            popped.get("messages").forEach(out::add);
        }
        return out;
    }

    /** Acks every message of a pop with one status; returns the per-item results. */
    public static JsonNode ackAll(JsonNode popped, String status, String group) {
        Http.Reply r = Http.post("/api/v1/ack/batch", ackAllBody(popped, status, group));
        assertEquals(200, r.status(), r.body());
        return json(r.body());
    }

    /** The {@code /api/v1/ack/batch} body acking every message of a pop with one status. */
    public static String ackAllBody(JsonNode popped, String status, String group) {
        ArrayNode acks = M.createArrayNode();
        for (JsonNode m : popped.get("messages")) {
            ObjectNode a = acks.addObject();
            a.put("transactionId", m.get("transactionId").asText());
            a.put("partitionId", m.get("partitionId").asText());
            a.put("leaseId", m.get("leaseId").asText());
            a.put("status", status);
        }
        ObjectNode body = M.createObjectNode();
        body.set("acknowledgments", acks);
        if (group != null) {
            body.put("consumerGroup", group);
        }
        return body.toString();
    }

    /** Acks one popped message (its transactionId, partitionId and leaseId) with {@code status}. */
    public static JsonNode ack(JsonNode message, String status, String group, String error) {
        return ack(message.get("transactionId").asText(), message.get("partitionId").asText(),
                message.get("leaseId").asText(), status, group, error);
    }

    public static JsonNode ack(String txn, String pid, String lease, String status, String group, String error) {
        ObjectNode body = M.createObjectNode();
        body.put("transactionId", txn);
        body.put("partitionId", pid);
        if (lease != null) {
            body.put("leaseId", lease);
        }
        if (status != null) {
            body.put("status", status);
        }
        if (group != null) {
            body.put("consumerGroup", group);
        }
        if (error != null) {
            body.put("error", error);
        }
        Http.Reply r = Http.post("/api/v1/ack", body.toString());
        assertEquals(200, r.status(), r.body());
        return json(r.body()).get(0);
    }

    /**
     * A series from /metrics/prometheus ({@code name} or {@code name{label="v",...}}; 0 when absent); compare
     * deltas, the registry outlives one test class.
     */
    public static double metric(String series) {
        return samples(Http.get("/metrics/prometheus").body()).getOrDefault(series, 0.0);
    }

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\\{[^}]*\\})?) (\\S+)");

    /**
     * Every sample of a Prometheus exposition, by series ({@code name{label="v",...}} as written, without the
     * comma the text format 0.0.4 puts before the closing brace).
     */
    public static Map<String, Double> samples(String exposition) {
        Map<String, Double> out = new HashMap<>();
        for (String line : exposition.lines().toList()) {
            Matcher m = SAMPLE.matcher(line.replace(",}", "}"));
            if (!line.startsWith("#") && m.find()) {
                out.put(m.group(1), Double.parseDouble(m.group(2)));
            }
        }
        return out;
    }
}
