package io.queen.connector.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.TextNode;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Converts between application payloads and the JSON a Queen message carries.
 * <p>
 * Outgoing rules (documented in the README):
 * <ul>
 * <li>{@code null} → JSON {@code null}; a Jackson {@link JsonNode} → as is;</li>
 * <li>Vert.x {@link JsonObject} / {@link JsonArray} → their JSON;</li>
 * <li>{@code String}: when the whole string is one JSON value it is sent as that value (so {@code "{\"a\":1}"}
 * is an object and {@code "42"} a number); any other string is sent as a JSON string ({@code "hello"} →
 * {@code "hello"});</li>
 * <li>{@code byte[]} / Vert.x {@link Buffer}: must hold UTF-8 JSON, otherwise the message is nacked (there is no
 * safe guess for arbitrary bytes);</li>
 * <li>anything else → serialised with Jackson.</li>
 * </ul>
 * Incoming: without a target class, objects become {@link JsonObject}, arrays {@link JsonArray}, strings
 * {@code String}, numbers {@code Number}, booleans {@code Boolean} and JSON null {@code null}; with one, Jackson
 * maps the data onto it ({@code String} and {@code byte[]} targets receive the JSON text).
 * <p>
 * Thread-safe: Jackson mappers and readers are thread-safe once configured; this class holds no other state.
 */
public final class JsonPayloads {

    private final ObjectMapper mapper;
    private final ObjectReader strictReader;

    public JsonPayloads(ObjectMapper mapper) {
        this.mapper = mapper;
        // A string is only "already JSON" when nothing follows the first value ("1 2" is text, not the number 1).
        this.strictReader = mapper.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    public JsonNode toJson(Object payload) {
        if (payload == null) {
            return mapper.nullNode();
        }
        if (payload instanceof JsonNode node) {
            return node;
        }
        if (payload instanceof JsonObject o) {
            return parseOrThrow(o.encode());
        }
        if (payload instanceof JsonArray a) {
            return parseOrThrow(a.encode());
        }
        if (payload instanceof String s) {
            JsonNode parsed = tryParse(s);
            return parsed != null ? parsed : TextNode.valueOf(s);
        }
        if (payload instanceof byte[] bytes) {
            return parseOrThrow(new String(bytes, StandardCharsets.UTF_8));
        }
        if (payload instanceof Buffer buffer) {
            return parseOrThrow(buffer.toString(StandardCharsets.UTF_8));
        }
        return mapper.valueToTree(payload);
    }

    public Object fromJson(JsonNode data, Class<?> target) throws IOException {
        if (target == null || target == Object.class) {
            if (data == null || data.isNull() || data.isMissingNode()) {
                return null;
            }
            if (data.isObject()) {
                return new JsonObject(mapper.convertValue(data, Map.class));
            }
            if (data.isArray()) {
                return new JsonArray(mapper.convertValue(data, List.class));
            }
            if (data.isTextual()) {
                return data.asText();
            }
            if (data.isNumber()) {
                return data.numberValue();
            }
            if (data.isBoolean()) {
                return data.booleanValue();
            }
            return mapper.writeValueAsString(data);
        }
        if (target == String.class) {
            return data.isTextual() ? data.asText() : mapper.writeValueAsString(data);
        }
        if (target == byte[].class) {
            return mapper.writeValueAsBytes(data);
        }
        if (target == JsonObject.class) {
            return new JsonObject(mapper.convertValue(data, Map.class));
        }
        if (target == JsonArray.class) {
            return new JsonArray(mapper.convertValue(data, List.class));
        }
        if (JsonNode.class.isAssignableFrom(target)) {
            return data;
        }
        return mapper.treeToValue(data, target);
    }

    private JsonNode tryParse(String s) {
        String t = s.strip();
        if (t.isEmpty()) {
            return null;
        }
        try {
            return strictReader.readTree(t);
        } catch (IOException e) {
            return null;
        }
    }

    private JsonNode parseOrThrow(String s) {
        JsonNode n = tryParse(s);
        if (n == null) {
            throw new IllegalArgumentException("payload bytes are not JSON; Queen messages carry JSON");
        }
        return n;
    }
}
