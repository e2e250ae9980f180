package io.queen.streams;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.testing.Api;
import io.queen.testing.Http;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The three /streams/v1 routes as the streaming SDK calls them, for tests (Jackson trees; thread-safe). */
final class StreamsApi {
    private StreamsApi() {
    }

    static String register(String base, String name, String source, String sink, String hash, boolean reset) {
        ObjectNode b = Api.M.createObjectNode();
        b.put("name", name).put("source_queue", source).put("config_hash", hash).put("reset", reset);
        if (sink != null) {
            b.put("sink_queue", sink);
        }
        Http.Reply r = Http.post(base, "/streams/v1/queries", b.toString());
        assertEquals(200, r.status(), r.body());
        return Api.json(r.body()).get("query_id").asText();
    }

    static String register(String name, String source, String sink, String hash) {
        return register(Http.base(), name, source, sink, hash, false);
    }

    /** A cycle body: state ops as key -> value (null = delete), sink items, ack of {@code count} (null = none). */
    static ObjectNode cycle(String queryId, String pid, String group, Map<String, JsonNode> state,
            List<ObjectNode> pushItems, String lease, Integer count, String lastTxn) {
        ObjectNode b = Api.M.createObjectNode();
        b.put("query_id", queryId).put("partition_id", pid).put("consumer_group", group);
        ArrayNode ops = b.putArray("state_ops");
        if (state != null) {
            state.forEach((k, v) -> {
                ObjectNode op = ops.addObject();
                op.put("type", v == null ? "delete" : "upsert").put("key", k);
                if (v != null) {
                    op.set("value", v);
                }
            });
        }
        ArrayNode items = b.putArray("push_items");
        if (pushItems != null) {
            pushItems.forEach(items::add);
        }
        if (lease == null) {
            b.putNull("ack");
        } else {
            ObjectNode a = b.putObject("ack");
            a.put("transactionId", lastTxn).put("leaseId", lease).put("status", "completed");
            if (count != null) {
                a.put("count", count);
            }
        }
        return b;
    }

    static Http.Reply post(String base, String path, JsonNode body) {
        return Http.post(base, path, body.toString());
    }

    static JsonNode commit(String base, JsonNode body) {
        Http.Reply r = post(base, "/streams/v1/cycle", body);
        return Api.json(r.body());
    }

    static JsonNode commit(JsonNode body) {
        return commit(Http.base(), body);
    }

    static Map<String, JsonNode> state(String base, String queryId, String pid) {
        ObjectNode b = Api.M.createObjectNode();
        b.put("query_id", queryId).put("partition_id", pid);
        Http.Reply r = post(base, "/streams/v1/state/get", b);
        assertEquals(200, r.status(), r.body());
        Map<String, JsonNode> out = new HashMap<>();
        for (JsonNode row : Api.json(r.body()).get("rows")) {
            out.put(row.get("key").asText(), row.get("value"));
        }
        return out;
    }

    static Map<String, JsonNode> state(String queryId, String pid) {
        return state(Http.base(), queryId, pid);
    }

    static ObjectNode item(String queue, String partition, String txn, JsonNode payload) {
        ObjectNode it = Api.M.createObjectNode();
        it.put("queue", queue).put("partition", partition);
        if (txn != null) {
            it.put("transactionId", txn);
        }
        it.set("payload", payload);
        return it;
    }

    static ObjectNode obj(String field, long value) {
        return Api.M.createObjectNode().put(field, value);
    }
}
