package io.queen.ack;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.queen.api.ApiException;
import io.queen.api.Input;
import io.queen.api.Bodies;
import io.queen.queue.Names;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a {@code POST /api/v1/ack/batch} body with a streaming parser instead of a JSON tree: a batch acknowledges
 * up to thousands of messages, and a tree node with its own map per acknowledgment was most of the garbage an ack
 * made. Answers exactly what the tree-based reading answered, errors included: the whole body is read first and
 * validated afterwards in the same order (acknowledgments, then each item's fields, then consumerGroup); a body
 * that is not a well-formed JSON object is handed to {@link Bodies#requireObject}, which reports it as before.
 * Its field rules ({@link #text}, {@link #optional}, {@link #group}) also serve the routes that read a JSON tree
 * ({@link AckResource}, {@link TransactionResource}) through {@link #value}. Stateless, thread-safe.
 */
final class AckBatchParser {
    /** A field that was present with a value other than a string or null. */
    private static final Object NOT_A_STRING = new Object();

    record Batch(List<AckService.AckItem> items, String group) {
    }

    private AckBatchParser() {
    }

    static Batch parse(ObjectMapper mapper, byte[] body) {
        Raw raw;
        try {
            raw = read(mapper.getFactory(), body);
        } catch (IOException e) {
            raw = null;
        }
        if (raw == null) {
            Bodies.requireObject(mapper, body);   // throws the 400 the tree-based reading gave
            throw ApiException.badRequest("Invalid JSON");   // not reached: requireObject accepted no object
        }
        if (raw.acks == null) {
            throw ApiException.badRequest("acknowledgments array is required");
        }
        List<AckService.AckItem> items = new ArrayList<>(raw.acks.size());
        for (int i = 0; i < raw.acks.size(); i++) {
            Object[] a = raw.acks.get(i);
            String txn = text(a[0]);
            if (txn == null) {
                throw ApiException.badRequest("Each acknowledgment must have a valid transactionId string"
                        + " (acknowledgments[" + i + "].transactionId)");
            }
            String pid = text(a[1]);
            if (pid == null) {
                throw ApiException.badRequest("Each acknowledgment must have a valid partitionId string to ensure"
                        + " message uniqueness (acknowledgments[" + i + "].partitionId)");
            }
            checked(txn, i, "transactionId", Input.MAX_TEXT_CHARS);
            checked(pid, i, "partitionId", Input.MAX_TOKEN_CHARS);
            String status = checked(optional(a[2], "status"), i, "status", Input.MAX_TOKEN_CHARS);
            String lease = checked(optional(a[3], "leaseId"), i, "leaseId", Input.MAX_TOKEN_CHARS);
            String error = checked(optional(a[4], "error"), i, "error", Input.MAX_TEXT_CHARS);
            items.add(new AckService.AckItem(i, txn, pid, status, lease, error));
        }
        if (items.isEmpty()) {
            return new Batch(items, Names.QUEUE_MODE);
        }
        return new Batch(items, batchGroup(raw));
    }

    /**
     * The one consumer group a batch acknowledges for: the request's {@code consumerGroup}; without one, the group
     * the items name ({@code acknowledgments[i].consumerGroup}); null when none is named (each lease then names its
     * own group, queue mode without one: {@link AckService#acknowledge}). An item naming a different group
     * than the request or than an earlier item is a 400 naming that item: acking it for another group would answer
     * "Message not found" or move the wrong cursor.
     */
    private static String batchGroup(Raw raw) {
        String top = optional(raw.group, "consumerGroup");
        String batch = top == null || top.isEmpty() ? null : Input.name(top, "consumerGroup");
        int namedBy = -1;
        for (int i = 0; i < raw.acks.size(); i++) {
            String field = "acknowledgments[" + i + "].consumerGroup";
            Object v = raw.acks.get(i)[GROUP];
            if (v == null) {
                continue;
            }
            String g = optional(v, field);
            if (g.isEmpty()) {
                continue;
            }
            g = Input.name(g, field);
            if (batch == null) {
                batch = g;
                namedBy = i;
            } else if (!g.equals(batch)) {
                throw ApiException.badRequest(field + " '" + g + "' differs from " + (namedBy < 0
                        ? "the request's consumerGroup" : "acknowledgments[" + namedBy + "].consumerGroup") + " '"
                        + batch + "': one batch acknowledges for one consumer group");
            }
        }
        return batch;
    }

    /** {@link Input#check} with the field path built only for a rejected value. */
    private static String checked(String v, int i, String field, int max) {
        if (!Input.isValid(v, max)) {
            Input.check(v, "acknowledgments[" + i + "]." + field, max);
        }
        return v;
    }

    /** Field values of one acknowledgment, in this order. */
    private static final String[] FIELDS = {"transactionId", "partitionId", "status", "leaseId", "error",
        "consumerGroup"};
    private static final int GROUP = 5;

    private static final class Raw {
        List<Object[]> acks;      // null: absent or not an array
        Object group;
    }

    /** null when the body is not one JSON object (left to the tree-based reading to report). */
    private static Raw read(JsonFactory factory, byte[] body) throws IOException {
        if (body == null || body.length == 0) {
            return null;
        }
        try (JsonParser p = factory.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            Raw raw = new Raw();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken t = p.nextToken();
                if ("acknowledgments".equals(name)) {
                    raw.acks = t == JsonToken.START_ARRAY ? items(p) : null;
                    if (t != JsonToken.START_ARRAY) {
                        p.skipChildren();
                    }
                } else if ("consumerGroup".equals(name)) {
                    raw.group = value(p, t);
                } else {
                    p.skipChildren();
                }
            }
            return raw;
        }
    }

    private static List<Object[]> items(JsonParser p) throws IOException {
        List<Object[]> out = new ArrayList<>();
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            Object[] a = new Object[FIELDS.length];
            out.add(a);
            if (t != JsonToken.START_OBJECT) {
                p.skipChildren();   // not an object: every field absent, reported as a missing transactionId
                continue;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                int k = field(name);
                if (k < 0) {
                    p.skipChildren();
                } else {
                    a[k] = value(p, v);   // a repeated key: the last one wins, as in a tree
                }
            }
        }
        return out;
    }

    private static int field(String name) {
        for (int k = 0; k < FIELDS.length; k++) {
            if (FIELDS[k].equals(name)) {
                return k;
            }
        }
        return -1;
    }

    private static Object value(JsonParser p, JsonToken t) throws IOException {
        if (t == JsonToken.VALUE_STRING) {
            return p.getText();
        }
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        p.skipChildren();
        return NOT_A_STRING;
    }

    /** A tree value as this parser reads one: its text, null for absent or JSON null, or NOT_A_STRING. */
    static Object value(JsonNode v) {
        if (v == null || v.isNull()) {
            return null;
        }
        return v.isTextual() ? v.textValue() : NOT_A_STRING;
    }

    /** A required string: absent, null, empty or not a string all count as missing. */
    static String text(Object v) {
        return v instanceof String s && !s.isEmpty() ? s : null;
    }

    /** An optional string: absent or null is null; anything but a string is a 400 naming the field. */
    static String optional(Object v, String field) {
        if (v == NOT_A_STRING) {
            throw ApiException.badRequest(field + " must be a string");
        }
        return (String) v;
    }

    /** The consumer group an ack names, or null when it names none (absent, null or empty); not a string is a 400. */
    static String namedGroup(Object v) {
        String g = optional(v, "consumerGroup");
        return g == null || g.isEmpty() ? null : Input.name(g, "consumerGroup");
    }

    /** The consumer group an ack names: absent, null or empty is queue mode; not a string is a 400. */
    static String group(Object v) {
        String g = optional(v, "consumerGroup");
        return g == null || g.isEmpty() ? Names.QUEUE_MODE : Input.name(g, "consumerGroup");
    }
}
