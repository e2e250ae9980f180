package io.queen.push;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.queen.api.ApiException;
import io.queen.api.InvalidJson;
import io.queen.api.JsonLimits;
import io.queen.queue.Names;
import io.queen.segment.Uuid7;
import io.queen.tracing.TraceParent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * Streams a {@code POST /api/v1/push} body into {@link PushItem}s without building a tree, slicing each payload
 * out of the request bytes so it is stored exactly as sent. Any invalid item rejects the whole request with a
 * 400 naming the field (nothing is written). Stateless, thread-safe.
 */
public final class PushRequestParser {
    private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);

    private final int maxItems;
    private final JsonFactory json;

    /** {@code maxBodyBytes}: the request body limit, which also bounds one string (a payload) in it. */
    public PushRequestParser(int maxItems, long maxBodyBytes) {
        this.maxItems = maxItems;
        this.json = JsonLimits.factory(maxBodyBytes);
    }

    public List<PushItem> parse(byte[] body) {
        if (body == null || body.length == 0) {
            throw ApiException.badRequest("Empty request body");
        }
        try (JsonParser p = json.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw ApiException.badRequest("Invalid JSON: the body must be a JSON object");
            }
            List<PushItem> items = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken t = p.nextToken();
                if ("items".equals(field)) {
                    if (t != JsonToken.START_ARRAY) {
                        throw ApiException.badRequest("items array is required");
                    }
                    items = parseItems(p, body);
                } else {
                    p.skipChildren();
                }
            }
            if (p.nextToken() != null) {
                throw ApiException.badRequest("Invalid JSON: trailing content after the body");
            }
            if (items == null) {
                throw ApiException.badRequest("items array is required");
            }
            return items;
        } catch (JsonProcessingException e) {
            throw InvalidJson.of(e);
        } catch (IOException e) {
            throw ApiException.badRequest("Invalid JSON: unreadable body");
        }
    }

    private List<PushItem> parseItems(JsonParser p, byte[] body) throws IOException {
        List<PushItem> items = new ArrayList<>();
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            int index = items.size();
            if (index >= maxItems) {
                throw ApiException.badRequest("items: at most " + maxItems + " items per push");
            }
            if (t != JsonToken.START_OBJECT) {
                throw ApiException.badRequest("items[" + index + "] must be an object");
            }
            items.add(parseItem(p, body, index));
        }
        return items;
    }

    private PushItem parseItem(JsonParser p, byte[] body, int index) throws IOException {
        String queue = null;
        String partition = null;
        String txn = null;
        String trace = null;
        String traceparent = null;
        String key = null;
        boolean queueSeen = false;
        byte[] payload = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            switch (field) {
                case "queue" -> {
                    queueSeen = true;
                    queue = stringOrNull(p, v, "Queue must be a string (", index, "queue)");
                }
                case "partition" -> partition = stringOrNull(p, v, "Partition must be a string (", index, "partition)");
                case "transactionId" ->
                    txn = stringOrNull(p, v, "TransactionId must be a string (", index, "transactionId)");
                case "traceId" -> trace = stringOrNull(p, v, "TraceId must be a string (", index, "traceId)");
                case "traceparent" ->
                    traceparent = stringOrNull(p, v, "traceparent must be a string (", index, "traceparent)");
                case "key" -> {
                    if (v != JsonToken.VALUE_NULL && v != JsonToken.VALUE_STRING) {
                        throw badKey(index);
                    }
                    key = v == JsonToken.VALUE_NULL ? null : p.getText();
                }
                case "payload" -> payload = rawValue(p, v, body);
                default -> p.skipChildren();
            }
        }
        if (!queueSeen || queue == null) {
            throw ApiException.badRequest("Queue must be a string (" + at(index) + "queue is required)");
        }
        return item(index, queue, partition, txn, trace, traceparent, key == null ? null : keyUtf8(key, index),
                payload);
    }

    /** Upper bound of a push item's {@code key} in UTF-8 bytes. */
    public static final int MAX_KEY_BYTES = 4096;

    /**
     * The item's {@code key} field of a JSON tree item (the transaction and stream-cycle wires) as its UTF-8 bytes;
     * null when absent or JSON null, a 400 naming {@code items[index].key} for anything else.
     */
    public static byte[] key(JsonNode item, int index) {
        JsonNode k = item.get("key");
        if (k == null || k.isNull()) {
            return null;
        }
        if (!k.isTextual()) {
            throw badKey(index);
        }
        return keyUtf8(k.textValue(), index);
    }

    /** A key's UTF-8 bytes: 1 to {@value #MAX_KEY_BYTES} of them, from well-formed UTF-16 (no lone surrogate). */
    private static byte[] keyUtf8(String key, int index) {
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (Character.isSurrogate(c)) {
                // the UTF-8 encoder would turn a lone surrogate into '?', merging distinct keys
                if (!Character.isHighSurrogate(c) || i + 1 == key.length()
                        || !Character.isLowSurrogate(key.charAt(++i))) {
                    throw badKey(index);
                }
            }
        }
        byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
        if (utf8.length == 0 || utf8.length > MAX_KEY_BYTES) {
            throw badKey(index);
        }
        return utf8;
    }

    private static ApiException badKey(int index) {
        return ApiException.badRequest("key must be a non-empty string of at most " + MAX_KEY_BYTES
                + " UTF-8 bytes (" + at(index) + "key)");
    }

    /**
     * Validates one item's fields and mints its message id (and its transaction id when absent). Shared with
     * the transaction wire. {@code payload} null means the JSON literal null; {@code traceparent} is a W3C trace
     * context (the producer's span), whose trace id becomes the message's {@code traceId}; {@code key} is the
     * message's key for log compaction (UTF-8, validated by the caller) or null.
     */
    public static PushItem item(int index, String queue, String partition, String txn, String trace,
            String traceparent, byte[] key, byte[] payload) {
        // the field paths ("items[3].queue") are built only for an error: a valid item allocates none of them
        if (!Names.isValidName(queue)) {
            Names.requireName(queue, at(index) + "queue");
        }
        if (partition == null) {
            partition = Names.DEFAULT_PARTITION;
        } else if (!Names.isValidName(partition)) {
            Names.requireName(partition, at(index) + "partition");
        }
        UUID traceId = null;
        if (trace != null && !trace.isEmpty()) {
            try {
                traceId = UUID.fromString(trace);
            } catch (IllegalArgumentException e) {
                throw ApiException.badRequest("TraceId must be a valid UUID (" + at(index) + "traceId)");
            }
        }
        TraceParent context = null;
        if (traceparent != null) {
            try {
                context = TraceParent.parse(traceparent);
            } catch (IllegalArgumentException e) {
                throw ApiException.badRequest("traceparent " + e.getMessage() + " (" + at(index) + "traceparent)");
            }
            if (traceId != null && !traceId.equals(context.traceId())) {
                throw ApiException.badRequest("traceId and traceparent name different traces (" + at(index)
                        + "traceparent)");
            }
        }
        UUID messageId = Uuid7.next();
        if (txn == null || txn.isEmpty()) {
            txn = messageId.toString();
        }
        byte[] txnUtf8 = Names.validTransactionIdUtf8(txn);
        if (txnUtf8 == null) {
            txnUtf8 = Names.requireTransactionId(txn, at(index) + "transactionId");
        }
        if (context != null) {
            return new PushItem(index, queue, partition, txn, txnUtf8, context.traceId(), messageId,
                    payload == null ? NULL : payload, false, null, false, context.spanId(), context.flags(), key);
        }
        return new PushItem(index, queue, partition, txn, txnUtf8, traceId, messageId, payload == null ? NULL : payload,
                false, null, false, 0, (byte) 0, key);
    }

    private static String at(int index) {
        return "items[" + index + "].";
    }

    /** The error message is {@code before + "items[i]." + after}, built only when the value is not a string. */
    private static String stringOrNull(JsonParser p, JsonToken v, String before, int index, String after)
            throws IOException {
        if (v == JsonToken.VALUE_NULL) {
            return null;
        }
        if (v != JsonToken.VALUE_STRING) {
            throw ApiException.badRequest(before + at(index) + after);
        }
        return p.getText();
    }

    /** The exact bytes of the current JSON value (object, array or scalar) as they appear in the body. */
    private static byte[] rawValue(JsonParser p, JsonToken v, byte[] body) throws IOException {
        int start = (int) p.currentTokenLocation().getByteOffset();
        if (v == JsonToken.START_OBJECT || v == JsonToken.START_ARRAY) {
            p.skipChildren();
        } else {
            p.finishToken();
        }
        int end = (int) p.currentLocation().getByteOffset();
        if (start < 0 || end > body.length || end <= start) {
            throw ApiException.badRequest("Invalid JSON: cannot locate the payload bytes");
        }
        return Arrays.copyOfRange(body, start, end);
    }
}
