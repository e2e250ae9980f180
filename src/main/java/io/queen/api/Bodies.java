package io.queen.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/** Request body parsing shared by every resource: one rule set for empty and invalid JSON (API spec 1.5). */
public final class Bodies {
    private Bodies() {
    }

    /** Parses a body that must be a JSON object. Empty -> 400 "Empty request body"; broken -> 400 {@link InvalidJson}. */
    public static JsonNode requireObject(ObjectMapper mapper, byte[] body) {
        if (body == null || body.length == 0 || isBlank(body)) {
            throw ApiException.badRequest("Empty request body");
        }
        return object(mapper, body);
    }

    /** Like {@link #requireObject} but an empty body counts as {@code {}}. */
    public static JsonNode objectOrEmpty(ObjectMapper mapper, byte[] body) {
        if (body == null || body.length == 0 || isBlank(body)) {
            return mapper.createObjectNode();
        }
        return object(mapper, body);
    }

    /** A field of a request body that must be a JSON array: absent or anything else is a 400 {@code message}. */
    public static JsonNode requiredArray(JsonNode body, String field, String message) {
        JsonNode v = body.get(field);
        if (v == null || !v.isArray()) {
            throw ApiException.badRequest(message);
        }
        return v;
    }

    /**
     * An optional string field of a request body: absent or JSON null is absent (null); any other non-string is a
     * 400 "{@code <field> must be a string}".
     */
    public static String optionalString(JsonNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw ApiException.badRequest(field + " must be a string");
        }
        return v.textValue();
    }

    /**
     * An optional integer field of a request body in [{@code min}, {@code max}]: absent or JSON null is {@code def};
     * anything else is a 400 "{@code <field> must be an integer between <min> and <max>}".
     */
    public static int optionalInt(JsonNode body, String field, int def, int min, int max) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return def;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt() || v.intValue() < min || v.intValue() > max) {
            throw ApiException.badRequest(field + " must be an integer between " + min + " and " + max);
        }
        return v.intValue();
    }

    private static JsonNode object(ObjectMapper mapper, byte[] body) {
        JsonNode node;
        try {
            node = mapper.readTree(body);
        } catch (JsonProcessingException e) {
            throw InvalidJson.of(e);
        } catch (IOException e) {
            throw ApiException.badRequest("Invalid JSON: unreadable body");
        }
        if (node == null || !node.isObject()) {
            throw ApiException.badRequest("Invalid JSON: the body must be a JSON object");
        }
        return node;
    }

    static boolean isBlank(byte[] body) {
        for (byte b : body) {
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return false;
            }
        }
        return true;
    }
}
