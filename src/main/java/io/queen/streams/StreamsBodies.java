package io.queen.streams;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.InvalidJson;
import io.queen.api.Json;
import jakarta.ws.rs.core.Response;
import java.io.IOException;

/** Body parsing and the {@code {success:false, error}} envelope shared by the streams routes. Stateless. */
final class StreamsBodies {
    private StreamsBodies() {
    }

    /** The body as a JSON object; anything else (empty, broken, not an object) is a 400 (API spec 5.1). */
    static JsonNode object(ObjectMapper mapper, byte[] body) {
        JsonNode node = null;
        if (body != null && body.length > 0) {
            try {
                node = mapper.readTree(body);
            } catch (JsonProcessingException e) {
                throw InvalidJson.of(e);
            } catch (IOException e) {
                node = null;
            }
        }
        if (node == null || !node.isObject()) {
            throw ApiException.badRequest("request body must be a JSON object");
        }
        return node;
    }

    /** A required, non-empty string field: else 400 "{field} is required". */
    static String required(JsonNode req, String field) {
        JsonNode v = req.get(field);
        if (v == null || !v.isTextual() || v.textValue().isEmpty()) {
            throw ApiException.badRequest(field + " is required");
        }
        return v.textValue();
    }

    static Response failure(int status, String error) {
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.put("success", false);
        out.put("error", error);
        return Json.response(status, out);
    }
}
