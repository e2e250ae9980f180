package io.queen.connector.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** The documented payload rules. */
class JsonPayloadsTest {

    private final ObjectMapper mapper = new ObjectMapper();
    private final JsonPayloads payloads = new JsonPayloads(mapper);

    public record Order(String id, int qty) {
    }

    @Test
    void outgoing() {
        assertTrue(payloads.toJson(null).isNull());
        assertEquals("{\"a\":1}", payloads.toJson("{\"a\":1}").toString(), "a JSON string is sent as is");
        assertTrue(payloads.toJson("42").isNumber());
        JsonNode text = payloads.toJson("hello world");
        assertTrue(text.isTextual(), "other strings become JSON strings");
        assertEquals("hello world", text.asText());
        assertTrue(payloads.toJson("1 2").isTextual(), "trailing content: not one JSON value");
        assertEquals(1, payloads.toJson(new JsonObject().put("a", 1)).get("a").asInt());
        assertEquals(2, payloads.toJson(new JsonArray().add(1).add(2)).size());
        assertEquals("x", payloads.toJson(new Order("x", 3)).get("id").asText());
        assertEquals(7, payloads.toJson("{\"b\":7}".getBytes(StandardCharsets.UTF_8)).get("b").asInt());
        assertThrows(IllegalArgumentException.class, () -> payloads.toJson("plain".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void incoming() throws Exception {
        JsonNode obj = mapper.valueToTree(Map.of("id", "x", "qty", 3));
        assertEquals("x", ((JsonObject) payloads.fromJson(obj, null)).getString("id"));
        assertEquals(new Order("x", 3), payloads.fromJson(obj, Order.class));
        assertEquals("{\"id\":\"x\",\"qty\":3}".length(), ((String) payloads.fromJson(obj, String.class)).length());
        assertEquals("hi", payloads.fromJson(mapper.valueToTree("hi"), null));
        assertEquals(5, ((Number) payloads.fromJson(mapper.valueToTree(5), null)).intValue());
        assertNull(payloads.fromJson(mapper.nullNode(), null));
    }
}
