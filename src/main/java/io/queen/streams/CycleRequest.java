package io.queen.streams;

import io.queen.api.Bodies;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.queen.api.ApiException;
import io.queen.api.Input;
import io.queen.push.PushItem;
import io.queen.push.PushRequestParser;
import io.queen.queue.Names;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A validated {@code POST /streams/v1/cycle} body (API spec 5.1). Every rule that can be checked without the
 * database is checked here, so a bad request answers 400 before any SQL runs. Immutable.
 */
public record CycleRequest(UUID queryId, UUID partitionId, String group, List<StateOp> stateOps,
        List<PushItem> pushItems, Ack ack, boolean releaseLease) {

    /** {@code valueJson} is null for a delete. */
    public record StateOp(boolean upsert, String key, String valueJson) {
    }

    /** {@code count} null = the whole leased batch. */
    public record Ack(String transactionId, String leaseId, String status, Long count, String error) {
        boolean positive() {
            return status.equals("completed") || status.equals("success");
        }
    }

    static CycleRequest parse(JsonNode req, StreamsConfig limits, ObjectMapper mapper) {
        UUID query = uuid(req, "query_id");
        UUID pid = uuid(req, "partition_id");
        String group = Bodies.optionalString(req, "consumer_group");
        if (group == null || group.isEmpty()) {
            group = Names.QUEUE_MODE;
        } else {
            Input.name(group, "consumer_group");
        }
        List<StateOp> ops = stateOps(req.get("state_ops"), limits, mapper);
        List<PushItem> items = pushItems(req.get("push_items"), mapper);
        Ack ack = ack(req.get("ack"));
        JsonNode rl = req.get("release_lease");
        if (rl != null && !rl.isNull() && !rl.isBoolean()) {
            throw ApiException.badRequest("release_lease must be a boolean");
        }
        boolean release = rl == null || rl.isNull() || rl.booleanValue();
        return new CycleRequest(query, pid, group, ops, items, ack, release);
    }

    private static UUID uuid(JsonNode req, String field) {
        JsonNode v = req.get(field);
        if (v == null || v.isNull() || (v.isTextual() && v.textValue().isEmpty())) {
            throw ApiException.badRequest(field + " is required");
        }
        if (v.isTextual()) {
            try {
                return UUID.fromString(v.textValue());
            } catch (IllegalArgumentException e) {
                // answered below
            }
        }
        throw ApiException.badRequest(field + " must be a UUID");
    }

    /**
     * A state key as stored: {@link Input}'s rules (no NUL, no lone surrogate: two keys must never become one)
     * and at most {@link StreamsConfig#maxKeyBytes()} UTF-8 bytes. Shared by the cycle and the state read.
     */
    static String stateKey(String key, String field, StreamsConfig limits) {
        Input.check(key, field, Integer.MAX_VALUE);
        // a char is at most 3 UTF-8 bytes: only a long key needs encoding to be measured
        if (key.length() * 3L > limits.maxKeyBytes()
                && key.getBytes(StandardCharsets.UTF_8).length > limits.maxKeyBytes()) {
            throw ApiException.badRequest(field + " is longer than " + limits.maxKeyBytes() + " bytes (UTF-8)");
        }
        return key;
    }

    private static List<StateOp> stateOps(JsonNode arr, StreamsConfig limits, ObjectMapper mapper) {
        if (arr == null || arr.isNull()) {
            return List.of();
        }
        if (!arr.isArray()) {
            throw ApiException.badRequest("state_ops must be an array");
        }
        if (arr.size() > limits.maxStateOps()) {
            throw ApiException.badRequest("state_ops: at most " + limits.maxStateOps() + " ops per cycle");
        }
        List<StateOp> out = new ArrayList<>(arr.size());
        for (int i = 0; i < arr.size(); i++) {
            JsonNode op = arr.get(i);
            String at = "state_ops[" + i + "]";
            if (op == null || !op.isObject()) {
                throw ApiException.badRequest(at + " must be an object");
            }
            String type = op.hasNonNull("type") && op.get("type").isTextual() ? op.get("type").textValue() : null;
            boolean upsert = "upsert".equals(type);
            if (!upsert && !"delete".equals(type)) {
                throw ApiException.badRequest(at + ".type must be \"upsert\" or \"delete\"");
            }
            JsonNode k = op.get("key");
            if (k == null || !k.isTextual() || k.textValue().isEmpty()) {
                throw ApiException.badRequest(at + ".key must be a non-empty string");
            }
            String key = stateKey(k.textValue(), at + ".key", limits);
            String value = null;
            if (upsert) {
                JsonNode v = op.get("value");
                if (v == null || !v.isObject()) {
                    throw ApiException.badRequest(at + ".value must be a JSON object");
                }
                try {
                    value = mapper.writeValueAsString(v);
                } catch (JsonProcessingException e) {
                    throw ApiException.badRequest(at + ".value cannot be serialized: " + e.getOriginalMessage());
                }
                if (value.contains("\\u0000")) {
                    throw ApiException.badRequest(at + ".value must not contain NUL characters");
                }
                // a lone surrogate in a string of the value would be stored as '?'
                Input.check(value, at + ".value", Integer.MAX_VALUE);
            }
            out.add(new StateOp(upsert, key, value));
        }
        return out;
    }

    private static List<PushItem> pushItems(JsonNode arr, ObjectMapper mapper) {
        if (arr == null || arr.isNull()) {
            return List.of();
        }
        if (!arr.isArray()) {
            throw ApiException.badRequest("push_items must be an array");
        }
        List<PushItem> out = new ArrayList<>(arr.size());
        for (int i = 0; i < arr.size(); i++) {
            JsonNode it = arr.get(i);
            if (it == null || !it.isObject()) {
                throw ApiException.badRequest("push_items[" + i + "] must be an object");
            }
            JsonNode q = it.get("queue");
            if (q == null || !q.isTextual()) {
                throw ApiException.badRequest("Queue must be a string (push_items[" + i + "].queue)");
            }
            JsonNode payload = it.get("payload");
            byte[] bytes;
            try {
                bytes = payload == null ? null : mapper.writeValueAsBytes(payload);
            } catch (JsonProcessingException e) {
                throw ApiException.badRequest("push_items[" + i + "].payload cannot be serialized");
            }
            out.add(PushRequestParser.item(i, q.textValue(), pushText(it, i, "partition"),
                    pushText(it, i, "transactionId"), pushText(it, i, "traceId"), pushText(it, i, "traceparent"),
                    PushRequestParser.key(it, i), bytes));
        }
        return out;
    }

    private static String pushText(JsonNode it, int i, String field) {
        JsonNode v = it.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw ApiException.badRequest("push_items[" + i + "]." + field + " must be a string");
        }
        return v.textValue();
    }

    private static Ack ack(JsonNode a) {
        if (a == null || a.isNull()) {
            return null;
        }
        if (!a.isObject()) {
            throw ApiException.badRequest("ack must be an object or null");
        }
        String lease = Bodies.optionalString(a, "leaseId");
        if (lease == null || lease.isEmpty()) {
            throw ApiException.badRequest("ack.leaseId is required");
        }
        Input.token(lease, "ack.leaseId");
        String status = Input.token(Bodies.optionalString(a, "status"), "ack.status");
        status = status == null || status.isBlank() ? "completed" : status.toLowerCase();
        if (!List.of("completed", "success", "failed", "dlq", "retry").contains(status)) {
            throw ApiException.badRequest("ack.status must be completed, success, failed, dlq or retry");
        }
        Long count = null;
        JsonNode c = a.get("count");
        if (c != null && !c.isNull()) {
            if (!c.canConvertToLong() || !c.isIntegralNumber() || c.longValue() < 0) {
                throw ApiException.badRequest("ack.count must be a non-negative integer");
            }
            count = c.longValue();
        }
        String txn = Input.text(Bodies.optionalString(a, "transactionId"), "ack.transactionId");
        Ack ack = new Ack(txn, lease, status, count, Input.text(Bodies.optionalString(a, "error"), "ack.error"));
        if (!ack.positive() && (txn == null || txn.isEmpty())) {
            throw ApiException.badRequest("ack.transactionId is required for status " + status);
        }
        return ack;
    }
}
