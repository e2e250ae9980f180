package io.queen.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * Writes JSON trees to responses as bytes. Resources build {@link JsonNode} trees (exact key names and types
 * the clients read) and answer through here, so no bean serializer ever sees a tree. Thread-safe.
 */
public final class Json {
    public static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    public static Response response(int status, JsonNode body) {
        try {
            return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(MAPPER.writeValueAsBytes(body))
                    .build();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize a JSON tree", e);
        }
    }

    public static Response ok(JsonNode body) {
        return response(200, body);
    }
}
